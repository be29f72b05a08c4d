// The allow-list's trial boot rules (helper/trial_boot_rules.cc): exactly the trial entry files
// and the one-shot switches' argv shapes pass; every variation next to them is refused by the
// rule it breaks (other variables, other values, extra arguments, other files, other content).
#include "boot/setup.h"
#include "boot/trial_boot.h"
#include "cli_runner.h"
#include "helper/allow_list.h"
#include "helper/allow_list_fixture.h"
#include "knowledge/catalog.h"

namespace rocmtune::helper {
namespace {

const boot::TrialBoot kTrial{"t1", {"amdgpu.noretry=0", "panic=10", "rocmtune.trial=t1"}};

class TrialBootRulesTest : public AllowListTest {
 protected:
  // The world is upstream GRUB (rx6900xt, Arch): the entry as the planner renders it.
  std::string Entry(const boot::TrialBoot& trial = kTrial) const {
    return *boot::RenderTrialEntry(*root_, detect::BootKind::kGrub, boot::kGrubTrialEntryPath, trial);
  }
};

TEST_F(TrialBootRulesTest, TheTrialOpsPass) {
  ASSERT_EQ(inventory_.system.boot.kind, detect::BootKind::kGrub);
  const std::vector<Op> ok = {
      File("boot/grub/rocmtune-trial.cfg", "bootloader", Entry()),
      File("boot/grub/rocmtune-trial.cfg", "bootloader", std::nullopt, "x"),
      File("boot/loader/entries/rocmtune-trial.conf", "bootloader", std::nullopt, "x"),
      File("efi/loader/entries/rocmtune-trial.conf", "bootloader", std::nullopt, "x"),
      File("boot/efi/loader/entries/rocmtune-trial.conf", "bootloader", std::nullopt, "x"),
      Regen("bootloader", "grub-editenv", {"grub-editenv", "/boot/grub/grubenv", "set", "next_entry=rocmtune-trial"}),
      Regen("bootloader", "grub-editenv", {"grub-editenv", "/boot/grub/grubenv", "unset", "next_entry"}),
      Regen("bootloader", "grub2-editenv", {"grub2-editenv", "-", "set", "next_entry=rocmtune-trial"}),
      Regen("bootloader", "grub2-editenv", {"grub2-editenv", "-", "unset", "next_entry"}),
      Regen("bootloader", "bootctl", {"bootctl", "set-oneshot", "rocmtune-trial.conf"}),
      Regen("bootloader", "bootctl", {"bootctl", "set-oneshot", ""}),
  };
  for (const Op& op : ok) {
    auto verdict = Check(op);
    EXPECT_TRUE(verdict) << op.path << " " << (op.argv.empty() ? "" : op.argv.back()) << ": "
                         << verdict.error().message;
  }
}

TEST_F(TrialBootRulesTest, OtherSwitchesAreRefused) {
  const std::string env = "/boot/grub/grubenv";
  const std::vector<Hostile> cases = {
      {"other variable",
       Regen("bootloader", "grub-editenv", {"grub-editenv", env, "set", "saved_entry=rocmtune-trial"}),
       rule::kRegenArgv},
      {"other value", Regen("bootloader", "grub-editenv", {"grub-editenv", env, "set", "next_entry=gnulinux-simple"}),
       rule::kRegenArgv},
      {"value with a prefix",
       Regen("bootloader", "grub-editenv", {"grub-editenv", env, "set", "next_entry=rocmtune-trial2"}),
       rule::kRegenArgv},
      {"two variables",
       Regen("bootloader", "grub-editenv",
             {"grub-editenv", env, "set", "next_entry=rocmtune-trial", "saved_entry=rocmtune-trial"}),
       rule::kRegenArgv},
      {"extra argument", Regen("bootloader", "grub-editenv", {"grub-editenv", env, "unset", "next_entry", "x"}),
       rule::kRegenArgv},
      {"unset another variable", Regen("bootloader", "grub-editenv", {"grub-editenv", env, "unset", "saved_entry"}),
       rule::kRegenArgv},
      {"create", Regen("bootloader", "grub-editenv", {"grub-editenv", env, "create"}), rule::kRegenArgv},
      {"another file",
       Regen("bootloader", "grub-editenv", {"grub-editenv", "/etc/shadow", "set", "next_entry=rocmtune-trial"}),
       rule::kRegenArgv},
      {"grub2's file",
       Regen("bootloader", "grub-editenv", {"grub-editenv", "/boot/grub2/grubenv", "set", "next_entry=rocmtune-trial"}),
       rule::kRegenArgv},
      {"default file for grub-editenv",
       Regen("bootloader", "grub-editenv", {"grub-editenv", "-", "set", "next_entry=rocmtune-trial"}),
       rule::kRegenArgv},
      {"grub2-editenv with a path",
       Regen("bootloader", "grub2-editenv", {"grub2-editenv", "/tmp/env", "set", "next_entry=rocmtune-trial"}),
       rule::kRegenArgv},
      {"grub2-editenv other value",
       Regen("bootloader", "grub2-editenv", {"grub2-editenv", "-", "set", "next_entry=fedora"}), rule::kRegenArgv},
      {"grub2-editenv incr", Regen("bootloader", "grub2-editenv", {"grub2-editenv", "-", "incr", "boot_counter"}),
       rule::kRegenArgv},
      {"bootctl set-default", Regen("bootloader", "bootctl", {"bootctl", "set-default", "rocmtune-trial.conf"}),
       rule::kRegenArgv},
      {"bootctl other entry", Regen("bootloader", "bootctl", {"bootctl", "set-oneshot", "arch.conf"}),
       rule::kRegenArgv},
      {"bootctl extra argument", Regen("bootloader", "bootctl", {"bootctl", "set-oneshot", "rocmtune-trial.conf", "x"}),
       rule::kRegenArgv},
      {"bootctl option", Regen("bootloader", "bootctl", {"bootctl", "--esp-path=/tmp", "set-oneshot", ""}),
       rule::kRegenArgv},
      {"bootctl install", Regen("bootloader", "bootctl", {"bootctl", "install"}), rule::kRegenArgv},
      {"bootctl alone", Regen("bootloader", "bootctl", {"bootctl"}), rule::kRegenArgv},
      {"path in argv[0]", Regen("bootloader", "grub-editenv", {"/usr/bin/grub-editenv", env, "unset", "next_entry"}),
       rule::kRegenProgram},
      {"wrong backend", Regen("cmdline", "bootctl", {"bootctl", "set-oneshot", ""}), rule::kBackendMismatch},
      {"misnamed", Regen("bootloader", "bootctl", {"grub-editenv", env, "unset", "next_entry"}), rule::kOpShape},
  };
  for (const Hostile& h : cases) ExpectRefused(Check(h.op), h);
}

TEST_F(TrialBootRulesTest, OtherEntriesAreRefused) {
  std::string entry = Entry();
  std::string tampered = entry;
  tampered.replace(tampered.find("rocmtune.trial=t1\n\tinitrd"), 17, "rocmtune.trial=t1 init=/bin/sh");
  std::string unknown_token = Entry({"t1", {"panic=10", "rocmtune.trial=t1"}});
  unknown_token.replace(unknown_token.find("tokens="), 7, "tokens=init=/bin/sh ");
  const std::vector<Hostile> cases = {
      {"another file beside it", File("boot/grub/custom.cfg", "bootloader", entry), rule::kPathNotAllowed},
      {"a look-alike name", File("boot/grub/rocmtune-trial2.cfg", "bootloader", entry), rule::kPathNotAllowed},
      {"an ESP elsewhere", File("mnt/loader/entries/rocmtune-trial.conf", "bootloader", entry), rule::kPathNotAllowed},
      {"grub.cfg itself", File("boot/grub/grub.cfg", "bootloader", entry), rule::kPathNotAllowed},
      {"wrong backend", File("boot/grub/rocmtune-trial.cfg", "cmdline", entry), rule::kBackendMismatch},
      {"no header", File("boot/grub/rocmtune-trial.cfg", "bootloader", entry.substr(entry.find('\n') + 1)),
       rule::kTrialEntry},
      {"body edited", File("boot/grub/rocmtune-trial.cfg", "bootloader", tampered), rule::kTrialEntry},
      {"a token rocmtune never adds", File("boot/grub/rocmtune-trial.cfg", "bootloader", unknown_token),
       rule::kKernelToken},
      {"panic=0", File("boot/grub/rocmtune-trial.cfg", "bootloader", Entry({"t1", {"panic=0", "rocmtune.trial=t1"}})),
       rule::kTrialEntry},
      {"appended script", File("boot/grub/rocmtune-trial.cfg", "bootloader", entry + "menuentry 'x' {\n}\n"),
       rule::kTrialEntry},
      {"the BLS path in a GRUB setup", File("boot/loader/entries/rocmtune-trial.conf", "bootloader", entry),
       rule::kTrialEntry},
  };
  for (const Hostile& h : cases) ExpectRefused(Check(h.op), h);
  // Only the one name: another BLS entry stays a shared file, edited with its `before`.
  ExpectRefused(Check(File("boot/loader/entries/rocmtune-trial-2.conf", "cmdline", entry)),
                {"a look-alike BLS entry", {}, rule::kSharedBefore});
}

// The BLS setups: what PlanTrial makes passes the whole plan check on rx6600 (grub-bls) and
// strixpoint (systemd-boot, ESP at /efi), and the same entry with one more token does not.
TEST(TrialBootRulesBls, PlannedTrialsPassAndEditedEntriesDoNot) {
  struct Setup {
    const char* world;
    std::vector<std::pair<std::string, std::string>> files;
  };
  const std::string efivar = "sys/firmware/efi/efivars/";
  const std::string vendor = "-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f";
  const std::vector<Setup> setups = {
      {"rx6600",
       {{"usr/bin/grub2-editenv", ""},
        {"proc/self/mountinfo", "22 1 8:2 / / rw - ext4 /dev/sda2 rw\n"},
        {"boot/grub2/grubenv",
         "# GRUB Environment Block\nsaved_entry=8466ea9e024ef5b4c9f22e0eee9a30a8-6.11.4-301.fc41.x86_64\n"}}},
      {"strixpoint",
       {{"usr/bin/bootctl", ""},
        {"proc/self/mountinfo",
         "22 1 8:2 / / rw - ext4 /dev/sda2 rw\n40 22 0:30 / /sys/firmware/efi/efivars rw - "
         "efivarfs efivarfs rw\n"},
        {efivar + "LoaderFeatures" + vendor, std::string("\x07\0\0\0\x7f\0\0\0\0\0\0\0", 12)},
        {"efi/loader/loader.conf", "default 90b4b26cc181bfaf7bb427bd2a63714e-*\n"}}},
  };
  for (const Setup& setup : setups) {
    testing::WorldCopy w(setup.world);
    for (const auto& [path, content] : setup.files) w.Write(path, content);
    sys::Root root = *sys::Root::Open(w.root());
    detect::Inventory inventory = detect::Detect(root);
    knobs::KnobContext ctx{root, inventory, knowledge::Catalog::Builtin()};
    plan::Plan plan;
    plan.intent = {"trial", "", {"prepare"}, "", {}};
    boot::SetupFor(inventory.system.boot.kind)->PlanTrial(ctx, kTrial, plan);
    ASSERT_TRUE(plan.refused.empty()) << setup.world << ": " << plan.refused.front().message;
    ASSERT_EQ(plan.ops.size(), 2u) << setup.world;
    auto violations = CheckPlan(root, inventory, plan);
    EXPECT_TRUE(violations.empty()) << setup.world << ": " << violations.front().message;
    Op edited = plan.ops[0];
    edited.after->replace(edited.after->find("rocmtune.trial=t1\n", edited.after->find("options")), 18,
                          "rocmtune.trial=t1 init=/bin/sh\n");
    ExpectRefused(CheckOp(root, inventory, edited), {std::string(setup.world) + " edited", {}, rule::kTrialEntry});
  }
}

}  // namespace
}  // namespace rocmtune::helper
