// Every plan the real planner makes on every world passes the allow-list. The two are written
// independently (the helper must not trust the planner), so this is what proves they agree, and
// it fails when a planner change makes plans the helper would refuse at apply time.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "helper/allow_list.h"
#include "knobs/knob_key.h"
#include "knowledge/catalog.h"
#include "planner/planner.h"
#include "test_tree.h"
#include "world_names.h"

namespace fs = std::filesystem;

namespace rocmtune::helper {
namespace {

// Carries the plan out in the scratch copy as the helper would (sysfs values included), so the
// unset that follows starts from what the set made.
void Apply(const plan::Plan& plan, const fs::path& root) {
  for (const plan::Op& op : plan.ops) {
    fs::path p = root / op.path;
    if (op.kind == plan::OpKind::kWriteFile || op.kind == plan::OpKind::kWriteSysfs) {
      fs::create_directories(p.parent_path());
      std::ofstream(p, std::ios::binary | std::ios::trunc) << *op.after;
    } else if (op.kind == plan::OpKind::kRemoveFile) {
      fs::remove(p);
    }
  }
}

// HSA_OVERRIDE_GFX_VERSION naming the GPUs' own target (always acceptable when they agree).
std::string OwnGfxVersion(const detect::Inventory& inventory) {
  for (const detect::Gpu& gpu : inventory.gpus)
    if (gpu.gfx_target_version) {
      uint32_t v = *gpu.gfx_target_version;
      return fmt::format("{}.{}.{}", v / 10000, v / 100 % 100, v % 100);
    }
  return "10.3.0";
}

// What kind of op it was, for the coverage check.
std::string OpClass(const plan::Op& op) {
  switch (op.kind) {
    case plan::OpKind::kWriteFile:
    case plan::OpKind::kRemoveFile:
      return fmt::format("{} {}", op.kind == plan::OpKind::kWriteFile ? "write" : "remove",
                         op.path.starts_with("boot/loader/entries/") ? "boot/loader/entries/*" : op.path);
    case plan::OpKind::kWriteSysfs: return "sysfs " + op.path.substr(op.path.rfind('/') + 1);
    case plan::OpKind::kRegenerate: return "run " + op.argv.at(0);
  }
  return "?";
}

struct Sweep {
  size_t plans = 0, ops = 0, refused_by_planner = 0;
  std::set<std::string> seen;
};

// Plans the request on the tree's current state, checks it, then carries it out.
void PlanCheckApply(const fs::path& dir, const std::string& label, const plan::Request& request, Sweep& sweep) {
  auto root = sys::Root::Open(dir.string());
  ASSERT_TRUE(root);
  detect::Inventory inventory = detect::Detect(*root);
  plan::Plan p = plan::PlanRequest({*root, inventory, knowledge::Catalog::Builtin()}, request);
  p.intent.verb = "set";  // what api::Set records (the helper checks the intent too)
  if (!p.refused.empty()) {
    ++sweep.refused_by_planner;  // nothing for the helper to see
    return;
  }
  for (const Error& e : CheckPlan(*root, inventory, p)) ADD_FAILURE() << label << ": " << e.message;
  ++sweep.plans;
  sweep.ops += p.ops.size();
  for (const plan::Op& op : p.ops) sweep.seen.insert(OpClass(op));
  Apply(p, dir);
}

void SetThenUnset(const fs::path& dir, const std::string& world, const std::vector<std::string>& assignments,
                  Sweep& sweep) {
  plan::Request set, unset;
  std::string label = world + ":";
  for (const std::string& a : assignments) {
    set.set.push_back(*knobs::ParseAssignment(a));
    unset.unset.push_back(set.set.back().key);
    label += " " + a;
  }
  PlanCheckApply(dir, label, set, sweep);
  PlanCheckApply(dir, label + " (unset)", unset, sweep);
}

struct Variant {
  std::string name;
  std::string world;
  std::vector<std::string> remove;  // files taken out of the copy to reach another planner path
};

// Test names and ctest listings show the variant's name, not its bytes.
void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }

std::vector<Variant> Variants() {
  std::vector<Variant> variants;
  for (const std::string& w : testing::WorldNames()) variants.push_back({w, w, {}});
  variants.push_back({"rx6600-without-grubby", "rx6600", {"usr/sbin/grubby"}});  // BLS entries edited directly
  variants.push_back({"hd7870-without-update-grub", "hd7870", {"usr/sbin/update-grub"}});  // grub-mkconfig
  return variants;
}

// Every request on a copy of the variant's world, each set followed by the unset of its keys.
Sweep SweepVariant(const Variant& v) {
  Sweep sweep;
  testing::TestTree tree;
  fs::path dir = tree.Path("root");
  testing::CopyTree((fs::path(ROCMTUNE_WORLDS_DIR) / v.world).string(), dir.string());
  for (const std::string& r : v.remove) fs::remove(dir / r);
  auto root = sys::Root::Open(dir.string());
  std::string gfx = OwnGfxVersion(detect::Detect(*root));
  const std::vector<std::vector<std::string>> requests = {
      {"amdgpu.noretry=1"},
      {"ttm.pages_limit=3145728"},
      {"cmdline.iommu=pt"},
      {"env.HSA_OVERRIDE_GFX_VERSION=" + gfx},
      {"sysfs.all.power_dpm_force_performance_level=high"},
      {"sysfs.all.pp_power_profile_mode=COMPUTE"},
      {"amdgpu.noretry=0", "ttm.pages_limit=3145728", "cmdline.iommu=pt", "cmdline.amdgpu.noretry=0", "env.HSA_XNACK=1",
       "env.PYTORCH_ROCM_ARCH=gfx90a,gfx1100"},
  };
  for (const auto& request : requests) SetThenUnset(dir, v.name, request, sweep);
  return sweep;
}

class PlannerAgreementTest : public ::testing::TestWithParam<Variant> {};

TEST_P(PlannerAgreementTest, EveryPlanPasses) {
  Sweep sweep = SweepVariant(GetParam());
  // Every world takes at least the env request; a sweep that checked nothing proves nothing.
  EXPECT_GE(sweep.plans, 2u) << sweep.refused_by_planner << " requests refused by the planner";
  RecordProperty("plans", static_cast<int>(sweep.plans));
  RecordProperty("ops", static_cast<int>(sweep.ops));
}

INSTANTIATE_TEST_SUITE_P(Worlds, PlannerAgreementTest, ::testing::ValuesIn(Variants()),
                         [](const ::testing::TestParamInfo<Variant>& param) {
                           std::string name = param.param.name;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// The small worlds that between them reach every kind of op the planner makes (so the
// agreement above covers every rule of the allow-list that a real plan can meet).
TEST(PlannerAgreementCoverageTest, SweepReachesEveryKindOfOp) {
  std::set<std::string> seen;
  size_t plans = 0;
  for (const Variant& v : Variants()) {
    if (v.world == "mi300x-cpx") continue;  // 8000 files to copy, and nothing the others lack
    Sweep sweep = SweepVariant(v);
    plans += sweep.plans;
    seen.insert(sweep.seen.begin(), sweep.seen.end());
  }
  const std::set<std::string> expected = {
      "write etc/modprobe.d/rocmtune.conf",
      "remove etc/modprobe.d/rocmtune.conf",
      "write etc/environment.d/90-rocmtune.conf",
      "remove etc/environment.d/90-rocmtune.conf",
      "write etc/profile.d/rocmtune.sh",
      "remove etc/profile.d/rocmtune.sh",
      "write etc/default/grub.d/zz-rocmtune.cfg",
      "remove etc/default/grub.d/zz-rocmtune.cfg",
      "write var/lib/rocmtune/cmdline-tokens",
      "remove var/lib/rocmtune/cmdline-tokens",
      "write etc/default/grub",
      "write etc/kernel/cmdline",
      "write boot/loader/entries/*",
      "sysfs power_dpm_force_performance_level",
      "sysfs pp_power_profile_mode",
      "run update-grub",
      "run grub-mkconfig",
      "run grubby",
      "run kernel-install",
      "run update-initramfs",
      "run dracut",
      "run mkinitcpio",
  };
  std::string shown;
  for (const auto& s : seen) shown += s + "\n";
  for (const auto& e : expected) EXPECT_TRUE(seen.count(e)) << "never planned: " << e << "\nseen:\n" << shown;
  EXPECT_GE(plans, 200u);
  std::printf("%zu plans checked\n", plans);
}

// What the helper refuses, the planner refuses first, with a reason a person can act on:
// kernel options it has no record of, and env values with ';' (profile.d would run the rest as a
// command). The helper stays the backstop for plans that do not come from this planner
// (allow_list_test.cc builds those by hand).
TEST(PlannerAgreementBackstopTest, PlannerRefusesWhatTheHelperWouldRefuse) {
  auto root = sys::Root::Open((fs::path(ROCMTUNE_WORLDS_DIR) / "rx6900xt").string());
  ASSERT_TRUE(root);
  detect::Inventory inventory = detect::Detect(*root);
  const std::pair<std::string, std::string_view> cases[] = {
      {"env.HIP_VISIBLE_DEVICES=GPU-a;reboot", "not allowed"},
      {"env.PYTORCH_ROCM_ARCH=gfx90a;gfx1100", "a ';' ends the command"},
      {"cmdline.init=/bin/sh", "no record of the kernel option 'init'"},
      {"cmdline.rd.break", "no record of the kernel option 'rd.break'"},
  };
  for (const auto& [assignment, why] : cases) {
    plan::Request r;
    r.set.push_back(*knobs::ParseAssignment(assignment.find('=') == std::string::npos ? assignment + "=" : assignment));
    plan::Plan p = plan::PlanRequest({*root, inventory, knowledge::Catalog::Builtin()}, r);
    EXPECT_TRUE(p.ops.empty()) << assignment;
    std::string refused;
    for (const auto& m : p.refused) refused += m.message + "\n";
    EXPECT_THAT(refused, ::testing::HasSubstr(std::string(why))) << assignment;
  }
}

}  // namespace
}  // namespace rocmtune::helper
