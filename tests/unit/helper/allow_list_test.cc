// The allow-list against hostile ops: each is one change away from an op that passes (the
// baselines below), and each must be refused by the rule it breaks, named in the message.
#include "helper/allow_list.h"

#include "helper/allow_list_fixture.h"
#include "knobs/service_backend.h"
#include "plan/owned_paths.h"

using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace rocmtune::helper {
namespace {

// The starting points the hostile ops are derived from: all accepted.
TEST_F(AllowListTest, BaselineOpsPass) {
  std::vector<std::string> iommu = {"iommu=pt"};
  const std::vector<Op> ok = {
      File("etc/modprobe.d/rocmtune.conf", "modprobe",
           "# rocmtune\noptions amdgpu noretry=1 mes=0\noptions ttm pages_limit=3145728\n"),
      File("etc/modprobe.d/rocmtune.conf", "modprobe", std::nullopt, "options amdgpu noretry=1\n"),
      File("etc/environment.d/90-rocmtune.conf", "env",
           "# x\nHSA_OVERRIDE_GFX_VERSION=10.3.0\nPYTORCH_HIP_ALLOC_CONF=expandable_segments:True\n"),
      File("etc/profile.d/rocmtune.sh", "env",
           "# x\nexport HSA_OVERRIDE_GFX_VERSION=10.3.0\nexport HIP_VISIBLE_DEVICES=0,1\n"),
      File("etc/default/grub.d/zz-rocmtune.cfg", "cmdline",
           *boot::RocmtuneDropIn(boot::kGrubCmdlineLinuxDefault, iommu)),
      File("var/lib/rocmtune/cmdline-tokens", "cmdline", "# tokens\niommu=pt\namdgpu.noretry=0\n"),
      File("var/lib/rocmtune/runtime-settings", "sysfs",
           "# kept\n0000:0c:00.0 pp_power_profile_mode COMPUTE BOOTUP_DEFAULT\n"
           "0000:0c:00.0 power_dpm_force_performance_level high auto\n"),
      GrubEdit(GrubWith(iommu)),
      GrubEdit(GrubWith({"amdgpu.noretry=1", "iommu=pt"})),
      File(std::string(kBls), "cmdline", *boot::SetBlsOptions(kBlsContent, iommu, {}), std::string(kBlsContent)),
      File("etc/kernel/cmdline", "cmdline", *boot::SetKernelCmdlineFile(kKernelCmdline, iommu, {}),
           std::string(kKernelCmdline)),
      Sysfs(Attr("power_dpm_force_performance_level"), "high"),
      Sysfs(Attr("pp_power_profile_mode"), "5"),
      Regen("bootloader", "update-grub", {"update-grub"}),
      Regen("bootloader", "grub-mkconfig", {"grub-mkconfig", "-o", "/boot/grub/grub.cfg"}),
      Regen("bootloader", "grub2-mkconfig", {"grub2-mkconfig", "-o", "/boot/efi/EFI/fedora/grub.cfg"}),
      Regen("bootloader", "grubby",
            {"grubby", "--update-kernel=ALL", "--args=iommu=pt amdgpu.noretry=0", "--remove-args=iommu"}),
      Regen("bootloader", "kernel-install", {"kernel-install", "add-all"}),
      // pop-os/kernelstub bin/kernelstub: -a/--add-options, -d/--delete-options, one quoted value.
      Regen("bootloader", "kernelstub", {"kernelstub", "-a", "iommu=pt amdgpu.noretry=0"}),
      Regen("bootloader", "kernelstub", {"kernelstub", "-d", "iommu=pt"}),
      Regen("initramfs", "initramfs-tools", {"update-initramfs", "-u", "-k", "all"}),
      Regen("initramfs", "dracut", {"dracut", "--force", "--regenerate-all"}),
      Regen("initramfs", "mkinitcpio", {"mkinitcpio", "-P"}),
      Regen("initramfs", "booster", {"booster", "build", "--force"}),
  };
  for (const Op& op : ok) {
    auto verdict = Check(op);
    EXPECT_TRUE(verdict) << op.path << ": " << verdict.error().message;
  }
}

TEST_F(AllowListTest, HostilePathsAreRefused) {
  const std::string mp = "options amdgpu noretry=1\n";
  const std::vector<Hostile> cases = {
      {"dot-dot escape", File("etc/modprobe.d/../../etc/passwd", "modprobe", mp), rule::kPathSyntax},
      {"absolute path", File("/etc/modprobe.d/rocmtune.conf", "modprobe", mp), rule::kPathSyntax},
      {"trailing slash", File("etc/modprobe.d/rocmtune.conf/", "modprobe", mp), rule::kPathSyntax},
      {"empty component", File("etc//modprobe.d/rocmtune.conf", "modprobe", mp), rule::kPathSyntax},
      {"dot component", File("./etc/modprobe.d/rocmtune.conf", "modprobe", mp), rule::kPathSyntax},
      {"newline in path", File("etc/modprobe.d/rocmtune.conf\n", "modprobe", mp), rule::kPathSyntax},
      {"NUL in path", File(std::string("etc/modprobe.d/rocmtune.conf\0.x", 31), "modprobe", mp), rule::kPathSyntax},
      {"symlink-looking name", File("etc/modprobe.d/rocmtune.conf -> /etc/shadow", "modprobe", mp), rule::kPathSyntax},
      {"empty path", File("", "modprobe", mp), rule::kPathSyntax},
      {"overlong path", File("etc/" + std::string(600, 'a'), "modprobe", mp), rule::kPathSyntax},
      // An admin's /etc/modprobe.d file takes one commented-out line with the content it edits
      // (AdminModprobeLineTest), never a whole new content; a package's is not writable at all.
      {"other modprobe.d file", File("etc/modprobe.d/other.conf", "modprobe", mp), rule::kSharedBefore},
      {"a package's modprobe.d file", File("usr/lib/modprobe.d/other.conf", "modprobe", mp), rule::kPathNotAllowed},
      {"etc/passwd", File("etc/passwd", "env", "root::0:0::/root:/bin/sh\n"), rule::kPathNotAllowed},
      {"proc magic link", File("proc/self/root/etc/shadow", "env", "x\n"), rule::kPathNotAllowed},
      {"BLS entry in a subdirectory", File("boot/loader/entries/x/a.conf", "cmdline", "options\n", "options\n"),
       rule::kPathNotAllowed},
      {"hidden BLS entry", File("boot/loader/entries/.a.conf", "cmdline", "options\n", "options\n"),
       rule::kPathNotAllowed},
      {"BLS entry not .conf", File("boot/loader/entries/a.sh", "cmdline", "options\n", "options\n"),
       rule::kPathNotAllowed},
      {"wrong backend", File("etc/modprobe.d/rocmtune.conf", "env", mp), rule::kBackendMismatch},
  };
  for (const Hostile& h : cases) ExpectRefused(Check(h.op), h);

  Op write_without_content = File("etc/modprobe.d/rocmtune.conf", "modprobe", std::nullopt);
  write_without_content.kind = OpKind::kWriteFile;
  ExpectRefused(Check(write_without_content), {"write without content", {}, rule::kOpShape});
  Op remove_with_content = File("etc/modprobe.d/rocmtune.conf", "modprobe", mp);
  remove_with_content.kind = OpKind::kRemoveFile;
  ExpectRefused(Check(remove_with_content), {"removal with content", {}, rule::kOpShape});
  Op with_argv = File("etc/modprobe.d/rocmtune.conf", "modprobe", mp);
  with_argv.argv = {"sh"};
  ExpectRefused(Check(with_argv), {"file op with a command", {}, rule::kOpShape});
  Op unknown_kind = File("etc/modprobe.d/rocmtune.conf", "modprobe", mp);
  unknown_kind.kind = static_cast<OpKind>(42);
  ExpectRefused(Check(unknown_kind), {"unknown op kind", {}, rule::kOpShape});
}

TEST_F(AllowListTest, MessagesNameThePathPrintably) {
  auto verdict = Check(File("etc/x\nFAKE LOG LINE", "env", "x\n"));
  ASSERT_FALSE(verdict);
  EXPECT_THAT(verdict.error().message, StartsWith("etc/x\\x0aFAKE LOG LINE: path-syntax: "));
  EXPECT_EQ(verdict.error().code, ErrorCode::kEscapesRoot);
  verdict = Check(File("etc/passwd", "env", "x\n"));
  ASSERT_FALSE(verdict);
  EXPECT_THAT(verdict.error().message, StartsWith("etc/passwd: path-not-allowed: "));
}

TEST(AllowListSymlinkTest, SymlinkOnTheWayIsRefused) {
  testing::TestTree tree;
  tree.Mkdir("tmp");
  tree.Symlink("etc/modprobe.d", "../tmp");
  tree.Write("etc/shadow", "root:*:1::::::\n");
  tree.Symlink("etc/environment.d/90-rocmtune.conf", "../shadow");
  auto root = sys::Root::Open(tree.path());
  ASSERT_TRUE(root);
  detect::Inventory none;
  const Hostile cases[] = {
      {"symlinked directory", File("etc/modprobe.d/rocmtune.conf", "modprobe", "options amdgpu noretry=1\n"),
       rule::kPathSymlink},
      {"symlinked file", File("etc/environment.d/90-rocmtune.conf", "env", "HSA_XNACK=1\n"), rule::kPathSymlink},
      {"symlinked file removed", File("etc/environment.d/90-rocmtune.conf", "env", std::nullopt), rule::kPathSymlink},
  };
  for (const Hostile& h : cases) ExpectRefused(CheckOp(*root, none, h.op), h);
  // The same ops where nothing is a symlink pass (the writer creates the directories).
  testing::TestTree clean;
  auto clean_root = sys::Root::Open(clean.path());
  for (const Hostile& h : cases) EXPECT_TRUE(CheckOp(*clean_root, none, h.op)) << h.what;
}

TEST_F(AllowListTest, HostileOwnedContentIsRefused) {
  auto modprobe = [](std::string c) { return File("etc/modprobe.d/rocmtune.conf", "modprobe", std::move(c)); };
  auto env = [](std::string c) { return File("etc/environment.d/90-rocmtune.conf", "env", std::move(c)); };
  auto profile = [](std::string c) { return File("etc/profile.d/rocmtune.sh", "env", std::move(c)); };
  auto dropin = [](std::string c) { return File("etc/default/grub.d/zz-rocmtune.cfg", "cmdline", std::move(c)); };
  auto state = [](std::string c) { return File("var/lib/rocmtune/cmdline-tokens", "cmdline", std::move(c)); };
  auto runtime = [](std::string c) { return File("var/lib/rocmtune/runtime-settings", "sysfs", std::move(c)); };
  std::string good_dropin = *boot::RocmtuneDropIn(boot::kGrubCmdlineLinuxDefault, std::vector<std::string>{"iommu=pt"});
  const std::vector<Hostile> cases = {
      {"NUL byte", modprobe(std::string("options amdgpu noretry=1\0\n", 26)), rule::kContentText},
      {"not UTF-8", env("# \xc0\xaf\nHSA_XNACK=1\n"), rule::kContentText},
      {"too large", modprobe("# " + std::string(300 * 1024, 'x') + "\n"), rule::kContentText},
      {"unknown parameter", modprobe("options amdgpu nosuchparam=1\n"), rule::kModuleParam},
      {"bad value", modprobe("options amdgpu noretry=7\n"), rule::kModuleParam},
      {"value with a shell word", modprobe("options amdgpu noretry=$(id)\n"), rule::kModuleParam},
      {"install line", modprobe("install amdgpu /bin/sh -c 'id > /tmp/x'\n"), rule::kOwnedGrammar},
      {"other module", modprobe("options radeon si_support=0\n"), rule::kOwnedGrammar},
      {"blacklist line", modprobe("blacklist amdgpu\n"), rule::kOwnedGrammar},
      {"line continuation", modprobe("options amdgpu noretry=1 \\\ninstall amdgpu /bin/sh\n"), rule::kOwnedGrammar},
      {"no final newline", modprobe("options amdgpu noretry=1"), rule::kOwnedGrammar},
      {"command substitution", env("HSA_OVERRIDE_GFX_VERSION=$(id)\n"), rule::kShellSafe},
      {"backticks", profile("export HSA_OVERRIDE_GFX_VERSION=`id`\n"), rule::kShellSafe},
      {"';' the id-list check lets through", profile("export HIP_VISIBLE_DEVICES=GPU-a;reboot\n"), rule::kShellSafe},
      {"quotes", env("HSA_XNACK=\"1\"\n"), rule::kShellSafe},
      {"unknown variable", env("LD_PRELOAD=/tmp/evil.so\n"), rule::kEnvVariable},
      {"bad value", env("HSA_OVERRIDE_GFX_VERSION=banana\n"), rule::kEnvVariable},
      {"newline inside a value", env("HSA_OVERRIDE_GFX_VERSION=10.3.0\nid\n"), rule::kOwnedGrammar},
      {"CR inside a value", env("HSA_XNACK=1\r\n"), rule::kOwnedGrammar},
      {"profile.d without export", profile("HSA_XNACK=1\n"), rule::kOwnedGrammar},
      {"profile.d extra command", profile("export HSA_XNACK=1\nid\n"), rule::kOwnedGrammar},
      {"drop-in with another line", dropin(good_dropin + "GRUB_TIMEOUT=0\n"), rule::kGrubDropInShape},
      {"drop-in assigning another variable", dropin("GRUB_INIT_TUNE=\"480 440 1\"\n"), rule::kGrubDropInShape},
      {"drop-in with amd_iommu=on",
       dropin(*boot::RocmtuneDropIn(boot::kGrubCmdlineLinuxDefault, std::vector<std::string>{"amd_iommu=on"})),
       rule::kKernelToken},
      {"drop-in with init=",
       dropin(*boot::RocmtuneDropIn(boot::kGrubCmdlineLinuxDefault, std::vector<std::string>{"init=/bin/sh"})),
       rule::kKernelToken},
      {"state with two tokens on a line", state("iommu=pt rd.break\n"), rule::kOwnedGrammar},
      {"state with an unknown option", state("init=/bin/sh\n"), rule::kKernelToken},
      {"state with an invalid value", state("amd_iommu=pt\n"), rule::kKernelToken},
      {"runtime state with three words", runtime("0000:0c:00.0 pp_power_profile_mode COMPUTE\n"), rule::kOwnedGrammar},
      {"runtime state naming a path", runtime("../../x pp_power_profile_mode COMPUTE VIDEO\n"), rule::kOwnedGrammar},
      // Made of PCI address characters but not one address (the device names a sysfs directory).
      {"runtime state with a PCI-ish device", runtime("0000:0c:00.0:.. pp_power_profile_mode COMPUTE VIDEO\n"),
       rule::kOwnedGrammar},
      {"runtime state with a short device", runtime("c:0.0 pp_power_profile_mode COMPUTE VIDEO\n"),
       rule::kOwnedGrammar},
      {"runtime state of another attribute", runtime("0000:0c:00.0 pp_od_clk_voltage COMPUTE VIDEO\n"),
       rule::kSysfsAttribute},
      {"runtime state with a value the attribute lacks",
       runtime("0000:0c:00.0 power_dpm_force_performance_level turbo auto\n"), rule::kSysfsValue},
      {"runtime state with a shell word", runtime("0000:0c:00.0 pp_power_profile_mode $(id) VIDEO\n"),
       rule::kSysfsValue},
  };
  for (const Hostile& h : cases) ExpectRefused(Check(h.op), h);
}

// power-profiles-daemon's drop-in (knobs/service_backend.h) runs its ExecStart= as root: only
// what the backend renders, starting the daemon's binary with plain options; systemctl and
// busctl only in the shapes the backend plans (service backend), never for another unit or call.
TEST_F(AllowListTest, ThePowerProfilesDropInAndItsCommandsAreOnlyRocmtunes) {
  auto dropin = [](std::string c) { return File(std::string(plan::kPpdDropIn), "service", std::move(c)); };
  const std::string good = knobs::RenderPpdDropIn({"/usr/libexec/power-profiles-daemon", "--verbose"});
  const std::vector<Op> ok = {
      dropin(good),
      Regen("service", "systemctl", plan::SystemctlArgv(false)),
      Regen("service", "systemctl", plan::SystemctlArgv(true)),
      Regen("service", "busctl", plan::PpdSetActionArgv(false)),
      Regen("service", "busctl", plan::PpdSetActionArgv(true)),
  };
  for (const Op& op : ok) {
    auto verdict = Check(op);
    EXPECT_TRUE(verdict) << op.path << ": " << verdict.error().message;
  }
  std::string shell = good;
  shell.replace(shell.find("/usr/libexec/power-profiles-daemon"), 34, "/bin/sh -c id");
  std::string extra = good + "ExecStartPre=/bin/sh -c id\n";
  std::string option = good;
  option.replace(option.find("--verbose"), 9, "--x=$(id)");
  std::string unblocked = good;
  unblocked.replace(unblocked.find(" --block-action=amdgpu_dpm"), 26, "");
  std::vector<std::string> other_unit = {"systemctl", "try-restart", "rocmtuned.service"};
  std::vector<std::string> other_call = plan::PpdSetActionArgv(false);
  other_call[7] = "trickle_charge";
  const std::vector<Hostile> cases = {
      {"another program", dropin(shell), rule::kServiceDropIn},
      {"a line more", dropin(extra), rule::kServiceDropIn},
      {"a shell word", dropin(option), rule::kServiceDropIn},
      {"no block", dropin(unblocked), rule::kServiceDropIn},
      {"in the modprobe backend", File(std::string(plan::kPpdDropIn), "modprobe", good), rule::kBackendMismatch},
      {"another unit", Regen("service", "systemctl", other_unit), rule::kRegenArgv},
      {"another action", Regen("service", "busctl", other_call), rule::kRegenArgv},
      {"systemctl for the boot loader", Regen("bootloader", "systemctl", plan::SystemctlArgv(false)),
       rule::kBackendMismatch},
  };
  for (const Hostile& h : cases) ExpectRefused(Check(h.op), h);
}

TEST(InverseSwitchTest, SetActionEnabledIsUndoneByARestart) {
  // An action the daemon started without cannot be enabled: undone, it is restarted instead.
  EXPECT_EQ(plan::InverseSwitch(plan::PpdSetActionArgv(false)), plan::SystemctlArgv(true));
  EXPECT_EQ(plan::RegeneratorOfProgram("systemctl"), plan::Regenerator::kSystemctl);
  EXPECT_EQ(plan::InverseSwitch(plan::SystemctlArgv(false)), std::nullopt);  // run again as it is
}

}  // namespace
}  // namespace rocmtune::helper
