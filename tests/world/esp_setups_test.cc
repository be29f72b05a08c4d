// The boot setups whose next boot lives on the ESP, end to end through rocmtunectl on world
// copies (tests/support/esp_worlds.h):
//   - Ubuntu 24.04 with systemd-boot entries on a /boot/efi only root may read and grub-common's
//     leftover /etc/default/grub: as a user the boot setup is unknown with the reason (status
//     text and JSON), nothing is "gone after reboot", and a --check refuses (exit 3); root sees
//     systemd-boot. Before, the user got "grub", "gone after reboot" and a GRUB plan (exit 0).
//   - systemd-boot's CONFIGURED is the default entry's options, with and without
//     /etc/kernel/cmdline, and a note where the two disagree.
//   - Pop!_OS with kernelstub: its own kind, CONFIGURED from /etc/kernelstub/configuration,
//     changes as `kernelstub -a/-d` (golden plan), apply + revert byte for byte, never
//     /etc/kernel/cmdline, --trial only where systemd-boot's one-shot applies.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"
#include "esp_worlds.h"
#include "util/text.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace rocmtune::client::esp {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using testing::WorldCopy;

const json* Knob(const json& status, const std::string& key) {
  for (const json& k : status["knobs"])
    if (k["key"] == key) return &k;
  return nullptr;
}

constexpr std::string_view kUnreadable = "/boot/efi as this user: run as root or through rocmtuned";

class RootOnlyEsp : public ::testing::Test {
 protected:
  RootOnlyEsp() : w_(testing::kUbuntuEspBase) { testing::MakeUbuntuSdBoot(w_.root(), /*root_only=*/true); }
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to make the ESP root's only and read it as uid 65534";
    auto probe = w_.Ctl({"status", "--json"}, /*as_nobody=*/true);
    if (probe.exit_code == testing::kCannotDropPrivileges) GTEST_SKIP() << "cannot drop privileges to uid 65534 here";
  }
  WorldCopy w_;
};

TEST_F(RootOnlyEsp, StatusAsAUserSaysUnknownWithTheReason) {
  auto r = w_.Ctl({"status", "--json"}, /*as_nobody=*/true);
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  json doc = r.Json();
  EXPECT_EQ(doc["system"]["boot"], nullptr) << doc["system"];
  ASSERT_TRUE(doc["system"]["boot_unknown"].is_string()) << doc["system"];
  EXPECT_THAT(doc["system"]["boot_unknown"].get<std::string>(), HasSubstr(kUnreadable));
  const json* iommu = Knob(doc, "cmdline.iommu");
  ASSERT_NE(iommu, nullptr) << doc["knobs"];
  EXPECT_EQ((*iommu)["running"], "pt");
  EXPECT_EQ((*iommu)["configured"], nullptr) << *iommu;
  EXPECT_EQ((*iommu)["gone_after_reboot"], false) << "the entry sets it: not gone, unknown";
  EXPECT_THAT((*iommu)["notes"].dump(), HasSubstr("next boot's command line unknown"));
  EXPECT_THAT((*iommu)["notes"].dump(), HasSubstr("run as root or through rocmtuned"));
  EXPECT_EQ((*iommu)["owner"], "unknown") << *iommu;
  auto text = w_.Ctl({"status"}, /*as_nobody=*/true);
  // The row: CONFIGURED and OWNER unknown, not "-" (unset) and "kernel".
  std::string row;
  for (std::string_view line : text::SplitLines(text.out))
    if (line.starts_with("cmdline.iommu ")) row = std::string(line);
  EXPECT_THAT(row, ::testing::MatchesRegex("cmdline\\.iommu +unknown +pt +pt +unknown +-")) << text.out;
  auto explain = w_.Ctl({"explain", "cmdline.iommu"}, /*as_nobody=*/true);
  EXPECT_THAT(explain.out, HasSubstr("configured: unknown\n")) << explain.out;
  EXPECT_THAT(explain.out, HasSubstr("owner:      unknown\n")) << explain.out;
  EXPECT_THAT(text.out, HasSubstr("Boot:    unknown (cannot read "));
  EXPECT_THAT(text.out, Not(HasSubstr("gone after reboot")));
  EXPECT_THAT(text.out, Not(HasSubstr("Boot:    grub")));
}

