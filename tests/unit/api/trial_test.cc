// A trial's life on a world, through the helper's own Executor (real writes, journal and all):
// the state a `--trial` prepare writes, then the trial boot (a /proc/cmdline carrying the token,
// written into the world) checked and committed; a check that fails; a boot without the token;
// cancel; reset (the CLI's side: trial_cli_test.cc). The entry and switch are the boot setup's (boot::Setup);
// these tests are about the state machine around them, so the trial is seeded with its state only.
#include "api/trial.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/trial_world.h"
#include "journal/journal.h"
#include "plan/owned_paths.h"
#include "plan/trial_state.h"
#include "sys/run_command.h"
#include "util/json_text.h"

namespace rocmtune {
namespace {

using api::ChangeStatus;
using namespace trial_world;

TEST(ApiTrialTest, ATrialBootThatComesUpHealthyIsConfirmedThenCommitted) {
  testing::WorldCopy w(kWorld);
  testing::GiveKfd(w);
  ExecutorWriter writer(w.root());
  plan::TrialState seeded = SeedPrepared(w, writer);
  BootTrial(w);
  std::vector<api::Event> events;
  api::ChangeOptions options;
  options.on_event = [&](const api::Event& e) { events.push_back(e); };

  api::TrialCheckInputs inputs;
  inputs.kernel_log = "[    2.1] [drm] amdgpu kernel modesetting enabled.\n";
  auto check = api::CheckTrial(OpenTrialWorld(w), inputs, options, writer);
  ASSERT_TRUE(check) << check.error().message;
  EXPECT_EQ(check->status, ChangeStatus::kOk) << JsonText(api::ResultJson(*check));
  plan::TrialState s = State(w);
  EXPECT_EQ(s.state, plan::TrialPhase::kConfirmed) << JsonText(plan::TrialStateToJson(s));
  EXPECT_FALSE(w.Exists(kTrialConf)) << "nothing permanent before the commit";

  auto commit = api::CommitTrial(OpenTrialWorld(w), options, writer);
  ASSERT_TRUE(commit) << commit.error().message;
  EXPECT_EQ(commit->status, ChangeStatus::kOk) << JsonText(api::ResultJson(*commit));
  EXPECT_NE(w.Read(kTrialConf).find("options amdgpu noretry=0"), std::string::npos);
  // This boot runs with the change already (amdgpu.noretry=0 on its command line): no "reboot to
  // take effect" after the commit, which a plain Set of the same option says.
  EXPECT_FALSE(api::ResultJson(*commit).value("reboot_required", true)) << JsonText(api::ResultJson(*commit));
  EXPECT_NE(JsonText(api::ResultJson(*commit)).find("this boot already runs with the change"), std::string::npos);
  s = State(w);
  EXPECT_EQ(s.state, plan::TrialPhase::kCommitted);
  // One transaction: the request's intent (history, revert), the state written with it. The
  // state cannot hold that transaction's number (the helper gives it after the plan is made):
  // ReadTrial finds it in the journal, and `rocmtunectl trial` shows what `revert` takes.
  EXPECT_EQ(commit->plan.intent.verb, "set");
  const std::string committed_by = api::ResultJson(*commit).value("transaction", "");
  EXPECT_FALSE(committed_by.empty());
  auto read = api::ReadTrial(OpenTrialWorld(w));
  ASSERT_TRUE(read && *read);
  EXPECT_EQ((**read).transaction, committed_by);
  EXPECT_EQ(api::TrialJson(*read).value("transaction", ""), committed_by);
  std::vector<std::string> kinds;
  kinds.reserve(events.size());
  for (const api::Event& e : events) kinds.emplace_back(api::Info(e.kind).name);
  EXPECT_EQ(kinds, (std::vector<std::string>{"trial-confirmed", "applied", "trial-committed"}));
  EXPECT_EQ(events.back().trial, kId);

  // Committed is not pending: a second commit (the unit again) is refused, nothing written.
  auto again = api::CommitTrial(OpenTrialWorld(w), options, writer);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, ChangeStatus::kRefused);
}

// The commit writes the state `committed` early in its transaction and then rebuilds the
// initramfs for minutes; until the transaction's commit record, `trial` shows the state the
// last finished transaction left (confirmed): a crash now would roll the file back, and a script
// waiting for `committed` (the Ansible role) must not reboot yet. A VM boot test found it.
TEST(ApiTrialTest, ATrialIsNotCommittedWhileItsCommitRuns) {
  testing::WorldCopy w(kWorld);
  ExecutorWriter writer(w.root());
  plan::TrialState confirmed = Prepared();
  confirmed.state = plan::TrialPhase::kConfirmed;
  Seed(w, writer, confirmed);  // transaction 1
  plan::TrialState committed = confirmed;
  committed.state = plan::TrialPhase::kCommitted;
  const std::string before = plan::TrialStateText(confirmed), after = plan::TrialStateText(committed);
  // Transaction 2 as the helper leaves it mid-way: begun, the state written, no commit record.
  journal::Transaction txn;
  txn.number = 2;
  txn.id = "2";
  txn.time = "2026-11-27T00:00:01Z";
  txn.file = std::string(journal::kJournalDir) + "/" + journal::JournalFileName(2);
  txn.intent = {"set", "", {"amdgpu.noretry=0"}, "", {}};
  txn.ops.push_back(
      {plan::OpKind::kWriteFile, plan::BackendId::kCmdline, std::string(plan::kTrialState), before, after, {}, "x"});
  std::string records = JsonText(journal::BeginRecord(txn), -1) + "\n" + JsonText(journal::DoneRecord(0), -1) + "\n";
  w.Write(txn.file, records);
  w.Write(plan::kTrialState, after);
  auto read = api::ReadTrial(OpenTrialWorld(w));
  ASSERT_TRUE(read && *read) << (read ? "no trial" : read.error().message);
  EXPECT_EQ((**read).state, plan::TrialPhase::kConfirmed) << "the commit has not finished";
  EXPECT_EQ(api::TrialJson(*read).value("state", ""), "confirmed");
  // status says the same: a trial still pending (before: nothing, the file said committed).
  auto status = w.Ctl({"status", "--json"});
  EXPECT_NE(status.out.find("\"trial.pending\""), std::string::npos) << status.out;
  // Its commit record: now it is committed, by transaction 2.
  w.Write(txn.file, records + JsonText(journal::CommitRecord(), -1) + "\n");
  read = api::ReadTrial(OpenTrialWorld(w));
  ASSERT_TRUE(read && *read);
  EXPECT_EQ((**read).state, plan::TrialPhase::kCommitted);
  EXPECT_EQ((**read).transaction, "2");
  // A prepare still running when the file did not exist before: no trial yet.
  testing::WorldCopy fresh(kWorld);
  txn.number = 1;
  txn.id = "1";
  txn.file = std::string(journal::kJournalDir) + "/" + journal::JournalFileName(1);
  txn.ops[0].before = std::nullopt;
  txn.ops[0].after = before;
  fresh.Write(txn.file, JsonText(journal::BeginRecord(txn), -1) + "\n");
  fresh.Write(plan::kTrialState, before);
  auto none = api::ReadTrial(OpenTrialWorld(fresh));
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none) << "the prepare that creates the state has not finished";
}

