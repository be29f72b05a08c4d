// rpm-ostree's command lines in the helper's allow-list (helper/ostree_rules.cc): the forms the
// rpm-ostree setup plans pass, and each form one step away from them is refused. rpm-ostree is
// not in Debian, so these are checked against its documented CLI (coreos/rpm-ostree
// src/app/rpmostree-builtin-kargs.cxx option_entries and "Cannot specify both --delete and
// --replace"; -initramfs-etc.cxx --track/--untrack/--force-sync) instead of running it.
#include "helper/allow_list_fixture.h"
#include "plan/bootc_argv.h"
#include "plan/owned_paths.h"
#include "plan/rpm_ostree_argv.h"

namespace rocmtune::helper::ostree_test {
namespace {

Op Kargs(std::vector<std::string> args) {
  args.insert(args.begin(), {"rpm-ostree", "kargs"});
  return Regen("bootloader", "rpm-ostree-kargs", std::move(args));
}

Op InitramfsEtc(std::string arg) {
  return Regen("initramfs", "rpm-ostree-initramfs-etc", {"rpm-ostree", "initramfs-etc", std::move(arg)});
}

TEST_F(AllowListTest, RpmOstreeRunsOnlyInItsFixedForms) {
  const std::vector<Op> ok = {
      Kargs({"--append=iommu=pt"}),
      Kargs({"--append=iommu=pt", "--append=amdgpu.noretry=0"}),
      Kargs({"--delete=iommu=pt"}),
      Kargs({"--replace=iommu=off=pt"}),
      Kargs({"--replace=amdgpu.noretry=1=0", "--replace=iommu=pt=off"}),
      InitramfsEtc("--track=/etc/modprobe.d/rocmtune.conf"),
      InitramfsEtc("--untrack=/etc/modprobe.d/rocmtune.conf"),
      InitramfsEtc("--force-sync"),
  };
  for (const Op& op : ok) {
    auto verdict = Check(op);
    EXPECT_TRUE(verdict) << op.argv.back() << ": " << verdict.error().message;
  }
  Op as_kargs_name = InitramfsEtc("--force-sync");
  as_kargs_name.path = "rpm-ostree-kargs";
  as_kargs_name.backend = plan::BackendId::kBootloader;
  Op in_bootloader = InitramfsEtc("--force-sync");
  in_bootloader.backend = plan::BackendId::kBootloader;
  Op kargs_as_initramfs = Kargs({"--append=iommu=pt"});
  kargs_as_initramfs.backend = plan::BackendId::kInitramfs;
  kargs_as_initramfs.path = "rpm-ostree-initramfs-etc";
  Op with_path = Kargs({"--append=iommu=pt"});
  with_path.argv[0] = "/usr/bin/rpm-ostree";
  const std::vector<Hostile> cases = {
      {"no flag", Kargs({}), rule::kRegenArgv},
      {"delete with replace (rpm-ostree refuses the pair)", Kargs({"--delete=iommu=pt", "--replace=iommu=off=pt"}),
       rule::kRegenArgv},
      {"append with delete", Kargs({"--append=iommu=pt", "--delete=iommu=off"}), rule::kRegenArgv},
      {"an unknown option appended", Kargs({"--append=init=/bin/sh"}), rule::kKernelToken},
      {"a bad value appended", Kargs({"--append=iommu=$(id)"}), rule::kKernelToken},
      {"root= deleted", Kargs({"--delete=root=UUID=439868dc"}), rule::kRemovedToken},
      {"ro deleted", Kargs({"--delete=ro"}), rule::kRemovedToken},
      {"replace of the system's root=", Kargs({"--replace=root=UUID=x=UUID=y"}), rule::kRegenArgv},
      {"replace to init=", Kargs({"--replace=init=a=b"}), rule::kRemovedToken},
      {"replace to a bad value", Kargs({"--replace=iommu=off=bogus"}), rule::kKernelToken},
      {"replace without the old value", Kargs({"--replace=iommu=pt"}), rule::kRegenArgv},
      {"replace of a key without a value", Kargs({"--replace=iommu==pt"}), rule::kRegenArgv},
      {"append-if-missing (not a form rocmtune plans)", Kargs({"--append-if-missing=iommu=pt"}), rule::kRegenArgv},
      {"--editor", Kargs({"--editor"}), rule::kRegenArgv},
      {"--reboot", Kargs({"--append=iommu=pt", "--reboot"}), rule::kRegenArgv},
      {"--import-proc-cmdline", Kargs({"--import-proc-cmdline", "--append=iommu=pt"}), rule::kRegenArgv},
      {"another verb", Regen("bootloader", "rpm-ostree-kargs", {"rpm-ostree", "rollback"}), rule::kRegenArgv},
      {"usroverlay", Regen("bootloader", "rpm-ostree-kargs", {"rpm-ostree", "usroverlay"}), rule::kRegenArgv},
      {"kargs split in two words", Kargs({"--append", "iommu=pt"}), rule::kRegenArgv},
      {"an admin's file tracked", InitramfsEtc("--track=/etc/modprobe.d/admin.conf"), rule::kRegenArgv},
      {"/etc/shadow tracked", InitramfsEtc("--track=/etc/shadow"), rule::kRegenArgv},
      {"untrack-all", InitramfsEtc("--untrack-all"), rule::kRegenArgv},
      {"two arguments",
       Regen("initramfs", "rpm-ostree-initramfs-etc",
             {"rpm-ostree", "initramfs-etc", "--force-sync", "--track=/etc/modprobe.d/rocmtune.conf"}),
       rule::kRegenArgv},
      {"initramfs-etc under the kargs name", as_kargs_name, rule::kRegenArgv},
      {"initramfs-etc in the bootloader backend", in_bootloader, rule::kBackendMismatch},
      {"kargs in the initramfs backend", kargs_as_initramfs, rule::kRegenArgv},
      {"a path for the program", with_path, rule::kRegenProgram},
  };
  for (const Hostile& h : cases) ExpectRefused(Check(h.op), h);
}

Op BootcOp(std::string options, std::optional<std::string> before) {
  Op op = Regen("bootloader", "bootc", plan::BootcSetOptionsArgv(options));
  op.before = std::move(before);
  return op;
}

// bootc is not in Debian: the form is bootc's CLI (bootc-dev/bootc crates/lib/src/cli.rs
// SetOptionsForSourceOpts; docs/src/man/bootc-loader-entries-set-options-for-source.8.md).
TEST_F(AllowListTest, BootcRunsOnlyAsRocmtunesSource) {
  const std::vector<Op> ok = {BootcOp("iommu=pt", ""), BootcOp("iommu=pt amdgpu.noretry=0", "iommu=pt"),
                              BootcOp("", "iommu=pt")};
  for (const Op& op : ok) {
    auto verdict = Check(op);
    EXPECT_TRUE(verdict) << op.argv.back() << ": " << verdict.error().message;
  }
  Op tuned = BootcOp("iommu=pt", "");
  tuned.argv[4] = "tuned";
  Op extra = BootcOp("iommu=pt", "");
  extra.argv.push_back("--reboot");
  Op with_after = BootcOp("iommu=pt", "");
  with_after.after = "x";
  Op switch_image = Regen("bootloader", "bootc", {"bootc", "switch", "quay.io/evil/image"});
  switch_image.before = "";
  Op rpm_ostree_before = Regen("bootloader", "rpm-ostree-kargs", {"rpm-ostree", "kargs", "--append=iommu=pt"});
  rpm_ostree_before.before = "";
  Op empty_options = BootcOp("iommu=pt", "");
  empty_options.argv.back() = "";
  const std::vector<Hostile> cases = {
      {"another source", tuned, rule::kRegenArgv},
      {"another argument", extra, rule::kRegenArgv},
      {"bootc switch", switch_image, rule::kRegenArgv},
      {"an unknown option set", BootcOp("init=/bin/sh", ""), rule::kKernelToken},
      {"an unknown option put back", BootcOp("iommu=pt", "init=/bin/sh"), rule::kKernelToken},
      {"two spaces", BootcOp("iommu=pt  amd_iommu=off", ""), rule::kRegenArgv},
      {"a leading space", BootcOp(" iommu=pt", ""), rule::kRegenArgv},
      {"no before to undo with", BootcOp("iommu=pt", std::nullopt), rule::kOpShape},
      {"file content", with_after, rule::kOpShape},
      {"--options with nothing", empty_options, rule::kRegenArgv},
      {"before on another program", rpm_ostree_before, rule::kOpShape},
  };
  for (const Hostile& h : cases) ExpectRefused(Check(h.op), h);
}

TEST(InverseBootcTest, TheUndoSetsTheOptionsBefore) {
  Op set = BootcOp("amd_iommu=off iommu=pt", "amd_iommu=off");
  auto undo = plan::InverseBootc(set);
  ASSERT_TRUE(undo);
  EXPECT_EQ(undo->argv, plan::BootcSetOptionsArgv("amd_iommu=off"));
  EXPECT_EQ(undo->before, "amd_iommu=off iommu=pt");
  auto again = plan::InverseBootc(*undo);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->argv, set.argv);
  // Added to no source: the undo removes the source (no --options).
  auto removal = plan::InverseBootc(BootcOp("iommu=pt", ""));
  ASSERT_TRUE(removal);
  EXPECT_EQ(removal->argv,
            (std::vector<std::string>{"bootc", "loader-entries", "set-options-for-source", "--source", "rocmtune"}));
  EXPECT_EQ(plan::InverseBootc(BootcOp("iommu=pt", std::nullopt)), std::nullopt);
  EXPECT_EQ(plan::InverseBootc(Regen("bootloader", "grubby", {"grubby", "--update-kernel=ALL"})), std::nullopt);
}

TEST(InverseRpmOstreeTest, EachFormIsUndoneByItsOpposite) {
  using V = std::vector<std::string>;
  EXPECT_EQ(plan::InverseRpmOstree({"rpm-ostree", "kargs", "--append=iommu=pt", "--append=amdgpu.noretry=0"}),
            (V{"rpm-ostree", "kargs", "--delete=iommu=pt", "--delete=amdgpu.noretry=0"}));
  EXPECT_EQ(plan::InverseRpmOstree({"rpm-ostree", "kargs", "--delete=iommu=pt"}),
            (V{"rpm-ostree", "kargs", "--append=iommu=pt"}));
  EXPECT_EQ(plan::InverseRpmOstree({"rpm-ostree", "kargs", "--replace=iommu=off=pt"}),
            (V{"rpm-ostree", "kargs", "--replace=iommu=pt=off"}));
  EXPECT_EQ(plan::InverseRpmOstree({"rpm-ostree", "initramfs-etc", "--track=/etc/modprobe.d/rocmtune.conf"}),
            (V{"rpm-ostree", "initramfs-etc", "--untrack=/etc/modprobe.d/rocmtune.conf"}));
  EXPECT_EQ(plan::InverseRpmOstree({"rpm-ostree", "initramfs-etc", "--untrack=/etc/modprobe.d/rocmtune.conf"}),
            (V{"rpm-ostree", "initramfs-etc", "--track=/etc/modprobe.d/rocmtune.conf"}));
  EXPECT_EQ(plan::InverseRpmOstree({"rpm-ostree", "initramfs-etc", "--force-sync"}),
            (V{"rpm-ostree", "initramfs-etc", "--force-sync"}));
  // Not forms rocmtune makes: no inverse (journal::InverseRegenerator then runs them as they are).
  EXPECT_EQ(plan::InverseRpmOstree({"rpm-ostree", "kargs", "--replace=iommu=pt"}), std::nullopt);
  EXPECT_EQ(plan::InverseRpmOstree({"rpm-ostree", "kargs", "--replace=k=a=b=c"}), std::nullopt);
  EXPECT_EQ(plan::InverseRpmOstree({"rpm-ostree", "kargs", "--editor"}), std::nullopt);
  EXPECT_EQ(plan::InverseRpmOstree({"grubby", "kargs", "--append=iommu=pt"}), std::nullopt);
  EXPECT_EQ(plan::RegeneratorOfProgram("rpm-ostree"), plan::Regenerator::kRpmOstreeKargs);
}

}  // namespace
}  // namespace rocmtune::helper::ostree_test