TEST_F(RootOnlyEsp, ACheckAsAUserRefusesWithTheReason) {
  auto r = w_.Ctl({"--json", "set", "cmdline.iommu=pt", "--check"}, /*as_nobody=*/true);
  EXPECT_EQ(r.exit_code, kExitRefused) << r.out << r.err;
  json doc = r.Json();
  EXPECT_THAT(doc["refused"].dump(), HasSubstr(std::string(kUnreadable)));
  EXPECT_THAT(doc["changes"].dump(), Not(HasSubstr("grub"))) << "no GRUB edit is planned";
  auto text = w_.Ctl({"set", "cmdline.iommu=pt", "--check", "--diff"}, /*as_nobody=*/true);
  EXPECT_EQ(text.exit_code, kExitRefused);
  EXPECT_THAT(text.out + text.err, HasSubstr(std::string(kUnreadable)));
}

// Root reads the ESP: systemd-boot, the entry's iommu=pt configured where it is written.
TEST_F(RootOnlyEsp, RootSeesSystemdBootAndTheEntrysOptions) {
  auto r = w_.Ctl({"status", "--json"});
  json doc = r.Json();
  EXPECT_EQ(doc["system"]["boot"], "systemd-boot") << doc["system"];
  EXPECT_EQ(doc["system"]["boot_unknown"], nullptr);
  const json* iommu = Knob(doc, "cmdline.iommu");
  ASSERT_NE(iommu, nullptr);
  EXPECT_EQ((*iommu)["configured"], "pt") << *iommu;
  EXPECT_EQ((*iommu)["file"], "boot/efi/loader/entries/0f6e3d2c9a8b47e1b2c3d4e5f6a7b8c9-6.8.0-45-generic.conf")
      << "the newest of the two entries `default` matches";
  EXPECT_EQ((*iommu)["line"], 6);
  EXPECT_EQ((*iommu)["gone_after_reboot"], false);
}

// CONFIGURED on systemd-boot: the default entry, /etc/kernel/cmdline or not; where they differ,
// the row says what later kernels get. Before, without /etc/kernel/cmdline CONFIGURED was "-".
TEST(SdBootNextBootTest, TheDefaultEntryWithAndWithoutKernelCmdline) {
  WorldCopy w(testing::kUbuntuEspBase);
  testing::MakeUbuntuSdBoot(w.root(), /*root_only=*/false);
  const std::string entry = "boot/efi/loader/entries/0f6e3d2c9a8b47e1b2c3d4e5f6a7b8c9-6.8.0-45-generic.conf";
  json doc = w.Ctl({"status", "--json"}).Json();
  const json* iommu = Knob(doc, "cmdline.iommu");
  ASSERT_NE(iommu, nullptr);
  EXPECT_EQ((*iommu)["configured"], "pt");
  EXPECT_EQ((*iommu)["file"], entry);
  EXPECT_THAT((*iommu)["notes"].dump(), Not(HasSubstr("kernels installed later")));
  // kernel-install's command line without the option: kernels installed later lose it.
  w.Write("etc/kernel/cmdline", "root=UUID=4bb07798-7b76-41bf-84b6-c4336d8ef788 ro quiet splash\n");
  doc = w.Ctl({"status", "--json"}).Json();
  iommu = Knob(doc, "cmdline.iommu");
  ASSERT_NE(iommu, nullptr);
  EXPECT_EQ((*iommu)["configured"], "pt") << "the entry boots next";
  EXPECT_THAT((*iommu)["notes"].dump(), HasSubstr("kernels installed later get no iommu from /etc/kernel/cmdline"));
  // The same value in both: nothing to say.
  w.Write("etc/kernel/cmdline", "root=UUID=4bb07798-7b76-41bf-84b6-c4336d8ef788 ro quiet splash iommu=pt\n");
  doc = w.Ctl({"status", "--json"}).Json();
  EXPECT_THAT((*Knob(doc, "cmdline.iommu"))["notes"].dump(), Not(HasSubstr("kernels installed later")));
  // A boot-counted entry (kernel-install's +3 suffix) matched by the glob, newest first.
  fs::rename(w.Path("boot/efi/loader/entries/0f6e3d2c9a8b47e1b2c3d4e5f6a7b8c9-6.8.0-40-generic.conf"),
             w.Path("boot/efi/loader/entries/0f6e3d2c9a8b47e1b2c3d4e5f6a7b8c9-6.8.0-50-generic+3.conf"));
  std::string newer = w.Read("boot/efi/loader/entries/0f6e3d2c9a8b47e1b2c3d4e5f6a7b8c9-6.8.0-50-generic+3.conf");
  newer.replace(newer.find("iommu=pt"), 8, "iommu=soft");
  for (size_t at; (at = newer.find("6.8.0-40-generic")) != std::string::npos;)
    newer.replace(at, 16, "6.8.0-50-generic");
  w.Write("boot/efi/loader/entries/0f6e3d2c9a8b47e1b2c3d4e5f6a7b8c9-6.8.0-50-generic+3.conf", newer);
  doc = w.Ctl({"status", "--json"}).Json();
  EXPECT_EQ((*Knob(doc, "cmdline.iommu"))["configured"], "soft") << *Knob(doc, "cmdline.iommu");
  // With no tries left it sorts last: the other entry boots.
  fs::rename(w.Path("boot/efi/loader/entries/0f6e3d2c9a8b47e1b2c3d4e5f6a7b8c9-6.8.0-50-generic+3.conf"),
             w.Path("boot/efi/loader/entries/0f6e3d2c9a8b47e1b2c3d4e5f6a7b8c9-6.8.0-50-generic+0-3.conf"));
  doc = w.Ctl({"status", "--json"}).Json();
  EXPECT_EQ((*Knob(doc, "cmdline.iommu"))["configured"], "pt");
}

