// Plans on the real worlds: what the knob layer refuses, warns about and would write.
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "detect/inventory.h"
#include "knobs/registry.h"
#include "knowledge/catalog.h"
#include "planner/planner.h"
#include "test_tree.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace rocmtune::plan {
namespace {

struct World {
  explicit World(const std::string& name)
      : root(*sys::Root::Open((fs::path(ROCMTUNE_WORLDS_DIR) / name).string())), inventory(detect::Detect(root)) {}
  knobs::KnobContext Context() const { return {root, inventory, knowledge::Catalog::Builtin()}; }
  Plan Set(std::initializer_list<std::string_view> assignments) const {
    Request r;
    for (auto a : assignments) r.set.push_back(*knobs::ParseAssignment(a));
    return PlanRequest(Context(), r);
  }
  sys::Root root;
  detect::Inventory inventory;
};

std::string AllText(const std::vector<Message>& messages) {
  std::string out;
  for (const auto& m : messages) out += m.message + "\n";
  return out;
}

// Kernel 6.8: mtype_local became unsafe (tainting) only in 6.14, so here it is only useless.
TEST(KnobPlanTest, MtypeLocalOnRdna1WarnsItDoesNothing) {
  World w("rx5700xt");
  Plan p = w.Set({"amdgpu.mtype_local=1"});
  EXPECT_TRUE(p.refused.empty()) << AllText(p.refused);
  EXPECT_TRUE(p.needs_force.empty()) << AllText(p.needs_force);
  EXPECT_THAT(AllText(p.warnings), HasSubstr("does nothing on this machine's GPUs"));
  EXPECT_THAT(AllText(p.warnings), ::testing::Not(HasSubstr("taints the kernel")));
  ASSERT_FALSE(p.ops.empty());
  EXPECT_EQ(p.ops[0].path, "etc/modprobe.d/rocmtune.conf");
  EXPECT_FALSE(p.ops[0].before);
  EXPECT_THAT(*p.ops[0].after, HasSubstr("options amdgpu mtype_local=1\n"));
  EXPECT_TRUE(p.reboot_required);
}

// Kernel 6.14 on RDNA4: useless and tainting, so a refusal that --force overrides (the plan keeps
// its ops; api::CarryOut decides).
TEST(KnobPlanTest, MtypeLocalOnRdna4WithA614KernelNeedsForce) {
  World w("rx9070xt");
  Plan p = w.Set({"amdgpu.mtype_local=1"});
  EXPECT_TRUE(p.refused.empty()) << AllText(p.refused);
  ASSERT_EQ(p.needs_force.size(), 1u);
  EXPECT_THAT(p.needs_force[0].message, HasSubstr("does nothing on this machine's GPUs"));
  EXPECT_THAT(p.needs_force[0].message, HasSubstr("taints the kernel (TAINT_USER) on kernel 6.14"));
  EXPECT_FALSE(p.ops.empty());
}

TEST(KnobPlanTest, MtypeLocalOnMi300IsNotCalledUseless) {
  World w("mi300x-cpx");
  Plan p = w.Set({"amdgpu.mtype_local=1"});
  EXPECT_THAT(AllText(p.warnings), ::testing::Not(HasSubstr("does nothing")));
}

TEST(KnobPlanTest, MisspellingIsRefusedWithASuggestion) {
  World w("strixpoint");
  Plan p = w.Set({"amdgpu.gtt_size=65536"});
  ASSERT_EQ(p.refused.size(), 1u);
  EXPECT_THAT(p.refused[0].message, HasSubstr("gttsize"));
  // gttsize is deprecated itself: the refusal names what sets the GTT limit today.
  EXPECT_THAT(p.refused[0].message, HasSubstr("ttm.pages_limit is the setting that does this now"));
  EXPECT_TRUE(p.ops.empty());
}

// strixpoint runs 6.14, before the kernel that deprecates gttsize (6.15): a note naming the
// successor, not a warning.
TEST(KnobPlanTest, GttsizeIsDeprecatedFromTheKernelThatDeprecatesIt) {
  World w("strixpoint");
  Plan p = w.Set({"amdgpu.gttsize=65536"});
  EXPECT_THAT(AllText(p.notes), HasSubstr("deprecated from kernel 6.15 on"));
  EXPECT_THAT(AllText(p.notes), HasSubstr("ttm.pages_limit"));
  EXPECT_THAT(AllText(p.warnings), Not(HasSubstr("deprecated")));
}

TEST(KnobPlanTest, InvalidIommuOptionsAreRefused) {
  World w("mi210x8");
  for (auto bad : {"cmdline.amd_iommu=on", "cmdline.amd_iommu=pt", "cmdline.iommu=passthrough"}) {
    Plan p = w.Set({bad});
    EXPECT_FALSE(p.refused.empty()) << bad;
    EXPECT_TRUE(p.ops.empty()) << bad;
  }
  EXPECT_THAT(AllText(w.Set({"cmdline.amd_iommu=on"}).refused), HasSubstr("iommu=pt"));
}

// The helper writes only known kernel options; the planner refuses the rest up front (a
// typo such as iommu_pt would otherwise reach init silently).
TEST(KnobPlanTest, UnknownKernelOptionsAreRefused) {
  World w("mi210x8");
  Plan p = w.Set({"cmdline.iommu_pt=1"});
  EXPECT_THAT(AllText(p.refused), HasSubstr("no record of the kernel option 'iommu_pt'"));
  EXPECT_TRUE(p.ops.empty());
  Plan known = w.Set({"cmdline.pci=realloc=off"});
  EXPECT_TRUE(known.refused.empty()) << AllText(known.refused);
  EXPECT_FALSE(known.ops.empty());
}

TEST(KnobPlanTest, OverrideAcrossIsaFamiliesIsRefused) {
  World rdna1("rx5700xt");
  Plan p = rdna1.Set({"env.HSA_OVERRIDE_GFX_VERSION=10.3.0"});
  ASSERT_FALSE(p.refused.empty());
  EXPECT_THAT(p.refused[0].message, HasSubstr("gfx1010"));
  World navi23("rx6600");
  Plan q = navi23.Set({"env.HSA_OVERRIDE_GFX_VERSION=10.3.0"});
  EXPECT_TRUE(q.refused.empty()) << AllText(q.refused);
  EXPECT_THAT(AllText(q.warnings), HasSubstr("same family"));
  ASSERT_EQ(q.ops.size(), 2u);  // environment.d and profile.d
}

TEST(KnobPlanTest, ParameterTheRunningKernelLacksIsRefused) {
  World old("rx580");  // Debian 11, kernel 5.10: no mtype_local (6.5+)
  Plan p = old.Set({"amdgpu.mtype_local=1"});
  ASSERT_FALSE(p.refused.empty());
  EXPECT_THAT(p.refused[0].message, HasSubstr("has no amdgpu.mtype_local"));
}

TEST(KnobPlanTest, SysfsProfileByName) {
  World w("rx6900xt");
  Plan p = w.Set({"sysfs.card0.pp_power_profile_mode=COMPUTE"});
  ASSERT_TRUE(p.refused.empty()) << AllText(p.refused);
  ASSERT_EQ(p.ops.size(), 2u);
  EXPECT_EQ(p.ops[0].kind, OpKind::kWriteSysfs);
  EXPECT_EQ(p.ops[0].before, "BOOTUP_DEFAULT");
  EXPECT_EQ(p.ops[0].after, "5");  // COMPUTE's index in this device's table
  // What rocmtune keeps set, by PCI address, with the value before (knobs/runtime_state.h).
  EXPECT_EQ(p.ops[1].kind, OpKind::kWriteFile);
  EXPECT_EQ(p.ops[1].path, "var/lib/rocmtune/runtime-settings");
  EXPECT_THAT(p.ops[1].after.value_or(""), HasSubstr("\n0000:0c:00.0 pp_power_profile_mode COMPUTE BOOTUP_DEFAULT\n"));
  EXPECT_FALSE(w.Set({"sysfs.card0.pp_power_profile_mode=TURBO"}).refused.empty());
  EXPECT_FALSE(w.Set({"sysfs.card7.power_dpm_force_performance_level=high"}).refused.empty());
  EXPECT_FALSE(w.Set({"sysfs.card0.power_dpm_force_performance_level=turbo"}).refused.empty());
}

TEST(KnobPlanTest, FedoraUsesGrubbyWhenPresent) {
  World w("rx6600");  // Fedora 41: GRUB with BLS entries, grubby installed
  Plan p = w.Set({"cmdline.iommu=pt"});
  ASSERT_TRUE(p.refused.empty()) << AllText(p.refused);
  bool grubby = false;
  for (const Op& op : p.ops) {
    if (op.kind == OpKind::kRegenerate && op.path == "grubby") {
      grubby = true;
      EXPECT_EQ(op.argv, (std::vector<std::string>{"grubby", "--update-kernel=ALL", "--args=iommu=pt"}));
    }
    EXPECT_THAT(op.path, ::testing::Not(HasSubstr("boot/loader/entries"))) << "grubby owns the entries";
  }
  EXPECT_TRUE(grubby);
  bool default_grub = false;
  for (const Op& op : p.ops)
    if (op.path == "etc/default/grub") {
      default_grub = true;
      EXPECT_THAT(*op.after, HasSubstr("iommu=pt"));
    }
  EXPECT_TRUE(default_grub) << "kernels installed later take GRUB_CMDLINE_LINUX";
}

TEST(KnobPlanTest, SameValueAsNowPlansNothing) {
  World w("rx6900xt");
  Plan p = w.Set({"sysfs.all.pp_power_profile_mode=BOOTUP_DEFAULT"});
  EXPECT_TRUE(p.refused.empty());
  EXPECT_TRUE(p.ops.empty());
}

// At least 50 hostile inputs, each refused cleanly (no op, a message), never crashing.
TEST(KnobPlanTest, HostileValuesAreAllRefused) {
  World w("rx6900xt");
  const std::vector<std::string> keys = {"amdgpu.noretry",
                                         "ttm.pages_limit",
                                         "cmdline.iommu",
                                         "env.HSA_OVERRIDE_GFX_VERSION",
                                         "sysfs.all.power_dpm_force_performance_level",
                                         "amdgpu.ppfeaturemask"};
  const std::vector<std::string> values = {
      "",
      "1\n",
      "1\nrm -rf /",
      "$(id)",
      "`id`",
      "1;reboot",
      "1&&id",
      "1|id",
      "1>/etc/x",
      "<1",
      "'1'",
      "\"1\"",
      "1 2",
      " 1",
      "1 ",
      "\t1",
      std::string("1\0"
                  "2",
                  3),
      "99999999999999999999999",
      "-99999999999999999999",
      "0x",
      "1e3",
      "+-1",
      "١",
      "１",
      "../../etc/passwd",
      "/etc/shadow",
      "${HOME}",
      "$HOME",
      "\\x41",
      "%n%n",
      std::string(5000, '1'),
      std::string(300, 'a'),
      "1#comment",
      "# x",
      "\r",
      "\x7f",
      "NaN",
      "inf",
      "-inf",
      "0b101",
      "1.0.0.0",
      "1..0",
      "..",
      "*",
      "?",
      "~root",
      "a=b",
      "\x1b[31m",
      "\xff\xfe",
      "\xc0\xaf",
      "null",
      "true",
      "{}",
      "[]",
      "1,2,3\n",
      "--force",
      "-h",
  };
  size_t refused = 0;
  for (const std::string& key : keys) {
    for (const std::string& value : values) {
      Request r;
      r.set.push_back({*knobs::ParseKnobKey(key), value});
      Plan p = PlanRequest(w.Context(), r);
      bool ok_for_this_key = p.refused.empty();
      // A few values are legitimate for some keys (e.g. "true"? none are) — none may pass here.
      EXPECT_FALSE(ok_for_this_key) << key << "=" << value << " was accepted";
      EXPECT_TRUE(p.ops.empty()) << key << "=" << value;
      if (!p.refused.empty()) {
        EXPECT_FALSE(p.refused[0].message.empty());
        ++refused;
      }
    }
  }
  EXPECT_GE(values.size(), 50u);
  EXPECT_EQ(refused, keys.size() * values.size());
}

}  // namespace
}  // namespace rocmtune::plan