// A committed state the journal did not write (edited by hand, or left from a journal since
// removed) names no transaction rather than the last one that touched the file; a state that
// names one keeps it.
TEST(ApiTrialTest, ACommittedStateNamesOnlyTheTransactionThatWroteIt) {
  testing::WorldCopy w(kWorld);
  ExecutorWriter writer(w.root());
  Seed(w, writer, Prepared());  // a committed transaction that wrote the prepared state
  plan::TrialState committed = Prepared();
  committed.state = plan::TrialPhase::kCommitted;
  w.Write(plan::kTrialState, plan::TrialStateText(committed));
  auto read = api::ReadTrial(OpenTrialWorld(w));
  ASSERT_TRUE(read && *read);
  EXPECT_EQ((**read).transaction, "");
  committed.transaction = "7";
  w.Write(plan::kTrialState, plan::TrialStateText(committed));
  read = api::ReadTrial(OpenTrialWorld(w));
  ASSERT_TRUE(read && *read);
  EXPECT_EQ((**read).transaction, "7");
}

// The whole life on grub-debian, with the setup's own entry and switch: prepare writes only the
// entry, the switch and the state; the trial boot's check confirms it; the commit writes the
// change and removes the entry in one transaction.
TEST(ApiTrialTest, PrepareCheckAndCommitOnGrubDebian) {
  testing::WorldCopy w(kWorld);
  testing::GiveKfd(w);
  MakeGrubTrialReady(w);
  ExecutorWriter writer(w.root());
  api::ChangeOptions options;
  options.trial = true;
  options.trial_on_tree = true;
  options.trial_id = kId;
  auto prepare = api::Set(OpenTrialWorld(w), {"amdgpu.noretry=0"}, options, writer);
  ASSERT_TRUE(prepare) << prepare.error().message;
  ASSERT_EQ(prepare->status, ChangeStatus::kOk) << JsonText(api::ResultJson(*prepare));
  EXPECT_FALSE(w.Exists(kTrialConf)) << "nothing permanent";
  ASSERT_TRUE(w.Exists("boot/grub/rocmtune-trial.cfg"));
  std::string entry = w.Read("boot/grub/rocmtune-trial.cfg");
  EXPECT_NE(entry.find("amdgpu.noretry=0 panic=10 rocmtune.trial=0badc0de"), std::string::npos) << entry;
  plan::TrialState s = State(w);
  EXPECT_EQ(s.state, plan::TrialPhase::kPrepared);
  EXPECT_EQ(s.entry, "boot/grub/rocmtune-trial.cfg");
  EXPECT_EQ(s.tokens, (std::vector<std::string>{"amdgpu.noretry=0", "panic=10", "rocmtune.trial=0badc0de"}));
  EXPECT_EQ(s.request.verb, "set");
  EXPECT_EQ(prepare->plan.intent.verb, "trial");

  BootTrial(w);
  api::ChangeOptions boot;
  api::TrialCheckInputs inputs;
  inputs.kernel_log = "";
  auto check = api::CheckTrial(OpenTrialWorld(w), inputs, boot, writer);
  ASSERT_TRUE(check) << check.error().message;
  ASSERT_EQ(check->status, ChangeStatus::kOk) << JsonText(api::ResultJson(*check));
  EXPECT_TRUE(w.Exists("boot/grub/rocmtune-trial.cfg")) << "the entry goes with the commit";
  auto commit = api::CommitTrial(OpenTrialWorld(w), boot, writer);
  ASSERT_TRUE(commit) << commit.error().message;
  ASSERT_EQ(commit->status, ChangeStatus::kOk) << JsonText(api::ResultJson(*commit));
  EXPECT_NE(w.Read(kTrialConf).find("options amdgpu noretry=0"), std::string::npos);
  EXPECT_FALSE(w.Exists("boot/grub/rocmtune-trial.cfg"));
  EXPECT_EQ(State(w).state, plan::TrialPhase::kCommitted);
}

