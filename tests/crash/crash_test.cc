// rocmtune-helper killed (SIGKILL) before every step of an apply and of a
// revert, then recovered; and every step failing with ENOSPC, EIO, EROFS and EACCES. Each
// scenario prints one summary line; the process prints the total when it ends.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/test_writers.h"
#include "api/trial.h"
#include "crash_scenario.h"
#include "esp_worlds.h"
#include "ostree_world.h"
#include "plan/owned_paths.h"
#include "plan/trial_state.h"
#include "util/json_text.h"

namespace rocmtune::crash {
namespace {

const std::set<std::string> kJournalSteps = {"journal-create", "journal-append", "journal-sync", "dir-sync"};
const std::set<std::string> kWriteSteps = {"temp-create", "temp-write", "temp-sync", "rename"};

std::set<std::string> Steps(std::initializer_list<std::set<std::string>> parts, std::set<std::string> more = {}) {
  for (const auto& p : parts) more.insert(p.begin(), p.end());
  return more;
}

Counts g_total;
size_t g_scenarios = 0;

class TotalPrinter : public ::testing::Environment {
 public:
  void TearDown() override {
    if (g_scenarios == 0) return;
    size_t points = g_total.killed + g_total.recovery_points_run + g_total.injections;
    std::cout << fmt::format(
                     "crash: total of this process: {} scenarios, {} kill points ({} recovered), {} recovery kill/EIO "
                     "points, {} "
                     "errno injections ({} left the before state): {} injection points",
                     g_scenarios, g_total.killed, g_total.recovered, g_total.recovery_points_run, g_total.injections,
                     g_total.injections_ok, points)
              << std::endl;
  }
};
[[maybe_unused]] ::testing::Environment* const g_printer = ::testing::AddGlobalTestEnvironment(new TotalPrinter);

void WriteFile(const std::string& path, const std::string& content) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

class CrashTest : public ::testing::Test {
 protected:
  std::string Scratch(const std::string& name) const { return scratch_.Path(name); }

  // What the real helper leaves when it runs `plan_json` on a copy of `base`.
  Tree After(const Scenario& s) {
    const std::string dir = Scratch("after");
    FreshCopy(s.base, dir, s.in_place);
    RunResult r = RunHelper(kRealHelper, {"--root", dir, "apply"}, PlanFor(s.plan_json, dir));
    EXPECT_EQ(r.status(), "committed") << r.output;
    return Snapshot(dir);
  }

  // `derive`: turns the copy of `world` into another machine (tests/support/esp_worlds.h).
  using Derive = void (*)(const std::string& root);

  Scenario Apply(const std::string& world, const std::vector<std::string>& set, std::set<std::string> steps,
                 Derive derive = nullptr) {
    return Apply(
        "apply " + world, world, [set](const std::string& root) { return PlanSet(root, set); }, std::move(steps),
        derive);
  }

  Scenario Apply(const std::string& name, const std::string& world,
                 std::function<plan::Plan(const std::string&)> make_plan, std::set<std::string> steps,
                 Derive derive = nullptr) {
    Scenario s;
    s.name = name;
    s.base = Scratch("base");
    CopyWorld(WorldDir(world), s.base);
    if (prepare_) prepare_(s.base);
    if (derive) derive(s.base);
    plan::Plan plan = make_plan(s.base);
    EXPECT_TRUE(plan.refused.empty() && plan.conflicts.empty() && !plan.ops.empty()) << PlanText(plan);
    s.plan_json = PlanText(plan);
    s.in_place = InPlacePaths(s.base, plan);
    s.before = Snapshot(s.base);
    s.after = After(s);
    EXPECT_NE(s.before, s.after);
    s.expected_steps = std::move(steps);
    s.replan = std::move(make_plan);
    return s;
  }

  // Reverting the transaction that applied `set`: its "before" is the applied tree, its
  // "after" must be the original world, byte for byte.
  Scenario Revert(const std::string& world, const std::vector<std::string>& set, std::set<std::string> steps,
                  Derive derive = nullptr) {
    Scenario s;
    s.name = "revert " + world + (derive ? " (derived)" : "");
    s.base = Scratch("base");
    CopyWorld(WorldDir(world), s.base);
    if (prepare_) prepare_(s.base);
    if (derive) derive(s.base);
    Tree original = Snapshot(s.base);
    RunResult applied = RunHelper(kRealHelper, {"--root", s.base, "apply"}, PlanText(PlanSet(s.base, set)));
    EXPECT_EQ(applied.status(), "committed") << applied.output;
    plan::Plan plan = PlanRevert(s.base, "1");
    EXPECT_TRUE(plan.conflicts.empty() && !plan.ops.empty()) << PlanText(plan);
    s.plan_json = PlanText(plan);
    s.in_place = InPlacePaths(s.base, plan);
    s.before = Snapshot(s.base);
    s.after = After(s);
    EXPECT_EQ(Difference(original, s.after), "") << "the revert does not restore the world";
    s.first_txn = 2;
    s.expected_steps = std::move(steps);
    s.replan = [](const std::string& root) { return PlanRevert(root, "1"); };
    return s;
  }

