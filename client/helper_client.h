// Runs rocmtune-helper for verbs that change something (no daemon yet, or --root): the plan
// goes to its stdin, its one JSON reply comes back.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/context.h"
#include "plan/helper_status.h"
#include "plan/plan.h"
#include "util/result.h"

namespace rocmtune::client {

struct HelperReply {
  int exit_code = 1;
  plan::HelperStatus status = plan::HelperStatus::kFailed;
  std::string transaction;
  std::string initramfs = "no", bootloader = "no";
  std::vector<std::string> messages;
  std::vector<std::string> recovered;
};

// The helper binary: $ROCMTUNE_HELPER, the build tree's when rocmtunectl runs from the build
// tree, else the installed one (libexec).
std::string HelperPath();

Result<HelperReply> RunHelper(const Context& ctx, const plan::Plan& plan, bool force);
Result<HelperReply> RunHelperRecover(const Context& ctx);

}  // namespace rocmtune::client