namespace rocmtune::plan {
namespace {

// Writes the plan's file ops into a copy of the world, as the helper will.
void ApplyFileOps(const Plan& plan, const fs::path& root) {
  for (const Op& op : plan.ops) {
    fs::path p = root / op.path;
    if (op.kind == OpKind::kWriteFile) {
      fs::create_directories(p.parent_path());
      std::ofstream(p, std::ios::binary | std::ios::trunc) << *op.after;
    } else if (op.kind == OpKind::kRemoveFile) {
      fs::remove(p);
    }
  }
}

// The effective GRUB arguments by sourcing exactly as grub-mkconfig does (its loop over
// /etc/default/grub and /etc/default/grub.d/*.cfg), in a clean environment.
std::string SourcedArgs(const fs::path& root) {
  std::string cmd =
      "env -i PATH=/usr/bin:/bin /bin/sh -c 'sysconfdir=\"$1/etc\"; "
      "if test -f ${sysconfdir}/default/grub ; then . ${sysconfdir}/default/grub; fi; "
      "for x in ${sysconfdir}/default/grub.d/*.cfg ; do if [ -e \"${x}\" ]; then . \"${x}\"; fi; done; "
      "printf \"%s\\n\" \"$GRUB_CMDLINE_LINUX $GRUB_CMDLINE_LINUX_DEFAULT\"' sh '" +
      root.string() + "'";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  EXPECT_EQ(::pclose(pipe), 0);
  return out;
}

TEST(KnobPlanTest, IommuDropInSurvivesCloudImageSourcingOrder) {
  if (!fs::exists("/bin/sh")) GTEST_SKIP() << "/bin/sh missing: cannot source like grub-mkconfig";
  fs::path world = fs::path(ROCMTUNE_WORLDS_DIR) / "ubuntu-cloud";
  ASSERT_TRUE(fs::exists(world / "etc/default/grub.d/50-cloudimg-settings.cfg"));
  rocmtune::testing::TestTree scratch;  // under $TMPDIR
  fs::path copy = scratch.Path("root");
  fs::copy(world, copy, fs::copy_options::recursive | fs::copy_options::copy_symlinks);

  // 50-cloudimg-settings.cfg assigns GRUB_CMDLINE_LINUX_DEFAULT, so a value put in
  // /etc/default/grub is lost; the drop-in must come after it.
  EXPECT_THAT(SourcedArgs(copy), ::testing::Not(HasSubstr("iommu=pt")));
  World w("ubuntu-cloud");
  Plan p = w.Set({"cmdline.iommu=pt"});
  ASSERT_TRUE(p.refused.empty()) << AllText(p.refused);
  ASSERT_FALSE(p.ops.empty());
  EXPECT_EQ(p.ops[0].path, "etc/default/grub.d/zz-rocmtune.cfg");
  EXPECT_EQ(p.bootloader, Regen::kPending);
  ApplyFileOps(p, copy);
  std::string args = SourcedArgs(copy);
  EXPECT_THAT(args, HasSubstr("console=tty1 console=ttyS0 iommu=pt"));  // kept the image's tokens, in order

  // And unset takes exactly that back out.
  auto root = sys::Root::Open(copy.string());
  ASSERT_TRUE(root);
  detect::Inventory inv = detect::Detect(*root);
  Request r;
  r.unset.push_back(*knobs::ParseKnobKey("cmdline.iommu"));
  Plan undo = PlanRequest({*root, inv, knowledge::Catalog::Builtin()}, r);
  ASSERT_TRUE(undo.refused.empty()) << AllText(undo.refused);
  ASSERT_FALSE(undo.ops.empty());
  EXPECT_EQ(undo.ops[0].kind, OpKind::kRemoveFile);
  ApplyFileOps(undo, copy);
  EXPECT_THAT(SourcedArgs(copy), ::testing::Not(HasSubstr("iommu=pt")));
}

TEST(KnobPlanTest, ModprobeSetIsIdempotentAndUnsetRemovesOnlyOurs) {
  rocmtune::testing::TestTree scratch;  // under $TMPDIR
  fs::path copy = scratch.Path("root");
  fs::copy(fs::path(ROCMTUNE_WORLDS_DIR) / "rx6600", copy,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  fs::create_directories(copy / "etc/modprobe.d");
  std::ofstream(copy / "etc/modprobe.d/admin.conf") << "options amdgpu runpm=0\n";
  auto plan_for = [&](Request r) {
    auto root = sys::Root::Open(copy.string());
    detect::Inventory inv = detect::Detect(*root);
    return PlanRequest({*root, inv, knowledge::Catalog::Builtin()}, r);
  };
  Request set;
  set.set.push_back(*knobs::ParseAssignment("amdgpu.noretry=0"));
  Plan first = plan_for(set);
  ASSERT_TRUE(first.refused.empty()) << AllText(first.refused);
  ApplyFileOps(first, copy);
  EXPECT_TRUE(plan_for(set).ops.empty()) << "the same set twice must plan nothing";
  Request unset_admin;
  unset_admin.unset.push_back(*knobs::ParseKnobKey("amdgpu.runpm"));
  Plan q = plan_for(unset_admin);
  EXPECT_TRUE(q.ops.empty());  // admin.conf is not ours
  EXPECT_THAT(AllText(q.warnings), HasSubstr("does not own"));
  Request unset;
  unset.unset.push_back(*knobs::ParseKnobKey("amdgpu.noretry"));
  Plan r = plan_for(unset);
  ASSERT_FALSE(r.ops.empty());
  EXPECT_EQ(r.ops[0].kind, OpKind::kRemoveFile);
  EXPECT_EQ(r.ops[0].path, "etc/modprobe.d/rocmtune.conf");
}

}  // namespace
}  // namespace rocmtune::plan
