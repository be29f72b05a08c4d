// The changing methods — Apply, Set, Unset, Revert, Reset: arguments read on the loop, then the
// core's change runs on the change worker with the helper socket as its writer and polkit asked
// by the writer (so a change that changes nothing never asks). A request with options.check runs
// at once on the loop: it never reaches a writer.
#pragma once

#include <systemd/sd-bus.h>

#include "api/writer.h"
#include "daemon/manager.h"

namespace rocmtune::daemon {

int ApplyMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret);
int SetMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret);
int UnsetMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret);
int RevertMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret);
int ResetMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret);

// A writer for requests that must never reach one (checks, Plan).
class CheckOnlyWriter final : public api::Writer {
 public:
  Result<void> MayWrite(const sys::Root&) const override;
  Result<plan::HelperReply> Apply(const plan::Plan&, bool) override;
  Result<plan::HelperReply> Recover() override;
};

}  // namespace rocmtune::daemon
