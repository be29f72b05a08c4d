#include "sys/log_match.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "sys/system_log.h"

namespace rocmtune::sys {

namespace {

bool ContainsNoCase(std::string_view hay, std::string_view needle) {
  auto same = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  };
  return std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), same) != hay.end();
}

}  // namespace

bool KernelLineMatters(std::string_view message) {
  // Lower-case needles, matched without case: "KFD" in "Failed to quiesce KFD", "PASID" in
  // "Evicting PASID 1 queues" (tests/fixtures/faults/PROVENANCE.md).
  static constexpr std::array<std::string_view, 6> kNeedles = {"amdgpu", "kfd", "[drm", "gfxhub", "gmc_v", "pasid"};
  // "mmhub" lines carry "amdgpu" too; "amdkfd" and "kfd2kgd" contain "kfd".
  return std::any_of(kNeedles.begin(), kNeedles.end(), [&](std::string_view n) { return ContainsNoCase(message, n); });
}

bool ServiceLineMatters(std::string_view message) {
  static constexpr std::array<std::string_view, 6> kNeedles = {"Memory access fault by GPU",
                                                               "HW Exception by GPU",
                                                               "HSA_STATUS_ERROR",
                                                               "hipError",
                                                               "MES failed",
                                                               "TensileLibrary"};
  return std::any_of(kNeedles.begin(), kNeedles.end(),
                     [&](std::string_view n) { return message.find(n) != std::string_view::npos; });
}

std::string BoundMessage(std::string_view message) {
  if (message.size() > kMaxMessageBytes) {
    size_t cut = kMaxMessageBytes;
    // Back off continuation bytes (10xxxxxx) so a multi-byte character (at most 4 bytes) is not
    // split; binary that is all continuation bytes is cut where it is.
    for (int i = 0; i < 3 && (static_cast<unsigned char>(message[cut]) & 0xC0) == 0x80; ++i) --cut;
    message = message.substr(0, cut);
  }
  std::string out(message);
  std::replace(out.begin(), out.end(), '\0', ' ');
  return out;
}

}  // namespace rocmtune::sys
