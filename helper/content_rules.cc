// What may be written into a file: text at all, and for rocmtune's own files, exactly the
// grammar its backends render, with every value passing the same knowledge checks as a request.
#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>

#include "boot/cmdline_tokens.h"
#include "boot/grub_config.h"
#include "detect/pci_address.h"
#include "helper/allow_list.h"
#include "helper/rules.h"
#include "knobs/runtime_state.h"
#include "knobs/service_backend.h"
#include "knobs/sysfs_attributes.h"
#include "knowledge/catalog.h"
#include "knowledge/env_vars.h"
#include "util/text.h"

namespace rocmtune::helper {
namespace {

// Length of the UTF-8 sequence at s[i]; 0 when it is not valid UTF-8 (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF).
size_t Utf8Length(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  auto cont = [&](size_t k) { return (byte(k) & 0xc0u) == 0x80u; };
  unsigned b0 = byte(i), b1 = byte(i + 1);
  if (b0 < 0x80) return 1;
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(i + 1) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    bool ok = cont(i + 1) && cont(i + 2) && !(b0 == 0xe0 && b1 < 0xa0) && !(b0 == 0xed && b1 >= 0xa0);
    return ok ? 3 : 0;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    bool ok = cont(i + 1) && cont(i + 2) && cont(i + 3) && !(b0 == 0xf0 && b1 < 0x90) && !(b0 == 0xf4 && b1 >= 0x90);
    return ok ? 4 : 0;
  }
  return 0;
}

// The lines of an owned file. rocmtune renders printable ASCII, one item per line, each line
// ending in '\n'. A backslash is refused everywhere: libkmod joins a line ending in '\' with the
// next one, systemd's environment.d parser and sh treat it as an escape (even in comments for
// systemd), so it could make one parser see a line another does not.
Result<std::vector<std::string_view>> OwnedLines(std::string_view content) {
  if (!content.empty() && content.back() != '\n')
    return Refuse(rule::kOwnedGrammar, "the last line has no newline", ErrorCode::kInvalidData);
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < content.size()) {
    size_t nl = content.find('\n', start);
    std::string_view line = content.substr(start, nl - start);
    for (char c : line)
      if (c == '\\' || (c != '\t' && (c < 0x20 || c > 0x7e)))
        return Refuse(rule::kOwnedGrammar,
                      fmt::format("line {}: byte 0x{:02x} (only printable ASCII, no '\\')", lines.size() + 1,
                                  static_cast<unsigned char>(c)),
                      ErrorCode::kInvalidData);
    lines.push_back(line);
    start = nl + 1;
  }
  return lines;
}

bool IsCommentOrBlank(std::string_view line) { return text::Trim(line).empty() || line.front() == '#'; }

// One `options` line: only the modules rocmtune manages, only parameters the catalog knows, only
// values ValidateValue accepts (the same check a `set` gets). Any other modprobe.d command is
// refused: install/remove run programs as root, blacklist/alias change what loads.
Result<void> CheckModprobeLine(std::string_view line, size_t number) {
  static constexpr std::array<std::string_view, 3> kModules = {"amdgpu", "ttm", "amdttm"};
  std::vector<std::string_view> words = text::Tokens(line);
  if (words.front() != "options")
    return Refuse(rule::kOwnedGrammar,
                  fmt::format("line {}: '{}': only comments and `options` lines", number, words.front()));
  if (words.size() < 3)
    return Refuse(rule::kOwnedGrammar,
                  fmt::format("line {}: `options MODULE name=value...` needs a parameter", number));
  std::string_view module = words[1];
  if (std::find(kModules.begin(), kModules.end(), module) == kModules.end())
    return Refuse(rule::kOwnedGrammar,
                  fmt::format("line {}: options for '{}' (only amdgpu, ttm, amdttm)", number, module));
  for (size_t i = 2; i < words.size(); ++i) {
    size_t eq = words[i].find('=');
    if (eq == std::string_view::npos || eq == 0)
      return Refuse(rule::kModuleParam, fmt::format("line {}: '{}' is not name=value", number, words[i]));
    std::string_view name = words[i].substr(0, eq), value = words[i].substr(eq + 1);
    const knowledge::ModuleParam* param = knowledge::Catalog::Builtin().Find(module, name);
    if (!param)
      return Refuse(rule::kModuleParam,
                    fmt::format("line {}: {}.{} is not a parameter rocmtune knows", number, module, name));
    if (auto ok = knowledge::ValidateValue(*param, value); !ok)
      return Refuse(rule::kModuleParam, fmt::format("line {}: {}.{}: {}", number, module, name, ok.error().message));
  }
  return {};
}

