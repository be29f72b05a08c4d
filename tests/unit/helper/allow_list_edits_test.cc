// The allow-list against hostile edits of shared files, sysfs writes and regenerators, and
// CheckPlan over whole plans. Each case is one change away from a baseline that passes
// (allow_list_test.cc BaselineOpsPass) and must be refused by the rule named in its message.
#include <fstream>

#include "edited.h"
#include "helper/allow_list.h"
#include "helper/allow_list_fixture.h"
#include "plan/owned_paths.h"

using ::testing::HasSubstr;

namespace rocmtune::helper {
namespace {

TEST_F(AllowListTest, SharedFileEditsOutsideTheCommandLineAreRefused) {
  const std::string grub = Disk(boot::kGrubDefaultsPath);
  const std::string bls(kBlsContent), kcmd(kKernelCmdline);
  const std::string grub_path(boot::kGrubDefaultsPath), bls_path(kBls), kcmd_path("etc/kernel/cmdline");
  const std::string iommu_line = "GRUB_CMDLINE_LINUX_DEFAULT=\"loglevel=3 quiet iommu=pt\"";
  const std::string cmdline_line = "GRUB_CMDLINE_LINUX_DEFAULT=\"loglevel=3 quiet\"";
  Op no_before = GrubEdit(GrubWith({"iommu=pt"}));
  no_before.before.reset();
  Op stale = GrubEdit(GrubWith({"iommu=pt"}));
  stale.before = rocmtune::testing::Edited(*stale.before, "GRUB_TIMEOUT=5", "GRUB_TIMEOUT=0");
  stale.after = rocmtune::testing::Edited(*stale.after, "GRUB_TIMEOUT=5", "GRUB_TIMEOUT=0");
  const std::vector<Hostile> cases = {
      {"remove /etc/default/grub", File(grub_path, "cmdline", std::nullopt, grub), rule::kSharedFileRemoval},
      {"remove a BLS entry", File(bls_path, "cmdline", std::nullopt, bls), rule::kSharedFileRemoval},
      {"remove /etc/kernel/cmdline", File(kcmd_path, "cmdline", std::nullopt, kcmd), rule::kSharedFileRemoval},
      {"grub edit without before", no_before, rule::kSharedBefore},
      {"grub edit on a stale before", stale, rule::kSharedBefore},
      {"GRUB_TIMEOUT changed",
       GrubEdit(rocmtune::testing::Edited(GrubWith({"iommu=pt"}), "GRUB_TIMEOUT=5", "GRUB_TIMEOUT=0")),
       rule::kSharedOtherLine},
      {"GRUB_INIT_TUNE added", GrubEdit(GrubWith({"iommu=pt"}) + "GRUB_INIT_TUNE=\"480 440 1\"\n"),
       rule::kSharedOtherLine},
      {"a comment uncommented",
       GrubEdit(rocmtune::testing::Edited(grub, "#GRUB_ENABLE_CRYPTODISK=y", "GRUB_ENABLE_CRYPTODISK=y")),
       rule::kSharedOtherLine},
      {"command after the value", GrubEdit(rocmtune::testing::Edited(grub, cmdline_line, iommu_line + "; reboot")),
       rule::kSharedOtherLine},
      {"command substitution in the value",
       GrubEdit(
           rocmtune::testing::Edited(grub, cmdline_line, "GRUB_CMDLINE_LINUX_DEFAULT=\"loglevel=3 quiet $(reboot)\"")),
       rule::kSharedOtherLine},
      {"other variable renamed",
       GrubEdit(rocmtune::testing::Edited(grub, cmdline_line, "GRUB_CMDLINE_LINUX=\"loglevel=3 quiet iommu=pt\"")),
       rule::kSharedOtherLine},
      {"line endings changed",
       GrubEdit(rocmtune::testing::Edited(GrubWith({"iommu=pt"}), "GRUB_TIMEOUT=5\n", "GRUB_TIMEOUT=5\r\n")),
       rule::kSharedOtherLine},
      {"amd_iommu=on added", GrubEdit(GrubWith({"amd_iommu=on"})), rule::kKernelToken},
      {"amd-iommu=pt added", GrubEdit(GrubWith({"amd-iommu=pt"})), rule::kKernelToken},
      {"init=/bin/sh added", GrubEdit(GrubWith({"init=/bin/sh"})), rule::kKernelToken},
      {"unknown amdgpu parameter", GrubEdit(GrubWith({"amdgpu.nosuch=1"})), rule::kKernelToken},
      {"system token removed", GrubEdit(GrubWith({}, {"quiet"})), rule::kRemovedToken},
      {"BLS linux line changed",
       File(bls_path, "cmdline", rocmtune::testing::Edited(bls, "linux /vmlinuz", "linux /tmp/vmlinuz"), bls),
       rule::kSharedOtherLine},
      {"BLS init line added", File(bls_path, "cmdline", bls + "initrd /tmp/evil.img\n", bls), rule::kSharedOtherLine},
      {"BLS amd_iommu=pt",
       File(bls_path, "cmdline", *boot::SetBlsOptions(bls, std::vector<std::string>{"amd_iommu=pt"}, {}), bls),
       rule::kKernelToken},
      {"BLS root= removed",
       File(bls_path, "cmdline", *boot::SetBlsOptions(bls, {}, std::vector<std::string>{"root"}), bls),
       rule::kRemovedToken},
      {"kernel cmdline amd_iommu=on",
       File(kcmd_path, "cmdline", rocmtune::testing::Edited(kcmd, "quiet", "quiet amd_iommu=on"), kcmd),
       rule::kKernelToken},
      {"kernel cmdline root= removed",
       File(kcmd_path, "cmdline", rocmtune::testing::Edited(kcmd, "root=UUID=3cf73d50 ", ""), kcmd),
       rule::kRemovedToken},
      {"kernel cmdline control byte",
       File(kcmd_path, "cmdline", rocmtune::testing::Edited(kcmd, "quiet", "quiet\x1b[2J"), kcmd),
       rule::kSharedOtherLine},
      {"NUL in a shared file", GrubEdit(GrubWith({"iommu=pt"}) + std::string("\0", 1)), rule::kContentText},
  };
  for (const Hostile& h : cases) ExpectRefused(Check(h.op), h);
}

// An admin's value of an option rocmtune sets is replaced in place (AddOrReplaceToken).
TEST_F(AllowListTest, ReplacingAnOptionRocmtuneManages) {
  std::string grub = "GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX_DEFAULT=quiet iommu=soft\n";
  grub = rocmtune::testing::Edited(grub, "quiet iommu=soft", "\"quiet iommu=soft\"");
  tree_.Write("root/etc/default/grub", grub);
  std::string after = GrubWith({"iommu=pt"});
  EXPECT_EQ(after, rocmtune::testing::Edited(grub, "iommu=soft", "iommu=pt"));
  EXPECT_TRUE(Check(GrubEdit(after)));
  ExpectRefused(Check(GrubEdit(GrubWith({"iommu=pt"}, {"quiet"}))), {"quiet removed", {}, rule::kRemovedToken});

  // A bare value that gains a space gets quotes, as SetAssignmentTokens writes it.
  tree_.Write("root/etc/default/grub", "GRUB_CMDLINE_LINUX=quiet # keep\n");
  after = *boot::SetAssignmentTokens(Disk(boot::kGrubDefaultsPath), boot::kGrubCmdlineLinux,
                                     std::vector<std::string>{"iommu=pt"}, {});
  EXPECT_EQ(after, "GRUB_CMDLINE_LINUX=\"quiet iommu=pt\" # keep\n");
  EXPECT_TRUE(Check(GrubEdit(after)));
  ExpectRefused(Check(GrubEdit("GRUB_CMDLINE_LINUX='quiet iommu=pt' # keep\n")), {"quote", {}, rule::kSharedOtherLine});
  ExpectRefused(Check(GrubEdit("GRUB_CMDLINE_LINUX=\"quiet iommu=pt\" # gone\n")),
                {"comment", {}, rule::kSharedOtherLine});
}

// What SetAssignmentTokens / SetBlsOptions append to a file without a command-line line.
TEST_F(AllowListTest, AppendedCommandLineLineOnlyWhereThereWasNone) {
  std::string bare = "GRUB_TIMEOUT=5\n";
  tree_.Write("root/etc/default/grub", bare);
  std::string appended =
      *boot::SetAssignmentTokens(bare, boot::kGrubCmdlineLinuxDefault, std::vector<std::string>{"iommu=pt"}, {});
  ASSERT_EQ(appended, bare + "GRUB_CMDLINE_LINUX_DEFAULT=\"iommu=pt\"\n");
  EXPECT_TRUE(Check(GrubEdit(appended)));
  ExpectRefused(Check(GrubEdit(bare + "GRUB_CMDLINE_LINUX_DEFAULT=\"init=/bin/sh\"\n")),
                {"bad token", {}, rule::kKernelToken});
  ExpectRefused(Check(GrubEdit(bare + "GRUB_CMDLINE_LINUX_DEFAULT=\"iommu=pt\"; id\n")),
                {"tail", {}, rule::kSharedOtherLine});
  ExpectRefused(Check(GrubEdit(bare + "GRUB_TIMEOUT=0\n")), {"other line", {}, rule::kSharedOtherLine});

  std::string has_one = "GRUB_CMDLINE_LINUX_DEFAULT=\"$X\"\n";  // an assignment the line parser does not model
  tree_.Write("root/etc/default/grub", has_one);
  ExpectRefused(Check(GrubEdit(has_one + "GRUB_CMDLINE_LINUX_DEFAULT=\"iommu=pt\"\n")),
                {"second", {}, rule::kSharedOtherLine});

  std::string entry = "title x\nlinux /vmlinuz\n";
  tree_.Write("root/" + std::string(kBls), entry);
  Op bls =
      File(std::string(kBls), "cmdline", *boot::SetBlsOptions(entry, std::vector<std::string>{"iommu=pt"}, {}), entry);
  EXPECT_EQ(*bls.after, entry + "options iommu=pt\n");
  EXPECT_TRUE(Check(bls));
}

TEST_F(AllowListTest, HostileSysfsWritesAreRefused) {
  const std::vector<Hostile> cases = {
      {"escape through the device dir", Sysfs(std::string(kCard0) + "/../../../../etc/passwd", "high"),
       rule::kPathSyntax},
      {"absolute path", Sysfs("/" + Attr("power_dpm_force_performance_level"), "high"), rule::kPathSyntax},
      {"not a GPU", Sysfs("sys/kernel/mm/transparent_hugepage/enabled", "always"), rule::kSysfsDevice},
      {"a card the inventory lacks", Sysfs("sys/class/drm/card7/device/power_dpm_force_performance_level", "high"),
       rule::kSysfsDevice},
      {"outside sys/", Sysfs("etc/modprobe.d/rocmtune.conf", "high"), rule::kSysfsDevice},
      {"attribute not allowed", Sysfs(Attr("pp_od_clk_voltage"), "r"), rule::kSysfsAttribute},
      {"device removal", Sysfs(Attr("remove"), "1"), rule::kSysfsAttribute},
      {"value with a second line", Sysfs(Attr("power_dpm_force_performance_level"), "high\nlow\n"), rule::kSysfsValue},
      {"value with two newlines", Sysfs(Attr("power_dpm_force_performance_level"), "high\n\n"), rule::kSysfsValue},
      {"value not listed", Sysfs(Attr("power_dpm_force_performance_level"), "turbo"), rule::kSysfsValue},
      {"overlong value", Sysfs(Attr("power_dpm_force_performance_level"), std::string(64, 'a')), rule::kSysfsValue},
      {"profile with parameters", Sysfs(Attr("pp_power_profile_mode"), "6 1 2 3"), rule::kSysfsValue},
      {"profile by name", Sysfs(Attr("pp_power_profile_mode"), "COMPUTE"), rule::kSysfsValue},
      {"profile index not listed", Sysfs(Attr("pp_power_profile_mode"), "42"), rule::kSysfsValue},
      {"CUSTOM profile", Sysfs(Attr("pp_power_profile_mode"), "6"), rule::kSysfsValue},
      {"leading zero", Sysfs(Attr("pp_power_profile_mode"), "05"), rule::kSysfsValue},
  };
  for (const Hostile& h : cases) ExpectRefused(Check(h.op), h);
  Op wrong_backend = Sysfs(Attr("power_dpm_force_performance_level"), "high");
  wrong_backend.backend = plan::BackendId::kModprobe;
  ExpectRefused(Check(wrong_backend), {"backend", {}, rule::kBackendMismatch});
}

// A revert writes back the value as sysfs read it: with its one trailing newline.
TEST_F(AllowListTest, SysfsValueAsReadBackIsAllowed) {
  EXPECT_TRUE(Check(Sysfs(Attr("power_dpm_force_performance_level"), "auto\n")));
  ExpectRefused(Check(Sysfs(Attr("power_dpm_force_performance_level"), "turbo\n")), {"turbo", {}, rule::kSysfsValue});
}

TEST_F(AllowListTest, DeviceNoLongerBoundToAmdgpuIsRefused) {
  Op op = Sysfs(Attr("power_dpm_force_performance_level"), "high");
  ASSERT_TRUE(Check(op));
  // The inventory still lists the GPU; the device was rebound since (or the tree lies).
  std::string uevent = std::filesystem::canonical(tree_.Path("root/" + std::string(kCard0) + "/uevent")).string();
  std::string content = Disk(std::string(kCard0) + "/uevent");
  std::ofstream(uevent, std::ios::trunc) << rocmtune::testing::Edited(content, "DRIVER=amdgpu", "DRIVER=vfio-pci");
  ExpectRefused(Check(op), {"vfio-pci", {}, rule::kSysfsDriver});
}

TEST_F(AllowListTest, HostileRegeneratorsAreRefused) {
  const std::vector<Hostile> cases = {
      {"path in argv[0]", Regen("bootloader", "update-grub", {"/usr/sbin/update-grub"}), rule::kRegenProgram},
      {"relative path in argv[0]", Regen("bootloader", "update-grub", {"./update-grub"}), rule::kRegenProgram},
      {"sh -c", Regen("bootloader", "update-grub", {"sh", "-c", "update-grub"}), rule::kRegenProgram},
      {"/bin/sh -c", Regen("initramfs", "dracut", {"/bin/sh", "-c", "id"}), rule::kRegenProgram},
      {"empty argv", Regen("bootloader", "update-grub", {}), rule::kRegenProgram},
      {"extra argument", Regen("bootloader", "update-grub", {"update-grub", "--extra"}), rule::kRegenArgv},
      {"grub-mkconfig to stdout", Regen("bootloader", "grub-mkconfig", {"grub-mkconfig"}), rule::kRegenArgv},
      {"grub-mkconfig over /etc/shadow", Regen("bootloader", "grub-mkconfig", {"grub-mkconfig", "-o", "/etc/shadow"}),
       rule::kRegenArgv},
      {"grub-mkconfig escaping /boot",
       Regen("bootloader", "grub-mkconfig", {"grub-mkconfig", "-o", "/boot/../etc/grub.cfg"}), rule::kRegenArgv},
      {"grubby on one kernel",
       Regen("bootloader", "grubby", {"grubby", "--update-kernel=/boot/vmlinuz", "--args=iommu=pt"}), rule::kRegenArgv},
      {"grubby extra flag",
       Regen("bootloader", "grubby", {"grubby", "--update-kernel=ALL", "--args=iommu=pt", "--make-default"}),
       rule::kRegenArgv},
      {"grubby with nothing to do", Regen("bootloader", "grubby", {"grubby", "--update-kernel=ALL"}), rule::kRegenArgv},
      {"grubby amd_iommu=on", Regen("bootloader", "grubby", {"grubby", "--update-kernel=ALL", "--args=amd_iommu=on"}),
       rule::kKernelToken},
      {"grubby removes root=",
       Regen("bootloader", "grubby", {"grubby", "--update-kernel=ALL", "--args=iommu=pt", "--remove-args=root"}),
       rule::kRemovedToken},
      {"grubby double space",
       Regen("bootloader", "grubby", {"grubby", "--update-kernel=ALL", "--args=iommu=pt  quiet"}), rule::kRegenArgv},
      // kernelstub: only `-a "OPTIONS"` / `-d "OPTIONS"`; -o replaces every option, the others
      // change where and how the machine boots (bin/kernelstub's argparse).
      {"kernelstub -o", Regen("bootloader", "kernelstub", {"kernelstub", "-o", "iommu=pt"}), rule::kRegenArgv},
      {"kernelstub --add-options spelled long",
       Regen("bootloader", "kernelstub", {"kernelstub", "--add-options", "iommu=pt"}), rule::kRegenArgv},
      {"kernelstub -a and -d in one run",
       Regen("bootloader", "kernelstub", {"kernelstub", "-a", "iommu=pt", "-d", "iommu=soft"}), rule::kRegenArgv},
      {"kernelstub -a with the ESP moved",
       Regen("bootloader", "kernelstub", {"kernelstub", "-e", "/tmp", "-a", "iommu=pt"}), rule::kRegenArgv},
      {"kernelstub without options", Regen("bootloader", "kernelstub", {"kernelstub", "-a"}), rule::kRegenArgv},
      {"kernelstub -a amd_iommu=on", Regen("bootloader", "kernelstub", {"kernelstub", "-a", "amd_iommu=on"}),
       rule::kKernelToken},
      {"kernelstub -d root=", Regen("bootloader", "kernelstub", {"kernelstub", "-d", "root=UUID=1"}),
       rule::kRemovedToken},
      {"kernelstub double space", Regen("bootloader", "kernelstub", {"kernelstub", "-a", "iommu=pt  quiet"}),
       rule::kRegenArgv},
      {"kernelstub quoted words", Regen("bootloader", "kernelstub", {"kernelstub", "-a", "\"iommu=pt"}),
       rule::kRegenArgv},
      {"kernelstub as the cmdline backend", Regen("cmdline", "kernelstub", {"kernelstub", "-a", "iommu=pt"}),
       rule::kBackendMismatch},
      {"dracut with an include",
       Regen("initramfs", "dracut", {"dracut", "--force", "--regenerate-all", "--include", "/tmp/x", "/"}),
       rule::kRegenArgv},
      {"kernel-install remove", Regen("bootloader", "kernel-install", {"kernel-install", "remove", "6.11"}),
       rule::kRegenArgv},
      {"unknown program", Regen("bootloader", "efibootmgr", {"efibootmgr", "-B"}), rule::kRegenProgram},
      {"wrong backend", Regen("env", "update-grub", {"update-grub"}), rule::kBackendMismatch},
      {"initramfs tool as bootloader", Regen("bootloader", "initramfs-tools", {"update-initramfs", "-u", "-k", "all"}),
       rule::kBackendMismatch},
      {"misnamed", Regen("bootloader", "grubby", {"update-grub"}), rule::kOpShape},
  };
  for (const Hostile& h : cases) ExpectRefused(Check(h.op), h);
  Op with_content = Regen("bootloader", "update-grub", {"update-grub"});
  with_content.after = "x";
  ExpectRefused(Check(with_content), {"content", {}, rule::kOpShape});
}

TEST_F(AllowListTest, CheckPlanReportsEveryViolation) {
  plan::Plan p;
  p.intent.verb = "set";
  p.ops = {File("etc/modprobe.d/rocmtune.conf", "modprobe", "options amdgpu noretry=1\n"),
           File("etc/passwd", "env", "x\n"), Sysfs(Attr("power_dpm_force_performance_level"), "high"),
           Regen("bootloader", "update-grub", {"sh", "-c", "id"}),
           File("etc/default/grub", "cmdline", std::nullopt, Disk("etc/default/grub"))};
  std::vector<Error> violations = CheckPlan(*root_, inventory_, p);
  ASSERT_EQ(violations.size(), 3u);
  EXPECT_THAT(violations[0].message, HasSubstr("etc/passwd: path-not-allowed: "));
  EXPECT_THAT(violations[1].message, HasSubstr("update-grub: regen-program: "));
  EXPECT_THAT(violations[2].message, HasSubstr("etc/default/grub: shared-file-removal: "));

  p.ops.resize(1);
  EXPECT_TRUE(CheckPlan(*root_, inventory_, p).empty());
  p.refused.push_back({"amdgpu.noretry", "no", ""});
  violations = CheckPlan(*root_, inventory_, p);
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_THAT(violations[0].message, HasSubstr("plan-refused"));

  plan::Plan huge;
  huge.ops.assign(5000, Sysfs(Attr("power_dpm_force_performance_level"), "high"));
  violations = CheckPlan(*root_, inventory_, huge);
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_THAT(violations[0].message, HasSubstr("plan-size"));
}

}  // namespace
}  // namespace rocmtune::helper