// ---- Pop!_OS, kernelstub ----

class PopOs : public ::testing::Test {
 protected:
  PopOs() : w_(testing::kPopOsBase) { testing::MakePopOs(w_.root()); }
  WorldCopy w_;
};

TEST_F(PopOs, StatusSaysKernelstubAndConfiguredIsItsUserOptions) {
  json doc = w_.Ctl({"status", "--json"}).Json();
  EXPECT_EQ(doc["system"]["boot"], "kernelstub") << doc["system"];
  EXPECT_THAT(doc["system"]["boot_evidence"].dump(), HasSubstr("etc/kernelstub/configuration"));
  w_.Write("etc/kernelstub/configuration", [&] {
    std::string c = w_.Read("etc/kernelstub/configuration");
    c.insert(c.find("\"splash\"", c.find("\"user\"")) + 8, ",\n      \"iommu=pt\"");
    return c;
  }());
  doc = w_.Ctl({"status", "--json"}).Json();
  const json* k = Knob(doc, "cmdline.iommu");
  ASSERT_NE(k, nullptr) << doc["knobs"];
  EXPECT_EQ((*k)["configured"], "pt") << *k;
  EXPECT_EQ((*k)["file"], "etc/kernelstub/configuration");
  EXPECT_EQ((*k)["line"], 22) << "the user section's line";
  EXPECT_EQ((*k)["owner"], "admin");
  // The entry kernelstub wrote before the edit lacks it until kernelstub runs again.
  EXPECT_THAT((*k)["notes"].dump(), HasSubstr("Pop_OS-current.conf"));
}

// `set cmdline.iommu=pt --check --diff`, golden: kernelstub -a, the state file, no
// /etc/kernel/cmdline. ROCMTUNE_UPDATE_GOLDEN=1 rewrites tests/golden/esp/.
TEST_F(PopOs, SetCheckDiffGolden) {
  auto r = w_.Ctl({"set", "cmdline.iommu=pt", "--check", "--diff"});
  EXPECT_EQ(r.exit_code, kExitOk) << r.out << r.err;
  std::string out = r.out;
  for (size_t at; (at = out.find(w_.root())) != std::string::npos;) out.replace(at, w_.root().size(), "WORLD");
  EXPECT_THAT(out, HasSubstr("kernelstub -a iommu=pt"));
  EXPECT_THAT(out, Not(HasSubstr("etc/kernel/cmdline")));
  const fs::path golden = fs::path(ROCMTUNE_GOLDEN_DIR) / "esp" / "popos-set-iommu-check-diff.txt";
  if (std::getenv("ROCMTUNE_UPDATE_GOLDEN")) {
    fs::create_directories(golden.parent_path());
    std::ofstream(golden) << out;
  }
  std::ifstream in(golden);
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(out, want.str()) << "differs from " << golden << " (ROCMTUNE_UPDATE_GOLDEN=1 rewrites it)";
}

