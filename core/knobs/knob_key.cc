#include "knobs/knob_key.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace rocmtune::knobs {
namespace {

constexpr std::string_view kForms =
    "amdgpu.PARAM, ttm.PARAM, amdttm.PARAM, cmdline.OPTION, sysfs.<cardN|PCI-slot|all>.ATTRIBUTE, env.VARIABLE "
    "or service.SERVICE.ACTION";

bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; }

bool ValidName(std::string_view s, bool allow_dots) {
  if (s.empty() || s.size() > 128) return false;
  for (char c : s)
    if (!IsNameChar(c) || (!allow_dots && c == '.')) return false;
  return true;
}

bool ValidEnvName(std::string_view s) {
  if (s.empty() || s.size() > 128 || std::isdigit(static_cast<unsigned char>(s.front()))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

tl::unexpected<Error> Bad(std::string_view text, std::string_view why) {
  return Fail(ErrorCode::kInvalidArgument, fmt::format("'{}' is not a knob key: {} (forms: {})", text, why, kForms));
}

}  // namespace

std::string KnobKey::Text() const {
  switch (kind) {
    case KnobKind::kModuleParam: return fmt::format("{}.{}", module, name);
    case KnobKind::kCmdline: return fmt::format("cmdline.{}", name);
    case KnobKind::kSysfs: return fmt::format("sysfs.{}.{}", target, name);
    case KnobKind::kEnv: return fmt::format("env.{}", name);
    case KnobKind::kService: return fmt::format("service.{}.{}", module, name);
  }
  return name;
}

Result<KnobKey> ParseKnobKey(std::string_view text) {
  size_t dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 >= text.size()) return Bad(text, "no '.'");
  std::string_view head = text.substr(0, dot);
  std::string_view rest = text.substr(dot + 1);
  KnobKey key;
  if (head == "amdgpu" || head == "ttm" || head == "amdttm") {
    if (!ValidName(rest, false)) return Bad(text, "a parameter name is letters, digits, '_' and '-'");
    key.kind = KnobKind::kModuleParam;
    key.module = std::string(head);
    key.name = std::string(rest);
    for (char& c : key.name)
      if (c == '-') c = '_';  // the kernel treats '-' and '_' in parameter names alike
    return key;
  }
  if (head == "cmdline") {
    if (!ValidName(rest, true)) return Bad(text, "a kernel option name is letters, digits, '_', '-' and '.'");
    key.kind = KnobKind::kCmdline;
    key.name = std::string(rest);
    return key;
  }
  if (head == "sysfs") {
    size_t last = rest.rfind('.');
    // PCI slots contain a '.', so the attribute is after the last dot.
    if (last == std::string_view::npos || last == 0 || last + 1 >= rest.size())
      return Bad(text, "sysfs keys are sysfs.<cardN|PCI-slot|all>.ATTRIBUTE");
    key.kind = KnobKind::kSysfs;
    key.target = std::string(rest.substr(0, last));
    key.name = std::string(rest.substr(last + 1));
    bool target_ok = key.target == "all" || (key.target.starts_with("card") && ValidName(key.target, false)) ||
                     (key.target.size() == 12 && key.target[4] == ':' && key.target[7] == ':' &&
                      key.target[10] == '.' && std::all_of(key.target.begin(), key.target.end(), [](char c) {
                        return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
                      }));
    if (!target_ok || !ValidName(key.name, false))
      return Bad(text, "the target is cardN, a PCI slot (0000:03:00.0) or all; the attribute a sysfs name");
    return key;
  }
  if (head == "env") {
    if (!ValidEnvName(rest)) return Bad(text, "an environment variable is letters, digits and '_'");
    key.kind = KnobKind::kEnv;
    key.name = std::string(rest);
    return key;
  }
  if (head == "service") {
    // service.SERVICE.ACTION; which ones exist is the service backend's to say (a clear refusal
    // there, not "not a key" here).
    size_t last = rest.rfind('.');
    if (last == std::string_view::npos || last == 0 || last + 1 >= rest.size() ||
        !ValidName(rest.substr(0, last), false) || !ValidName(rest.substr(last + 1), false))
      return Bad(text, "service keys are service.SERVICE.ACTION (service.power-profiles-daemon.amdgpu_dpm)");
    key.kind = KnobKind::kService;
    key.module = std::string(rest.substr(0, last));
    key.name = std::string(rest.substr(last + 1));
    return key;
  }
  return Bad(text, fmt::format("unknown prefix '{}'", head));
}

Result<Assignment> ParseAssignment(std::string_view text) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos)
    return Fail(ErrorCode::kInvalidArgument, fmt::format("'{}': expected KEY=VALUE", text));
  auto key = ParseKnobKey(text.substr(0, eq));
  if (!key) return tl::unexpected(key.error());
  return Assignment{std::move(*key), std::string(text.substr(eq + 1))};
}

}  // namespace rocmtune::knobs
