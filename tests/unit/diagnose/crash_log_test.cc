// Which GPUs a crash log names (diagnose/crash_log.h): ROCr's node-N (the KFD topology node), an Agent
// handle seen with a node elsewhere, the kernel's amdgpu PCI addresses and gfx target names; two
// GPUs named; names of GPUs that are not here; and the lines that show a crash or missing code.
#include "diagnose/crash_log.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace rocmtune::diagnose {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

detect::Gpu Gpu(std::string id, std::optional<int> node, std::string gfx, std::string physical = "") {
  detect::Gpu g;
  g.id = std::move(id);
  g.kfd_node = node;
  g.gfx_target = std::move(gfx);
  g.physical_id = physical.empty() ? g.id : std::move(physical);
  return g;
}

// Two GPUs as a KFD topology lists them: node 0 is the CPU.
const std::vector<detect::Gpu> kTwo = {Gpu("0000:03:00.0", 1, "gfx1100"), Gpu("0000:0b:00.0", 2, "gfx1201")};

std::vector<std::string> Texts(const CrashLogReading& r) {
  std::vector<std::string> out;
  for (const LogGpuRef& ref : r.refs) out.push_back(std::string(GpuRefKindName(ref.kind)) + " " + ref.text);
  return out;
}

TEST(CrashLogTest, NodeNNamesTheGpuOfThatKfdNodeNotTheFirst) {
  CrashLogReading r = ReadCrashLog(
      "Memory access fault by GPU node-2 (Agent handle: 0x55a4c0b0e0f0) on address 0x7f1c2a400000. Reason: Page "
      "not present or supervisor privilege.\n",
      kTwo);
  EXPECT_THAT(r.gpus, ElementsAre("0000:0b:00.0"));
  ASSERT_EQ(r.refs.size(), 1u);
  EXPECT_EQ(r.refs[0].text, "node-2");
  EXPECT_THAT(r.refs[0].gpus, ElementsAre("0000:0b:00.0"));
  EXPECT_FALSE(r.NamesOnlyOtherGpus());
}

TEST(CrashLogTest, AnAgentHandleAloneNamesTheNodeItWasPrintedWith) {
  CrashLogReading r = ReadCrashLog(
      "HW Exception by GPU node-1 (Agent handle: 0x5F00AB) reason :GPU Hang\n"
      "Callback: Queue 0x7f aborting with error : HSA_STATUS_ERROR_EXCEPTION Agent handle: 0x5f00ab\n"
      "queue of Agent handle: 0x123456 (never seen with a node)\n",
      kTwo);
  EXPECT_THAT(Texts(r), ElementsAre("kfd-node node-1", "agent-handle 0x5f00ab (node-1)"));
  EXPECT_THAT(r.refs[1].gpus, ElementsAre("0000:03:00.0"));
  EXPECT_THAT(r.gpus, ElementsAre("0000:03:00.0"));
}

TEST(CrashLogTest, AnAmdgpuPciAddressNamesThatGpuAndOtherDevicesLinesDoNot) {
  CrashLogReading r = ReadCrashLog(
      "[  402.3] amdgpu 0000:0B:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32772)\n"
      "[  402.4] pcieport 0000:00:01.1: AER: Corrected error received: 0000:03:00.0\n"
      "[  402.5] nvme 0000:03:00.0: something unrelated that says 10000:03:00.00\n",
      kTwo);
  EXPECT_THAT(Texts(r), ElementsAre("pci-address 0000:0b:00.0"));
  EXPECT_THAT(r.gpus, ElementsAre("0000:0b:00.0"));
}

TEST(CrashLogTest, APartitionedGpusKernelLinesNameEveryPartition) {
  std::vector<detect::Gpu> cpx = {Gpu("0000:05:00.0", 2, "gfx942", "0000:05:00.0"),
                                  Gpu("0000:05:00.1", 3, "gfx942", "0000:05:00.0"),
                                  Gpu("0000:27:00.0", 10, "gfx942", "0000:27:00.0")};
  CrashLogReading r = ReadCrashLog("amdgpu 0000:05:00.0: amdgpu: GPU reset begin!\n", cpx);
  EXPECT_THAT(r.gpus, ElementsAre("0000:05:00.0", "0000:05:00.1"));
}

