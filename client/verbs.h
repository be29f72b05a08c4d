// The verb table: one function per verb, each returning an exit code (client/exit_codes.h).
#pragma once

#include <string>

#include "client/context.h"

namespace rocmtune::client {

int RunStatus(const Context& ctx);
int RunSnapshot(const Context& ctx, const std::string& out_dir);

}  // namespace rocmtune::client
