#include "crash_scenario.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "detect/inventory.h"
#include "journal/history.h"
#include "journal/journal.h"
#include "journal/revert.h"
#include "knobs/knob_key.h"
#include "knowledge/catalog.h"
#include "plan/plan_json.h"
#include "planner/planner.h"
#include "profiles/apply_request.h"
#include "profiles/profile_store.h"
#include "sys/root.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace rocmtune::crash {
namespace {

struct NamedErrno {
  int value;
  const char* name;
};
constexpr NamedErrno kErrnos[] = {{ENOSPC, "ENOSPC"}, {EIO, "EIO"}, {EROFS, "EROFS"}, {EACCES, "EACCES"}};

// Assertions failed so far in this test: a point is counted as passed only if it added none.
size_t Failures() { return ::testing::UnitTest::GetInstance()->current_test_info()->result()->total_part_count(); }

// The journal must load and hold nothing incomplete: recovery (or the failed run itself) finished.
std::optional<std::vector<journal::Transaction>> LoadJournal(const std::string& dir) {
  auto root = sys::Root::Open(dir);
  if (!root) {
    ADD_FAILURE() << root.error().message;
    return std::nullopt;
  }
  auto txns = journal::Load(*root);
  if (!txns) {
    ADD_FAILURE() << "the journal does not load: " << txns.error().message;
    return std::nullopt;
  }
  for (const journal::Transaction& t : *txns)
    EXPECT_NE(journal::StateName(t.state), "interrupted") << "transaction " << t.id;
  return std::move(*txns);
}

// The transaction the crashed run began, if it got that far.
const journal::Transaction* Own(const std::vector<journal::Transaction>& txns, uint64_t first) {
  const journal::Transaction* own = nullptr;
  for (const journal::Transaction& t : txns) {
    if (t.number < first) continue;
    EXPECT_EQ(own, nullptr) << "a second transaction " << t.id << " after one crashed run";
    own = &t;
  }
  return own;
}

bool Listed(const RunResult& r, const std::string& key, const std::string& id) {
  if (!r.doc.is_object() || !r.doc.contains(key) || !r.doc[key].is_array()) return false;
  for (const auto& v : r.doc[key])
    if (v == id) return true;
  return false;
}

// After a crash and a recovery: exactly "before" or "after", no temporaries, a consistent
// journal, and "after" exactly when the scenario's transaction committed. Returns the state
// found (nullopt: neither, already reported).
std::optional<bool> CheckRecovered(const Scenario& s, const std::string& run, const RunResult& recovery) {
  Tree tree = Snapshot(run);
  bool is_before = tree == s.before, is_after = tree == s.after;
  EXPECT_TRUE(is_before || is_after) << "neither the before nor the after state\nagainst before:\n"
                                     << Difference(s.before, tree) << "against after:\n"
                                     << Difference(s.after, tree);
  EXPECT_THAT(Temporaries(tree), ::testing::IsEmpty());
  auto txns = LoadJournal(run);
  if (!txns) return std::nullopt;
  const journal::Transaction* own = Own(*txns, s.first_txn);
  bool committed = own && own->state == journal::State::kCommitted;
  EXPECT_EQ(committed, is_after) << (own ? fmt::format("transaction {} is {}", own->id, journal::StateName(own->state))
                                         : std::string("no transaction was begun"))
                                 << "\n"
                                 << recovery.output;
  if (is_before == is_after) return std::nullopt;
  return is_after;
}

// The next transaction on the recovered tree works: the same plan from "before", a fresh plan
// (normally nothing to do) from "after".
void CheckFollowUp(const Scenario& s, const std::string& run, bool is_after) {
  std::string input = PlanFor(s.plan_json, run), expected = "committed";
  if (is_after) {
    plan::Plan plan = s.replan(run);
    input = PlanText(plan);
    if (plan.ops.empty()) expected = "unchanged";
  }
  RunResult next = RunHelper(kRealHelper, {"--root", run, "apply"}, input);
  EXPECT_EQ(next.exit_code, 0) << next.output;
  EXPECT_EQ(next.status(), expected) << next.output;
  EXPECT_EQ(Difference(s.after, Snapshot(run)), "") << "after the follow-up apply";
  (void)LoadJournal(run);
}

std::string Where(const Scenario& s, const LoggedStep& step, size_t total) {
  return fmt::format("{}: step {}/{} ({} {})", s.name, step.number, total, step.name, step.path);
}

std::vector<LoggedStep> CountSteps(const std::string& run, const std::vector<std::string>& args,
                                   const std::string& input, const std::string& log, RunResult& result) {
  fs::remove(log);
  result = RunHelper(kFaultHelper, args, input, WithEnv("ROCMTUNE_FAULT_LOG", log));
  auto steps = ReadStepLog(log);
  for (size_t i = 0; i < steps.size(); ++i) EXPECT_EQ(steps[i].number, i + 1) << "step log of " << run;
  return steps;
}

void KillAt(const Scenario& s, const LoggedStep& step, size_t total, const std::string& run, Counts& c) {
  SCOPED_TRACE("SIGKILL before " + Where(s, step, total));
  size_t failures = Failures();
  FreshCopy(s.base, run, s.in_place);
  RunResult killed = RunHelper(kFaultHelper, {"--root", run, "apply"}, PlanFor(s.plan_json, run),
                               WithEnv("ROCMTUNE_FAULT", fmt::format("kill:{}", step.number)));
  ++c.killed;
  EXPECT_TRUE(killed.killed_by_sigkill) << killed.output;
  RunResult recovery = RunHelper(kRealHelper, {"--root", run, "recover"}, "");
  EXPECT_EQ(recovery.exit_code, 0) << recovery.output;
  EXPECT_EQ(recovery.status(), "unchanged") << recovery.output;
  auto state = CheckRecovered(s, run, recovery);
  if (auto txns = LoadJournal(run); txns) {
    // A killed run rolls nothing back itself: an uncommitted transaction was rolled back by recover.
    const journal::Transaction* own = Own(*txns, s.first_txn);
    if (own && own->state != journal::State::kCommitted) {
      EXPECT_TRUE(Listed(recovery, "recovered", own->id)) << recovery.output;
    }
  }
  if (!state) return;
  (*state ? c.left_after : c.left_before)++;
  CheckFollowUp(s, run, *state);
  if (Failures() == failures) ++c.recovered;
}

void FailAt(const Scenario& s, const LoggedStep& step, size_t total, const NamedErrno& err, const std::string& run,
            Counts& c) {
  SCOPED_TRACE(fmt::format("{} at {}", err.name, Where(s, step, total)));
  size_t failures = Failures();
  FreshCopy(s.base, run, s.in_place);
  RunResult r = RunHelper(kFaultHelper, {"--root", run, "apply"}, PlanFor(s.plan_json, run),
                          WithEnv("ROCMTUNE_FAULT", fmt::format("errno:{}:{}", step.number, err.name)));
  ++c.injections;
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.status(), "failed") << r.output;
  EXPECT_THAT(r.messages(), HasSubstr(std::strerror(err.value))) << r.output;
  EXPECT_THAT(r.messages(), HasSubstr(step.path)) << r.output;
  Tree tree = Snapshot(run);
  EXPECT_EQ(Difference(s.before, tree), "");
  EXPECT_THAT(Temporaries(tree), ::testing::IsEmpty());
  (void)LoadJournal(run);
  if (Failures() == failures) ++c.injections_ok;
}

