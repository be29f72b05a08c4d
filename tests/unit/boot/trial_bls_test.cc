// Trial boots on BLS setups (knobs/trial_bls.cc): grub-bls on a copy of rx6600 (Fedora 41,
// saved_entry in /boot/grub2/grubenv, $kernelopts) and systemd-boot on a copy of strixpoint
// (Fedora 42, entries on the ESP at /efi, the loader's EFI variables): the entry, the switch,
// the cleanup, and each refusal (no default, an ambiguous default, no one-shot feature,
// read-only EFI variables, a Secure Boot UKI with its own .cmdline).
#include <algorithm>
#include <filesystem>
#include <memory>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "boot/boot_files.h"
#include "boot/setup.h"
#include "boot/trial_boot.h"
#include "cli_runner.h"
#include "detect/inventory.h"
#include "knowledge/catalog.h"

namespace rocmtune::boot {
namespace {

const TrialBoot kSetupTrial{"t1", {"amdgpu.noretry=0", "panic=10", "rocmtune.trial=t1"}};
constexpr std::string_view kSetupRootMount = "22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw\n";
constexpr std::string_view kEfivarsRw =
    "40 22 0:30 / /sys/firmware/efi/efivars rw,nosuid,nodev,noexec,relatime shared:2 - efivarfs efivarfs rw\n";
constexpr std::string_view kVendor = "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f";

// An efivarfs file: 4 attribute bytes (NV|BS|RT = 7), then the data.
std::string EfiVar(std::string_view data) { return std::string("\x07\0\0\0", 4) + std::string(data); }
std::string Utf16(std::string_view s) {
  std::string out;
  for (char c : s) out += std::string{c, '\0'};
  return out + std::string(2, '\0');
}
std::string U64(uint64_t v) {
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

class TrialWorld : public ::testing::Test {
 protected:
  explicit TrialWorld(std::string_view world) : w_(world) {}
  plan::Plan Plan(bool cleanup = false, std::shared_ptr<const sys::RootSupplement> supplement = nullptr) const {
    sys::Root root = *sys::Root::Open(w_.root());
    if (supplement) root.Supplement(std::move(supplement));
    detect::Inventory inventory = detect::Detect(root);
    BootContext ctx{root, inventory, knowledge::Catalog::Builtin()};
    const boot::Setup* setup = SetupFor(inventory.system.boot.kind);
    plan::Plan plan;
    if (cleanup) setup->PlanTrialCleanup(ctx, plan);
    else setup->PlanTrial(ctx, kSetupTrial, plan);
    return plan;
  }
  std::string Refusal() const {
    plan::Plan plan = Plan();
    return plan.refused.empty() ? std::string() : plan.refused.front().message;
  }
  testing::WorldCopy w_;
};

// ---- grub-bls ----

constexpr std::string_view kFedoraEntry =
    "boot/loader/entries/8466ea9e024ef5b4c9f22e0eee9a30a8-6.11.4-301.fc41.x86_64.conf";

class GrubBlsTrial : public TrialWorld {
 protected:
  GrubBlsTrial() : TrialWorld("rx6600") {}
  void SetUp() override {
    w_.Write("usr/bin/grub2-editenv", "");
    w_.Write("proc/self/mountinfo", kSetupRootMount);
    w_.Write("boot/grub2/grubenv",
             "# GRUB Environment Block\nsaved_entry=8466ea9e024ef5b4c9f22e0eee9a30a8-6.11.4-301.fc41.x86_64\n"
             "kernelopts=root=UUID=4398 ro rhgb quiet\n####\n");
  }
};

TEST_F(GrubBlsTrial, CopiesTheSavedEntryWithTheTokens) {
  plan::Plan plan = Plan();
  ASSERT_TRUE(plan.refused.empty()) << plan.refused.front().message;
  ASSERT_EQ(plan.ops.size(), 2u);
  EXPECT_EQ(plan.ops[0].path, "boot/loader/entries/rocmtune-trial.conf");
  EXPECT_EQ(*plan.ops[0].after,
            "# rocmtune-trial id=t1 tokens=amdgpu.noretry=0 panic=10 rocmtune.trial=t1\n"
            "title rocmtune trial t1 (Fedora Linux (6.11.4-301.fc41.x86_64) 41 (Workstation Edition))\n"
            "version 6.11.4-301.fc41.x86_64\n"
            "linux /vmlinuz-6.11.4-301.fc41.x86_64\n"
            "initrd /initramfs-6.11.4-301.fc41.x86_64.img\n"
            "options root=UUID=439868dc-c5d4-4754-8106-ac392fe377cd ro rhgb quiet amdgpu.noretry=0 panic=10 "
            "rocmtune.trial=t1\n"
            "grub_users $grub_users\n"
            "grub_arg --unrestricted\n"
            "grub_class fedora\n");
  EXPECT_EQ(plan.ops[1].argv, (std::vector<std::string>{"grub2-editenv", "-", "set", "next_entry=rocmtune-trial"}));
}

TEST_F(GrubBlsTrial, KernelOptsAreExpandedFromGrubenv) {
  std::string entry = w_.Read(kFedoraEntry);
  entry.replace(entry.find("options "), entry.find('\n', entry.find("options ")) - entry.find("options "),
                "options $kernelopts $tuned_params");
  w_.Write(kFedoraEntry, entry);
  plan::Plan plan = Plan();
  ASSERT_FALSE(plan.ops.empty()) << plan.refused.front().message;
  EXPECT_NE(plan.ops[0].after->find("\noptions root=UUID=4398 ro rhgb quiet amdgpu.noretry=0 panic=10"),
            std::string::npos)
      << *plan.ops[0].after;
}

TEST_F(GrubBlsTrial, Refusals) {
  w_.Write("boot/grub2/grubenv", "# GRUB Environment Block\n####\n");
  EXPECT_NE(Refusal().find("no saved_entry"), std::string::npos) << Refusal();
  w_.Write("boot/grub2/grubenv", "# GRUB Environment Block\nsaved_entry=gone\n");
  EXPECT_NE(Refusal().find("names no entry"), std::string::npos) << Refusal();
  w_.Write("boot/grub2/grubenv", "# GRUB Environment Block\nsaved_entry=rocmtune-trial\n");
  w_.Write("boot/loader/entries/rocmtune-trial.conf", "x");
  EXPECT_NE(Refusal().find("trial entry"), std::string::npos) << Refusal();
  SetUp();
  w_.Write("proc/self/mountinfo", std::string(kSetupRootMount) + "30 22 0:40 / /boot rw - btrfs /dev/sda1 rw\n");
  EXPECT_NE(Refusal().find("btrfs"), std::string::npos) << Refusal();
  SetUp();
  std::filesystem::remove(w_.Path("usr/bin/grub2-editenv"));
  EXPECT_NE(Refusal().find("grub2-editenv"), std::string::npos) << Refusal();
}

TEST_F(GrubBlsTrial, Cleanup) {
  EXPECT_TRUE(Plan(true).ops.empty());
  w_.Write("boot/loader/entries/rocmtune-trial.conf", "x");
  w_.Write("boot/grub2/grubenv", "# GRUB Environment Block\nnext_entry=rocmtune-trial\n");
  plan::Plan plan = Plan(true);
  ASSERT_EQ(plan.ops.size(), 2u);
  EXPECT_EQ(plan.ops[0].kind, plan::OpKind::kRemoveFile);
  EXPECT_EQ(plan.ops[1].argv, (std::vector<std::string>{"grub2-editenv", "-", "unset", "next_entry"}));
}

// ---- systemd-boot ----

constexpr std::string_view kSdEntry = "90b4b26cc181bfaf7bb427bd2a63714e-6.14.5-300.fc42.x86_64.conf";

class SdBootTrial : public TrialWorld {
 protected:
  SdBootTrial() : TrialWorld("strixpoint") {}
  void SetUp() override {
    w_.Write("usr/bin/bootctl", "");
    w_.Write("proc/self/mountinfo", std::string(kSetupRootMount) + std::string(kEfivarsRw));
    Var("LoaderFeatures", EfiVar(U64(0x7f)));
    Var("LoaderEntryDefault", EfiVar(Utf16(kSdEntry)));
  }
  void Var(std::string_view name, const std::string& content) const {
    w_.Write(fmt::format("sys/firmware/efi/efivars/{}-{}", name, kVendor), content);
  }
  void RemoveVar(std::string_view name) const {
    std::filesystem::remove(w_.Path(fmt::format("sys/firmware/efi/efivars/{}-{}", name, kVendor)));
  }
};

TEST_F(SdBootTrial, CopiesTheDefaultEntryOnTheEsp) {
  plan::Plan plan = Plan();
  ASSERT_TRUE(plan.refused.empty()) << plan.refused.front().message;
  ASSERT_EQ(plan.ops.size(), 2u);
  EXPECT_EQ(plan.ops[0].path, "efi/loader/entries/rocmtune-trial.conf");
  EXPECT_NE(plan.ops[0].after->find(
                "\noptions root=UUID=3cf73d50-06f9-4b2c-8c4b-8f437089327b ro rhgb quiet amdgpu.noretry=0 panic=10 "
                "rocmtune.trial=t1\n"),
            std::string::npos)
      << *plan.ops[0].after;
  EXPECT_NE(plan.ops[0].after->find("\ntitle rocmtune trial t1 (Fedora Linux 42 (Workstation Edition))\n"),
            std::string::npos);
  EXPECT_EQ(plan.ops[1].argv, (std::vector<std::string>{"bootctl", "set-oneshot", "rocmtune-trial.conf"}));
}

// The daemon's case: the ESP is root's only, so it plans from what the helper read of it. The
// tree here has no ESP at all; the supplement alone makes the same plan, and the cleanup finds
// the trial entry only through it.
TEST_F(SdBootTrial, ThePlanFromTheHelpersCopyOfTheEspIsThePlanFromTheEsp) {
  auto copy = std::make_shared<const sys::RootSupplement>(CollectBootFiles(*sys::Root::Open(w_.root())));
  plan::Plan direct = Plan();
  ASSERT_TRUE(direct.refused.empty()) << direct.refused.front().message;
  std::filesystem::remove_all(w_.Path("efi/loader"));
  EXPECT_NE(Refusal().find("no ESP with loader/loader.conf"), std::string::npos) << Refusal();
  plan::Plan supplemented = Plan(false, copy);
  ASSERT_TRUE(supplemented.refused.empty()) << supplemented.refused.front().message;
  ASSERT_EQ(supplemented.ops.size(), direct.ops.size());
  for (size_t i = 0; i < direct.ops.size(); ++i) {
    EXPECT_EQ(supplemented.ops[i].path, direct.ops[i].path);
    EXPECT_EQ(supplemented.ops[i].after, direct.ops[i].after);
    EXPECT_EQ(supplemented.ops[i].argv, direct.ops[i].argv);
  }
  auto with_entry = std::make_shared<sys::RootSupplement>(*copy);
  with_entry->dirs["efi/loader/entries"].push_back("rocmtune-trial.conf");
  std::sort(with_entry->dirs["efi/loader/entries"].begin(), with_entry->dirs["efi/loader/entries"].end());
  with_entry->files["efi/loader/entries/rocmtune-trial.conf"] = "title trial\n";
  EXPECT_TRUE(Plan(true, copy).ops.empty());
  plan::Plan cleanup = Plan(true, with_entry);
  ASSERT_EQ(cleanup.ops.size(), 1u);
  EXPECT_EQ(cleanup.ops[0].kind, plan::OpKind::kRemoveFile);
  EXPECT_EQ(cleanup.ops[0].path, "efi/loader/entries/rocmtune-trial.conf");
  EXPECT_EQ(cleanup.ops[0].before, "title trial\n");
}

TEST_F(SdBootTrial, LoaderConfDefaultWhenNoEfiDefault) {
  RemoveVar("LoaderEntryDefault");
  EXPECT_NE(Refusal().find("no default entry"), std::string::npos) << Refusal();
  w_.Write("efi/loader/loader.conf", "timeout 3\ndefault 90b4b26cc181bfaf7bb427bd2a63714e-*\n");
  EXPECT_EQ(Refusal(), "");
  // A second kernel: the pattern no longer names one entry.
  w_.Write("efi/loader/entries/90b4b26cc181bfaf7bb427bd2a63714e-6.15.0-1.fc42.x86_64.conf",
           w_.Read(std::string("efi/loader/entries/") + std::string(kSdEntry)));
  EXPECT_NE(Refusal().find("matches 2"), std::string::npos) << Refusal();
  w_.Write("efi/loader/loader.conf", "default @saved\n");
  EXPECT_NE(Refusal().find("@saved"), std::string::npos) << Refusal();
  w_.Write("efi/loader/loader.conf", "default *\n");
  EXPECT_NE(Refusal().find("would also match rocmtune's trial entry"), std::string::npos) << Refusal();
}

TEST_F(SdBootTrial, RefusedWithoutTheOneShotFeatureOrWritableVariables) {
  Var("LoaderFeatures", EfiVar(U64(0x77)));  // bit 3 clear
  EXPECT_NE(Refusal().find("lack one-shot"), std::string::npos) << Refusal();
  RemoveVar("LoaderFeatures");
  EXPECT_NE(Refusal().find("LoaderFeatures"), std::string::npos) << Refusal();
  SetUp();
  w_.Write("proc/self/mountinfo",
           std::string(kSetupRootMount) + "40 22 0:30 / /sys/firmware/efi/efivars ro,nosuid - efivarfs efivarfs ro\n");
  EXPECT_NE(Refusal().find("read-only"), std::string::npos) << Refusal();
  // rocmtuned's own view under ProtectKernelTunables=: a read-only bind of the read-write
  // efivarfs (bootctl runs in the helper, which sees it writable). Not refused.
  w_.Write("proc/self/mountinfo",
           std::string(kSetupRootMount) + "40 22 0:30 / /sys/firmware/efi/efivars ro,nosuid - efivarfs efivarfs rw\n");
  EXPECT_EQ(Refusal(), "");
  w_.Write("proc/self/mountinfo", kSetupRootMount);
  EXPECT_NE(Refusal().find("not mounted"), std::string::npos) << Refusal();
  SetUp();
  std::filesystem::remove(w_.Path("usr/bin/bootctl"));
  EXPECT_NE(Refusal().find("bootctl"), std::string::npos) << Refusal();
  // A tree (not the running system) without EFI variables: planned, with a warning.
  SetUp();
  std::filesystem::remove_all(w_.Path("sys/firmware/efi/efivars"));
  w_.Write("efi/loader/loader.conf", "default 90b4b26cc181bfaf7bb427bd2a63714e-*\n");
  plan::Plan tree = Plan();
  EXPECT_TRUE(tree.refused.empty()) << tree.refused.front().message;
  ASSERT_EQ(tree.warnings.size(), 1u);
  EXPECT_NE(tree.warnings[0].message.find("could not check that systemd-boot can boot an entry once"),
            std::string::npos);
}

// A PE image with the given section names (the headers only: what PeHasCmdline reads).
std::string PeImage(std::vector<std::string> sections) {
  std::string img(0x200, '\0');
  img[0] = 'M';
  img[1] = 'Z';
  img[0x3c] = static_cast<char>(0x80);
  img.replace(0x80, 4, std::string("PE\0\0", 4));
  img[0x80 + 6] = static_cast<char>(sections.size());
  img[0x80 + 20] = 0;  // no optional header
  for (size_t i = 0; i < sections.size(); ++i) img.replace(0x80 + 24 + i * 40, sections[i].size(), sections[i]);
  return img;
}

TEST_F(SdBootTrial, SecureBootUkiWithItsOwnCmdlineIsRefused) {
  std::string path = std::string("efi/loader/entries/") + std::string(kSdEntry);
  w_.Write(path, "title Fedora UKI\nefi /EFI/Linux/fedora.efi\noptions quiet\n");
  w_.Write("efi/EFI/Linux/fedora.efi", PeImage({".text", ".linux", ".cmdline"}));
  EXPECT_EQ(Refusal(), "") << "no Secure Boot: the entry's options reach the kernel";
  w_.Write("sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c", EfiVar(std::string(1, '\1')));
  EXPECT_NE(Refusal().find("(.cmdline) under Secure Boot"), std::string::npos) << Refusal();
  w_.Write("efi/EFI/Linux/fedora.efi", PeImage({".text", ".linux", ".initrd"}));
  EXPECT_EQ(Refusal(), "") << "a UKI without .cmdline takes the entry's options";
  std::filesystem::remove(w_.Path("efi/EFI/Linux/fedora.efi"));
  EXPECT_NE(Refusal().find("could not read it"), std::string::npos)
      << "unreadable is not 'has .cmdline': " << Refusal();
}

TEST_F(SdBootTrial, CleanupClearsOnlyRocmtunesOneShot) {
  EXPECT_TRUE(Plan(true).ops.empty());
  w_.Write("efi/loader/entries/rocmtune-trial.conf", "x");
  Var("LoaderEntryOneShot", EfiVar(Utf16("rocmtune-trial.conf")));
  plan::Plan plan = Plan(true);
  ASSERT_EQ(plan.ops.size(), 2u);
  EXPECT_EQ(plan.ops[0].path, "efi/loader/entries/rocmtune-trial.conf");
  EXPECT_EQ(plan.ops[1].argv, (std::vector<std::string>{"bootctl", "set-oneshot", ""}));
  Var("LoaderEntryOneShot", EfiVar(Utf16("windows.conf")));
  EXPECT_EQ(Plan(true).ops.size(), 1u);
}

}  // namespace
}  // namespace rocmtune::boot