  // `set env.HSA_ENABLE_SDMA=0` and `unset env.HSA_OVERRIDE_GFX_VERSION --admin-lines` on the
  // RDNA1 world whose /etc/environment (CRLF, a NUL elsewhere, no final newline) and profile.d
  // script carry the override: two admin files edited in place, two drop-ins created.
  Scenario AdminLines(bool revert, std::set<std::string> steps) {
    Scenario s;
    s.name = revert ? "revert admin lines rx5700xt" : "admin lines rx5700xt";
    s.base = Scratch("base");
    CopyWorld(WorldDir("rx5700xt"), s.base);
    WriteFile(s.base + "/etc/environment",
              std::string("LANG=C.UTF-8\0\r\nHSA_OVERRIDE_GFX_VERSION=10.3.0\r\nPATH=/usr/bin", 61));
    WriteFile(s.base + "/etc/profile.d/rdna1.sh", "if true; then\n  export HSA_OVERRIDE_GFX_VERSION=10.3.0\nfi\n");
    return AdminEdit(
        std::move(s), revert, std::move(steps),
        [](const std::string& root) {
          return PlanAdminLines(root, {"env.HSA_ENABLE_SDMA=0"}, {"env.HSA_OVERRIDE_GFX_VERSION"});
        },
        [](const plan::Plan& plan) {
          EXPECT_TRUE(plan.refused.empty() && plan.conflicts.empty() && plan.ops.size() == 4) << PlanText(plan);
        });
  }

  // `unset amdgpu.mtype_local --admin-lines` on the RDNA1 world whose admin's modprobe.d file (CRLF,
  // no final newline) sets it alone on an `options` line: that one line commented out in place,
  // and on revert put back byte for byte; no drop-in of rocmtune's is involved.
  Scenario AdminModprobeLine(bool revert, std::set<std::string> steps) {
    Scenario s;
    s.name = revert ? "revert admin modprobe line rx5700xt" : "admin modprobe line rx5700xt";
    s.base = Scratch("base");
    CopyWorld(WorldDir("rx5700xt"), s.base);
    WriteFile(s.base + "/etc/modprobe.d/amdgpu-folk.conf",
              "# from a forum\r\noptions amdgpu mtype_local=1\r\noptions amdgpu noretry=0 lockup_timeout=10000");
    return AdminEdit(
        std::move(s), revert, std::move(steps),
        [](const std::string& root) { return PlanAdminLines(root, {}, {"amdgpu.mtype_local"}); },
        [](const plan::Plan& plan) {
          EXPECT_TRUE(plan.refused.empty() && plan.conflicts.empty() && !plan.ops.empty()) << PlanText(plan);
          if (!plan.ops.empty()) {
            EXPECT_EQ(plan.ops.front().path, "etc/modprobe.d/amdgpu-folk.conf") << PlanText(plan);
          }
        });
  }

  // What both admin-line scenarios share once their world is set up: the change (or, for a
  // revert, the change committed first and then its revert), run at every step, and a revert that
  // must give back the world as it was before the change.
  Scenario AdminEdit(Scenario s, bool revert, std::set<std::string> steps,
                     std::function<plan::Plan(const std::string& root)> make_plan,
                     const std::function<void(const plan::Plan&)>& check_plan) {
    Tree original = Snapshot(s.base);
    if (revert) {
      RunResult applied = RunHelper(kRealHelper, {"--root", s.base, "apply"}, PlanText(make_plan(s.base)));
      EXPECT_EQ(applied.status(), "committed") << applied.output;
    }
    plan::Plan plan = revert ? PlanRevert(s.base, "1") : make_plan(s.base);
    check_plan(plan);
    s.plan_json = PlanText(plan);
    s.in_place = InPlacePaths(s.base, plan);
    s.before = Snapshot(s.base);
    s.after = After(s);
    EXPECT_NE(s.before, s.after);
    if (revert) {
      EXPECT_EQ(Difference(original, s.after), "") << "the revert does not restore the world";
      s.first_txn = 2;
      s.replan = [](const std::string& root) { return PlanRevert(root, "1"); };
    } else {
      s.replan = std::move(make_plan);
    }
    s.expected_steps = std::move(steps);
    return s;
  }