// A crash during recovery itself: the transaction killed before step `crash_at`, then
// `recover` killed at each of its own steps, or failing one with EIO; the next recover must
// still bring back "before".
void CrashRecovery(const Scenario& s, size_t crash_at, const std::string& scratch, Counts& c) {
  const std::string crashed = scratch + "/crashed", run = scratch + "/run", log = scratch + "/recover.log";
  FreshCopy(s.base, crashed, s.in_place);
  RunResult killed = RunHelper(kFaultHelper, {"--root", crashed, "apply"}, PlanFor(s.plan_json, crashed),
                               WithEnv("ROCMTUNE_FAULT", fmt::format("kill:{}", crash_at)));
  ASSERT_TRUE(killed.killed_by_sigkill) << killed.output;
  FreshCopy(crashed, run, s.in_place);
  RunResult counted;
  auto recovery_steps = CountSteps(run, {"--root", run, "recover"}, "", log, counted);
  // Removing a temporary the crash left is a step of its own too.
  for (const std::string& tmp : Temporaries(Snapshot(crashed)))
    EXPECT_TRUE(std::any_of(recovery_steps.begin(), recovery_steps.end(),
                            [&](const LoggedStep& step) { return step.name == "unlink" && step.path == tmp; }))
        << "recovery removes " << tmp << " without a step";
  EXPECT_EQ(counted.exit_code, 0) << counted.output;
  EXPECT_EQ(Difference(s.before, Snapshot(run)), "") << "recovering from a kill before step " << crash_at;
  EXPECT_GT(recovery_steps.size(), 0u);
  c.recovery_steps += recovery_steps.size();
  c.recovery_points.push_back(fmt::format("{} after a kill at step {}", recovery_steps.size(), crash_at));
  for (const LoggedStep& step : recovery_steps) {
    SCOPED_TRACE(fmt::format("recovery of a kill at step {}, itself killed or failed at {}", crash_at,
                             Where(s, step, recovery_steps.size())));
    {  // recovery killed at this step
      size_t failures = Failures();
      FreshCopy(crashed, run, s.in_place);
      RunResult r = RunHelper(kFaultHelper, {"--root", run, "recover"}, "",
                              WithEnv("ROCMTUNE_FAULT", fmt::format("kill:{}", step.number)));
      ++c.recovery_points_run;
      EXPECT_TRUE(r.killed_by_sigkill) << r.output;
      RunResult again = RunHelper(kRealHelper, {"--root", run, "recover"}, "");
      EXPECT_EQ(again.exit_code, 0) << again.output;
      EXPECT_EQ(CheckRecovered(s, run, again), std::optional<bool>(false));
      if (Failures() == failures) ++c.recovery_killed_ok;
    }
    {  // recovery failing this step with EIO
      size_t failures = Failures();
      FreshCopy(crashed, run, s.in_place);
      RunResult r = RunHelper(kFaultHelper, {"--root", run, "recover"}, "",
                              WithEnv("ROCMTUNE_FAULT", fmt::format("errno:{}:EIO", step.number)));
      ++c.recovery_points_run;
      EXPECT_EQ(r.exit_code, 1) << r.output;
      EXPECT_THAT(r.messages(), HasSubstr(std::strerror(EIO))) << r.output;
      RunResult again = RunHelper(kRealHelper, {"--root", run, "recover"}, "");
      EXPECT_EQ(again.exit_code, 0) << again.output;
      EXPECT_EQ(CheckRecovered(s, run, again), std::optional<bool>(false));
      if (Failures() == failures) ++c.recovery_failed_ok;
    }
  }
}

}  // namespace

