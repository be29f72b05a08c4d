#include "daemon/bus_options.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace rocmtune::daemon {
namespace {

constexpr size_t kMaxWith = 64;

// `problem` says what was expected, as the caller will read it.
Result<void> Check(int r, std::string_view problem) {
  if (r >= 0) return {};
  return Fail(ErrorCode::kInvalidArgument, fmt::format("options: {}", problem), -r);
}

Result<bool> ReadBool(sd_bus_message* call, std::string_view key) {
  if (auto ok = Check(sd_bus_message_enter_container(call, 'v', "b"), fmt::format("'{}' must be a boolean (b)", key));
      !ok)
    return tl::unexpected(ok.error());
  int value = 0;
  if (auto ok = Check(sd_bus_message_read(call, "b", &value), fmt::format("cannot read '{}'", key)); !ok)
    return tl::unexpected(ok.error());
  if (auto ok = Check(sd_bus_message_exit_container(call), fmt::format("'{}' holds more than one value", key)); !ok)
    return tl::unexpected(ok.error());
  return value != 0;
}

Result<std::vector<std::string>> ReadStrings(sd_bus_message* call, std::string_view key) {
  if (auto ok = Check(sd_bus_message_enter_container(call, 'v', "as"),
                      fmt::format("'{}' must be a list of strings (as)", key));
      !ok)
    return tl::unexpected(ok.error());
  char** strv = nullptr;
  if (auto ok = Check(sd_bus_message_read_strv(call, &strv), fmt::format("cannot read '{}'", key)); !ok)
    return tl::unexpected(ok.error());
  std::vector<std::string> out;
  for (char** s = strv; s && *s; ++s) {
    out.emplace_back(*s);
    free(*s);  // NOLINT(cppcoreguidelines-no-malloc): sd_bus_message_read_strv's allocation
  }
  free(strv);  // NOLINT(cppcoreguidelines-no-malloc)
  if (auto ok = Check(sd_bus_message_exit_container(call), fmt::format("'{}' holds more than one value", key)); !ok)
    return tl::unexpected(ok.error());
  if (out.size() > kMaxWith)
    return Fail(ErrorCode::kInvalidArgument, fmt::format("options: '{}' lists more than {} items", key, kMaxWith));
  return out;
}

}  // namespace

Result<BusOptions> ReadOptions(sd_bus_message* call, std::initializer_list<std::string_view> allowed) {
  BusOptions out;
  std::vector<std::string> seen;
  if (auto ok = Check(sd_bus_message_enter_container(call, 'a', "{sv}"), "must be a dictionary (a{sv})"); !ok)
    return tl::unexpected(ok.error());
  for (;;) {
    int r = sd_bus_message_enter_container(call, 'e', "sv");
    if (auto ok = Check(r, "each entry must be a name and a variant ({sv})"); !ok) return tl::unexpected(ok.error());
    if (r == 0) break;
    const char* key_raw = nullptr;
    if (auto ok = Check(sd_bus_message_read(call, "s", &key_raw), "an option name must be a string"); !ok)
      return tl::unexpected(ok.error());
    const std::string key(key_raw);
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string names;
      for (std::string_view a : allowed) names += fmt::format("{}{}", names.empty() ? "" : ", ", a);
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("options: unknown option '{}' (this method takes: {})", key, names));
    }
    // The bus lets a dictionary repeat a key; readers differ on which one counts (a GVariant
    // lookup takes the first, a Python dict the last), so `check` then no `check` could be
    // shown as a check and run as a change. Refused, not resolved.
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      return Fail(ErrorCode::kInvalidArgument, fmt::format("options: '{}' is given more than once", key));
    seen.push_back(key);
    if (key == kOptionWith) {
      auto with = ReadStrings(call, key);
      if (!with) return tl::unexpected(with.error());
      out.with = std::move(*with);
    } else {
      auto value = ReadBool(call, key);
      if (!value) return tl::unexpected(value.error());
      (key == kOptionForce        ? out.force
       : key == kOptionCheck      ? out.check
       : key == kOptionAdminLines ? out.admin_lines
                                  : out.trial) = *value;
    }
    if (auto ok = Check(sd_bus_message_exit_container(call), fmt::format("'{}' holds more than one value", key)); !ok)
      return tl::unexpected(ok.error());
  }
  if (auto ok = Check(sd_bus_message_exit_container(call), "must be a dictionary (a{sv})"); !ok)
    return tl::unexpected(ok.error());
  return out;
}

}  // namespace rocmtune::daemon