// `apply --trial --force` of a profile for other GPUs: the commit in the trial boot (a unit, no
// --force of its own) overrides what the prepare overrode, because the state keeps `force`;
// without it the commit would refuse the profile and the trial boot would keep nothing.
TEST(ApiTrialTest, ATrialWithForceIsCommittedWithForce) {
  testing::WorldCopy w(kWorld);
  testing::GiveKfd(w);
  MakeGrubTrialReady(w);
  w.Write("etc/rocmtune/profiles/mi300-only.toml",
          "schema_version = 1\ndescription = \"for MI300 only\"\n[match]\ngfx = [\"gfx942\"]\n[[items]]\n"
          "id = \"noretry\"\naction = \"set\"\nkey = \"amdgpu.noretry\"\nvalue = \"0\"\nwhy = \"test\"\n"
          "source = \"tests/unit/api/trial_test.cc\"\n");
  ExecutorWriter writer(w.root());
  api::ChangeOptions options;
  options.trial = true;
  options.trial_on_tree = true;
  options.trial_id = kId;
  auto unforced = api::Apply(OpenTrialWorld(w), "mi300-only", {}, options, writer);
  ASSERT_TRUE(unforced) << unforced.error().message;
  EXPECT_EQ(unforced->status, ChangeStatus::kRefused) << "the control: the profile does not fit this Navi10";
  options.force = true;
  auto prepare = api::Apply(OpenTrialWorld(w), "mi300-only", {}, options, writer);
  ASSERT_TRUE(prepare) << prepare.error().message;
  ASSERT_EQ(prepare->status, ChangeStatus::kOk) << JsonText(api::ResultJson(*prepare));
  EXPECT_TRUE(State(w).force);
  EXPECT_NE(w.Read(std::string(plan::kTrialState)).find("\"force\": true"), std::string::npos);

  BootTrial(w);
  api::ChangeOptions boot;  // the units' options: no --force
  api::TrialCheckInputs inputs;
  auto check = api::CheckTrial(OpenTrialWorld(w), inputs, boot, writer);
  ASSERT_TRUE(check && check->status == ChangeStatus::kOk) << (check ? JsonText(api::ResultJson(*check)) : "");
  auto commit = api::CommitTrial(OpenTrialWorld(w), boot, writer);
  ASSERT_TRUE(commit) << commit.error().message;
  ASSERT_EQ(commit->status, ChangeStatus::kOk) << JsonText(api::ResultJson(*commit));
  EXPECT_NE(w.Read(kTrialConf).find("options amdgpu noretry=0"), std::string::npos);
  EXPECT_EQ(State(w).state, plan::TrialPhase::kCommitted);
}