  // A trial's steps on the Debian GRUB world (rx5700xt): what a grub-debian machine has that the
  // captured world lacks (grub-editenv, the package's 42_rocmtune, /boot/grub on ext4), then
  // `set amdgpu.noretry=0 --trial` prepared; for the commit and the cancel, the trial boot too
  // (token on /proc/cmdline, the option read back, the check passed). Each plan is the core's own
  // (api::Set / CommitTrial / CancelTrial with --check), so the helper is killed at every step of
  // exactly what the trial writes: entry, state, and for the commit modprobe.d and the entry's
  // removal in one transaction.
  enum class TrialStep { kPrepare, kCommit, kCancel };
  Scenario Trial(TrialStep step, std::set<std::string> steps) {
    Scenario s;
    s.name = step == TrialStep::kPrepare  ? "trial prepare rx5700xt"
             : step == TrialStep::kCommit ? "trial commit rx5700xt"
                                          : "trial cancel rx5700xt";
    s.base = Scratch("base");
    CopyWorld(WorldDir("rx5700xt"), s.base);
    WriteFile(s.base + "/usr/bin/grub-editenv", "#!/bin/sh\nexit 0\n");
    std::ifstream script(std::string(ROCMTUNE_WORLDS_DIR) + "/../../grub/42_rocmtune");
    WriteFile(s.base + "/etc/grub.d/42_rocmtune", std::string(std::istreambuf_iterator<char>(script), {}));
    WriteFile(s.base + "/proc/self/mountinfo", "22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw\n");
    auto planned = [](const std::string& root, TrialStep which) {
      auto opened = sys::Root::Open(root);
      if (!opened) throw std::runtime_error(opened.error().message);
      testing::RecordingWriter unused;
      api::ChangeOptions options;
      options.check = true;
      options.on_event = nullptr;
      options.trial = which == TrialStep::kPrepare;
      options.trial_on_tree = true;
      options.trial_id = "0badc0de";
      Result<api::ChangeReport> report = which == TrialStep::kPrepare
                                             ? api::Set(*opened, {"amdgpu.noretry=0"}, options, unused)
                                         : which == TrialStep::kCommit ? api::CommitTrial(*opened, options, unused)
                                                                       : api::CancelTrial(*opened, options, unused);
      if (!report) throw std::runtime_error(report.error().message);
      return report->plan;
    };
    if (step != TrialStep::kPrepare) {
      RunResult prepared =
          RunHelper(kRealHelper, {"--root", s.base, "apply"}, PlanText(planned(s.base, TrialStep::kPrepare)));
      EXPECT_EQ(prepared.status(), "committed") << prepared.output;
    }
    if (step == TrialStep::kCommit) {
      std::ifstream cmdline(s.base + "/proc/cmdline");
      std::string line;
      std::getline(cmdline, line);
      WriteFile(s.base + "/proc/cmdline", line + " amdgpu.noretry=0 panic=10 rocmtune.trial=0badc0de\n");
      WriteFile(s.base + "/sys/module/amdgpu/parameters/noretry", "0\n");
      // The check passed (ApiTrialTest runs it; here KFD is not in the world): the state written
      // confirmed by the helper, as the check's own transaction does.
      auto state = api::ReadTrial(*sys::Root::Open(s.base));
      EXPECT_TRUE(state && *state);
      if (state && *state) {
        plan::TrialState confirmed = **state;
        confirmed.state = plan::TrialPhase::kConfirmed;
        plan::Plan p;
        p.intent = {"trial", "", {"confirm", confirmed.id}, "", {}};
        p.ops.push_back({plan::OpKind::kWriteFile,
                         plan::BackendId::kCmdline,
                         std::string(plan::kTrialState),
                         plan::TrialStateText(**state),
                         plan::TrialStateText(confirmed),
                         {},
                         "trial confirmed"});
        RunResult ok = RunHelper(kRealHelper, {"--root", s.base, "apply"}, PlanFor(PlanText(p), s.base));
        EXPECT_EQ(ok.status(), "committed") << ok.output;
      }
    }
    plan::Plan plan = planned(s.base, step);
    EXPECT_TRUE(plan.refused.empty() && plan.conflicts.empty() && !plan.ops.empty()) << PlanText(plan);
    s.plan_json = PlanText(plan);
    s.in_place = InPlacePaths(s.base, plan);
    s.before = Snapshot(s.base);
    s.after = After(s);
    EXPECT_NE(s.before, s.after);
    s.first_txn = step == TrialStep::kPrepare ? 1 : step == TrialStep::kCommit ? 3 : 2;
    // From "after" the step is done: the same step again has nothing to do (a second prepare and
    // a second commit are refused by the core, a second cancel finds nothing), so the follow-up
    // is the empty plan the core would then hand over.
    s.replan = [](const std::string& root) {
      plan::Plan again;
      again.intent = {"trial", "", {"again"}, "", {}};
      again.root = sys::Root::Open(root)->id();
      return again;
    };
    s.expected_steps = std::move(steps);
    return s;
  }

