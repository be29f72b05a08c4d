// `verify` is never falsely green: a regeneration not run, a module option the kernel
// command line overrides, an interrupted transaction and a temporary a cut-short write left are
// each a difference (exit 6), and the journal's own states are never called drift.
#include <chrono>
#include <filesystem>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

namespace rocmtune::client {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using testing::WorldCopy;

constexpr const char* kVerifyTruthWorld = "rx5700xt";  // Ubuntu 24.04: modprobe.d, grub.d drop-in, initramfs-tools
constexpr const char* kJournal1 = "var/lib/rocmtune/journal/000001.jsonl";
constexpr const char* kInitrd = "boot/initrd.img-6.8.0-45-generic";
constexpr const char* kGrubCfg = "boot/grub/grub.cfg";

std::vector<std::string> Kinds(const json& verify) {
  std::vector<std::string> out;
  for (const auto& d : verify["differences"]) out.push_back(d.value("kind", "") + " " + d.value("subject", ""));
  return out;
}

std::string MessageOf(const json& verify, std::string_view kind) {
  for (const auto& d : verify["differences"])
    if (d.value("kind", "") == kind) return d.value("message", "");
  return "";
}

std::vector<std::string> FindingIds(const WorldCopy& w) {
  json status = w.Ctl({"status", "--json"}).Json();
  std::vector<std::string> ids;
  for (const auto& f : status["findings"]) ids.push_back(f.value("id", "") + " " + f.value("subject", ""));
  return ids;
}

void SetMtime(const WorldCopy& w, std::string_view rel, fs::file_time_type t) { fs::last_write_time(w.Path(rel), t); }

// A --root tree leaves update-initramfs and update-grub pending: verify says so and names the
// command, until the file each one writes is newer than the transaction's commit.
TEST(VerifyTruthTest, APendingRegenerationIsADifferenceUntilItsArtifactIsNewerThanTheCommit) {
  WorldCopy w(kVerifyTruthWorld);
  auto set = w.Ctl({"set", "amdgpu.noretry=0", "cmdline.iommu=pt", "--json"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  ASSERT_EQ(set.Json()["regenerated"]["initramfs"], "pending");
  ASSERT_EQ(set.Json()["regenerated"]["bootloader"], "pending");
  const auto committed = fs::file_time_type::clock::now() - std::chrono::hours(1);
  SetMtime(w, kJournal1, committed);
  w.Write(kInitrd, "old image");
  SetMtime(w, kInitrd, committed - std::chrono::minutes(5));
  SetMtime(w, kGrubCfg, committed - std::chrono::minutes(5));

  auto verify = w.Ctl({"verify", "--json"});
  EXPECT_EQ(verify.exit_code, kExitVerifyDiffers) << verify.out;
  json v = verify.Json();
  EXPECT_EQ(v["ok"], false);
  EXPECT_THAT(Kinds(v), Contains("pending-regeneration initramfs-tools")) << verify.out;
  EXPECT_THAT(Kinds(v), Contains("pending-regeneration update-grub")) << verify.out;
  EXPECT_THAT(MessageOf(v, "pending-regeneration"), HasSubstr("update-initramfs -u -k all")) << verify.out;
  EXPECT_THAT(FindingIds(w), Contains("journal.pending-regeneration initramfs-tools"));

  // The admin ran update-initramfs (in the tree): the image is newer than the commit.
  SetMtime(w, kInitrd, committed + std::chrono::minutes(5));
  v = w.Ctl({"verify", "--json"}).Json();
  EXPECT_THAT(Kinds(v), Not(Contains("pending-regeneration initramfs-tools"))) << v.dump();
  EXPECT_THAT(Kinds(v), Contains("pending-regeneration update-grub")) << v.dump();

  SetMtime(w, kGrubCfg, committed + std::chrono::minutes(5));
  v = w.Ctl({"verify", "--json"}).Json();
  for (const std::string& k : Kinds(v)) EXPECT_FALSE(k.starts_with("pending-regeneration")) << k;
}

// The kernel command line is read after modprobe.d. An option only the running command line has
// is gone after a reboot when the boot configuration does not pass it: rocmtune's value
// takes effect then, so it is pending a reboot, not overridden. When the next boot's command line
// cannot be known, the running one is the evidence: `set` warns naming /proc/cmdline and verify
// reports the override (exit 6).
TEST(VerifyTruthTest, AModuleOptionTheRunningCommandLineOverridesIsWarnedAndReported) {
  WorldCopy w(kVerifyTruthWorld);
  w.Write("proc/cmdline",
          w.Read("proc/cmdline").substr(0, w.Read("proc/cmdline").find('\n')) + " amdgpu.vm_update_mode=3\n");
  auto set = w.Ctl({"set", "amdgpu.vm_update_mode=0", "--json"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  EXPECT_THAT(set.Json()["warnings"].dump(), Not(HasSubstr("never takes effect"))) << set.out;
  json v = w.Ctl({"verify", "--json"}).Json();
  EXPECT_THAT(Kinds(v), Not(Contains("overridden amdgpu.vm_update_mode"))) << v.dump();
  EXPECT_THAT(Kinds(v), Contains("pending-reboot amdgpu.vm_update_mode")) << v.dump();

  // A construct the GRUB evaluator does not model: the next boot's command line is unknown.
  WorldCopy u(kVerifyTruthWorld);
  u.Write("proc/cmdline",
          u.Read("proc/cmdline").substr(0, u.Read("proc/cmdline").find('\n')) + " amdgpu.vm_update_mode=3\n");
  u.Write("etc/default/grub", u.Read("etc/default/grub") + "if true; then GRUB_TIMEOUT=1; fi\n");
  set = u.Ctl({"set", "amdgpu.vm_update_mode=0", "--json"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  EXPECT_THAT(set.Json()["warnings"].dump(), HasSubstr("/proc/cmdline")) << set.out;
  EXPECT_THAT(set.Json()["warnings"].dump(), HasSubstr("never takes effect")) << set.out;

  auto verify = u.Ctl({"verify", "--json"});
  EXPECT_EQ(verify.exit_code, kExitVerifyDiffers) << verify.out;
  v = verify.Json();
  EXPECT_EQ(v["ok"], false);
  EXPECT_THAT(Kinds(v), Contains("overridden amdgpu.vm_update_mode")) << verify.out;
  EXPECT_THAT(MessageOf(v, "overridden"), HasSubstr("/proc/cmdline (amdgpu.vm_update_mode=3)")) << verify.out;
}

// The same from the boot configuration: the next boot's command line overrides the drop-in.
TEST(VerifyTruthTest, AModuleOptionTheBootConfigurationOverridesIsWarnedAndReported) {
  WorldCopy w(kVerifyTruthWorld);
  std::string grub = w.Read("etc/default/grub");
  size_t at = grub.find("GRUB_CMDLINE_LINUX=\"");
  ASSERT_NE(at, std::string::npos);
  grub.insert(at + 20, "amdgpu.vm_update_mode=3");
  w.Write("etc/default/grub", grub);
  auto set = w.Ctl({"set", "amdgpu.vm_update_mode=0", "--json"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  EXPECT_THAT(set.Json()["warnings"].dump(), HasSubstr("next boot's kernel command line amdgpu.vm_update_mode=3"))
      << set.out;
  json v = w.Ctl({"verify", "--json"}).Json();
  EXPECT_THAT(Kinds(v), Contains("overridden amdgpu.vm_update_mode")) << v.dump();
  EXPECT_THAT(MessageOf(v, "overridden"), HasSubstr("next boot")) << v.dump();
}

void ExpectInterrupted(const WorldCopy& w, std::string_view redo) {
  json h = w.Ctl({"history", "--json"}).Json();
  ASSERT_EQ(h["transactions"].size(), 1u) << h.dump();
  EXPECT_EQ(h["transactions"][0]["state"], "interrupted") << h.dump();
  auto verify = w.Ctl({"verify", "--json"});
  EXPECT_EQ(verify.exit_code, kExitVerifyDiffers) << verify.out;
  json v = verify.Json();
  EXPECT_EQ(v["ok"], false);
  EXPECT_THAT(Kinds(v), Contains("interrupted transaction 1")) << verify.out;
  for (const std::string& k : Kinds(v)) EXPECT_FALSE(k.starts_with("drift ")) << "rocmtune's own half-change: " << k;
  EXPECT_THAT(MessageOf(v, "interrupted"), HasSubstr(fmt::format("run `{}`", redo))) << verify.out;
  EXPECT_THAT(FindingIds(w), Contains("journal.interrupted transaction 1"));
}

// Re-running the interrupted request (what verify says to run) rolls it back and makes the change.
void ExpectTheSuggestedCommandRepairs(const WorldCopy& w, const std::vector<std::string>& redo) {
  std::vector<std::string> args(redo.begin() + 1, redo.end());
  args.push_back("--json");
  auto again = w.Ctl(args);
  ASSERT_EQ(again.exit_code, kExitOk) << again.out << again.err;
  EXPECT_THAT(again.Json()["warnings"].dump(), HasSubstr("interrupted transaction 1 was rolled back first"));
  json h = w.Ctl({"history", "--json"}).Json();
  EXPECT_EQ(h["transactions"][0]["state"], "rolled-back") << h.dump();
  EXPECT_EQ(h["transactions"][1]["state"], "committed") << h.dump();
  json v = w.Ctl({"verify", "--json"}).Json();
  for (const std::string& k : Kinds(v)) {
    EXPECT_FALSE(k.starts_with("interrupted")) << k;
    EXPECT_FALSE(k.starts_with("drift")) << k;
  }
}

// A real apply whose commit record is cut off: begun, never committed or rolled back.
TEST(VerifyTruthTest, ATransactionWithoutItsCommitIsInterruptedNotDrift) {
  WorldCopy w(kVerifyTruthWorld);
  auto set = w.Ctl({"set", "amdgpu.noretry=0", "--json"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  std::string journal = w.Read(kJournal1);
  size_t last = journal.rfind('\n', journal.size() - 2);
  ASSERT_THAT(journal.substr(last + 1), HasSubstr("\"commit\""));
  w.Write(kJournal1, journal.substr(0, last + 1));

  ExpectInterrupted(w, "rocmtunectl set amdgpu.noretry=0");
  ExpectTheSuggestedCommandRepairs(w, {"rocmtunectl", "set", "amdgpu.noretry=0"});
}

// The helper killed mid-transaction (the crash tests' fault helper).
TEST(VerifyTruthTest, AKilledHelperLeavesAnInterruptedTransactionVerifyReports) {
  WorldCopy w(kVerifyTruthWorld);
  ::setenv("ROCMTUNE_HELPER", ROCMTUNE_FAULT_HELPER, 1);
  ::setenv("ROCMTUNE_FAULT", "kill:16", 1);
  auto killed = w.Ctl({"set", "amdgpu.noretry=0", "cmdline.iommu=pt", "--json"});
  ::unsetenv("ROCMTUNE_HELPER");
  ::unsetenv("ROCMTUNE_FAULT");
  ASSERT_EQ(killed.exit_code, kExitFailed) << killed.out;

  ExpectInterrupted(w, "rocmtunectl set amdgpu.noretry=0 cmdline.iommu=pt");
  ExpectTheSuggestedCommandRepairs(w, {"rocmtunectl", "set", "amdgpu.noretry=0", "cmdline.iommu=pt"});
}

// `.NAME.rocmtune-new` beside a file rocmtune writes: a write was cut short.
TEST(VerifyTruthTest, ALeftoverTemporaryIsADifferenceAndAFinding) {
  WorldCopy w(kVerifyTruthWorld);
  auto set = w.Ctl({"set", "env.HSA_ENABLE_SDMA=0", "--json"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  ASSERT_EQ(w.Ctl({"verify"}).exit_code, kExitOk) << "an env setting is in effect at once";
  w.Write("etc/environment.d/.90-rocmtune.conf.rocmtune-new", "HSA_ENABLE_SDMA=1\n");

  auto verify = w.Ctl({"verify", "--json"});
  EXPECT_EQ(verify.exit_code, kExitVerifyDiffers) << verify.out;
  EXPECT_EQ(verify.Json()["ok"], false);
  EXPECT_THAT(Kinds(verify.Json()), Contains("leftover-temporary /etc/environment.d/.90-rocmtune.conf.rocmtune-new"))
      << verify.out;
  EXPECT_THAT(FindingIds(w), Contains("journal.leftover-temporary /etc/environment.d/.90-rocmtune.conf.rocmtune-new"));
}

}  // namespace
}  // namespace rocmtune::client
