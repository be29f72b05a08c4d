// The changing methods — Apply, Set, Unset, Revert, Reset, Reapply, CancelTrial: arguments read on the loop, then the
// core's change runs on the change worker with the helper socket as its writer and polkit asked
// by the writer (so a change that changes nothing never asks). A request with options.check runs
// at once on the loop: it writes nothing (it may only have the helper read a root-only ESP).
#pragma once

#include <systemd/sd-bus.h>

#include <optional>
#include <string>

#include "api/writer.h"
#include "daemon/boot_files_cache.h"
#include "daemon/manager.h"

namespace rocmtune::daemon {

int ApplyMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret);
int SetMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret);
int UnsetMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret);
int RevertMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret);
int ResetMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret);
int ReapplyMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret);
int CancelTrialMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret);

// A writer for requests that must never write (checks, Plan, the plan polkit is asked about). It
// may still give the planner the boot loader's files on a root-only ESP (a systemd-boot trial
// copies an entry from there): from what the daemon keeps (daemon/boot_files_cache.h), read
// again by the helper only for `admitted` callers (root) or at the cache's own bounded rate.
class CheckOnlyWriter final : public api::Writer {
 public:
  CheckOnlyWriter(BootFilesCache& boot_files, bool admitted) : boot_files_(boot_files), admitted_(admitted) {}
  Result<void> MayWrite(const sys::Root&) const override;
  Result<plan::HelperReply> Apply(const plan::Plan&, bool) override;
  Result<plan::HelperReply> Recover() override;
  Result<std::optional<sys::RootSupplement>> ReadBootFiles(const sys::Root& root) const override;

 private:
  BootFilesCache& boot_files_;
  bool admitted_ = false;
};

}  // namespace rocmtune::daemon
