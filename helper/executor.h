// Carries out a plan as one transaction (helper/README.md):
//   lock -> roll back any interrupted transaction -> allow-list -> check every `before` and
//   drift -> journal BEGIN (with the before-contents found now) -> ops, each followed by its
//   record -> regenerators (pending unless the root is live) -> COMMIT.
// Any failure rolls back what was done, in the same process; a crash leaves an incomplete
// transaction that the next run rolls back first.
#pragma once

#include <string>
#include <vector>

#include "helper/step_hook.h"
#include "journal/journal.h"
#include "plan/helper_status.h"
#include "plan/plan.h"
#include "sys/root.h"

namespace rocmtune::helper {

using Status = plan::HelperStatus;

// What a run ends with: the reply the helper prints (rocmtune.helper.v1).
using Outcome = plan::HelperReply;

struct Options {
  bool force = false;  // overwrite drift (owned files someone else edited)
  bool wait = true;    // wait for another writer instead of failing busy
};

class Executor {
 public:
  Executor(const sys::Root& root, StepHook& hook) : root_(root), hook_(hook) {}

  // Takes the lock, rolls back interrupted transactions, then runs the plan.
  Outcome Run(const plan::Plan& plan, const Options& options);
  // Only the recovery part (`rocmtune-helper recover`, run at boot and by the daemon).
  Outcome Recover(const Options& options);

 private:
  Outcome RunLocked(const plan::Plan& plan, const Options& options, std::vector<journal::Transaction>& txns);
  // Rolls back every interrupted transaction; `notes` gets the steps refused or left as found.
  Result<std::vector<std::string>> RecoverLocked(std::vector<journal::Transaction>& txns,
                                                 std::vector<std::string>& notes);

  const sys::Root& root_;
  StepHook& hook_;
};

}  // namespace rocmtune::helper
