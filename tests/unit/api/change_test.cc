// The changing requests of core/api as the daemon will call them: no CLI, a Writer that is
// either the helper's own Executor run in this process (the real writes, journal and all) or a
// recorder that shows what reached the writer and when.
#include "api/change.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/status_json.h"
#include "api/test_writers.h"
#include "cli_runner.h"
#include "util/json_text.h"

namespace fs = std::filesystem;

namespace rocmtune {
namespace {

using api::ChangeStatus;

constexpr const char* kConf = "etc/modprobe.d/rocmtune.conf";

using testing::ExecutorWriter;
using testing::RecordingWriter;

sys::Root Open(const testing::WorldCopy& w) { return *sys::Root::Open(w.root()); }

TEST(ApiChangeTest, SetThroughTheHelperCommitsAndRevertPutsTheWorldBack) {
  testing::WorldCopy w("rx5700xt");
  ASSERT_FALSE(w.Exists(kConf));
  testing::TreeSnapshot before = w.Snapshot();
  ExecutorWriter writer(w.root());
  auto set = api::Set(Open(w), {"amdgpu.noretry=0"}, {}, writer);
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_EQ(set->status, ChangeStatus::kOk) << JsonText(api::ResultJson(*set));
  EXPECT_TRUE(set->outcome.changed);
  ASSERT_TRUE(set->outcome.transaction);
  EXPECT_NE(w.Read(kConf).find("options amdgpu noretry=0"), std::string::npos);
  EXPECT_EQ(writer.applies, 1);

  auto revert = api::Revert(Open(w), "last", {}, writer);
  ASSERT_TRUE(revert) << revert.error().message;
  EXPECT_EQ(revert->status, ChangeStatus::kOk) << JsonText(api::ResultJson(*revert));
  EXPECT_TRUE(revert->outcome.changed);
  EXPECT_FALSE(w.Exists(kConf));
  // Only the journal (and its lock) stay: the state of the tree is the one before. (This world
  // has no var/ of its own: var/lib/rocmtune and its parents are rocmtune's state.)
  ASSERT_FALSE(before.count("var"));
  EXPECT_EQ(testing::ChangedPaths(before, w.Snapshot(), false, {"var"}), std::vector<std::string>{});
}

TEST(ApiChangeTest, ACheckShowsThePlanAndNeverReachesTheWriter) {
  testing::WorldCopy w("rx5700xt");
  RecordingWriter writer;
  api::ChangeOptions options{true, false, nullptr};
  auto report = api::Set(Open(w), {"amdgpu.noretry=0"}, options, writer);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->status, ChangeStatus::kOk);
  EXPECT_FALSE(report->plan.ops.empty());
  EXPECT_TRUE(writer.events.empty());
  EXPECT_EQ(api::ResultJson(*report)["changed"], true);  // what would change
  EXPECT_FALSE(w.Exists(kConf));
}

TEST(ApiChangeTest, TheFrontEndSeesThePlanBeforeTheWriterRuns) {
  testing::WorldCopy w("rx5700xt");
  RecordingWriter writer;
  api::ChangeOptions options;
  options.on_planned = [&](const api::ChangeReport& r) {
    writer.events.push_back(r.plan.ops.empty() ? "planned-empty" : "planned");
  };
  auto report = api::Set(Open(w), {"amdgpu.noretry=0"}, options, writer);
  ASSERT_TRUE(report);
  EXPECT_EQ(writer.events, (std::vector<std::string>{"planned", "apply"}));
  // The plan carries the root it was made for; the writer's reply decides the outcome.
  ASSERT_EQ(writer.plans.size(), 1u);
  ASSERT_TRUE(writer.plans[0].root);
  EXPECT_EQ(writer.plans[0].root->ino, Open(w).id().ino);
  EXPECT_EQ(report->outcome.transaction, "7");
  EXPECT_EQ(report->outcome.initramfs, plan::Regen::kPending);
}

TEST(ApiChangeTest, WithoutTheRightNothingIsWrittenAndTheStatusSaysSo) {
  testing::WorldCopy w("rx5700xt");
  RecordingWriter writer;
  writer.may_write = false;
  auto report = api::Set(Open(w), {"amdgpu.noretry=0"}, {}, writer);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->status, ChangeStatus::kNotAuthorized);
  EXPECT_TRUE(writer.events.empty());
  EXPECT_FALSE(report->outcome.changed);
  ASSERT_EQ(report->outcome.errors.size(), 1u);
  EXPECT_EQ(report->outcome.errors[0], "not allowed here");
  EXPECT_EQ(api::ResultJson(*report)["changed"], false);
}