plan::Plan PlanSet(const std::string& root_dir, const std::vector<std::string>& assignments) {
  auto root = sys::Root::Open(root_dir);
  if (!root) throw std::runtime_error(root.error().message);
  detect::Inventory inventory = detect::Detect(*root);
  knobs::KnobContext ctx{*root, inventory, knowledge::Catalog::Builtin()};
  plan::Request request;
  for (const std::string& a : assignments) {
    auto parsed = knobs::ParseAssignment(a);
    if (!parsed) throw std::runtime_error(parsed.error().message);
    request.set.push_back(*parsed);
  }
  plan::Plan plan = plan::PlanRequest(ctx, request);
  plan.intent = {"set", "", assignments, "", {}};
  return plan;
}

plan::Plan PlanAdminLines(const std::string& root_dir, const std::vector<std::string>& assignments,
                          const std::vector<std::string>& unset) {
  auto root = sys::Root::Open(root_dir);
  if (!root) throw std::runtime_error(root.error().message);
  detect::Inventory inventory = detect::Detect(*root);
  knobs::KnobContext ctx{*root, inventory, knowledge::Catalog::Builtin()};
  plan::Request request;
  request.admin_lines = true;
  for (const std::string& a : assignments) request.set.push_back(*knobs::ParseAssignment(a));
  for (const std::string& k : unset) request.unset.push_back(*knobs::ParseKnobKey(k));
  plan::Plan plan = plan::PlanRequest(ctx, request);
  plan.intent = {"unset", "", unset, "", {}};
  return plan;
}

plan::Plan PlanProfile(const std::string& root_dir, const std::string& profile, const std::vector<std::string>& with) {
  auto root = sys::Root::Open(root_dir);
  if (!root) throw std::runtime_error(root.error().message);
  detect::Inventory inventory = detect::Detect(*root);
  knobs::KnobContext ctx{*root, inventory, knowledge::Catalog::Builtin()};
  auto resolved = profiles::ProfileStore::Load(*root).Resolve(profile);
  if (!resolved) throw std::runtime_error(resolved.error().message);
  auto desired = profiles::DesiredState(*resolved, *root, inventory, with);
  if (!desired) throw std::runtime_error(desired.error().message);
  profiles::ApplyRequest apply = profiles::BuildApplyRequest(ctx, profile, *desired, nullptr);
  plan::Plan plan = plan::PlanRequest(ctx, apply.request);
  plan.intent = std::move(apply.intent);
  return plan;
}

