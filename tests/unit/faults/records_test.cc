// Fault records from the system log's entries: every kernel format of a page fault's block
// (v6.9's one line, v6.10's " in process", v6.11's " Process"), the L2 protection status lines,
// ring timeouts and their process line, resets and their outcome, MES and KFD lines, the ROCm
// runtime's lines of a service, the GPU by PCI address and KFD node, bounds and hostile input.
#include "faults/records.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "faults/fault.h"
#include "faults/fault_line.h"

namespace rocmtune::faults {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

constexpr std::string_view kRecBoot = "0123456789abcdef0123456789abcdef";

sys::LogEntry RecKernel(uint64_t usec, std::string message) {
  sys::LogEntry e;
  e.realtime_usec = usec;
  e.boot_id = kRecBoot;
  e.message = std::move(message);
  e.cursor = "s=1;i=" + std::to_string(usec);
  return e;
}

sys::LogEntry RecService(uint64_t usec, std::string unit, std::string comm, int64_t pid, uint32_t uid,
                         std::string message) {
  sys::LogEntry e = RecKernel(usec, std::move(message));
  e.transport = sys::LogTransport::kService;
  e.unit = std::move(unit);
  e.comm = std::move(comm);
  e.pid = pid;
  e.uid = uid;
  return e;
}

// An RX 5700 XT at 0000:03:00.0 (card1, KFD node 1) and an RX 6600 at 0000:0c:00.0 (card2, node 2).
detect::Inventory RecGpus() {
  detect::Inventory inv;
  detect::Gpu a;
  a.id = "0000:03:00.0";
  a.physical_id = a.id;
  a.card = "card1";
  a.gfx_target = "gfx1010";
  a.kfd_node = 1;
  detect::Gpu b;
  b.id = "0000:0c:00.0";
  b.physical_id = b.id;
  b.card = "card2";
  b.gfx_target = "gfx1032";
  b.kfd_node = 2;
  inv.gpus = {a, b};
  return inv;
}

constexpr std::string_view kRecDev = "amdgpu 0000:03:00.0: amdgpu: ";

std::string RecDev(std::string_view rest) { return std::string(kRecDev) + std::string(rest); }

// v6.11 on: the fault line, amdgpu_vm_print_task_info's line, the address, the L2 status.
std::vector<sys::LogEntry> RecBlockV611(uint64_t t) {
  return {
      RecKernel(t, RecDev("[gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32770)")),
      RecKernel(t + 10, RecDev(" Process python3 pid 4242 thread python3 pid 4251")),
      RecKernel(t + 20, RecDev("  in page starting at address 0x00007f1c2a400000 from client 0x1b (UTCL2)")),
      RecKernel(t + 30, RecDev("GCVM_L2_PROTECTION_FAULT_STATUS:0x00801031")),
      RecKernel(t + 40, RecDev("\t Faulty UTCL2 client ID: TCP (0x8)")),
      RecKernel(t + 50, RecDev("\t MORE_FAULTS: 0x1")),
      RecKernel(t + 60, RecDev("\t PERMISSION_FAULTS: 0x3")),
  };
}

TEST(FaultRecords, APageFaultBlockIsOneRecordWithProcessPasidAndGpu) {
  std::vector<FaultRecord> r = RecordsFromLog(RecBlockV611(1'000'000), RecGpus());
  ASSERT_THAT(r, SizeIs(1));
  EXPECT_EQ(r[0].kind, FaultKind::kPageFault);
  EXPECT_EQ(r[0].pasid, 32770u);
  EXPECT_EQ(r[0].hub, "gfxhub");
  EXPECT_EQ(r[0].process, "python3");
  EXPECT_EQ(r[0].pid, 4242);
  EXPECT_EQ(r[0].thread_pid, 4251);
  EXPECT_EQ(r[0].gpu, "0000:03:00.0");
  EXPECT_EQ(r[0].card, "card1");
  EXPECT_EQ(r[0].gfx_target, "gfx1010");
  EXPECT_EQ(r[0].realtime_usec, 1'000'000u);
  EXPECT_EQ(r[0].boot_id, kRecBoot);
  EXPECT_THAT(r[0].lines, SizeIs(7));
  // The whole address line, its client's name included (longer than a name's bound).
  EXPECT_EQ(r[0].detail, "in page starting at address 0x00007f1c2a400000 from client 0x1b (UTCL2)");
  EXPECT_FALSE(r[0].uid.has_value());  // the kernel names no user: never guessed
}

TEST(FaultRecords, EveryKernelFormatOfTheTaskLineNamesTheProcess) {
  // up to v6.9: one line; v6.10: " in process ... pid N)"; gmc_v9_0.c's "retry page fault".
  for (const std::vector<std::string>& lines : std::vector<std::vector<std::string>>{
           {RecDev("[gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32770, for process python3 pid 4242 thread "
                   "python3 pid 4251)")},
           {RecDev("[gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32770)"),
            RecDev(" in process python3 pid 4242 thread python3 pid 4251)")},
           {RecDev("[gfxhub0] no-retry page fault (src_id:0 ring:0 vmid:8 pasid:32770)"),
            RecDev(" Process python3 pid 4242 thread pt_main_thread pid 4251")},
       }) {
    SCOPED_TRACE(lines[0]);
    std::vector<sys::LogEntry> entries;
    for (size_t i = 0; i < lines.size(); ++i) entries.push_back(RecKernel(100 + i, lines[i]));
    std::vector<FaultRecord> r = RecordsFromLog(entries, RecGpus());
    ASSERT_THAT(r, SizeIs(1));
    EXPECT_EQ(r[0].process, "python3");
    EXPECT_EQ(r[0].pid, 4242);
    EXPECT_EQ(r[0].thread_pid, 4251);
    EXPECT_EQ(r[0].pasid, 32770u);
  }
}

TEST(FaultRecords, AThreadNameWithSpacesStaysWhole) {
  FaultLine l = ReadFaultLine(RecDev(" Process Web Content pid 77 thread Web Content pid 78"));
  EXPECT_EQ(l.form, LineForm::kTaskInfo);
  EXPECT_EQ(l.process, "Web Content");
  EXPECT_EQ(l.pid, 77);
  EXPECT_EQ(l.thread, "Web Content");
  EXPECT_EQ(l.thread_pid, 78);
}

TEST(FaultRecords, TwoFaultsAreTwoRecordsAndALateLineJoinsNone) {
  std::vector<sys::LogEntry> e = RecBlockV611(1'000'000);
  for (sys::LogEntry& x : RecBlockV611(9'000'000)) e.push_back(x);
  // A task line long after any fault line belongs to no block.
  e.push_back(RecKernel(60'000'000, RecDev(" Process bash pid 1 thread bash pid 1")));
  std::vector<FaultRecord> r = RecordsFromLog(e, RecGpus());
  ASSERT_THAT(r, SizeIs(2));
  EXPECT_THAT(r[1].lines, SizeIs(7));
  EXPECT_EQ(r[1].realtime_usec, 9'000'000u);
}

TEST(FaultRecords, InterleavedGpusKeepTheirOwnBlocks) {
  const std::string other = "amdgpu 0000:0c:00.0: amdgpu: ";
  std::vector<sys::LogEntry> e = {
      RecKernel(1, RecDev("[gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32770)")),
      RecKernel(2, other + "[gfxhub] page fault (src_id:0 ring:24 vmid:9 pasid:32771)"),
      RecKernel(3, other + " Process ollama pid 900 thread ollama pid 901"),
      RecKernel(4, RecDev(" Process python3 pid 4242 thread python3 pid 4251")),
  };
  std::vector<FaultRecord> r = RecordsFromLog(e, RecGpus());
  ASSERT_THAT(r, SizeIs(2));
  EXPECT_EQ(r[0].process, "python3");
  EXPECT_EQ(r[0].gpu, "0000:03:00.0");
  EXPECT_EQ(r[1].process, "ollama");
  EXPECT_EQ(r[1].gpu, "0000:0c:00.0");
  EXPECT_EQ(r[1].card, "card2");
}

TEST(FaultRecords, AStatusWithoutItsFaultLineIsAProtectionFault) {
  std::vector<FaultRecord> r = RecordsFromLog(
      {RecKernel(5, RecDev("GCVM_L2_PROTECTION_FAULT_STATUS:0x00301031")), RecKernel(6, RecDev("\t MORE_FAULTS: 0x1"))},
      RecGpus());
  ASSERT_THAT(r, SizeIs(1));
  EXPECT_EQ(r[0].kind, FaultKind::kProtectionFault);
  EXPECT_THAT(r[0].lines, SizeIs(2));
}

TEST(FaultRecords, ARingTimeoutTakesItsProcessLineInBothDriverForms) {
  for (std::string prefix : {std::string(kRecDev), std::string("[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ")}) {
    SCOPED_TRACE(prefix);
    std::vector<FaultRecord> r = RecordsFromLog(
        {RecKernel(10, prefix + "ring gfx_0.0.0 timeout, signaled seq=1234, emitted seq=1236"),
         RecKernel(11, prefix + "Process information: process python3 pid 4242 thread python3 pid 4243")},
        RecGpus());
    ASSERT_THAT(r, SizeIs(1));
    EXPECT_EQ(r[0].kind, FaultKind::kRingTimeout);
    EXPECT_EQ(r[0].ring, "gfx_0.0.0");
    EXPECT_EQ(r[0].process, "python3");
    EXPECT_EQ(r[0].pid, 4242);
    // DRM_ERROR names no device: the record names no GPU rather than a guessed one.
    EXPECT_EQ(r[0].gpu.empty(), prefix.starts_with("[drm:"));
  }
  std::vector<FaultRecord> soft =
      RecordsFromLog({RecKernel(10, RecDev("ring sdma0 timeout, but soft recovered"))}, RecGpus());
  ASSERT_THAT(soft, SizeIs(1));
  EXPECT_EQ(soft[0].outcome, FaultOutcome::kSoftRecovered);
}

TEST(FaultRecords, AResetTakesItsOutcome) {
  std::vector<FaultRecord> r = RecordsFromLog(
      {RecKernel(10, RecDev("GPU reset begin!")), RecKernel(2'000'000, RecDev("GPU reset(2) succeeded!")),
       RecKernel(3'000'000, RecDev("GPU reset begin!")), RecKernel(4'000'000, RecDev("GPU reset(3) failed")),
       RecKernel(5'000'000, RecDev("GPU reset end with ret = -110"))},
      RecGpus());
  ASSERT_THAT(r, SizeIs(3));
  EXPECT_EQ(r[0].outcome, FaultOutcome::kSucceeded);
  EXPECT_THAT(r[0].lines, SizeIs(2));
  EXPECT_EQ(r[1].outcome, FaultOutcome::kFailed);
  // An outcome line after the reset already has one is its own record (never overwrites).
  EXPECT_EQ(r[2].outcome, FaultOutcome::kFailed);
}

TEST(FaultRecords, RepeatedMesLinesAreOneRecordAndKfdEvictionsAreRecorded) {
  std::vector<FaultRecord> r =
      RecordsFromLog({RecKernel(10, RecDev("MES failed to respond to msg=REMOVE_QUEUE")),
                      RecKernel(1'000'000, RecDev("MES ring buffer is full.")),
                      RecKernel(2'000'000, RecDev("MES(0) failed to respond to msg=SUSPEND")),
                      RecKernel(90'000'000, RecDev("failed to remove hardware queue from MES, doorbell=0x1002")),
                      RecKernel(91'000'000, "amdgpu: Freeing queue vital buffer 0x7f0000200000, queue evicted")},
                     RecGpus());
  ASSERT_THAT(r, SizeIs(3));
  EXPECT_EQ(r[0].kind, FaultKind::kMesFailure);
  EXPECT_THAT(r[0].lines, SizeIs(3));
  EXPECT_EQ(r[0].detail, "MES failed to respond to msg=REMOVE_QUEUE");
  EXPECT_EQ(r[1].kind, FaultKind::kMesFailure);
  EXPECT_EQ(r[2].kind, FaultKind::kKfdEviction);
}

TEST(FaultRecords, TheRuntimesLinesOfAServiceNameItsUnitUserAndNode) {
  std::vector<FaultRecord> r = RecordsFromLog(
      {RecService(10, "ollama.service", "ollama", 900, 998,
                  "Memory access fault by GPU node-2 (Agent handle: 0x55a4c0b0e0f0) on address 0x7f1c2a400000. Reason: "
                  "Page not present or supervisor privilege."),
       RecService(20, "ollama.service", "ollama", 900, 998,
                  "Callback: Queue 0x7f aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent "
                  "attempted to access memory beyond the largest legal address. code: 0x29")},
      RecGpus());
  ASSERT_THAT(r, SizeIs(1));
  EXPECT_EQ(r[0].kind, FaultKind::kRuntimeFault);
  EXPECT_EQ(r[0].unit, "ollama.service");
  EXPECT_EQ(r[0].process, "ollama");
  EXPECT_EQ(r[0].pid, 900);
  EXPECT_EQ(r[0].uid, 998u);
  EXPECT_EQ(r[0].kfd_node, 2);
  EXPECT_EQ(r[0].gpu, "0000:0c:00.0");
  EXPECT_EQ(r[0].detail, "Page not present or supervisor privilege.");
  EXPECT_THAT(r[0].lines, SizeIs(2));
}

TEST(FaultRecords, ANodeOrAddressOfNoGpuHereNamesNone) {
  std::vector<FaultRecord> r = RecordsFromLog(
      {RecService(10, "a.service", "a", 1, 0, "Memory access fault by GPU node-7 (Agent handle: 0x1) on address 0x0."),
       RecKernel(20, "amdgpu 0000:99:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:1)")},
      RecGpus());
  ASSERT_THAT(r, SizeIs(2));
  EXPECT_EQ(r[0].gpu, "");
  EXPECT_EQ(r[1].gpu, "");
  EXPECT_EQ(r[1].pci_address, "0000:99:00.0");
}

TEST(FaultRecords, OtherLinesAreNotFaults) {
  EXPECT_THAT(RecordsFromLog({RecKernel(1, RecDev("SMU is initialized successfully!")),
                              RecKernel(2, "usb 1-1: new high-speed USB device number 2"),
                              RecKernel(3, RecDev("ring gfx_0.0.0 uses VM inv eng 0 on hub 0")), RecKernel(4, "")},
                             RecGpus()),
              ::testing::IsEmpty());
}

TEST(FaultRecords, HostileLinesAreBoundedAndEscaped) {
  std::string huge_name(5000, 'x');
  std::vector<sys::LogEntry> e = {
      RecKernel(1, RecDev("[gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:99999999999999999999, for process " +
                          huge_name + " pid 12 thread \x1b[2J pid 13)")),
  };
  for (int i = 0; i < 100; ++i) e.push_back(RecKernel(2 + i, RecDev("\t MORE_FAULTS: 0x1")));
  std::vector<FaultRecord> r = RecordsFromLog(e, RecGpus());
  ASSERT_THAT(r, SizeIs(1));
  EXPECT_FALSE(r[0].pasid.has_value());  // does not fit: unknown, not wrapped
  EXPECT_LE(r[0].process.size(), kMaxFaultFieldBytes);
  EXPECT_EQ(r[0].thread.find('\x1b'), std::string::npos);
  EXPECT_THAT(r[0].lines, SizeIs(kMaxFaultLines));
}

TEST(FaultRecords, OnlyTheNewestRecordsAreKept) {
  std::vector<sys::LogEntry> e;
  for (size_t i = 0; i < kMaxFaultRecords + 5; ++i) e.push_back(RecKernel(i * 10'000'000, RecDev("GPU reset begin!")));
  std::vector<FaultRecord> r = RecordsFromLog(e, RecGpus());
  ASSERT_THAT(r, SizeIs(kMaxFaultRecords));
  EXPECT_EQ(r.back().realtime_usec, (kMaxFaultRecords + 4) * 10'000'000u);
}

TEST(FaultRecords, BootOffsetsComeFromTheLogsBoots) {
  std::vector<FaultRecord> r = RecordsFromLog(RecBlockV611(1), RecGpus());
  SetBootOffsets(r, {{std::string(kRecBoot), -1, 0, 10}});
  EXPECT_EQ(r[0].boot, -1);
}

// The fault lines of public bug reports (tests/fixtures/faults/PROVENANCE.md), one entry a line as
// pasted (dmesg, dmesg -T and journalctl prefixes included), a microsecond apart.
std::vector<FaultRecord> FromFixture(std::string_view name) {
  std::ifstream in(std::string(ROCMTUNE_FIXTURES_DIR) + "/faults/" + std::string(name));
  EXPECT_TRUE(in) << name;
  std::vector<sys::LogEntry> entries;
  std::string line;
  uint64_t t = 1'000'000;
  while (std::getline(in, line)) {
    // dmesg's "[ 2258.459225] ": the kernel's own time, so the grouping windows see the real gaps.
    double seconds = 0;
    if (std::sscanf(line.c_str(), "[ %lf]", &seconds) == 1) t = static_cast<uint64_t>(seconds * 1e6);
    entries.push_back(RecKernel(t++, line));
  }
  return RecordsFromLog(entries, detect::Inventory{});
}

std::map<FaultKind, int> Kinds(const std::vector<FaultRecord>& records) {
  std::map<FaultKind, int> out;
  for (const FaultRecord& r : records) ++out[r.kind];
  return out;
}

TEST(FaultRecordsFixtures, PageFaultsInEveryTaskFormOfTheReports) {
  struct Case {
    std::string_view file;
    size_t records;
    std::string_view process;
    int64_t pid;
    uint32_t pasid;
  };
  for (const Case& c : {Case{"gfx10-python-page-fault-inline.log", 1, "python", 1796, 32770},
                        Case{"gfx1100-python-page-fault-journal.log", 1, "python", 91762, 32792},
                        Case{"gfx1151-python3-page-fault.log", 2, "python3", 2699, 32769}}) {
    SCOPED_TRACE(c.file);
    std::vector<FaultRecord> r = FromFixture(c.file);
    ASSERT_THAT(r, SizeIs(c.records));
    const FaultRecord& last = r.back();
    EXPECT_EQ(last.kind, FaultKind::kPageFault);
    EXPECT_EQ(last.process, c.process);
    EXPECT_EQ(last.pid, c.pid);
    EXPECT_EQ(last.pasid, c.pasid);
    EXPECT_TRUE(last.pci_address.has_value());
  }
  // gfx1031: pasted from the middle of a block (its first lines belong to a fault not shown),
  // then a whole block in the " Process" form.
  std::vector<FaultRecord> mid = FromFixture("gfx1031-python3-page-fault.log");
  ASSERT_FALSE(mid.empty());
  EXPECT_EQ(mid.back().process, "python3");
  EXPECT_EQ(mid.back().pid, 4010);
  EXPECT_EQ(mid.back().pasid, 32772u);
  EXPECT_EQ(mid.back().pci_address, "0000:2f:00.0");
}

TEST(FaultRecordsFixtures, RingTimeoutsResetsMesAndEvictionsOfTheReports) {
  std::vector<FaultRecord> old = FromFixture("ring-gfx-timeout-reset-succeeded-journal.log");
  ASSERT_THAT(old, SizeIs(2));
  EXPECT_EQ(old[0].kind, FaultKind::kRingTimeout);
  EXPECT_EQ(old[0].process, "cosmic-comp");
  EXPECT_EQ(old[0].pid, 3503);
  EXPECT_EQ(old[1].kind, FaultKind::kGpuReset);
  EXPECT_EQ(old[1].outcome, FaultOutcome::kSucceeded);
  EXPECT_EQ(old[1].pci_address, "0000:08:00.0");

  std::vector<FaultRecord> failed = FromFixture("ring-gfx-timeout-ring-reset-failed.log");
  ASSERT_FALSE(failed.empty());
  EXPECT_EQ(failed[0].kind, FaultKind::kRingTimeout);
  EXPECT_EQ(failed[0].process, "glretrace");
  EXPECT_EQ(failed[0].outcome, FaultOutcome::kFailed);
  EXPECT_EQ(Kinds(failed)[FaultKind::kGpuReset], 1);
  EXPECT_EQ(Kinds(failed)[FaultKind::kMesFailure], 1);

  std::vector<FaultRecord> comp = FromFixture("ring-comp-timeout-ring-reset-succeeded.log");
  ASSERT_FALSE(comp.empty());
  EXPECT_EQ(comp[0].ring, "comp_1.1.0");
  EXPECT_EQ(comp[0].outcome, FaultOutcome::kSucceeded);
  EXPECT_EQ(Kinds(comp)[FaultKind::kPageFault], 1);

  std::vector<FaultRecord> mes = FromFixture("mes-gfx1151-remove-queue.log");
  EXPECT_EQ(Kinds(mes)[FaultKind::kMesFailure], 1);
  EXPECT_EQ(Kinds(mes)[FaultKind::kGpuReset], 1);
  std::vector<FaultRecord> mes_old = FromFixture("mes-v11-failed-to-response-journal.log");
  EXPECT_GE(Kinds(mes_old)[FaultKind::kMesFailure], 1);
  // The pasid-0 fault of the reset names no process ("for process  pid 0 thread  pid 0").
  ASSERT_EQ(Kinds(mes_old)[FaultKind::kPageFault], 1);
  for (const FaultRecord& r : mes_old)
    if (r.kind == FaultKind::kPageFault) {
      EXPECT_EQ(r.process, "");
      EXPECT_FALSE(r.pid.has_value());
    }

  std::vector<FaultRecord> evict = FromFixture("kfd-eviction-pasid.log");
  ASSERT_THAT(evict, SizeIs(1));
  EXPECT_EQ(evict[0].kind, FaultKind::kKfdEviction);
  EXPECT_EQ(evict[0].pasid, 0x8002u);
  EXPECT_EQ(Kinds(FromFixture("kfd-eviction-old.log"))[FaultKind::kKfdEviction], 2);
}

TEST(FaultRecordsFixtures, TheRuntimesLinesOfTheReports) {
  for (std::string_view file : {"ollama-memory-access-fault-journal.log", "ollama-memory-access-fault-stderr.log",
                                "gfx1100-python-runtime-fault.log", "hsa-memory-aperture-violation.log",
                                "hsa-memory-aperture-violation-gfx1151.log"}) {
    SCOPED_TRACE(file);
    std::vector<FaultRecord> r = FromFixture(file);
    ASSERT_THAT(r, SizeIs(1));
    EXPECT_EQ(r[0].kind, FaultKind::kRuntimeFault);
    EXPECT_FALSE(r[0].detail.empty());
  }
  EXPECT_EQ(FromFixture("ollama-memory-access-fault-journal.log")[0].kfd_node, 1);
}

TEST(FaultKinds, OneTableNamesEveryKindOnce) {
  std::vector<std::string_view> names;
  for (const FaultKindInfo& k : FaultKinds()) {
    EXPECT_EQ(ParseFaultKind(k.name), k.kind);
    EXPECT_FALSE(k.description.empty());
    names.push_back(k.name);
  }
  EXPECT_THAT(names, ElementsAre("page-fault", "protection-fault", "ring-timeout", "gpu-reset", "mes-failure",
                                 "kfd-eviction", "runtime-fault"));
  EXPECT_FALSE(ParseFaultKind("page_fault").has_value());
}

}  // namespace
}  // namespace rocmtune::faults
