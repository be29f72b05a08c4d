// The CLI end to end (the built rocmtunectl and rocmtune-helper on world copies): --trial's
// refusals exit 3 with the reason, --check prints the entry and the switch, and the boot verbs
// the units run carry a seeded trial through check and commit (the api's side: trial_test.cc).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/trial_world.h"
#include "util/json_text.h"

namespace rocmtune {
namespace {

using namespace trial_world;

void ExpectRefused(const testing::CliResult& r, std::string_view why) {
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find(why), std::string::npos) << r.out << r.err;
}

TEST(TrialCliTest, RefusalsSayWhy) {
  testing::WorldCopy w(kWorld);
  auto before = w.Snapshot();
  ExpectRefused(w.Ctl({"set", "env.HSA_ENABLE_SDMA=0", "--trial"}), "nothing in this change affects the boot");
  ExpectRefused(w.Ctl({"unset", "cmdline.iommu", "--trial"}), "cannot take away cmdline.iommu");
  // The captured world has no grub-editenv: the setup's own refusal.
  ExpectRefused(w.Ctl({"set", "amdgpu.noretry=0", "--trial", "--check"}),
                "grub-editenv (grub-common) is not installed");
  MakeGrubTrialReady(w);
  auto ready = w.Snapshot();
  // A --root tree: planned only.
  ExpectRefused(w.Ctl({"set", "amdgpu.noretry=0", "--trial"}), "on a --root tree it is planned only");
  EXPECT_EQ(testing::ChangedPaths(ready, w.Snapshot(), false, {}), std::vector<std::string>{});
  (void)before;
}

// --reboot reboots this machine: it needs --trial, and never goes with a --root tree (not even
// --check, which would make a script's dry run look like the real one).
TEST(TrialCliTest, RebootNeedsTrialAndIsRefusedOnATree) {
  testing::WorldCopy w(kWorld);
  MakeGrubTrialReady(w);
  auto before = w.Snapshot();
  auto alone = w.Ctl({"set", "amdgpu.noretry=0", "--reboot"});
  EXPECT_EQ(alone.exit_code, 2) << alone.out << alone.err;
  EXPECT_NE(alone.err.find("--reboot requires --trial"), std::string::npos) << alone.err;
  for (const char* check : {"--check", "--diff"}) {
    auto on_tree = w.Ctl({"set", "amdgpu.noretry=0", "--trial", "--reboot", check});
    EXPECT_EQ(on_tree.exit_code, 2) << on_tree.out << on_tree.err;
    EXPECT_NE(on_tree.err.find("--reboot reboots this machine: not with --root"), std::string::npos) << on_tree.err;
  }
  EXPECT_EQ(testing::ChangedPaths(before, w.Snapshot(), false, {}), std::vector<std::string>{});
}

TEST(TrialCliTest, CheckPrintsTheEntryAndTheSwitchAndWritesNothing) {
  testing::WorldCopy w(kWorld);
  MakeGrubTrialReady(w);
  auto before = w.Snapshot();
  auto r = w.Ctl({"set", "amdgpu.noretry=0", "cmdline.iommu=pt", "--trial", "--check"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("write /boot/grub/rocmtune-trial.cfg"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("grub-editenv /boot/grub/grubenv set next_entry=rocmtune-trial"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("write /var/lib/rocmtune/trial"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reboot to try amdgpu.noretry=0 iommu=pt once"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("etc/modprobe.d/rocmtune.conf"), std::string::npos) << "nothing permanent: " << r.out;
  auto json = w.Ctl({"set", "amdgpu.noretry=0", "--trial", "--check", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  std::vector<std::string> paths;
  const nlohmann::ordered_json doc = json.Json();
  for (const auto& c : doc["changes"]) paths.push_back(c.value("path", ""));
  EXPECT_EQ(paths, (std::vector<std::string>{"boot/grub/rocmtune-trial.cfg", "var/lib/rocmtune/trial", "update-grub",
                                             "grub-editenv"}))
      << json.out;
  EXPECT_EQ(testing::ChangedPaths(before, w.Snapshot(), false, {}), std::vector<std::string>{});
}

TEST(TrialCliTest, TheBootVerbsCheckAndCommitASeededTrial) {
  testing::WorldCopy w(kWorld);
  testing::GiveKfd(w);
  auto none = w.Ctl({"trial", "--json"});
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_EQ(none.Json()["state"], "none") << none.out;
  EXPECT_EQ(w.Ctl({"trial", "check"}).exit_code, 2) << "the units' verbs need --boot";
  ExecutorWriter writer(w.root());
  plan::TrialState seeded = SeedPrepared(w, writer);
  BootTrial(w);
  w.Write("kmsg.txt", "[    2.0] [drm] Initialized amdgpu 3.57.0\n");
  auto check = w.Ctl({"trial", "check", "--boot", "--kernel-log", w.Path("kmsg.txt")});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  auto shown = w.Ctl({"trial"});
  EXPECT_NE(shown.out.find("Trial 0badc0de: confirmed"), std::string::npos) << shown.out;
  auto commit = w.Ctl({"trial", "commit", "--boot"});
  EXPECT_EQ(commit.exit_code, 0) << commit.out << commit.err;
  EXPECT_NE(w.Read(kTrialConf).find("options amdgpu noretry=0"), std::string::npos);
  EXPECT_EQ(w.Ctl({"trial", "--json"}).Json()["state"], "committed");
  auto history = w.Ctl({"history", "--json"});
  EXPECT_NE(history.out.find("\"trial\""), std::string::npos) << "the trial's steps are in history: " << history.out;
}

TEST(TrialCliTest, AFailedCheckExitsNonZero) {
  testing::WorldCopy w(kWorld);  // no KFD: the GPU bound before is not listed by KFD now
  ExecutorWriter writer(w.root());
  Seed(w, writer, Prepared());
  BootTrial(w);
  auto check = w.Ctl({"trial", "check", "--boot", "--kernel-log", "/dev/null"});
  EXPECT_NE(check.exit_code, 0) << check.out;
  auto shown = w.Ctl({"trial"});
  EXPECT_NE(shown.out.find("Trial 0badc0de: failed"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("KFD does not list it"), std::string::npos) << shown.out;
}

}  // namespace
}  // namespace rocmtune