// A state written before `force` was kept has none: it reads as no --force; a wrong type is refused.
TEST(ApiTrialTest, TheStatesForceIsOptionalAndABoolean) {
  plan::TrialState s = Prepared();
  s.force = true;
  std::string text = plan::TrialStateText(s);
  auto back = plan::ParseTrialState(text);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(back->force);
  std::string old = text;
  old.erase(old.find(",\n    \"force\": true"), std::string(",\n    \"force\": true").size());
  auto before = plan::ParseTrialState(old);
  ASSERT_TRUE(before) << before.error().message << "\n" << old;
  EXPECT_FALSE(before->force);
  std::string bad = text;
  bad.replace(bad.find("\"force\": true"), 13, "\"force\": \"yes\"");
  auto refused = plan::ParseTrialState(bad);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("request.force"), std::string::npos) << refused.error().message;
}

TEST(ApiTrialTest, ACheckThatSeesAGpuResetFailsTheTrialAndNothingIsCommitted) {
  testing::WorldCopy w(kWorld);
  testing::GiveKfd(w);
  ExecutorWriter writer(w.root());
  plan::TrialState seeded = SeedPrepared(w, writer);
  BootTrial(w, "-1");  // and the option did not take
  std::vector<api::Event> events;
  api::ChangeOptions options;
  options.on_event = [&](const api::Event& e) { events.push_back(e); };
  api::TrialCheckInputs inputs;
  inputs.kernel_log = "[   12.3] amdgpu 0000:28:00.0: amdgpu: GPU reset begin!\n";
  auto check = api::CheckTrial(OpenTrialWorld(w), inputs, options, writer);
  ASSERT_TRUE(check) << check.error().message;
  EXPECT_EQ(check->status, ChangeStatus::kFailed);
  plan::TrialState s = State(w);
  EXPECT_EQ(s.state, plan::TrialPhase::kFailed);
  std::string seen;
  for (const std::string& line : s.seen) seen += line + "\n";
  EXPECT_NE(seen.find("FAILED: a GPU reset in this boot's kernel log"), std::string::npos) << seen;
  EXPECT_NE(seen.find("FAILED: amdgpu.noretry was tried as 0 but reads back -1"), std::string::npos) << seen;
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(api::Info(events.back().kind).name, "trial-failed");
  EXPECT_FALSE(events.back().reasons.empty());

  auto commit = api::CommitTrial(OpenTrialWorld(w), options, writer);
  ASSERT_TRUE(commit);
  EXPECT_EQ(commit->status, ChangeStatus::kRefused);
  EXPECT_FALSE(w.Exists(kTrialConf));

  // status shows it, with what was seen, until it is dismissed.
  auto status = w.Ctl({"status", "--json"});
  EXPECT_NE(status.out.find("\"trial.failed\""), std::string::npos) << status.out;
  auto cancel = api::CancelTrial(OpenTrialWorld(w), options, writer);
  ASSERT_TRUE(cancel);
  EXPECT_EQ(State(w).state, plan::TrialPhase::kCancelled);
  EXPECT_EQ(w.Ctl({"status", "--json"}).out.find("\"trial.failed\""), std::string::npos);
}

