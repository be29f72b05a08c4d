// What rocmtune owns on a kernel command line it edits in place (upstream GRUB's
// /etc/default/grub, BLS entries or grubby, /etc/kernel/cmdline). The record is
// plan::kCmdlineTokensState, one token a line:
//   iommu=pt                       rocmtune added it: unset/reset/revert remove it
//   iommu=pt replaced iommu=off    the admin had iommu=off there: rocmtune wrote its token in
//                                  that token's place and puts the admin's back, byte for byte
// A token the next boot already has with the wanted value is not written and not recorded: it
// stays the admin's, and nothing rocmtune does removes it.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace rocmtune::boot {

struct OwnedToken {
  std::string token;                    // what rocmtune wrote (KEY or KEY=VALUE)
  std::optional<std::string> replaced;  // the admin's token it took the place of
  bool operator==(const OwnedToken&) const = default;
};

inline constexpr std::string_view kReplacedWord = "replaced";

// Lines that are neither "TOKEN" nor "TOKEN replaced ORIGINAL" are read as one token (the
// helper refuses to write them, so only a hand edit makes one).
std::vector<OwnedToken> ParseTokensState(std::string_view content);
std::string TokensStateText(std::span<const OwnedToken> tokens);

// The last token of `key` before "--", spelled as it is; nullopt: none.
std::optional<std::string> LastToken(std::span<const std::string> tokens, std::string_view key);

}  // namespace rocmtune::boot
