// The one way a front end's change reaches rocmtune-helper: the CLI runs the helper itself
// (no daemon, --root, chroots), the daemon through its socket. Core decides what to write and
// what the reply means; the writer only carries the plan there and the reply back.
#pragma once

#include <optional>

#include "plan/helper_status.h"
#include "plan/plan.h"
#include "plan/publish.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::api {

class Writer {
 public:
  virtual ~Writer() = default;
  // Whether this caller may change `root` at all; kNotAuthorized says why not (e.g. not root).
  // Asked before anything is written, so a check or an unchanged plan never needs the right.
  virtual Result<void> MayWrite(const sys::Root& root) const = 0;
  // Runs the plan as one transaction (`force`: overwrite drift).
  virtual Result<plan::HelperReply> Apply(const plan::Plan& plan, bool force) = 0;
  // Rolls back an interrupted transaction, if any.
  virtual Result<plan::HelperReply> Recover() = 0;
  // The boot loader's files of `root` as root reads them, for a planner that may not
  // (boot/boot_files.h): the daemon asks its helper, or answers from what it kept. nullopt: this
  // writer has no other view (the CLI reads as itself).
  virtual Result<std::optional<sys::RootSupplement>> ReadBootFiles(const sys::Root& root) const {
    (void)root;
    return std::nullopt;
  }
  // Writes the export files /etc/rocmtune/export.toml enables (plan/publish.h; helper/publish.h).
  virtual Result<plan::HelperReply> Publish(const std::vector<plan::PublishFile>& files) {
    (void)files;
    return Fail(ErrorCode::kUnsupported, "this writer cannot publish the export");
  }
};

}  // namespace rocmtune::api