TEST(ApiTrialTest, ABootWithoutTheTokenWhileTheTrialIsPendingMeansItFailed) {
  testing::WorldCopy w(kWorld);
  ExecutorWriter writer(w.root());
  Seed(w, writer, Prepared());
  auto status = w.Ctl({"status", "--json"});
  EXPECT_NE(status.out.find("\"trial.pending\""), std::string::npos) << status.out;
  // The world's /proc/cmdline is the old default's: the trial boot panicked and panic=10 rebooted.
  auto recover = api::RecoverTrial(OpenTrialWorld(w), {}, writer);
  ASSERT_TRUE(recover) << recover.error().message;
  EXPECT_EQ(recover->status, ChangeStatus::kOk) << JsonText(api::ResultJson(*recover));
  plan::TrialState s = State(w);
  EXPECT_EQ(s.state, plan::TrialPhase::kFailed);
  ASSERT_FALSE(s.seen.empty());
  EXPECT_NE(s.seen.front().find("panicked before its check"), std::string::npos) << s.seen.front();
  // Nothing pending any more: the next boot's recover does nothing.
  auto again = api::RecoverTrial(OpenTrialWorld(w), {}, writer);
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->outcome.changed);
}

TEST(ApiTrialTest, RecoverLeavesTheTrialBootItselfToItsCheck) {
  testing::WorldCopy w(kWorld);
  ExecutorWriter writer(w.root());
  Seed(w, writer, Prepared());
  BootTrial(w);
  auto recover = api::RecoverTrial(OpenTrialWorld(w), {}, writer);
  ASSERT_TRUE(recover);
  EXPECT_FALSE(recover->outcome.changed);
  EXPECT_EQ(State(w).state, plan::TrialPhase::kPrepared);
}

TEST(ApiTrialTest, ResetCancelsAPendingTrial) {
  testing::WorldCopy w(kWorld);
  ExecutorWriter writer(w.root());
  Seed(w, writer, Prepared());
  auto reset = api::Reset(OpenTrialWorld(w), {}, writer);
  ASSERT_TRUE(reset) << reset.error().message;
  EXPECT_EQ(reset->status, ChangeStatus::kOk) << JsonText(api::ResultJson(*reset));
  EXPECT_EQ(State(w).state, plan::TrialPhase::kCancelled);
}

TEST(ApiTrialTest, ASecondTrialIsRefusedWhileOneIsPending) {
  testing::WorldCopy w(kWorld);
  ExecutorWriter writer(w.root());
  Seed(w, writer, Prepared());
  api::ChangeOptions options;
  options.trial = true;
  options.check = true;
  auto set = api::Set(OpenTrialWorld(w), {"amdgpu.noretry=1"}, options, writer);
  ASSERT_TRUE(set);
  EXPECT_EQ(set->status, ChangeStatus::kRefused);
  ASSERT_FALSE(set->plan.refused.empty());
  EXPECT_NE(set->plan.refused.front().message.find("trial 0badc0de is already pending"), std::string::npos)
      << set->plan.refused.front().message;
}