// Characters that stay one literal word for sh (profile.d), for systemd's environment.d parser
// and for pam_env: no quotes, '$', '`', '\', whitespace, ';', '&', '|', '<', '>', '(', ')', '*',
// '?', '[', '~', '#', '{'. Every value the knowledge accepts fits (gfx names, N.N.N, id lists,
// key:value,key:value); CheckEnvValue alone lets ';' '|' '&' through for some checks.
bool IsShellSafe(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("._,:+-/=").find(c) != std::string_view::npos;
}

bool IsEnvName(std::string_view name) {
  if (name.empty() || (name.front() >= '0' && name.front() <= '9')) return false;
  for (char c : name)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

Result<void> CheckEnvAssignment(std::string_view assignment, size_t number) {
  size_t eq = assignment.find('=');
  std::string_view name = assignment.substr(0, eq);
  if (eq == std::string_view::npos || !IsEnvName(name))
    return Refuse(rule::kOwnedGrammar, fmt::format("line {}: not NAME=VALUE", number));
  std::string_view value = assignment.substr(eq + 1);
  const knowledge::EnvVar* var = knowledge::EnvVars::Builtin().Find(name);
  if (!var)
    return Refuse(rule::kEnvVariable, fmt::format("line {}: {} is not a variable rocmtune manages", number, name));
  for (char c : value)
    if (!IsShellSafe(c))
      return Refuse(rule::kShellSafe,
                    fmt::format("line {}: '{}' in the value of {} is not inert in a shell", number, c, name));
  if (std::string why = knowledge::CheckEnvValue(*var, value); !why.empty())
    return Refuse(rule::kEnvVariable, fmt::format("line {}: {}", number, why));
  return {};
}

// environment.d(5) lines are NAME=VALUE; profile.d lines the same behind `export `.
Result<void> CheckEnvFile(std::string_view content, std::string_view prefix) {
  auto lines = OwnedLines(content);
  if (!lines) return tl::unexpected(lines.error());
  for (size_t i = 0; i < lines->size(); ++i) {
    std::string_view line = (*lines)[i];
    if (IsCommentOrBlank(line)) continue;
    if (!line.starts_with(prefix))
      return Refuse(rule::kOwnedGrammar, fmt::format("line {}: only comments and `{}NAME=VALUE` lines", i + 1, prefix));
    if (auto ok = CheckEnvAssignment(line.substr(prefix.size()), i + 1); !ok) return ok;
  }
  return {};
}

}  // namespace

Result<void> CheckText(std::string_view content) {
  if (content.size() > kMaxContentBytes)
    return Refuse(rule::kContentText, fmt::format("{} bytes (at most {})", content.size(), kMaxContentBytes),
                  ErrorCode::kTooLarge);
  if (size_t nul = content.find('\0'); nul != std::string_view::npos)
    return Refuse(rule::kContentText, fmt::format("NUL byte at offset {}", nul), ErrorCode::kInvalidData);
  for (size_t i = 0; i < content.size();) {
    size_t n = Utf8Length(content, i);
    if (n == 0) return Refuse(rule::kContentText, fmt::format("not UTF-8 at offset {}", i), ErrorCode::kInvalidData);
    i += n;
  }
  return {};
}

Result<void> CheckModprobeDropIn(std::string_view content) {
  auto lines = OwnedLines(content);
  if (!lines) return tl::unexpected(lines.error());
  for (size_t i = 0; i < lines->size(); ++i)
    if (!IsCommentOrBlank((*lines)[i]))
      if (auto ok = CheckModprobeLine((*lines)[i], i + 1); !ok) return ok;
  return {};
}

Result<void> CheckEnvironmentDropIn(std::string_view content) { return CheckEnvFile(content, ""); }

Result<void> CheckProfileDropIn(std::string_view content) { return CheckEnvFile(content, "export "); }

// Byte for byte what RocmtuneDropIn renders (its header, then VAR="$VAR tokens"): any other
// shell in a file grub-mkconfig sources as root is refused, and every token must be one
// rocmtune may add.
Result<void> CheckGrubDropIn(std::string_view content) {
  for (std::string_view var : {boot::kGrubCmdlineLinuxDefault, boot::kGrubCmdlineLinux}) {
    auto tokens = boot::RocmtuneDropInTokens(content, var);
    if (!tokens) continue;
    for (const std::string& token : *tokens)
      if (auto ok = CheckAddedToken(token); !ok) return ok;
    return {};
  }
  return Refuse(rule::kGrubDropInShape,
                "not the drop-in rocmtune renders (its comment, then GRUB_CMDLINE_LINUX[_DEFAULT]=\"$VAR tokens\")");
}

