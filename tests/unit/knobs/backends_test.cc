// Each backend on its own, through the registry's Backend interface only: validate, plan, the
// ops carried out on a copy of a world (files written as the helper would, sysfs attributes as
// the world's plain files), read back, planned again (nothing to do), unset, read back. The
// world tests and goldens hold the whole CLI; this holds the contract each backend keeps.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "detect/inventory.h"
#include "knobs/registry.h"

namespace fs = std::filesystem;

namespace rocmtune {
namespace {

struct Case {
  const char* name;
  const char* world;
  const char* assignment;
  const char* path;      // the file or attribute the set writes
  const char* contains;  // in what it writes
  bool file;             // a file rocmtune owns (configured, owned, unset removes it) or a runtime attribute
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

// Carries out a plan's writes on the copy, as the helper would (without journal or regenerators).
void CarryOut(const testing::WorldCopy& w, const plan::Plan& plan) {
  for (const plan::Op& op : plan.ops) {
    if (op.kind == plan::OpKind::kRegenerate) continue;
    if (op.kind == plan::OpKind::kRemoveFile) {
      fs::remove(w.Path(op.path));
      continue;
    }
    w.Write(op.path, *op.after);
  }
}

class BackendTest : public ::testing::TestWithParam<Case> {
 protected:
  // A fresh context per step: detection and the cached modprobe.d/environment reads start over.
  struct Ctx {
    sys::Root root;
    detect::Inventory inventory;
    knobs::KnobContext Get() const { return {root, inventory, knowledge::Catalog::Builtin()}; }
  };
  static Ctx Open(const testing::WorldCopy& w) {
    sys::Root root = *sys::Root::Open(w.root());
    detect::Inventory inventory = detect::Detect(root);
    return {std::move(root), std::move(inventory)};
  }
};

TEST_P(BackendTest, SetReadSetAgainUnset) {
  const Case& c = GetParam();
  testing::WorldCopy w(c.world);
  auto assignment = knobs::ParseAssignment(c.assignment);
  ASSERT_TRUE(assignment) << assignment.error().message;
  const knobs::Backend* backend = knobs::Registry::Builtin().For(assignment->key);
  ASSERT_NE(backend, nullptr);
  std::optional<std::string> original = w.Exists(c.path) ? std::optional(w.Read(c.path)) : std::nullopt;

  Ctx before = Open(w);
  EXPECT_NE(backend->Read(before.Get(), assignment->key).owner, knobs::Owner::kRocmtune);
  const std::optional<std::string> running_before = backend->Read(before.Get(), assignment->key).running;
  plan::Plan validated;
  backend->Validate(before.Get(), assignment->key, assignment->value, validated);
  ASSERT_TRUE(validated.refused.empty()) << validated.refused[0].message;

  plan::Plan set;
  std::vector<knobs::Assignment> sets{*assignment};
  backend->PlanChanges(before.Get(), sets, {}, set);
  auto op = std::find_if(set.ops.begin(), set.ops.end(), [&](const plan::Op& o) { return o.path == c.path; });
  ASSERT_NE(op, set.ops.end()) << c.path << " not among the ops";
  ASSERT_TRUE(op->after);
  EXPECT_NE(op->after->find(c.contains), std::string::npos) << *op->after;
  // A file's op expects its bytes; an attribute's records the value to restore (its codec's
  // reading of what is there, without the capture's NUL padding).
  if (c.file) {
    EXPECT_EQ(op->before, original) << "the op expects what is there now";
  } else {
    EXPECT_EQ(op->before, backend->Read(before.Get(), assignment->key).running);
  }
  CarryOut(w, set);

  Ctx after = Open(w);
  knobs::KnobState state = backend->Read(after.Get(), assignment->key);
  if (c.file) {
    EXPECT_EQ(state.configured, assignment->value);
    EXPECT_EQ(state.owner, knobs::Owner::kRocmtune);
    EXPECT_EQ(state.configured_in, c.path);
    auto owned = backend->OwnedKeys(after.Get());
    EXPECT_NE(std::find(owned.begin(), owned.end(), assignment->key), owned.end());
    auto configured = backend->ConfiguredKeys(after.Get());
    EXPECT_NE(std::find(configured.begin(), configured.end(), assignment->key), configured.end());
  } else {
    EXPECT_EQ(state.running, assignment->value);
    // Kept as rocmtune's by the device's PCI address (knobs/runtime_state.h).
    EXPECT_EQ(state.owner, knobs::Owner::kRocmtune);
    EXPECT_EQ(state.configured, assignment->value);
    EXPECT_EQ(backend->OwnedKeys(after.Get()).size(), 1u);
  }

  plan::Plan again;
  backend->PlanChanges(after.Get(), sets, {}, again);
  EXPECT_TRUE(again.ops.empty()) << "setting it again plans " << again.ops.size() << " ops";

  plan::Plan unset;
  std::vector<knobs::KnobKey> unsets{assignment->key};
  backend->PlanChanges(after.Get(), {}, unsets, unset);
  ASSERT_FALSE(unset.ops.empty());
  CarryOut(w, unset);
  Ctx done = Open(w);
  EXPECT_NE(backend->Read(done.Get(), assignment->key).owner, knobs::Owner::kRocmtune);
  EXPECT_TRUE(backend->OwnedKeys(done.Get()).empty());
  // An attribute takes its value before back (a plain file here: compared by the value it names).
  if (c.file) EXPECT_EQ(w.Exists(c.path) ? std::optional(w.Read(c.path)) : std::nullopt, original);
  else EXPECT_EQ(backend->Read(done.Get(), assignment->key).running, running_before);
}

INSTANTIATE_TEST_SUITE_P(
    EveryBackend, BackendTest,
    ::testing::Values(Case{"modprobe", "rx5700xt", "amdgpu.noretry=0", "etc/modprobe.d/rocmtune.conf",
                           "options amdgpu noretry=0", true},
                      Case{"cmdline_grub", "rx5700xt", "cmdline.iommu=pt", "etc/default/grub.d/zz-rocmtune.cfg",
                           "iommu=pt", true},
                      Case{"env", "rx5700xt", "env.HIP_VISIBLE_DEVICES=0", "etc/environment.d/90-rocmtune.conf",
                           "HIP_VISIBLE_DEVICES=0", true},
                      Case{"sysfs", "rx6900xt", "sysfs.card0.power_dpm_force_performance_level=high",
                           "sys/class/drm/card0/device/power_dpm_force_performance_level", "high", false}),
    [](const ::testing::TestParamInfo<Case>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace rocmtune

namespace rocmtune {
namespace {

// A performance level set where power-profiles-daemon's amdgpu_dpm action runs (installed, on an
// AMD CPU, not blocked) is planned with a warning naming it; blocked, it is planned without.
TEST(SysfsOtherWriterTest, SettingTheLevelWarnsOfPowerProfilesDaemon) {
  testing::WorldCopy w("rx6900xt");
  w.Write("usr/lib/systemd/system/power-profiles-daemon.service", "[Service]\n");
  w.Write("proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\n");
  auto plan_of = [&](std::string_view text) {
    sys::Root root = *sys::Root::Open(w.root());
    detect::Inventory inventory = detect::Detect(root);
    knobs::KnobContext ctx{root, inventory, knowledge::Catalog::Builtin()};
    auto assignment = knobs::ParseAssignment(text);
    EXPECT_TRUE(assignment) << text;
    std::vector<knobs::Assignment> sets{*assignment};
    plan::Plan plan;
    knobs::Registry::Builtin().For(assignment->key)->PlanChanges(ctx, sets, {}, plan);
    return plan;
  };
  plan::Plan plan = plan_of("sysfs.card0.power_dpm_force_performance_level=high");
  ASSERT_FALSE(plan.ops.empty());
  ASSERT_EQ(plan.warnings.size(), 1u);
  EXPECT_NE(plan.warnings[0].message.find("power-profiles-daemon is installed"), std::string::npos)
      << plan.warnings[0].message;
  EXPECT_FALSE(plan.warnings[0].source.empty());
  w.Write("etc/systemd/system/power-profiles-daemon.service.d/gpu.conf",
          "[Service]\nExecStart=\nExecStart=/usr/libexec/power-profiles-daemon --block-action=amdgpu_dpm\n");
  EXPECT_TRUE(plan_of("sysfs.card0.power_dpm_force_performance_level=high").warnings.empty());
}

}  // namespace
}  // namespace rocmtune