TEST_F(PopOs, ApplyAndRevertByteForByteThroughKernelstub) {
  auto before = w_.Snapshot();
  auto set = w_.Ctl({"--json", "set", "cmdline.iommu=pt"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  json doc = set.Json();
  EXPECT_EQ(doc["changed"], true);
  EXPECT_THAT(doc["changes"].dump(), HasSubstr("kernelstub"));
  EXPECT_FALSE(w_.Exists("etc/kernel/cmdline")) << "kernelstub never reads it: never created";
  EXPECT_EQ(w_.Read("var/lib/rocmtune/cmdline-tokens").find("iommu=pt") != std::string::npos, true);
  // The journal holds the exact run (pending: kernelstub runs only on the live system).
  auto history = w_.Ctl({"--json", "history"}).Json();
  EXPECT_THAT(history.dump(), HasSubstr("kernelstub"));
  auto revert = w_.Ctl({"--json", "revert", "last"});
  ASSERT_EQ(revert.exit_code, kExitOk) << revert.out << revert.err;
  EXPECT_THAT(revert.out, HasSubstr("-d")) << "the inverse run: kernelstub -d iommu=pt";
  auto after = w_.Snapshot();
  std::string diff;
  for (const std::string& path : testing::ChangedPaths(before, after, false, {"var"})) diff += path + " ";
  EXPECT_EQ(diff, "") << "every file outside rocmtune's journal as it was";
  EXPECT_FALSE(w_.Exists("var/lib/rocmtune/cmdline-tokens"));
}

// unset and reset take off exactly rocmtune's option with kernelstub -d (its -a still pending
// in a copy: kernelstub runs only on the live system).
TEST_F(PopOs, UnsetAndResetRunKernelstubDelete) {
  ASSERT_EQ(w_.Ctl({"set", "cmdline.iommu=pt", "amdgpu.noretry=0"}).exit_code, kExitOk);
  for (std::vector<std::string> args : {std::vector<std::string>{"--json", "unset", "cmdline.iommu", "--check"},
                                        std::vector<std::string>{"--json", "reset", "--check"}}) {
    auto r = w_.Ctl(args);
    EXPECT_EQ(r.exit_code, kExitOk) << r.out << r.err;
    EXPECT_THAT(r.Json()["changes"].dump(), HasSubstr(R"("argv":["kernelstub","-d","iommu=pt"])"))
        << args[1] << ": " << r.out;
    EXPECT_THAT(r.Json()["changes"].dump(), Not(HasSubstr("quiet"))) << "the admin's options are not touched";
  }
}

// The admin's own value stays theirs: kernelstub -d/-a could not put it back where it was.
TEST_F(PopOs, ReplacingTheAdminsTokenIsRefused) {
  std::string c = w_.Read("etc/kernelstub/configuration");
  c.insert(c.find("\"splash\"", c.find("\"user\"")) + 8, ",\n      \"iommu=soft\"");
  w_.Write("etc/kernelstub/configuration", c);
  auto r = w_.Ctl({"set", "cmdline.iommu=pt", "--check"});
  EXPECT_EQ(r.exit_code, kExitRefused) << r.out << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr("change it with kernelstub yourself"));
}

// --trial: systemd-boot's one-shot with a copy of Pop_OS-current.conf where bootctl and the EFI
// variables allow it; refused with the reason where not.
TEST_F(PopOs, TrialUsesSystemdBootsOneShotOrRefuses) {
  auto r = w_.Ctl({"set", "amdgpu.noretry=0", "--trial", "--check"});
  EXPECT_EQ(r.exit_code, kExitRefused) << r.out << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr("bootctl"));
  w_.Write("usr/bin/bootctl", "");
  r = w_.Ctl({"--json", "set", "amdgpu.noretry=0", "--trial", "--check"});
  EXPECT_EQ(r.exit_code, kExitOk) << r.out << r.err;
  json doc = r.Json();
  std::string changes = doc["changes"].dump();
  EXPECT_THAT(changes, HasSubstr("boot/efi/loader/entries/rocmtune-trial.conf"));
  EXPECT_THAT(changes, HasSubstr("set-oneshot"));
  EXPECT_THAT(changes, HasSubstr("quiet loglevel=0 systemd.show_status=false splash amdgpu.noretry=0"))
      << "the copy of Pop_OS-current.conf carries the trial's tokens";
}

}  // namespace
}  // namespace rocmtune::client::esp