Result<void> CheckPpdDropIn(std::string_view content) {
  auto command = knobs::PpdDropInCommand(content);
  if (!command)
    return Refuse(rule::kServiceDropIn,
                  "not the drop-in rocmtune renders (its comment, [Service], ExecStart=, ExecStart=... "
                  "--block-action=amdgpu_dpm)");
  if (!knobs::KnownPpdProgram((*command)[0]))
    return Refuse(rule::kServiceDropIn, fmt::format("'{}' is not a power-profiles-daemon binary", (*command)[0]));
  for (size_t i = 1; i < command->size(); ++i)
    if (!knobs::PlainOption((*command)[i]))
      return Refuse(rule::kServiceDropIn, fmt::format("'{}' is not a plain option", (*command)[i]));
  return {};
}

// var/lib/rocmtune/cmdline-tokens: comments and one token per line. Whatever is listed here
// rocmtune later removes from the command line, so each must be one it could have added.
Result<void> CheckTokensState(std::string_view content) {
  auto lines = OwnedLines(content);
  if (!lines) return tl::unexpected(lines.error());
  for (size_t i = 0; i < lines->size(); ++i) {
    std::string_view line = (*lines)[i];
    if (IsCommentOrBlank(line)) continue;
    // "TOKEN", or "TOKEN replaced ORIGINAL": ORIGINAL is the admin's token that TOKEN took the
    // place of, and that an unset writes back, so it is held to the same rule as TOKEN.
    std::vector<std::string_view> words = text::Tokens(line);
    bool replaced = words.size() == 3 && words[1] == "replaced";
    if ((words.size() != 1 && !replaced) || text::Trim(line) != line)
      return Refuse(rule::kOwnedGrammar, fmt::format("line {}: one token per line, or TOKEN replaced ORIGINAL", i + 1));
    if (auto ok = CheckAddedToken(words[0]); !ok) return ok;
    if (!replaced) continue;
    if (!boot::SameKey(boot::TokenKey(words[0]), boot::TokenKey(words[2])) || words[0] == words[2])
      return Refuse(rule::kOwnedGrammar,
                    fmt::format("line {}: a token replaces another value of the same option", i + 1));
    if (auto ok = CheckAddedToken(words[2]); !ok) return ok;
  }
  return {};
}

// var/lib/rocmtune/runtime-settings: comments and "DEVICE ATTRIBUTE VALUE BEFORE" lines. A reset
// writes BEFORE into the attribute and the daemon writes VALUE: each must be a value the
// attribute could take (a fixed list, or a profile name), on a device named by its PCI address.
Result<void> CheckRuntimeState(std::string_view content) {
  auto lines = OwnedLines(content);
  if (!lines) return tl::unexpected(lines.error());
  for (size_t i = 0; i < lines->size(); ++i) {
    std::string_view line = (*lines)[i];
    if (IsCommentOrBlank(line)) continue;
    std::vector<std::string_view> words = text::Tokens(line);
    if (words.size() != 4 || text::Trim(line) != line)
      return Refuse(rule::kOwnedGrammar, fmt::format("line {}: DEVICE ATTRIBUTE VALUE BEFORE", i + 1));
    // The device names a directory under /sys/bus/pci/devices: one address in the kernel's form.
    auto pci = detect::ParsePciAddress(words[0]);
    if (!pci || pci->ToString() != words[0])
      return Refuse(rule::kOwnedGrammar, fmt::format("line {}: not a PCI address", i + 1));
    const knobs::SysfsAttribute* attr = knobs::FindSysfsAttribute(words[1]);
    if (!attr) return Refuse(rule::kSysfsAttribute, fmt::format("line {}: not a managed attribute", i + 1));
    auto fixed = attr->codec->FixedValues();
    for (std::string_view v : {words[2], words[3]}) {
      bool ok = fixed.empty() ? knobs::IsRuntimeWord(v) : std::find(fixed.begin(), fixed.end(), v) != fixed.end();
      if (!ok)
        return Refuse(rule::kSysfsValue, fmt::format("line {}: '{}' is not a value {} takes", i + 1, v, words[1]));
    }
  }
  return {};
}

}  // namespace rocmtune::helper
