// The done-when, end to end: a world whose journal (written by the real
// systemd-journal-remote, tests/support/journal_world.h) holds an RDNA1 page fault of python3,
// which still runs with HSA_OVERRIDE_GFX_VERSION=10.3.0 in its environment. `rocmtunectl doctor`,
// given no log, names the process, the GPU, the cause and the fix; `rocmtunectl faults` lists
// every boot's records and --boot picks one.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "journal_world.h"
#include "test_tree.h"

namespace rocmtune::client {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;
using json = nlohmann::ordered_json;
using testing::WorldCopy;
using namespace std::string_view_literals;

constexpr std::string_view kJournalThisBoot = "7a1c9e0d2b3f4a5c6d7e8f9012345678";
constexpr std::string_view kJournalEarlierBoot = "1b2c3d4e5f60718293a4b5c6d7e8f901";
constexpr uint64_t kJournalAt = 1'795'960'980'000'000;  // 2026-11-29T14:03:00Z

std::vector<testing::JournalFields> JournalRdna1Fault(std::string_view boot, uint64_t at) {
  const std::string dev = "amdgpu 0000:28:00.0: amdgpu: ";
  return {testing::KernelEntry(boot, at, dev + "[gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32770)"),
          testing::KernelEntry(boot, at + 5, dev + " Process python3 pid 4242 thread python3 pid 4251"),
          testing::KernelEntry(boot, at + 9,
                               dev + "  in page starting at address 0x00007f1c2a400000 from client 0x1b (UTCL2)"),
          testing::KernelEntry(boot, at + 12, dev + "GCVM_L2_PROTECTION_FAULT_STATUS:0x00801031")};
}

void JournalWorld(const WorldCopy& w) {
  std::vector<testing::JournalFields> entries = JournalRdna1Fault(kJournalEarlierBoot, kJournalAt - 86'400'000'000);
  for (auto& e : JournalRdna1Fault(kJournalThisBoot, kJournalAt)) entries.push_back(e);
  testing::WriteJournal(w.root(), entries);
  w.Write("proc/sys/kernel/random/boot_id", "7a1c9e0d-2b3f-4a5c-6d7e-8f9012345678\n");
  w.Write("proc/4242/comm", "python3\n");
  w.Write("proc/4242/status", "Name:\tpython3\nUid:\t1000\t1000\t1000\t1000\n");
  w.Write("proc/4242/environ", "HOME=/home/alice\0HSA_OVERRIDE_GFX_VERSION=10.3.0\0"sv);
  w.Write("etc/passwd", "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\n");
}

TEST(FaultsJournal, DoctorNamesTheProcessGpuCauseAndFixWithoutALog) {
  if (auto why = testing::JournalRemoteUnavailable()) GTEST_SKIP() << *why;
  WorldCopy w("rx5700xt");
  JournalWorld(w);
  // ROCMTUNE_KEEP_WORLDS=DIR keeps this world in DIR/rdna1-fault-journal, to run rocmtunectl on it
  // by hand (the session notes' transcripts).
  if (const char* dir = std::getenv("ROCMTUNE_KEEP_WORLDS"); dir && *dir) {
    std::filesystem::remove_all(std::filesystem::path(dir) / "rdna1-fault-journal");
    testing::CopyTree(w.root(), (std::filesystem::path(dir) / "rdna1-fault-journal").string());
  }
  testing::CliResult human = w.Ctl({"doctor"});
  EXPECT_EQ(human.exit_code, 1) << human.err;
  EXPECT_THAT(human.out, HasSubstr("GPU faults in this boot:\n"
                                   "python3 (pid 4242, user alice) hit a GPU page fault on card1 (0000:28:00.0, "
                                   "gfx1010) at 2026-11-29T14:03:00Z with HSA_OVERRIDE_GFX_VERSION=10.3.0\n"));
  EXPECT_THAT(human.out, HasSubstr("likely cause: HSA_OVERRIDE_GFX_VERSION=10.3.0 makes an RDNA1 GPU run RDNA2"));
  EXPECT_THAT(human.out, HasSubstr("profile: sudo rocmtunectl apply rdna1-safe"));
  EXPECT_THAT(human.out, HasSubstr("Earlier boots had 1 more GPU fault (rocmtunectl faults)."));

  json doc = w.Ctl({"doctor", "--json"}).Json();
  ASSERT_THAT(doc["faults"]["this_boot"], SizeIs(1)) << doc["faults"].dump(1);
  EXPECT_EQ(doc["faults"]["source"], "journal");
  EXPECT_EQ(doc["faults"]["this_boot"][0]["likely_cause"], "issue.rdna1-override-gfx1030");
  EXPECT_EQ(doc["faults"]["earlier_boots"], 1);
}

TEST(FaultsJournal, TheVerbListsEveryBootAndBootPicksOne) {
  if (auto why = testing::JournalRemoteUnavailable()) GTEST_SKIP() << *why;
  WorldCopy w("rx5700xt");
  JournalWorld(w);
  json all = w.Ctl({"faults", "--json"}).Json();
  ASSERT_THAT(all["faults"], SizeIs(2)) << all.dump(1);
  EXPECT_EQ(all["faults"][0]["boot"], -1);
  EXPECT_EQ(all["faults"][1]["boot"], 0);
  // An earlier boot's process is gone: its pid says nothing of who ran it or with what.
  EXPECT_TRUE(all["faults"][0]["user"].is_null());
  EXPECT_EQ(all["faults"][1]["user"], "alice");
  EXPECT_EQ(all["counts"]["page-fault"], 2);
  json before = w.Ctl({"faults", "--boot", "-1", "--json"}).Json();
  ASSERT_THAT(before["faults"], SizeIs(1));
  EXPECT_EQ(before["faults"][0]["boot_id"], kJournalEarlierBoot);
  json since = w.Ctl({"faults", "--since", "@1795960000", "--json"}).Json();
  ASSERT_THAT(since["faults"], SizeIs(1));
  EXPECT_EQ(since["faults"][0]["boot_id"], kJournalThisBoot);
  testing::CliResult human = w.Ctl({"faults"});
  EXPECT_EQ(human.exit_code, 1);  // a fault is listed (node-problem-detector's NonOK)
  EXPECT_EQ(w.Ctl({"faults", "--since", "@1795960990"}).exit_code, 0);  // none from then on
  EXPECT_THAT(human.out, HasSubstr("| amdgpu 0000:28:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 "
                                   "pasid:32770)"));
}

const json* FaultNote(const json& doc) {
  for (const json& g : doc["gpus"])
    for (const json& n : g["notes"])
      if (n["id"] == "fault.this-boot") return &n;
  return nullptr;
}

TEST(FaultsJournal, CheckComputeSaysTheFaultAsEvidenceBesideItsVerdict) {
  if (auto why = testing::JournalRemoteUnavailable()) GTEST_SKIP() << *why;
  WorldCopy w("rx5700xt");
  JournalWorld(w);
  // A program with the override: the verdict's reason is the override issue, and this boot's
  // fault, whose cause is the same issue, confirms it.
  w.Write("tmp/override.env", "HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
  json with = w.Ctl({"check-compute", "--env-file", "/tmp/override.env", "--json"}).Json();
  EXPECT_EQ(with["safe"], false) << with.dump(1);
  const json* note = FaultNote(with);
  ASSERT_NE(note, nullptr) << with.dump(1);
  EXPECT_THAT((*note)["title"].get<std::string>(), HasSubstr("faulted 1 time in this boot"));
  EXPECT_THAT((*note)["why"].get<std::string>(),
              HasSubstr("issue.rdna1-override-gfx1030, is one of this verdict's reasons"));
  EXPECT_EQ((*note)["outcome"], "none");  // evidence beside the verdict, never a reason of its own
  // A program without it: the verdict is its own; the fault is a note saying where to look.
  json without = w.Ctl({"check-compute", "--json"}).Json();
  const json* info = FaultNote(without);
  ASSERT_NE(info, nullptr) << without.dump(1);
  EXPECT_THAT((*info)["why"].get<std::string>(), HasSubstr("not one of this verdict's reasons"));
  EXPECT_THAT((*info)["evidence"][0].get<std::string>(), HasSubstr("python3 (pid 4242) page-fault"));
}

TEST(FaultsJournal, ASnapshotCarriesTheFaultsRedactedLikeEveryFile) {
  if (auto why = testing::JournalRemoteUnavailable()) GTEST_SKIP() << *why;
  WorldCopy w("rx5700xt");
  JournalWorld(w);
  testing::TestTree out;
  testing::CliResult r = w.Ctl({"snapshot", out.Path("snap")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(out.Path("snap/faults.json"));
  ASSERT_TRUE(in);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  json doc = json::parse(text);
  ASSERT_THAT(doc["faults"], SizeIs(2));
  EXPECT_EQ(doc["faults"][1]["process"], "python3");
  // alice is a human account of the root's etc/passwd: the Redactor takes her name out.
  EXPECT_EQ(doc["faults"][1]["user"], "redacted");
  EXPECT_EQ(text.find("alice"), std::string::npos);
}

TEST(FaultsJournal, TheExportCountsThisBootsFaultsPerCardAndKind) {
  if (auto why = testing::JournalRemoteUnavailable()) GTEST_SKIP() << *why;
  WorldCopy w("rx5700xt");
  JournalWorld(w);
  testing::CliResult prom = w.Ctl({"export", "--no-live"});
  ASSERT_EQ(prom.exit_code, 0) << prom.err;
  EXPECT_THAT(prom.out, HasSubstr("# TYPE rocmtune_gpu_faults_total counter\n"));
  // This boot's one page fault; the earlier boot's is not counted (the counter resets at boot).
  EXPECT_THAT(prom.out, HasSubstr("rocmtune_gpu_faults_total{card=\"card1\",kind=\"page-fault\"} 1\n"));
  EXPECT_THAT(prom.out, HasSubstr("rocmtune_gpu_faults_total{card=\"card1\",kind=\"ring-timeout\"} 0\n"));
  EXPECT_THAT(prom.out, HasSubstr("rocmtune_gpu_last_fault_timestamp_seconds{card=\"card1\"} 1795960980\n"));
  EXPECT_EQ(prom.out.find("python3"), std::string::npos);  // no process, pid or user
  json doc = w.Ctl({"export", "--no-live", "--json"}).Json();
  EXPECT_EQ(doc["faults"]["card1"]["counts"]["page-fault"], 1);
  EXPECT_EQ(doc["faults"]["card1"]["last_fault"], "2026-11-29T14:03:00Z");
  // Without a log: no fault series at all, not a row of zeros that claims a reading.
  WorldCopy bare("rx5700xt");
  EXPECT_EQ(bare.Ctl({"export", "--no-live"}).out.find("rocmtune_gpu_faults_total"), std::string::npos);
}

// Privacy: what a user sees is what sd-journal and /proc let that user read, nothing more.
TEST(FaultsJournal, AUserSeesWhatTheJournalAndProcLetItRead) {
  if (auto why = testing::JournalRemoteUnavailable()) GTEST_SKIP() << *why;
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to read as uid 65534";
  WorldCopy w("rx5700xt");
  JournalWorld(w);
  const std::string journal = w.Path(std::string("var/log/journal/") + std::string(testing::kTestMachineId));
  auto probe = w.Ctl({"keys", "--json"}, true);
  if (probe.exit_code == testing::kCannotDropPrivileges) GTEST_SKIP() << "cannot drop privileges to uid 65534";
  // The system journal as journald leaves it for a user in no group that may read it.
  ASSERT_EQ(::chmod((journal + "/system.journal").c_str(), 0640), 0);
  json hidden = w.Ctl({"faults", "--json"}, true).Json();
  EXPECT_TRUE(hidden["faults"].empty()) << hidden.dump(1);
  EXPECT_THAT(w.Ctl({"faults", "--json"}).Json()["faults"], SizeIs(2));  // root reads it
  // A readable journal, another user's process: its environment is that user's to read.
  ASSERT_EQ(::chmod((journal + "/system.journal").c_str(), 0644), 0);
  ASSERT_EQ(::chmod(w.Path("proc/4242/environ").c_str(), 0400), 0);
  json shown = w.Ctl({"faults", "--json"}, true).Json();
  ASSERT_THAT(shown["faults"], SizeIs(2)) << shown.dump(1);
  EXPECT_TRUE(shown["faults"][1]["environment"]["variables"].empty());
  EXPECT_EQ(w.Ctl({"faults", "--json"}).Json()["faults"][1]["environment"]["variables"][0]["value"], "10.3.0");
}

}  // namespace
}  // namespace rocmtune::client
