// Kernel command-line tokens: splitting as the kernel does, looking a parameter up, and editing
// a command line (a vector of tokens, text that holds one, a BLS entry, /etc/kernel/cmdline)
// while keeping every other token, its spelling and its order. Nothing here writes a file.
//
// Kernel rules modelled (lib/cmdline.c next_arg(), kernel/params.c parse_args()/parameq()):
//  - tokens are separated by isspace() characters outside double quotes; `foo="a b"` is one token;
//  - a key ends at the first '='; '-' and '_' in keys are the same character;
//  - a bare "--" ends the kernel's parameters: what follows goes to init, so lookups ignore it
//    and new tokens are inserted before it.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace rocmtune::boot {

std::vector<std::string> SplitCmdline(std::string_view cmdline);

// Where each token before a bare "--" begins and ends in `cmdline` (byte offsets, end exclusive):
// the tokens SplitCmdline gives, for callers that must say where a token was written.
struct TokenSpan {
  size_t begin = 0;
  size_t end = 0;
};
std::vector<TokenSpan> KernelTokenSpans(std::string_view cmdline);

// A token where it is written: the file (root-relative, "proc/cmdline" for the running command
// line) and the 1-based line that carries it.
struct CmdlineTokenAt {
  std::string file;
  int line = 0;
  std::string token;
};
std::string JoinCmdline(std::span<const std::string> tokens);

// The key of a token ("iommu=pt" -> "iommu", "quiet" -> "quiet"), and whether two keys name
// the same parameter ('-' == '_').
std::string_view TokenKey(std::string_view token);
bool SameKey(std::string_view a, std::string_view b);
// A key as the knowledge spells it, '-' written '_': the kernel compares parameter names with
// '-' and '_' equal (parameq()), so "amd-iommu=on" is looked up, and refused, as "amd_iommu=on".
std::string UnderscoredKey(std::string_view key);

// Value of the last `key` before "--" (later parameters override earlier ones for most
// parameters); "" for a bare flag; surrounding double quotes removed as the kernel does.
std::optional<std::string> TokenValue(std::span<const std::string> tokens, std::string_view key);

// Replaces the last occurrence of `key` in place, or inserts `key[=value]` at the end (before
// "--"). nullopt value: a bare flag. Returns whether the tokens changed.
bool AddOrReplaceToken(std::vector<std::string>& tokens, std::string_view key, std::optional<std::string_view> value);
// Removes every `key` before "--" (with `value`: only tokens carrying exactly that value).
// Returns how many were removed.
size_t RemoveToken(std::vector<std::string>& tokens, std::string_view key,
                   std::optional<std::string_view> value = std::nullopt);

// Validation of what rocmtune writes. A key is [A-Za-z0-9_.-]{1,256}; a value is at most 256
// bytes with no whitespace, control character, quote, '$', '`', ';', '&', '|', '<', '>' or '\'
// (so it is inert in a shell word, a GRUB script and a BLS entry). A token is KEY or KEY=VALUE.
Result<void> ValidateKey(std::string_view key);
Result<void> ValidateValue(std::string_view value);
Result<void> ValidateToken(std::string_view token);

// Edits a command line held in text (a GRUB variable's value, a BLS `options` value,
// /etc/kernel/cmdline): removes every token whose key is in `remove_keys`, then adds or replaces
// each of `add_tokens` (KEY or KEY=VALUE, validated). Every byte outside the touched tokens is
// kept: other tokens, their spacing, quotes, a trailing newline.
Result<std::string> EditCmdlineText(std::string_view text, std::span<const std::string> add_tokens,
                                    std::span<const std::string> remove_keys);

// Boot Loader Specification entry (boot/loader/entries/*.conf): edits the `options` line(s)
// (removals in every options line; an existing key is replaced where it is, a new token goes at
// the end of the last options line; no options line: one is appended). Tokens starting with '$'
// (GRUB variables such as $tuned_params) are kept; an entry whose options use $kernelopts (the
// command line then lives in grubenv) is refused.
Result<std::string> SetBlsOptions(std::string_view entry_content, std::span<const std::string> add_tokens,
                                  std::span<const std::string> remove_keys);

// /etc/kernel/cmdline (kernel-install, systemd-boot/UKI): the whole file is one command line.
Result<std::string> SetKernelCmdlineFile(std::string_view content, std::span<const std::string> add_tokens,
                                         std::span<const std::string> remove_keys);

}  // namespace rocmtune::boot