TEST(CrashLogTest, GfxNamesNameEveryGpuOfThatTargetButNotGenericOrFamilyNames) {
  std::vector<detect::Gpu> gpus = {Gpu("0000:03:00.0", 1, "gfx1100"), Gpu("0000:0b:00.0", 2, "gfx1100"),
                                   Gpu("0000:0c:00.0", 3, "gfx1030")};
  CrashLogReading r = ReadCrashLog(
      ":1:hip_code_object.cpp :505 : hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
      "  Devices:\n    amdgcn-amd-amdhsa--gfx1100 - [Not Found]\n"
      "  Bundled: gfx11-generic gfx110X-dgpu libgfx1030x gfx1030_old\n",
      gpus);
  EXPECT_THAT(Texts(r), ElementsAre("gfx-target gfx1100"));
  EXPECT_THAT(r.gpus, ElementsAre("0000:03:00.0", "0000:0b:00.0"));
  EXPECT_THAT(r.missing_code, ElementsAre("hipErrorNoBinaryForGpu", "Unable to find code object"));
}

TEST(CrashLogTest, TwoGpusNamedAreBothNamedInTheInventorysOrder) {
  CrashLogReading r = ReadCrashLog(
      "Memory access fault by GPU node-2 (Agent handle: 0x1) on address 0x2.\n"
      "amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3\n",
      kTwo);
  EXPECT_THAT(r.gpus, ElementsAre("0000:03:00.0", "0000:0b:00.0"));
  EXPECT_THAT(Texts(r), ElementsAre("kfd-node node-2", "pci-address 0000:03:00.0"));
}

TEST(CrashLogTest, NamesOfGpusNotHereAreToldApartFromNamesThisMachineCannotJudge) {
  // Node 7 and 0000:44:00.0 are no GPU here: the log comes from elsewhere.
  CrashLogReading other = ReadCrashLog(
      "Memory access fault by GPU node-7 (Agent handle: 0x1) on address 0x2.\n"
      "amdgpu 0000:44:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:1)\n",
      kTwo);
  EXPECT_THAT(other.gpus, IsEmpty());
  EXPECT_TRUE(other.NamesOnlyOtherGpus());
  // Without a KFD topology, node-1 cannot be judged; a gfx name of no GPU here never is (a code
  // object bundle lists targets it was built for).
  std::vector<detect::Gpu> no_kfd = {Gpu("0000:03:00.0", std::nullopt, "gfx1100")};
  CrashLogReading unknown = ReadCrashLog("Memory access fault by GPU node-1 (Agent handle: 0x1)\ngfx906\n", no_kfd);
  EXPECT_THAT(unknown.gpus, IsEmpty());
  EXPECT_FALSE(unknown.NamesOnlyOtherGpus());
  EXPECT_THAT(Texts(unknown), ElementsAre("kfd-node node-1", "gfx-target gfx906"));
  // A GPU here named beside one that is not: only the one here.
  CrashLogReading mixed = ReadCrashLog("GPU node-1 ... GPU node-9\n", kTwo);
  EXPECT_THAT(mixed.gpus, ElementsAre("0000:03:00.0"));
  EXPECT_FALSE(mixed.NamesOnlyOtherGpus());
}

TEST(CrashLogTest, ALogThatNamesNoGpuNamesNone) {
  CrashLogReading r = ReadCrashLog("Segmentation fault\nhostname node-2 of the cluster\n", kTwo);
  EXPECT_THAT(r.refs, IsEmpty());
  EXPECT_THAT(r.gpus, IsEmpty());
  EXPECT_FALSE(r.NamesOnlyOtherGpus());
}

TEST(CrashLogTest, OverlongNumbersAreNoNames) {
  CrashLogReading r =
      ReadCrashLog("GPU node-12345678901234567890 Agent handle: 0x123456789abcdef01 gfx1234567\n", kTwo);
  EXPECT_THAT(r.refs, IsEmpty());
}

TEST(CrashLogTest, RefsAreCappedButEveryGpuNamedCounts) {
  std::string log;
  for (int n = 10; n < 40; ++n) log += "GPU node-" + std::to_string(n) + "\n";
  log += "GPU node-2\n";
  CrashLogReading r = ReadCrashLog(log, kTwo);
  EXPECT_EQ(r.refs.size(), kMaxRefs);
  EXPECT_THAT(r.gpus, ElementsAre("0000:0b:00.0"));
}

std::vector<std::string> Signs(const CrashLogReading& r) {
  std::vector<std::string> out;
  for (const CrashSign* s : r.crash) out.emplace_back(s->needle);
  return out;
}