namespace rocmtune::helper {
namespace {

// The admin's tokens (rocmtunectl(1) "KERNEL COMMAND LINE"): a plan may take a token off a shared file
// only when the state file recorded it as rocmtune's, or remembers it as the admin's token that
// rocmtune's replaced.
TEST_F(AllowListTest, AdminTokensAreTakenOffOnlyRemembered) {
  const std::string state_path(plan::kCmdlineTokensState);
  tree_.Write("root/etc/default/grub", rocmtune::testing::Edited(Disk(boot::kGrubDefaultsPath), "loglevel=3 quiet",
                                                                 "loglevel=3 iommu=nopt pci=realloc=off quiet"));
  auto plan_of = [](std::vector<Op> ops) {
    plan::Plan p;
    p.intent.verb = "set";
    p.ops = std::move(ops);
    return p;
  };
  auto refused_as_admin = [&](const plan::Plan& p, std::string_view what) {
    std::vector<Error> violations = CheckPlan(*root_, inventory_, p);
    ASSERT_EQ(violations.size(), 1u) << what;
    EXPECT_THAT(violations[0].message, HasSubstr(": admin-token: ")) << what;
  };
  Op replace = GrubEdit(GrubWith({"iommu=pt"}));
  ASSERT_NE(replace.after->find("loglevel=3 iommu=pt pci=realloc=off quiet"), std::string::npos) << *replace.after;
  refused_as_admin(plan_of({replace}), "replaced without a record");
  refused_as_admin(plan_of({replace, File(state_path, "cmdline", "iommu=pt\n")}), "recorded as added");
  refused_as_admin(plan_of({GrubEdit(GrubWith({}, {"pci"}))}), "the admin's pci=realloc=off removed");
  EXPECT_THAT(
      CheckPlan(*root_, inventory_, plan_of({replace, File(state_path, "cmdline", "iommu=pt replaced iommu=nopt\n")})),
      ::testing::IsEmpty());

  // After the replace: putting the admin's back, and taking rocmtune's own token off.
  tree_.Write("root/etc/default/grub", *replace.after);
  tree_.Write("root/" + state_path, "iommu=pt replaced iommu=nopt\n");
  Op put_back = GrubEdit(GrubWith({"iommu=nopt"}));
  EXPECT_THAT(
      CheckPlan(*root_, inventory_,
                plan_of({put_back, File(state_path, "cmdline", std::nullopt, "iommu=pt replaced iommu=nopt\n")})),
      ::testing::IsEmpty());
  EXPECT_THAT(CheckPlan(*root_, inventory_, plan_of({put_back})), ::testing::IsEmpty()) << "the state on disk";
  refused_as_admin(plan_of({GrubEdit(GrubWith({}, {"pci"}))}), "the admin's pci=realloc=off, after a replace");
}

TEST_F(AllowListTest, ReplacedRecordsAreChecked) {
  auto state = [](std::string c) { return File("var/lib/rocmtune/cmdline-tokens", "cmdline", std::move(c)); };
  EXPECT_TRUE(Check(state("# tokens\niommu=pt replaced iommu=nopt\npci=realloc=off replaced pci=realloc=on\n")));
  const std::vector<Hostile> cases = {
      {"another option replaced", state("iommu=pt replaced amd_iommu=off\n"), rule::kOwnedGrammar},
      {"itself replaced", state("iommu=pt replaced iommu=pt\n"), rule::kOwnedGrammar},
      {"another word", state("iommu=pt replaces iommu=nopt\n"), rule::kOwnedGrammar},
      {"four words", state("iommu=pt replaced iommu=nopt quiet\n"), rule::kOwnedGrammar},
      {"an original rocmtune may not write", state("iommu=pt replaced iommu=bogus\n"), rule::kKernelToken},
      {"init= as the original", state("iommu=pt replaced init=/bin/sh\n"), rule::kOwnedGrammar},
  };
  for (const Hostile& h : cases) ExpectRefused(Check(h.op), h);
}

}  // namespace
}  // namespace rocmtune::helper