TEST(ApiChangeTest, EveryHelperStatusMapsToOneChangeStatus) {
  const std::pair<plan::HelperStatus, ChangeStatus> cases[] = {
      {plan::HelperStatus::kCommitted, ChangeStatus::kOk},    {plan::HelperStatus::kUnchanged, ChangeStatus::kOk},
      {plan::HelperStatus::kRefused, ChangeStatus::kRefused}, {plan::HelperStatus::kConflict, ChangeStatus::kDrift},
      {plan::HelperStatus::kBusy, ChangeStatus::kFailed},     {plan::HelperStatus::kFailed, ChangeStatus::kFailed},
  };
  for (const auto& [helper_status, expected] : cases) {
    testing::WorldCopy w("rx5700xt");
    RecordingWriter writer;
    writer.reply = {helper_status, "", {}, plan::Regen::kNo, plan::Regen::kNo, {}};
    auto report = api::Set(Open(w), {"amdgpu.noretry=0"}, {}, writer);
    ASSERT_TRUE(report);
    EXPECT_EQ(report->status, expected) << plan::HelperStatusName(helper_status);
    EXPECT_EQ(report->outcome.changed, helper_status == plan::HelperStatus::kCommitted);
    // A failure without a message still says what happened.
    if (expected != ChangeStatus::kOk) {
      EXPECT_FALSE(report->outcome.errors.empty());
    }
  }
}

TEST(ApiChangeTest, DriftInAnOwnedFileBlocksUnlessForced) {
  testing::WorldCopy w("rx5700xt");
  ExecutorWriter helper(w.root());
  ASSERT_TRUE(api::Set(Open(w), {"amdgpu.noretry=0"}, {}, helper));
  w.Write(kConf, w.Read(kConf) + "options amdgpu lockup_timeout=1000\n");  // someone else's edit
  RecordingWriter writer;
  auto blocked = api::Set(Open(w), {"amdgpu.noretry=1"}, {}, writer);
  ASSERT_TRUE(blocked);
  EXPECT_TRUE(blocked->blocked);
  EXPECT_EQ(blocked->status, ChangeStatus::kDrift);
  ASSERT_FALSE(blocked->plan.conflicts.empty());
  EXPECT_NE(blocked->plan.conflicts[0].message.find("rocmtune.conf"), std::string::npos);
  EXPECT_TRUE(writer.events.empty());
  auto forced = api::Set(Open(w), {"amdgpu.noretry=1"}, {false, true, nullptr}, writer);
  ASSERT_TRUE(forced);
  EXPECT_FALSE(forced->blocked);
  EXPECT_EQ(writer.events, std::vector<std::string>{"apply"});
}

TEST(ApiChangeTest, RequestsThatCannotBePlannedAreErrorsNamingTheCause) {
  testing::WorldCopy w("rx5700xt");
  RecordingWriter writer;
  auto profile = api::Apply(Open(w), "no-such-profile", {}, {}, writer);
  ASSERT_FALSE(profile);
  EXPECT_EQ(profile.error().code, ErrorCode::kNotFound);
  EXPECT_NE(profile.error().message.find("no-such-profile"), std::string::npos);
  auto txn = api::Revert(Open(w), "42", {}, writer);
  ASSERT_FALSE(txn);
  EXPECT_EQ(txn.error().code, ErrorCode::kNotFound);
  auto assignment = api::Set(Open(w), {"amdgpu.noretry"}, {}, writer);
  ASSERT_FALSE(assignment);
  EXPECT_EQ(assignment.error().code, ErrorCode::kInvalidArgument);
  auto key = api::Unset(Open(w), {"no dots"}, {}, writer);
  ASSERT_FALSE(key);
  EXPECT_EQ(key.error().code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(writer.events.empty());
}

TEST(ApiChangeTest, AProfileThatDoesNotFitIsRefusedBeforeTheWriter) {
  testing::WorldCopy w("rx5700xt");  // RDNA1: the instinct profile is for CDNA
  RecordingWriter writer;
  auto report = api::Apply(Open(w), "instinct", {}, {}, writer);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->status, ChangeStatus::kRefused);
  ASSERT_FALSE(report->plan.refused.empty());
  EXPECT_NE(report->plan.refused[0].message.find("does not fit"), std::string::npos);
  EXPECT_TRUE(writer.events.empty());
}

TEST(ApiChangeTest, AnInterruptedTransactionIsRolledBackBeforeTheNextPlan) {
  testing::WorldCopy w("rx5700xt");
  ExecutorWriter writer(w.root());
  ASSERT_TRUE(api::Set(Open(w), {"amdgpu.noretry=0"}, {}, writer));
  // Cut the commit record: the journal now holds a transaction that never finished.
  std::string file = "var/lib/rocmtune/journal/000001.jsonl";
  std::string text = w.Read(file);
  ASSERT_GT(text.size(), 2u);
  w.Write(file, text.substr(0, text.rfind('\n', text.size() - 2) + 1));

  // A check only says what will happen.
  auto check = api::Set(Open(w), {"amdgpu.noretry=1"}, {true, false, nullptr}, writer);
  ASSERT_TRUE(check);
  EXPECT_EQ(writer.recovers, 0);
  bool told = false;
  for (const auto& m : check->plan.warnings) told |= m.message.find("was interrupted") != std::string::npos;
  EXPECT_TRUE(told) << JsonText(api::ResultJson(*check));

  auto run = api::Set(Open(w), {"amdgpu.noretry=1"}, {}, writer);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(writer.recovers, 1);
  bool rolled = false;
  for (const auto& m : run->plan.warnings) rolled |= m.message.find("rolled back first") != std::string::npos;
  EXPECT_TRUE(rolled) << JsonText(api::ResultJson(*run));
  EXPECT_EQ(run->status, ChangeStatus::kOk);
  EXPECT_NE(w.Read(kConf).find("noretry=1"), std::string::npos);
}

}  // namespace
}  // namespace rocmtune