  void Run(const Scenario& s) {
    ASSERT_FALSE(HasFailure()) << "the scenario could not be set up";
    auto start = std::chrono::steady_clock::now();
    Counts c = RunScenario(s, scratch_.path());
    auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << Summary(s, c) << fmt::format(" ({:.1f} s)", seconds) << std::endl;
    ++g_scenarios;
    for (auto [total, part] : {std::pair{&g_total.steps, c.steps},
                               {&g_total.killed, c.killed},
                               {&g_total.recovered, c.recovered},
                               {&g_total.recovery_steps, c.recovery_steps},
                               {&g_total.recovery_points_run, c.recovery_points_run},
                               {&g_total.injections, c.injections},
                               {&g_total.injections_ok, c.injections_ok}})
      *total += part;
  }

  ScratchDir scratch_;
  // Run on each world copy before anything is planned on it (an ostree world made from it).
  std::function<void(const std::string&)> prepare_;
};

const std::vector<std::string> kKnobs = {"amdgpu.noretry=1", "cmdline.iommu=pt", "env.HSA_ENABLE_SDMA=0"};
const std::vector<std::string> kKnobsAndSysfs = {"amdgpu.noretry=1", "cmdline.iommu=pt", "env.HSA_ENABLE_SDMA=0",
                                                 "sysfs.all.power_dpm_force_performance_level=high"};

// Debian GRUB drop-in, initramfs-tools; modprobe.d, environment.d and profile.d are created.
// (mi210x8 is KFD-only: no DRM device, so no sysfs knob applies there.)
TEST_F(CrashTest, ApplyMi210x8) { Run(Apply("mi210x8", kKnobs, Steps({kJournalSteps, kWriteSteps}, {"mkdir"}))); }

// A built-in profile as `rocmtunectl apply instinct --with mi-intel-iommu-on` plans it.
TEST_F(CrashTest, ApplyProfileInstinctMi210x8) {
  Run(Apply(
      "apply instinct mi210x8", "mi210x8",
      [](const std::string& root) { return PlanProfile(root, "instinct", {"mi-intel-iommu-on"}); },
      Steps({kJournalSteps, kWriteSteps}, {"mkdir"})));
}

// Every file removed again and the directories rocmtune made with them.
TEST_F(CrashTest, RevertMi210x8) { Run(Revert("mi210x8", kKnobs, Steps({kJournalSteps}, {"unlink", "rmdir"}))); }

// Fedora GRUB + BLS: etc/default/grub edited in place (a shared file), grubby, dracut.
TEST_F(CrashTest, ApplyRx6600) { Run(Apply("rx6600", kKnobs, Steps({kJournalSteps, kWriteSteps}, {"mkdir"}))); }

// systemd-boot: etc/kernel/cmdline edited in place, and a sysfs attribute written.
TEST_F(CrashTest, ApplyStrixpoint) {
  Run(Apply("strixpoint", kKnobsAndSysfs, Steps({kJournalSteps, kWriteSteps}, {"mkdir", "sysfs-write"})));
}

// The shared file restored, owned files and directories removed, the attribute written back.
TEST_F(CrashTest, RevertStrixpoint) {
  Run(Revert("strixpoint", kKnobsAndSysfs, Steps({kJournalSteps, kWriteSteps}, {"unlink", "rmdir", "sysfs-write"})));
}

// rpm-ostree (a Silverblue world made by the real ostree tool from the Fedora one): the drop-ins
// and the command-line record written; `rpm-ostree kargs` and `initramfs-etc` are planned, and
// not run on a tree that is not the live system.
TEST_F(CrashTest, ApplyRpmOstree) {
  if (auto why = testing::OstreeUnavailable()) GTEST_SKIP() << *why;
  prepare_ = [](const std::string& root) { testing::MakeOstreeWorld(root, {}); };
  Run(Apply(
      "apply rpm-ostree", "rx6600", [](const std::string& root) { return PlanSet(root, kKnobs); },
      Steps({kJournalSteps, kWriteSteps}, {"mkdir"})));
}

TEST_F(CrashTest, RevertRpmOstree) {
  if (auto why = testing::OstreeUnavailable()) GTEST_SKIP() << *why;
  prepare_ = [](const std::string& root) { testing::MakeOstreeWorld(root, {}); };
  Scenario s = Revert("rx6600", kKnobs, Steps({kJournalSteps}, {"unlink", "rmdir"}));
  s.name = "revert rpm-ostree";
  Run(s);
}

// bootc: no file of rocmtune's but its journal; `bootc loader-entries set-options-for-source` is
// planned with the options it replaces, and the revert sets those again.
TEST_F(CrashTest, ApplyBootc) {
  if (auto why = testing::OstreeUnavailable()) GTEST_SKIP() << *why;
  prepare_ = [](const std::string& root) {
    testing::OstreeWorldSpec spec;
    spec.bootc = true;
    testing::MakeOstreeWorld(root, spec);
  };
  Run(Apply(
      "apply bootc", "rx6600", [](const std::string& root) { return PlanSet(root, kKnobs); },
      Steps({kJournalSteps, kWriteSteps}, {"mkdir"})));
}

TEST_F(CrashTest, RevertBootc) {
  if (auto why = testing::OstreeUnavailable()) GTEST_SKIP() << *why;
  prepare_ = [](const std::string& root) {
    testing::OstreeWorldSpec spec;
    spec.bootc = true;
    testing::MakeOstreeWorld(root, spec);
  };
  Scenario s = Revert("rx6600", kKnobs, Steps({kJournalSteps}, {"unlink", "rmdir"}));
  s.name = "revert bootc";
  Run(s);
}

// Pop!_OS, kernelstub: the command line through `kernelstub -a` (a run the helper leaves pending
// on a tree that is not the running system) and the token record; modprobe.d and environment.d.
TEST_F(CrashTest, ApplyPopOs) {
  Run(Apply(
      "apply pop-os (kernelstub)", testing::kPopOsBase, [](const std::string& root) { return PlanSet(root, kKnobs); },
      Steps({kJournalSteps, kWriteSteps}, {"mkdir"}), testing::MakePopOs));
}

// Every file rocmtune wrote removed again, `kernelstub -d` the inverse run.
TEST_F(CrashTest, RevertPopOs) {
  Run(Revert(testing::kPopOsBase, kKnobs, Steps({kJournalSteps}, {"unlink", "rmdir"}), testing::MakePopOs));
}

// The admin's lines commented out in place beside the drop-ins rocmtune writes.
TEST_F(CrashTest, AdminLinesRx5700xt) { Run(AdminLines(false, Steps({kJournalSteps, kWriteSteps}, {"mkdir"}))); }

// The admin's lines put back byte for byte, the drop-ins and their directories removed.
TEST_F(CrashTest, RevertAdminLinesRx5700xt) {
  Run(AdminLines(true, Steps({kJournalSteps, kWriteSteps}, {"unlink", "rmdir"})));
}

// An admin's modprobe.d `options` line commented out in place (module options).
TEST_F(CrashTest, AdminModprobeLineRx5700xt) { Run(AdminModprobeLine(false, Steps({kJournalSteps, kWriteSteps}))); }

// The admin's modprobe.d line put back byte for byte.
TEST_F(CrashTest, RevertAdminModprobeLineRx5700xt) {
  Run(AdminModprobeLine(true, Steps({kJournalSteps, kWriteSteps})));
}

// `--trial`: the trial entry and the state written, nothing permanent; a kill at any step leaves
// either the old boot (no entry, no state) or the trial pending, never half of it.
TEST_F(CrashTest, TrialPrepareRx5700xt) {
  Run(Trial(TrialStep::kPrepare, Steps({kJournalSteps, kWriteSteps}, {"mkdir"})));
}

// The commit in the trial boot: modprobe.d written, the entry removed, the state committed, all
// or nothing (a kill leaves the trial confirmed with its entry, and the next commit runs again).
TEST_F(CrashTest, TrialCommitRx5700xt) {
  Run(Trial(TrialStep::kCommit, Steps({kJournalSteps, kWriteSteps}, {"unlink"})));
}

// The cleanup (trial cancel, and the same ops after a failed check): entry removed, state cancelled.
TEST_F(CrashTest, TrialCancelRx5700xt) {
  Run(Trial(TrialStep::kCancel, Steps({kJournalSteps, kWriteSteps}, {"unlink"})));
}

}  // namespace
}  // namespace rocmtune::crash