TEST(CrashLogTest, CrashSignsAreTheLinesThatShowACrash) {
  EXPECT_THAT(
      Signs(ReadCrashLog("HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: code: 0x29\nAborted (core dumped)\n", kTwo)),
      ElementsAre("HSA_STATUS_ERROR_", "core dumped"));
  EXPECT_THAT(Signs(ReadCrashLog("amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n", kTwo)),
              ElementsAre("GPU reset begin"));
  // A segfault counts when the kernel's line names a ROCm library.
  EXPECT_THAT(Signs(ReadCrashLog("python3[99]: segfault at 0 ip 1 sp 2 error 4 in libamdhip64.so.6[7f+1]\n", kTwo)),
              ElementsAre("segfault at"));
  // ROCm#6619's dmesg line (comgr compiling for gfx1030).
  EXPECT_THAT(Signs(ReadCrashLog("llama-cli[7]: segfault at 8 ip 1 sp 2 error 4 in libamd_comgr.so.3.0\n", kTwo)),
              ElementsAre("segfault at"));
  EXPECT_THAT(Signs(ReadCrashLog("bash[9]: segfault at 0 ip 1 sp 2 error 4 in libc.so.6\n", kTwo)), IsEmpty());
  EXPECT_THAT(Signs(ReadCrashLog("all fine, node-1 done\n", kTwo)), IsEmpty());
}

TEST(CrashLogTest, MissingCodeErrorsInEveryForm) {
  EXPECT_THAT(
      ReadCrashLog("hipErrorNoBinaryForGPU: Unable to find code object for all current devices!\n", kTwo).missing_code,
      ElementsAre("hipErrorNoBinaryForGpu", "Unable to find code object"));
  EXPECT_THAT(ReadCrashLog("RuntimeError: HIP error: invalid device function\n", kTwo).missing_code,
              ElementsAre("invalid device function"));
  EXPECT_THAT(ReadCrashLog("no kernel image is available for execution on the device\n", kTwo).missing_code,
              ElementsAre("no kernel image is available"));
}

// What a child process's peak RSS grew by while it read `log` (KiB): the reading's own memory,
// measured where nothing else runs (the log is allocated before the fork).
long PeakGrowthKiB(const std::string& log) {
  rusage before{};
  pid_t pid = fork();
  if (pid == 0) {
    getrusage(RUSAGE_SELF, &before);
    CrashLogReading r = ReadCrashLog(log, kTwo);
    rusage after{};
    getrusage(RUSAGE_SELF, &after);
    const long grown = after.ru_maxrss - before.ru_maxrss;
    // The exit status carries the growth in MiB (at most 255).
    (void)r;
    _exit(static_cast<int>(std::min(255L, grown / 1024)));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status)) return -1;
  return static_cast<long>(WEXITSTATUS(status)) * 1024;
}

// rocmtuned reads logs a user sends (Doctor): 16 MiB of newlines, or of lines that each name
// another node, PCI address, gfx target and agent handle, must not make it allocate much more
// than the log (the round-3 review's daemon grew to ~250 MiB). Every set the reading keeps is
// bounded, and lines are not collected into a vector first.
TEST(CrashLogTest, A16MiBHostileLogIsReadInBoundedMemory) {
  const std::string newlines(16u << 20, '\n');
  std::string names;
  names.reserve(16u << 20);
  for (unsigned i = 0; names.size() < (16u << 20); ++i)
    names +=
        fmt::format("amdgpu {:04x}:{:02x}:{:02x}.{} gfx{:x} GPU node-{} Agent handle: 0x{:x} gfx{:x}\n", i & 0xffff,
                    (i >> 8) & 0xff, i & 0x1f, i & 7, 0x100000 + i, i % 999999, 0x1000000 + i, 0x200000 + i);
    // ASan keeps freed blocks in its quarantine (and pads every block): a wider bound there, still
    // far below what the vector of 16 M line views alone took (255 MiB).
#if defined(__SANITIZE_ADDRESS__)
  constexpr long kBoundMiB = 128;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  constexpr long kBoundMiB = 128;
#else
  constexpr long kBoundMiB = 32;
#endif
#else
  constexpr long kBoundMiB = 32;
#endif
  for (const std::string* log : std::initializer_list<const std::string*>{&newlines, &names}) {
    long grown = PeakGrowthKiB(*log);
    ASSERT_GE(grown, 0) << "the child reading the log died";
    EXPECT_LT(grown, kBoundMiB * 1024) << "reading a 16 MiB hostile log grew the peak RSS by " << grown / 1024
                                       << " MiB";
  }
  CrashLogReading r = ReadCrashLog(names, kTwo);
  EXPECT_LE(r.refs.size(), kMaxRefs);
}

}  // namespace
}  // namespace rocmtune::diagnose
