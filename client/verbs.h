// The verb table: one function per verb, each returning an exit code (client/exit_codes.h).
#pragma once

#include <string>
#include <vector>

#include "client/change.h"
#include "client/context.h"

namespace rocmtune::client {

int RunStatus(const Context& ctx);
int RunSnapshot(const Context& ctx, const std::string& out_dir);
int RunSet(const Context& ctx, const std::vector<std::string>& assignments, const ChangeOptions& options);
int RunUnset(const Context& ctx, const std::vector<std::string>& keys, const ChangeOptions& options);
int RunRevert(const Context& ctx, const std::string& id, const ChangeOptions& options);
int RunApply(const Context& ctx, const std::string& profile, const std::vector<std::string>& with_optional,
             const ChangeOptions& options);
int RunReset(const Context& ctx, const ChangeOptions& options);
int RunHistory(const Context& ctx);
int RunVerify(const Context& ctx);
int RunExplain(const Context& ctx, const std::string& key);
int RunProfiles(const Context& ctx);
int RunShow(const Context& ctx, const std::string& name, const std::vector<std::string>& with_optional);

}  // namespace rocmtune::client
