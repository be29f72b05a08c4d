// GPU faults on captured worlds, the log's entries given to the core as the reader would return
// them (api::FaultsOptions::read_log): doctor names the process, the user, the GPU, the likely
// cause and the fix of this boot's faults without being given a log; the process's own
// environment decides the override; a reused pid tells nothing; earlier boots are counted.
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/doctor.h"
#include "api/faults.h"
#include "cli_runner.h"
#include "client/fault_text.h"

namespace rocmtune::api {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;
using json = nlohmann::ordered_json;
using testing::WorldCopy;
using namespace std::string_view_literals;

constexpr std::string_view kFaultsThisBoot = "5f3c2a1b9d8e7f60a1b2c3d4e5f60718";
constexpr std::string_view kFaultsEarlierBoot = "00112233445566778899aabbccddeeff";
// 2026-11-29T14:03:00Z
constexpr uint64_t kFaultsAt = 1'795'960'980'000'000;

sys::LogEntry FaultsKernel(uint64_t usec, std::string_view boot, std::string message) {
  sys::LogEntry e;
  e.realtime_usec = usec;
  e.boot_id = boot;
  e.message = std::move(message);
  e.cursor = "s=w;i=" + std::to_string(usec);
  return e;
}

// The RDNA1 fault of the issue: python3 pid 4242, the v6.11 block (gmc_v10_0.c and
// amdgpu_vm_print_task_info), on the RX 5700 XT's address.
std::vector<sys::LogEntry> Rdna1Fault(std::string_view boot, uint64_t at = kFaultsAt) {
  const std::string dev = "amdgpu 0000:28:00.0: amdgpu: ";
  return {FaultsKernel(at, boot, dev + "[gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32770)"),
          FaultsKernel(at + 5, boot, dev + " Process python3 pid 4242 thread python3 pid 4251"),
          FaultsKernel(at + 9, boot, dev + "  in page starting at address 0x00007f1c2a400000 from client 0x1b (UTCL2)"),
          FaultsKernel(at + 12, boot, dev + "GCVM_L2_PROTECTION_FAULT_STATUS:0x00801031"),
          FaultsKernel(at + 15, boot, dev + "\t Faulty UTCL2 client ID: TCP (0x8)")};
}

LogReader Entries(std::vector<sys::LogEntry> entries, sys::LogQuery* seen = nullptr) {
  return [entries = std::move(entries), seen](const sys::Root&, const sys::LogQuery& q) -> Result<sys::LogRead> {
    if (seen) *seen = q;
    sys::LogRead read;
    read.source = sys::LogSource::kJournal;
    read.entries = entries;
    read.boots = {{std::string(kFaultsEarlierBoot), -1, 0, 1}, {std::string(kFaultsThisBoot), 0, 2, 3}};
    return read;
  };
}

// python3 pid 4242 still runs, as alice (uid 1000), with `environ` (NUL-separated).
void Python3Runs(const WorldCopy& w, std::string_view environ, std::string_view comm = "python3\n") {
  w.Write("proc/sys/kernel/random/boot_id", "5f3c2a1b-9d8e-7f60-a1b2-c3d4e5f60718\n");
  w.Write("proc/4242/comm", comm);
  w.Write("proc/4242/status", "Name:\tpython3\nUid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\n");
  w.Write("proc/4242/environ", environ);
  w.Write("etc/passwd", "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice:/home/alice:/bin/bash\n");
}

json DoctorFaults(const WorldCopy& w, std::vector<sys::LogEntry> entries) {
  auto root = sys::Root::Open(w.root());
  EXPECT_TRUE(root);
  DoctorOptions options;
  options.caller = false;
  options.faults = true;
  options.read_log = Entries(std::move(entries));
  auto report = Doctor(*root, std::move(options));
  EXPECT_TRUE(report) << (report ? "" : report.error().message);
  return report ? DoctorJson(*report) : json();
}

constexpr std::string_view kOverride = "PATH=/usr/bin\0HSA_OVERRIDE_GFX_VERSION=10.3.0\0HOME=/home/alice\0"sv;

TEST(FaultsWorld, DoctorNamesTheProcessGpuCauseAndFixOfAnRdna1OverrideFault) {
  WorldCopy w("rx5700xt");
  Python3Runs(w, kOverride);
  json doc = DoctorFaults(w, Rdna1Fault(kFaultsThisBoot));
  const json& faults = doc["faults"];
  ASSERT_THAT(faults["this_boot"], SizeIs(1)) << faults.dump(1);
  const json& r = faults["this_boot"][0];
  EXPECT_EQ(r["kind"], "page-fault");
  EXPECT_EQ(r["process"], "python3");
  EXPECT_EQ(r["pid"], 4242);
  EXPECT_EQ(r["user"], "alice");
  EXPECT_EQ(r["card"], "card1");
  EXPECT_EQ(r["gpu"], "0000:28:00.0");
  EXPECT_EQ(r["gfx_target"], "gfx1010");
  EXPECT_EQ(r["boot"], 0);
  EXPECT_EQ(r["pasid"], 32770);
  EXPECT_EQ(r["environment"]["variables"][0]["name"], "HSA_OVERRIDE_GFX_VERSION");
  EXPECT_EQ(r["likely_cause"], "issue.rdna1-override-gfx1030");
  EXPECT_EQ(r["causes"][0]["fix"]["profile"], "rdna1-safe");
  EXPECT_EQ(faults["earlier_boots"], 0);
  EXPECT_TRUE(doc["problems"].get<bool>());
  // The sentence doctor prints.
  EXPECT_EQ(client::FaultSentence(r),
            "python3 (pid 4242, user alice) hit a GPU page fault on card1 (0000:28:00.0, gfx1010) at "
            "2026-11-29T14:03:00Z with HSA_OVERRIDE_GFX_VERSION=10.3.0");
}

TEST(FaultsWorld, TheProcesssOwnEnvironmentDecidesTheOverride) {
  // The process ran with another override: not the RDNA1 override crash, whatever else matches.
  WorldCopy w("rx5700xt");
  Python3Runs(w, "HSA_OVERRIDE_GFX_VERSION=10.1.0\0"sv);
  json r = DoctorFaults(w, Rdna1Fault(kFaultsThisBoot))["faults"]["this_boot"][0];
  EXPECT_NE(r["likely_cause"], "issue.rdna1-override-gfx1030") << r.dump(1);
  EXPECT_EQ(r["environment"]["variables"][0]["value"], "10.1.0");
}

TEST(FaultsWorld, AReusedPidTellsNothingAboutTheProcess) {
  WorldCopy w("rx5700xt");
  Python3Runs(w, kOverride, "bash\n");
  json r = DoctorFaults(w, Rdna1Fault(kFaultsThisBoot))["faults"]["this_boot"][0];
  EXPECT_EQ(r["process"], "python3");  // as the kernel logged it
  EXPECT_TRUE(r["user"].is_null());
  EXPECT_TRUE(r["uid"].is_null());
  EXPECT_TRUE(r["environment"]["variables"].empty());
}

TEST(FaultsWorld, EarlierBootsAreCountedNotListed) {
  WorldCopy w("rx5700xt");
  Python3Runs(w, kOverride);
  std::vector<sys::LogEntry> e = Rdna1Fault(kFaultsEarlierBoot, kFaultsAt - 86'400'000'000);
  for (sys::LogEntry& x : Rdna1Fault(kFaultsEarlierBoot, kFaultsAt - 3'600'000'000)) e.push_back(x);
  json faults = DoctorFaults(w, e)["faults"];
  EXPECT_TRUE(faults["this_boot"].empty());
  EXPECT_EQ(faults["earlier_boots"], 2);
}

TEST(FaultsWorld, ANonRdna1GpuIsNotBlamedOnTheRdna1Override) {
  WorldCopy w("rx6600");
  auto root = sys::Root::Open(w.root());
  ASSERT_TRUE(root);
  const std::string pci = detect::Detect(*root).gpus.at(0).id;
  Python3Runs(w, kOverride);
  std::vector<sys::LogEntry> e = {FaultsKernel(kFaultsAt, kFaultsThisBoot,
                                               "amdgpu " + pci +
                                                   ": amdgpu: [gfxhub] page fault (src_id:0 ring:24 "
                                                   "vmid:8 pasid:32770)"),
                                  FaultsKernel(kFaultsAt + 1, kFaultsThisBoot,
                                               "amdgpu " + pci + ": amdgpu:  Process python3 pid 4242 thread x pid 1")};
  json r = DoctorFaults(w, e)["faults"]["this_boot"][0];
  EXPECT_EQ(r["gpu"], pci);
  EXPECT_NE(r["likely_cause"], "issue.rdna1-override-gfx1030");
  EXPECT_FALSE(r["causes"].empty());  // at least: a crash no known issue explains
}

TEST(FaultsWorld, TheBootAndSinceReachTheReaderAndSinceCutsRecords) {
  WorldCopy w("rx5700xt");
  auto root = sys::Root::Open(w.root());
  ASSERT_TRUE(root);
  sys::LogQuery seen;
  FaultsOptions options;
  options.boot = -1;
  options.since_usec = kFaultsAt;
  std::vector<sys::LogEntry> e = Rdna1Fault(kFaultsEarlierBoot, kFaultsAt - 10);
  for (sys::LogEntry& x : Rdna1Fault(kFaultsEarlierBoot, kFaultsAt + 10)) e.push_back(x);
  options.read_log = Entries(e, &seen);
  auto report = Faults(*root, options);
  ASSERT_TRUE(report);
  EXPECT_EQ(seen.boot, -1);
  EXPECT_EQ(seen.since_usec, kFaultsAt);
  ASSERT_THAT(report->records, SizeIs(1));
  EXPECT_EQ(report->records[0].boot, -1);
  json doc = FaultsJson(*report);
  EXPECT_EQ(doc["schema"], "rocmtune.faults.v1");
  EXPECT_EQ(doc["counts"]["page-fault"], 1);
  EXPECT_EQ(doc["source"], "journal");
}

TEST(FaultsWorld, AnUnreadableLogIsSaidNotAFailedDoctor) {
  WorldCopy w("rx5700xt");
  auto root = sys::Root::Open(w.root());
  ASSERT_TRUE(root);
  DoctorOptions options;
  options.caller = false;
  options.faults = true;
  options.read_log = [](const sys::Root&, const sys::LogQuery&) -> Result<sys::LogRead> {
    return Fail(ErrorCode::kIo, "cannot read var/log/journal: Input/output error");
  };
  auto report = Doctor(*root, std::move(options));
  ASSERT_TRUE(report);
  json doc = DoctorJson(*report);
  EXPECT_EQ(doc["faults"]["source"], "none");
  EXPECT_THAT(doc["faults"]["why_none"].get<std::string>(), HasSubstr("Input/output error"));
}

TEST(FaultsWorld, TheVerbSaysWhenNoLogWasReadAndRefusesABadSince) {
  WorldCopy w("rx5700xt");
  testing::CliResult r = w.Ctl({"faults", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json doc = r.Json();
  EXPECT_EQ(doc["schema"], "rocmtune.faults.v1");
  EXPECT_TRUE(doc["faults"].empty());
  EXPECT_EQ(doc["source"], "none");
  EXPECT_FALSE(doc["why_none"].is_null());
  testing::CliResult bad = w.Ctl({"faults", "--since", "yesterday"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--since yesterday"));
  testing::CliResult boot = w.Ctl({"faults", "--boot", "x"});
  EXPECT_EQ(boot.exit_code, 2);
  // doctor carries the section, saying why it is empty.
  testing::CliResult d = w.Ctl({"doctor", "--json"});
  EXPECT_EQ(d.Json()["faults"]["source"], "none") << d.out;
}

TEST(FaultsWorld, RocmtunedShowsAUserItsOwnAndAnAdminEverything) {
  WorldCopy w("rx5700xt");
  w.Write("etc/passwd",
          "root:x:0:0::/root:/bin/sh\nann:x:1000:1000::/home/ann:/bin/sh\nbob:x:1001:1001::/:/bin/sh\n"
          "wheelie:x:1002:10::/:/bin/sh\n");
  w.Write("etc/group", "root:x:0:\nadm:x:4:syslog,ann\nwheel:x:10:\nbob:x:1001:\n");
  auto root = sys::Root::Open(w.root());
  ASSERT_TRUE(root);
  EXPECT_TRUE(SeesEveryFault(*root, 0));
  EXPECT_TRUE(SeesEveryFault(*root, 1000));   // listed in adm
  EXPECT_TRUE(SeesEveryFault(*root, 1002));   // wheel is its primary group
  EXPECT_FALSE(SeesEveryFault(*root, 1001));  // in no admin group
  EXPECT_FALSE(SeesEveryFault(*root, 4242));  // no account
  FaultsReport report;
  report.records.resize(3);
  report.records[0].uid = 1001;
  report.records[1].uid = 1000;  // report.records[2]: no known user
  FaultsReport bob = report;
  KeepCallersFaults(bob, 1001, false);
  ASSERT_THAT(bob.records, SizeIs(1));
  EXPECT_EQ(bob.records[0].uid, 1001u);
  FaultsReport admin = report;
  KeepCallersFaults(admin, 1000, true);
  EXPECT_THAT(admin.records, SizeIs(3));
}

TEST(FaultsSince, EveryFormAndBadInput) {
  const uint64_t now = kFaultsAt;
  EXPECT_EQ(ParseSince("@1795960980", now), kFaultsAt);
  EXPECT_EQ(ParseSince("2026-11-29T14:03:00", now), kFaultsAt);
  EXPECT_EQ(ParseSince("2026-11-29 14:03", now), kFaultsAt);
  EXPECT_EQ(ParseSince("2026-11-29", now), kFaultsAt - (14 * 3600 + 3 * 60) * 1'000'000ull);
  EXPECT_EQ(ParseSince("2h", now), now - 7'200'000'000ull);
  EXPECT_EQ(ParseSince("30min", now), now - 1'800'000'000ull);
  for (std::string_view bad : {"", "yesterday", "2026-13-01", "5 parsecs", "@x", "2026-11-29X", "-3h"})
    EXPECT_FALSE(ParseSince(bad, now)) << bad;
}

}  // namespace
}  // namespace rocmtune::api
