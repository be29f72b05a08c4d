// The `a{sv}` options of Plan/Apply/Set: untrusted input. Each key has one type; an unknown key,
// a wrong type or a key given twice is an InvalidArgument naming it, never ignored or resolved
// (a typo or a repeated `check` must not turn a check into a real change).
#pragma once

#include <systemd/sd-bus.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace rocmtune::daemon {

inline constexpr std::string_view kOptionWith = "with";    // as: optional profile items
inline constexpr std::string_view kOptionForce = "force";  // b: overwrite drift, apply a non-fitting profile
inline constexpr std::string_view kOptionCheck = "check";  // b: plan only
// b: Set/Unset also comment out the admin's lines that set the keys (knobs/admin_lines.h)
inline constexpr std::string_view kOptionAdminLines = "admin_lines";
// b: Apply/Set/Unset try the boot-affecting part in one boot first (api/trial.h)
inline constexpr std::string_view kOptionTrial = "trial";

struct BusOptions {
  std::vector<std::string> with;
  bool force = false;
  bool check = false;
  bool admin_lines = false;
  bool trial = false;
};

// Reads the next argument of `call`, an a{sv}, accepting only the keys in `allowed`.
Result<BusOptions> ReadOptions(sd_bus_message* call, std::initializer_list<std::string_view> allowed);

}  // namespace rocmtune::daemon