TEST(ApiTrialTest, TheHelperRefusesAStateWhoseTokensItWouldNotWrite) {
  testing::WorldCopy w(kWorld);
  ExecutorWriter writer(w.root());
  plan::TrialState bad = Prepared();
  bad.tokens = {"no_such_option=1", plan::TrialToken(kId)};
  plan::Plan p;
  p.intent = {"trial", "", {"prepare", kId}, "", {}};
  p.root = OpenTrialWorld(w).id();
  p.ops.push_back({plan::OpKind::kWriteFile,
                   plan::BackendId::kCmdline,
                   std::string(plan::kTrialState),
                   std::nullopt,
                   plan::TrialStateText(bad),
                   {},
                   "trial prepared"});
  auto reply = writer.Apply(p, false);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, plan::HelperStatus::kRefused);
  EXPECT_FALSE(w.Exists(plan::kTrialState));
}

// /etc/rocmtune/trial.toml's command runs as root: the file and /etc/rocmtune count only when
// root owns them and neither group nor others may write them (the admin profiles' rule,
// sys/trusted_config.h; profile_store_test.cc's UntrustedAdminFilesAreNotUsed). Under a tree the
// tree's owner stands for root, so the owner rule needs a chown to another uid (root only).
TEST(ApiTrialTest, AnAdminCheckRootDoesNotOwnIsRefused) {
  testing::WorldCopy w(kWorld);
  w.Write("etc/rocmtune/trial.toml", "check = [\"/bin/true\"]\n");
  const std::string file = w.Path("etc/rocmtune/trial.toml");
  const std::string dir = w.Path("etc/rocmtune");
  ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  auto fine = api::ReadTrialAdminCheck(OpenTrialWorld(w));
  ASSERT_TRUE(fine) << fine.error().message;
  ASSERT_TRUE(*fine) << "root's own 0644 file is used";
  for (unsigned mode : {0664u, 0646u}) {
    ASSERT_EQ(::chmod(file.c_str(), mode), 0);
    auto open = api::ReadTrialAdminCheck(OpenTrialWorld(w));
    ASSERT_FALSE(open) << fmt::format("{:o}", mode);
    EXPECT_NE(open.error().message.find(
                  fmt::format("etc/rocmtune/trial.toml: not used: group or others may write it (mode {:04o})", mode)),
              std::string::npos)
        << open.error().message;
  }
  ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  auto open_dir = api::ReadTrialAdminCheck(OpenTrialWorld(w));
  ASSERT_FALSE(open_dir);
  EXPECT_NE(open_dir.error().message.find("etc/rocmtune: not used: group or others may write it"), std::string::npos)
      << open_dir.error().message;
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  if (::chown(file.c_str(), 1000, 1000) != 0)
    GTEST_SKIP() << "cannot chown to uid 1000 here (not root): the owner rule is untested";
  auto theirs = api::ReadTrialAdminCheck(OpenTrialWorld(w));
  ASSERT_FALSE(theirs);
  EXPECT_NE(theirs.error().message.find("etc/rocmtune/trial.toml: not used: owned by uid 1000, not root (its check "
                                        "runs as root"),
            std::string::npos)
      << theirs.error().message;
  ASSERT_EQ(::chown(file.c_str(), ::getuid(), ::getgid()), 0);
  ASSERT_EQ(::chown(dir.c_str(), 1000, 1000), 0);
  auto their_dir = api::ReadTrialAdminCheck(OpenTrialWorld(w));
  ASSERT_FALSE(their_dir);
  EXPECT_NE(their_dir.error().message.find("etc/rocmtune: not used: owned by uid 1000, not root"), std::string::npos)
      << their_dir.error().message;
}