plan::Plan PlanRevert(const std::string& root_dir, const std::string& id) {
  auto root = sys::Root::Open(root_dir);
  if (!root) throw std::runtime_error(root.error().message);
  auto txns = journal::Load(*root);
  if (!txns) throw std::runtime_error(txns.error().message);
  const journal::Transaction* txn = journal::Find(*txns, id);
  if (!txn) throw std::runtime_error("no transaction " + id);
  return journal::RevertPlan(*root, *txns, *txn, false);
}

std::vector<std::string> InPlacePaths(const std::string& base, const plan::Plan& plan) {
  std::vector<std::string> paths = {"var"};
  const fs::path root = fs::canonical(base);
  for (const plan::Op& op : plan.ops)
    if (op.kind == plan::OpKind::kWriteSysfs) paths.push_back(fs::canonical(root / op.path).lexically_relative(root));
  return paths;
}

std::string PlanText(const plan::Plan& plan) { return plan::PlanToJson(plan).dump(); }

std::string PlanFor(const std::string& plan_json, const std::string& root_dir) {
  auto plan = plan::PlanFromJson(plan_json);
  auto root = sys::Root::Open(root_dir);
  if (!plan || !root) throw std::runtime_error("PlanFor: " + (!plan ? plan.error().message : root.error().message));
  plan->root = root->id();
  return PlanText(*plan);
}

Counts RunScenario(const Scenario& s, const std::string& scratch) {
  Counts c;
  const std::string run = scratch + "/run";
  FreshCopy(s.base, run, s.in_place);
  RunResult counted;
  const auto steps =
      CountSteps(run, {"--root", run, "apply"}, PlanFor(s.plan_json, run), scratch + "/steps.log", counted);
  EXPECT_EQ(counted.exit_code, 0) << counted.output;
  EXPECT_EQ(counted.status(), "committed") << counted.output;
  EXPECT_EQ(Difference(s.after, Snapshot(run)), "") << "without a fault the fault build must do what the real one does";
  c.steps = steps.size();
  if (steps.empty()) {
    ADD_FAILURE() << s.name << ": no steps were logged";
    return c;
  }
  std::set<std::string> seen;
  for (const LoggedStep& step : steps) seen.insert(step.name);
  for (const std::string& kind : s.expected_steps)
    EXPECT_TRUE(seen.contains(kind)) << s.name << " never takes a " << kind << " step";

  for (const LoggedStep& step : steps) KillAt(s, step, steps.size(), run, c);
  // Recovery has the most to undo after a kill just before the commit record, and a
  // temporary to remove after one just before the last rename.
  size_t commit = 0, rename = 0;
  for (const LoggedStep& step : steps) {
    if (step.name == "journal-append") commit = step.number;
    if (step.name == "rename") rename = step.number;
  }
  for (size_t crash_at : {commit, rename})
    if (crash_at > 0) CrashRecovery(s, crash_at, scratch, c);
  for (const LoggedStep& step : steps)
    for (const NamedErrno& err : kErrnos) FailAt(s, step, steps.size(), err, run, c);
  EXPECT_EQ(Difference(s.before, Snapshot(s.base)), "") << "a run wrote in place to a file linked from the base tree";
  return c;
}

std::string Summary(const Scenario& s, const Counts& c) {
  std::string recovery_points;
  for (const std::string& p : c.recovery_points) recovery_points += (recovery_points.empty() ? "" : ", ") + p;
  return fmt::format(
      "crash: {}: killed at {}/{} steps, {} recovered ({} to before, {} to after); recovery killed at each of its "
      "steps ({}), {} recovered again, and failed with EIO at each, {} recovered again; errno: {} steps x {} = {} "
      "injections, {} left the before state",
      s.name, c.killed, c.steps, c.recovered, c.left_before, c.left_after, recovery_points, c.recovery_killed_ok,
      c.recovery_failed_ok, c.steps, std::size(kErrnos), c.injections, c.injections_ok);
}

}  // namespace rocmtune::crash
