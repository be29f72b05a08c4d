// Trial boots with grub-mkconfig's GRUB (knobs/trial_grub.cc, grub_menu.cc): the entry copied
// from grub.cfg's default entry (numbers, ids, titles, submenu paths, ${saved_entry}, CRLF), the
// ops a trial plans on a world (entry, grub.cfg regenerated only when it lacks 42_rocmtune's
// lines, the switch), the cleanup, and every refusal (LVM, LUKS, RAID, btrfs, ZFS, no
// mountinfo, no grub.cfg, no 42_rocmtune, no grub-editenv).
#include <filesystem>

#include <gtest/gtest.h>

#include "boot/setup.h"
#include "boot/trial_boot.h"
#include "cli_runner.h"
#include "detect/inventory.h"
#include "knowledge/catalog.h"

namespace rocmtune::boot {
namespace {

const TrialBoot kTrial{"t1", {"amdgpu.noretry=0", "panic=10", "rocmtune.trial=t1"}};

// What 00_header and 10_linux write, trimmed to the lines that decide the default entry.
constexpr std::string_view kCfg =
    "if [ -s $prefix/grubenv ]; then\n"
    "  load_env\n"
    "fi\n"
    "if [ \"${next_entry}\" ] ; then\n"
    "   set default=\"${next_entry}\"\n"
    "   set next_entry=\n"
    "   save_env next_entry\n"
    "else\n"
    "   set default=\"@DEFAULT@\"\n"
    "fi\n"
    "function savedefault {\n"
    "  if [ -z \"${boot_once}\" ]; then\n"
    "    saved_entry=\"${chosen}\"\n"
    "  fi\n"
    "}\n"
    "menuentry 'Debian GNU/Linux' --class debian $menuentry_id_option 'gnulinux-simple-abc' {\n"
    "\tload_video\n"
    "\tlinux\t/boot/vmlinuz-6.1.0-26-amd64 root=UUID=abc ro  quiet\n"
    "\tinitrd\t/boot/initrd.img-6.1.0-26-amd64\n"
    "}\n"
    "submenu 'Advanced options for Debian GNU/Linux' $menuentry_id_option 'gnulinux-advanced-abc' {\n"
    "\tmenuentry 'Debian GNU/Linux, with Linux 6.1.0-26-amd64' --class debian $menuentry_id_option "
    "'gnulinux-6.1.0-26-amd64-advanced-abc' {\n"
    "\t\tlinux\t/boot/vmlinuz-6.1.0-26-amd64 root=UUID=abc ro  quiet\n"
    "\t}\n"
    "\tmenuentry 'Debian GNU/Linux, with Linux 6.1.0-25-amd64' --class debian $menuentry_id_option "
    "'gnulinux-6.1.0-25-amd64-advanced-abc' {\n"
    "\t\tlinux\t/boot/vmlinuz-6.1.0-25-amd64 root=UUID=abc ro  quiet\n"
    "\t\tinitrd\t/boot/initrd.img-6.1.0-25-amd64\n"
    "\t}\n"
    "}\n"
    "menuentry 'Other' $menuentry_id_option 'other' {\n"
    "\tlinux16 /vmlinuz-other root=/dev/sdb1\n"
    "}\n";

std::string Cfg(std::string_view default_value) {
  std::string cfg(kCfg);
  cfg.replace(cfg.find("@DEFAULT@"), 9, default_value);
  return cfg;
}

// The `linux` line of the rendered entry.
std::string LinuxLine(const std::string& entry) {
  size_t at = entry.find("linux");
  return entry.substr(at, entry.find('\n', at) - at);
}

TEST(GrubTrialEntry, CopiesTheFirstEntryWithTheTokens) {
  auto entry = GrubTrialEntry(Cfg("0"), "", kTrial);
  ASSERT_TRUE(entry) << entry.error().message;
  EXPECT_EQ(*entry,
            "# rocmtune-trial id=t1 tokens=amdgpu.noretry=0 panic=10 rocmtune.trial=t1\n"
            "# grub.cfg's default entry 'Debian GNU/Linux', booted once by next_entry with the trial's tokens.\n"
            "menuentry 'rocmtune trial t1' --id rocmtune-trial {\n"
            "\tload_video\n"
            "\tlinux\t/boot/vmlinuz-6.1.0-26-amd64 root=UUID=abc ro  quiet amdgpu.noretry=0 panic=10 "
            "rocmtune.trial=t1\n"
            "\tinitrd\t/boot/initrd.img-6.1.0-26-amd64\n"
            "}\n");
}

TEST(GrubTrialEntry, FollowsTheDefaultIntoSubmenusByNumberIdOrTitle) {
  for (std::string_view d : {"1>1", "gnulinux-advanced-abc>gnulinux-6.1.0-25-amd64-advanced-abc",
                             "Advanced options for Debian GNU/Linux>Debian GNU/Linux, with Linux 6.1.0-25-amd64"}) {
    auto entry = GrubTrialEntry(Cfg(d), "", kTrial);
    ASSERT_TRUE(entry) << d << ": " << entry.error().message;
    EXPECT_EQ(LinuxLine(*entry),
              "linux\t/boot/vmlinuz-6.1.0-25-amd64 root=UUID=abc ro  quiet amdgpu.noretry=0 panic=10 "
              "rocmtune.trial=t1")
        << d;
  }
  auto other = GrubTrialEntry(Cfg("other"), "", kTrial);
  ASSERT_TRUE(other);
  EXPECT_EQ(LinuxLine(*other), "linux16 /vmlinuz-other root=/dev/sdb1 amdgpu.noretry=0 panic=10 rocmtune.trial=t1");
}

TEST(GrubTrialEntry, SavedEntryComesFromGrubenv) {
  std::string env =
      "# GRUB Environment Block\nsaved_entry=gnulinux-advanced-abc>gnulinux-6.1.0-25-amd64-advanced-abc\n"
      "#########\n";
  auto entry = GrubTrialEntry(Cfg("${saved_entry}"), env, kTrial);
  ASSERT_TRUE(entry);
  EXPECT_NE(LinuxLine(*entry).find("6.1.0-25"), std::string::npos);
  // No saved_entry: GRUB's default is "" and it boots the first entry.
  auto first = GrubTrialEntry(Cfg("${saved_entry}"), "# GRUB Environment Block\n", kTrial);
  ASSERT_TRUE(first);
  EXPECT_NE(first->find("'Debian GNU/Linux'"), std::string::npos);
}

TEST(GrubTrialEntry, NoSuchDefaultFallsBackToTheFirstEntry) {
  // grub-core/normal/menu.c run_menu: "fall back to the first entry".
  auto entry = GrubTrialEntry(Cfg("no-such-id"), "", kTrial);
  ASSERT_TRUE(entry);
  EXPECT_NE(entry->find("'Debian GNU/Linux'"), std::string::npos);
}

TEST(GrubTrialEntry, CrlfIsReadAndTheEntryIsLf) {
  std::string cfg = Cfg("0");
  std::string crlf;
  for (char c : cfg) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  auto entry = GrubTrialEntry(crlf, "", kTrial);
  ASSERT_TRUE(entry);
  EXPECT_EQ(*entry, *GrubTrialEntry(cfg, "", kTrial));
}

TEST(GrubTrialEntry, Refusals) {
  EXPECT_FALSE(GrubTrialEntry(Cfg("1"), "", kTrial)) << "a submenu is not an entry";
  EXPECT_FALSE(GrubTrialEntry("set default=0\n", "", kTrial)) << "no entry";
  EXPECT_FALSE(GrubTrialEntry("menuentry 'x' {\n\techo hi\n}\n", "", kTrial)) << "no linux line";
  EXPECT_FALSE(GrubTrialEntry("menuentry 'x' {\n\tlinux /v\n", "", kTrial)) << "not closed";
  EXPECT_FALSE(GrubTrialEntry(Cfg("$foo"), "", kTrial)) << "a variable it cannot read";
  // Tokens GRUB's parser would act on, a second id, an id of the wrong form, a mismatched id.
  EXPECT_FALSE(GrubTrialEntry(Cfg("0"), "", {"t1", {"a={x}", "rocmtune.trial=t1"}}));
  EXPECT_FALSE(GrubTrialEntry(Cfg("0"), "", {"t1", {"rocmtune.trial=t1", "rocmtune.trial=t2"}}));
  EXPECT_FALSE(GrubTrialEntry(Cfg("0"), "", {"t_1", {"rocmtune.trial=t_1"}}));
  EXPECT_FALSE(GrubTrialEntry(Cfg("0"), "", {"t2", {"rocmtune.trial=t1"}}));
  EXPECT_FALSE(GrubTrialEntry(Cfg("0"), "", {"t1", {"quiet;reboot", "rocmtune.trial=t1"}}));
}

TEST(TrialHeader, RoundTrips) {
  auto parsed = ParseTrialHeader(TrialHeader(kTrial) + "rest\n");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->id, "t1");
  EXPECT_EQ(parsed->tokens, kTrial.tokens);
  EXPECT_FALSE(ParseTrialHeader("# rocmtune-trial id=t1 tokens=a  b\n")) << "not as rendered";
  EXPECT_FALSE(ParseTrialHeader("menuentry\n"));
}

// ---- on a world: rx5500xt (Debian 12, grub-debian) ----

constexpr std::string_view kRootMount = "22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw\n";

class GrubTrialPlan : public ::testing::Test {
 protected:
  void SetUp() override {
    w_.Write("usr/bin/grub-editenv", "");
    w_.Write("etc/grub.d/42_rocmtune", "");
    w_.Write("proc/self/mountinfo", kRootMount);
  }
  plan::Plan Plan(bool cleanup = false) const {
    sys::Root root = *sys::Root::Open(w_.root());
    detect::Inventory inventory = detect::Detect(root);
    BootContext ctx{root, inventory, knowledge::Catalog::Builtin()};
    const boot::Setup* setup = SetupFor(inventory.system.boot.kind);
    EXPECT_EQ(setup->Kind(), detect::BootKind::kGrubDebian);
    plan::Plan plan;
    if (cleanup) setup->PlanTrialCleanup(ctx, plan);
    else setup->PlanTrial(ctx, kTrial, plan);
    return plan;
  }
  std::optional<std::string> Refusal() const {
    plan::Plan plan = Plan();
    return plan.refused.empty() ? std::nullopt : std::optional(plan.refused.front().message);
  }
  testing::WorldCopy w_{"rx5500xt"};
};

TEST_F(GrubTrialPlan, EntryThenUpdateGrubThenTheSwitch) {
  plan::Plan plan = Plan();
  ASSERT_TRUE(plan.refused.empty()) << plan.refused.front().message;
  ASSERT_EQ(plan.ops.size(), 3u);
  EXPECT_EQ(plan.ops[0].kind, plan::OpKind::kWriteFile);
  EXPECT_EQ(plan.ops[0].path, "boot/grub/rocmtune-trial.cfg");
  EXPECT_EQ(plan.ops[0].backend, plan::BackendId::kBootloader);
  EXPECT_NE(plan.ops[0].after->find("ro  quiet amdgpu.noretry=0 panic=10 rocmtune.trial=t1\n"), std::string::npos);
  // The world's grub.cfg predates 42_rocmtune: it is regenerated before the switch.
  EXPECT_EQ(plan.ops[1].argv, (std::vector<std::string>{"update-grub"}));
  EXPECT_EQ(plan.ops[2].argv,
            (std::vector<std::string>{"grub-editenv", "/boot/grub/grubenv", "set", "next_entry=rocmtune-trial"}));
  EXPECT_TRUE(plan.reboot_required);
}

TEST_F(GrubTrialPlan, NoRegenerationWhenGrubCfgSourcesTheEntry) {
  w_.Write("boot/grub/grub.cfg", w_.Read("boot/grub/grub.cfg") +
                                     "### BEGIN /etc/grub.d/42_rocmtune ###\n"
                                     "if [ -f  ${config_directory}/rocmtune-trial.cfg ]; then\n"
                                     "  source ${config_directory}/rocmtune-trial.cfg\nfi\n");
  w_.Write("usr/bin/grub-editenv", "");
  plan::Plan plan = Plan();
  ASSERT_EQ(plan.ops.size(), 2u);
  EXPECT_EQ(plan.ops[1].path, "grub-editenv");
}

TEST_F(GrubTrialPlan, CleanupRemovesTheEntryAndAnUnusedSwitchOnly) {
  EXPECT_TRUE(Plan(true).ops.empty()) << "nothing of a trial: nothing to do";
  w_.Write("boot/grub/rocmtune-trial.cfg", "x");
  w_.Write("boot/grub/grubenv", "# GRUB Environment Block\nnext_entry=rocmtune-trial\n####\n");
  plan::Plan plan = Plan(true);
  ASSERT_EQ(plan.ops.size(), 2u);
  EXPECT_EQ(plan.ops[0].kind, plan::OpKind::kRemoveFile);
  EXPECT_EQ(plan.ops[1].argv, (std::vector<std::string>{"grub-editenv", "/boot/grub/grubenv", "unset", "next_entry"}));
  // An admin's own grub-reboot is not rocmtune's to clear.
  w_.Write("boot/grub/grubenv", "# GRUB Environment Block\nnext_entry=gnulinux-simple-abc\n####\n");
  EXPECT_EQ(Plan(true).ops.size(), 1u);
}

TEST_F(GrubTrialPlan, RefusedWhereGrubCannotClearNextEntry) {
  EXPECT_EQ(Refusal(), std::nullopt);
  // A separate /boot on btrfs (the mount nearest /boot/grub decides), ZFS.
  for (std::string_view fs : {"btrfs", "zfs"}) {
    w_.Write("proc/self/mountinfo",
             std::string(kRootMount) + "30 22 0:40 / /boot rw - " + std::string(fs) + " /dev/sda1 rw\n");
    auto why = Refusal();
    ASSERT_TRUE(why) << fs;
    EXPECT_NE(why->find(std::string(fs) + ", where GRUB cannot write its environment block"), std::string::npos)
        << *why;
  }
  // Device-mapper: LVM, LUKS.
  w_.Write("proc/self/mountinfo", "22 1 253:0 / / rw - ext4 /dev/mapper/vg-root rw\n");
  w_.Write("sys/dev/block/253:0/dm/uuid", "LVM-abcdef\n");
  EXPECT_NE(Refusal().value_or("").find("an LVM logical volume"), std::string::npos) << Refusal().value_or("");
  w_.Write("sys/dev/block/253:0/dm/uuid", "CRYPT-LUKS2-abc-root\n");
  EXPECT_NE(Refusal().value_or("").find("LUKS"), std::string::npos);
  // md RAID.
  w_.Write("proc/self/mountinfo", "22 1 9:127 / / rw - ext4 /dev/md127 rw\n");
  w_.Write("sys/dev/block/9:127/md/level", "raid1\n");
  EXPECT_NE(Refusal().value_or("").find("RAID"), std::string::npos);
  // A tree that is not the running system and has no mount table: planned, with a warning (on
  // the live system /proc/self/mountinfo is always there).
  std::filesystem::remove(w_.Path("proc/self/mountinfo"));
  plan::Plan unchecked = Plan();
  EXPECT_TRUE(unchecked.refused.empty());
  ASSERT_EQ(unchecked.warnings.size(), 1u);
  EXPECT_NE(unchecked.warnings[0].message.find("could not check that GRUB can write /boot/grub/grubenv"),
            std::string::npos)
      << unchecked.warnings[0].message;
}

TEST_F(GrubTrialPlan, RefusedWithoutItsPieces) {
  std::filesystem::remove(w_.Path("etc/grub.d/42_rocmtune"));
  EXPECT_NE(Refusal().value_or("").find("42_rocmtune"), std::string::npos);
  w_.Write("etc/grub.d/42_rocmtune", "");
  std::filesystem::remove(w_.Path("usr/bin/grub-editenv"));
  EXPECT_NE(Refusal().value_or("").find("grub-editenv"), std::string::npos);
  w_.Write("usr/bin/grub-editenv", "");
  std::filesystem::remove(w_.Path("boot/grub/grub.cfg"));
  EXPECT_NE(Refusal().value_or("").find("grub.cfg is missing"), std::string::npos);
}

}  // namespace
}  // namespace rocmtune::boot