// A check whose trial.toml is someone else's fails the trial without running the command.
TEST(ApiTrialTest, AnUntrustedAdminCheckFailsTheTrialAndIsNotRun) {
  testing::WorldCopy w(kWorld);
  testing::GiveKfd(w);
  ExecutorWriter writer(w.root());
  plan::TrialState seeded = SeedPrepared(w, writer);
  BootTrial(w);
  w.Write("etc/rocmtune/trial.toml", "check = [\"/bin/true\"]\n");
  ASSERT_EQ(::chmod(w.Path("etc/rocmtune/trial.toml").c_str(), 0666), 0);
  int runs = 0;
  api::TrialCheckInputs inputs;
  inputs.kernel_log = "";
  inputs.run_admin_check = [&](const api::TrialAdminCheck&) {
    ++runs;
    return std::string();
  };
  auto check = api::CheckTrial(OpenTrialWorld(w), inputs, {}, writer);
  ASSERT_TRUE(check) << check.error().message;
  EXPECT_EQ(check->status, ChangeStatus::kFailed) << JsonText(api::ResultJson(*check));
  EXPECT_EQ(runs, 0);
  EXPECT_NE(JsonText(api::ResultJson(*check)).find("group or others may write it"), std::string::npos);
}

// The admin's command runs as root: only for a pending trial (prepared or booted) in the boot
// that carries its token, never for a check with nothing to check. Its command makes a marker.
TEST(ApiTrialTest, TheAdminCheckRunsOnlyForAPendingTrialInItsBoot) {
  testing::WorldCopy w(kWorld);
  testing::GiveKfd(w);
  const std::string marker = w.Path("admin-check-ran");
  w.Write("etc/rocmtune/trial.toml", fmt::format("check = [\"/bin/sh\", \"-c\", \"touch {}\"]\n", marker));
  api::TrialCheckInputs inputs;
  inputs.kernel_log = "";
  inputs.run_admin_check = [](const api::TrialAdminCheck& check) {
    sys::CommandResult ran = sys::RunCommand(check.argv, check.timeout);
    return ran.ok ? std::string() : ran.why;
  };
  ExecutorWriter writer(w.root());
  auto none = api::CheckTrial(OpenTrialWorld(w), inputs, {}, writer);
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_EQ(none->status, ChangeStatus::kRefused);
  EXPECT_FALSE(w.Exists("admin-check-ran")) << "no trial: the admin's command ran";

  plan::TrialState seeded = SeedPrepared(w, writer);
  auto not_ours = api::CheckTrial(OpenTrialWorld(w), inputs, {}, writer);
  ASSERT_TRUE(not_ours) << not_ours.error().message;
  EXPECT_FALSE(w.Exists("admin-check-ran")) << "a boot without the trial's token: the admin's command ran";
  EXPECT_EQ(State(w).state, plan::TrialPhase::kFailed);
  auto failed = api::CheckTrial(OpenTrialWorld(w), inputs, {}, writer);
  ASSERT_TRUE(failed) << failed.error().message;
  EXPECT_EQ(failed->status, ChangeStatus::kRefused);
  EXPECT_FALSE(w.Exists("admin-check-ran")) << "a failed trial: the admin's command ran";

  testing::WorldCopy pending(kWorld);
  testing::GiveKfd(pending);
  const std::string ran_marker = pending.Path("admin-check-ran");
  pending.Write("etc/rocmtune/trial.toml", fmt::format("check = [\"/bin/sh\", \"-c\", \"touch {}\"]\n", ran_marker));
  ExecutorWriter pending_writer(pending.root());
  Seed(pending, pending_writer, seeded);
  BootTrial(pending);
  auto check = api::CheckTrial(OpenTrialWorld(pending), inputs, {}, pending_writer);
  ASSERT_TRUE(check) << check.error().message;
  EXPECT_EQ(check->status, ChangeStatus::kOk) << JsonText(api::ResultJson(*check));
  EXPECT_TRUE(pending.Exists("admin-check-ran")) << "the control: a pending trial's boot runs it";
}

}  // namespace
}  // namespace rocmtune
