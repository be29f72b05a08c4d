// The journal entries each change makes (api/events.h, change_events.cc), collected through
// ChangeOptions::on_event: one per event, none for a check, with the transaction the result has.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/change.h"
#include "api/change_internal.h"
#include "api/test_writers.h"
#include "cli_runner.h"
#include "util/json_text.h"

namespace rocmtune {
namespace {

using api::EventKind;
using testing::ExecutorWriter;
using testing::RecordingWriter;

constexpr const char* kEventsConf = "etc/modprobe.d/rocmtune.conf";

sys::Root OpenEventsWorld(const testing::WorldCopy& w) { return *sys::Root::Open(w.root()); }

struct Collected {
  std::vector<api::Event> events;
  api::ChangeOptions Options(bool check = false, bool force = false) {
    api::ChangeOptions o;
    o.check = check;
    o.force = force;
    o.on_event = [this](const api::Event& e) { events.push_back(e); };
    return o;
  }
  std::vector<EventKind> Kinds() const {
    std::vector<EventKind> out;
    for (const api::Event& e : events) out.push_back(e.kind);
    return out;
  }
};

TEST(ApiChangeEventsTest, SetAndRevertAreOneEntryEachWithTheirTransactions) {
  testing::WorldCopy w("rx6900xt");  // card0 with runtime attributes
  ExecutorWriter writer(w.root());
  Collected c;
  auto set = api::Set(OpenEventsWorld(w), {"amdgpu.noretry=0", "sysfs.card0.power_dpm_force_performance_level=high"},
                      c.Options(), writer);
  ASSERT_TRUE(set) << set.error().message;
  ASSERT_EQ(set->status, api::ChangeStatus::kOk) << JsonText(api::ResultJson(*set));
  ASSERT_EQ(c.Kinds(), std::vector<EventKind>{EventKind::kApplied});
  const api::Event applied = c.events[0];  // a copy: the list is cleared below
  EXPECT_EQ(applied.transaction, set->outcome.transaction.value_or("none"));
  EXPECT_EQ(applied.verb, "set");
  EXPECT_EQ(applied.knobs,
            (std::vector<std::string>{"amdgpu.noretry", "sysfs.card0.power_dpm_force_performance_level"}));
  EXPECT_EQ(applied.cards, std::vector<std::string>{"card0"});
  EXPECT_EQ(applied.root, OpenEventsWorld(w).path());
  EXPECT_FALSE(applied.caller_uid);

  c.events.clear();
  auto revert = api::Revert(OpenEventsWorld(w), "last", c.Options(), writer);
  ASSERT_TRUE(revert) << revert.error().message;
  ASSERT_EQ(c.Kinds(), std::vector<EventKind>{EventKind::kReverted});
  EXPECT_EQ(c.events[0].transaction, revert->outcome.transaction.value_or("none"));
  EXPECT_EQ(c.events[0].reverts, applied.transaction);
  EXPECT_EQ(c.events[0].knobs, applied.knobs);

  // Nothing left to revert: nothing happened, nothing is logged.
  c.events.clear();
  ASSERT_TRUE(api::Revert(OpenEventsWorld(w), "last", c.Options(), writer));
  EXPECT_TRUE(c.events.empty());
}

TEST(ApiChangeEventsTest, ResetNamesEveryKeyItReset) {
  testing::WorldCopy w("rx5700xt");
  ExecutorWriter writer(w.root());
  Collected c;
  ASSERT_TRUE(api::Set(OpenEventsWorld(w), {"amdgpu.noretry=0"}, c.Options(), writer));
  c.events.clear();
  auto reset = api::Reset(OpenEventsWorld(w), c.Options(), writer);
  ASSERT_TRUE(reset) << reset.error().message;
  ASSERT_EQ(c.Kinds(), std::vector<EventKind>{EventKind::kReset});
  EXPECT_EQ(c.events[0].transaction, reset->outcome.transaction.value_or("none"));
  EXPECT_EQ(c.events[0].knobs, std::vector<std::string>{"amdgpu.noretry"});
}

TEST(ApiChangeEventsTest, ACheckOrAnUnchangedRequestLogsNothing) {
  testing::WorldCopy w("rx5700xt");
  ExecutorWriter writer(w.root());
  Collected c;
  ASSERT_TRUE(api::Set(OpenEventsWorld(w), {"amdgpu.noretry=0"}, c.Options(true), writer));
  ASSERT_TRUE(api::Apply(OpenEventsWorld(w), "instinct", {}, c.Options(true), writer));  // refused, but only a check
  EXPECT_TRUE(c.events.empty());
  ASSERT_TRUE(api::Set(OpenEventsWorld(w), {"amdgpu.noretry=0"}, c.Options(), writer));
  c.events.clear();
  auto again = api::Set(OpenEventsWorld(w), {"amdgpu.noretry=0"}, c.Options(), writer);
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->outcome.changed);
  EXPECT_TRUE(c.events.empty());
}

TEST(ApiChangeEventsTest, ARefusedProfileIsOneRefusedEntryWithTheReason) {
  testing::WorldCopy w("rx5700xt");  // RDNA1: the instinct profile is for CDNA
  RecordingWriter writer;
  Collected c;
  auto report = api::Apply(OpenEventsWorld(w), "instinct", {}, c.Options(), writer);
  ASSERT_TRUE(report);
  ASSERT_EQ(c.Kinds(), std::vector<EventKind>{EventKind::kRefused});
  EXPECT_EQ(c.events[0].profile, "instinct");
  EXPECT_EQ(c.events[0].verb, "apply");
  EXPECT_TRUE(c.events[0].transaction.empty());
  ASSERT_FALSE(c.events[0].reasons.empty());
  EXPECT_NE(c.events[0].reasons[0].find("does not fit"), std::string::npos);
}

TEST(ApiChangeEventsTest, DriftIsLoggedAndBlocksUnlessForced) {
  testing::WorldCopy w("rx5700xt");
  ExecutorWriter helper(w.root());
  ASSERT_TRUE(api::Set(OpenEventsWorld(w), {"amdgpu.noretry=0"}, {}, helper));
  w.Write(kEventsConf, w.Read(kEventsConf) + "options amdgpu lockup_timeout=1000\n");
  RecordingWriter writer;
  Collected c;
  ASSERT_TRUE(api::Set(OpenEventsWorld(w), {"amdgpu.noretry=1"}, c.Options(), writer));
  ASSERT_EQ(c.Kinds(), (std::vector<EventKind>{EventKind::kDrift, EventKind::kRefused}));
  ASSERT_EQ(c.events[0].reasons.size(), 1u);
  EXPECT_NE(c.events[0].reasons[0].find("rocmtune.conf"), std::string::npos);
  EXPECT_EQ(c.events[1].reasons, c.events[0].reasons);

  c.events.clear();
  ASSERT_TRUE(api::Set(OpenEventsWorld(w), {"amdgpu.noretry=1"}, c.Options(false, true), writer));
  ASSERT_EQ(c.Kinds(), (std::vector<EventKind>{EventKind::kDrift, EventKind::kApplied}));
  EXPECT_EQ(c.events[0].transaction, "7");  // the transaction that overwrote the edit
  EXPECT_EQ(c.events[1].transaction, "7");
}

TEST(ApiChangeEventsTest, AChangeTheCallerMayNotMakeIsRefusedWithTheCallersUid) {
  testing::WorldCopy w("rx5700xt");
  RecordingWriter writer;
  writer.may_write = false;
  Collected c;
  api::ChangeOptions options = c.Options();
  options.caller_uid = 1000;
  ASSERT_TRUE(api::Set(OpenEventsWorld(w), {"amdgpu.noretry=0"}, options, writer));
  ASSERT_EQ(c.Kinds(), std::vector<EventKind>{EventKind::kRefused});
  EXPECT_EQ(c.events[0].caller_uid, 1000u);
  EXPECT_EQ(c.events[0].reasons, std::vector<std::string>{"not allowed here"});
}

// The helper could not finish (a regenerator failed, the writer lock is held): nothing of the
// plan is in effect, and the entry says why.
TEST(ApiChangeEventsTest, AWriteThatFailsIsOneFailedEntryWithTheHelpersMessage) {
  testing::WorldCopy w("rx5700xt");
  RecordingWriter writer;
  writer.reply = {plan::HelperStatus::kFailed,
                  "",
                  {"update-initramfs exited with status 1"},
                  plan::Regen::kNo,
                  plan::Regen::kNo,
                  {}};
  Collected c;
  auto report = api::Set(OpenEventsWorld(w), {"amdgpu.noretry=0"}, c.Options(), writer);
  ASSERT_TRUE(report);
  ASSERT_EQ(report->status, api::ChangeStatus::kFailed);
  ASSERT_EQ(c.Kinds(), std::vector<EventKind>{EventKind::kFailed});
  EXPECT_EQ(c.events[0].reasons, std::vector<std::string>{"update-initramfs exited with status 1"});
  EXPECT_EQ(c.events[0].knobs, std::vector<std::string>{"amdgpu.noretry"});
  EXPECT_TRUE(c.events[0].transaction.empty());
}

// api::Reapply (boot, hotplug, GPU reset) goes through CarryOut with the verb "reapply" and the
// card asked for as its args: its committed transaction is a reapplied entry naming the device
// of each key written (ChangeReport::knobs), or the card asked for when it lists none.
TEST(ApiChangeEventsTest, AReapplyThroughCarryOutIsAReappliedEntryNamingTheCard) {
  testing::WorldCopy w("rx6600");
  RecordingWriter writer;
  Collected c;
  api::ChangeReport report;
  report.plan.intent = {"reapply", "", {"card1"}, "", {}};
  report.plan.ops.push_back({plan::OpKind::kWriteSysfs,
                             plan::BackendId::kSysfs,
                             "sys/bus/pci/devices/0000:12:00.0/pp_power_profile_mode",
                             "0",
                             "5",
                             {},
                             "re-apply"});
  api::ChangeReport named = report;
  named.knobs = {"sysfs.0000:12:00.0.pp_power_profile_mode"};
  api::ChangeReport done = api::CarryOut(OpenEventsWorld(w), std::move(named), c.Options(), writer);
  ASSERT_EQ(done.status, api::ChangeStatus::kOk);
  ASSERT_EQ(c.Kinds(), std::vector<EventKind>{EventKind::kReapplied});
  EXPECT_EQ(c.events[0].cards, std::vector<std::string>{"0000:12:00.0"});
  EXPECT_EQ(c.events[0].knobs, std::vector<std::string>{"sysfs.0000:12:00.0.pp_power_profile_mode"});
  EXPECT_EQ(c.events[0].transaction, "7");
  EXPECT_EQ(
      api::JournalFields(c.events[0])[0],
      "MESSAGE=Re-applied runtime settings on 0000:12:00.0 as transaction 7 (in " + OpenEventsWorld(w).path() + ")");

  c.events.clear();
  api::CarryOut(OpenEventsWorld(w), std::move(report), c.Options(), writer);
  ASSERT_EQ(c.Kinds(), std::vector<EventKind>{EventKind::kReapplied});
  EXPECT_EQ(c.events[0].cards, std::vector<std::string>{"card1"});
  EXPECT_TRUE(c.events[0].knobs.empty());
}

TEST(ApiChangeEventsTest, ARolledBackTransactionIsLoggedBeforeTheChange) {
  testing::WorldCopy w("rx5700xt");
  ExecutorWriter writer(w.root());
  auto first = api::Set(OpenEventsWorld(w), {"amdgpu.noretry=0"}, {}, writer);
  ASSERT_TRUE(first);
  std::string file = "var/lib/rocmtune/journal/000001.jsonl";
  std::string text = w.Read(file);
  w.Write(file, text.substr(0, text.rfind('\n', text.size() - 2) + 1));  // cut the commit record
  Collected c;
  auto run = api::Set(OpenEventsWorld(w), {"amdgpu.noretry=1"}, c.Options(), writer);
  ASSERT_TRUE(run) << run.error().message;
  ASSERT_EQ(c.Kinds(), (std::vector<EventKind>{EventKind::kRecovered, EventKind::kApplied}));
  EXPECT_EQ(c.events[0].transaction, first->outcome.transaction.value_or("none"));
  EXPECT_EQ(c.events[0].verb, "set");
  EXPECT_EQ(c.events[0].knobs, std::vector<std::string>{"amdgpu.noretry"});
  EXPECT_EQ(c.events[1].transaction, run->outcome.transaction.value_or("none"));
}

}  // namespace
}  // namespace rocmtune
