// `verify`: is what rocmtune configured what the system runs, and do rocmtune's files still
// hold what it wrote? Any difference makes the CLI exit 6 (rocmtunectl(1), EXIT STATUS).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "api/system.h"

namespace rocmtune::api {

struct Difference {
  // "pending-reboot", "not-running", "drift", "unreadable", "sysfs", "profile", "overridden",
  // "interrupted", "pending-regeneration", "leftover-temporary", "initramfs" (rocmtunectl(1) "VERIFY")
  std::string kind;
  std::string subject;
  std::optional<std::string> configured, running;
  std::string message;
};

struct VerifyReport {
  std::string active_profile;  // empty when none
  std::vector<Difference> differences;
  bool ok() const { return differences.empty(); }
};

VerifyReport Verify(const System& system);

nlohmann::ordered_json VerifyJson(const VerifyReport& report);

}  // namespace rocmtune::api
