// `rocmtunectl doctor --log` on captured worlds: the log's matches concern the
// GPUs the log names (ROCr's node-N is the KFD topology node, the kernel's lines name the PCI
// address), missing-code errors are linked to the GPU's support finding, the RDNA3/RDNA4 and
// Strix known issues show on their worlds' logs, and a crash no known issue explains is a
// warning (exit 1), never "Nothing wrong found".
#include <cstdlib>
#include <optional>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"

namespace rocmtune::client {
namespace {

using ::testing::Contains;
using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::ordered_json;
using testing::CliResult;
using testing::WorldCopy;

// ROCr's fault line (runtime.cpp VMFaultHandler) as users paste it, on KFD node N.
std::string FaultLog(int node) {
  return "Memory access fault by GPU node-" + std::to_string(node) +
         " (Agent handle: 0x55a4c0b0e0f0) on address 0x7f1c2a400000. Reason: Page not present or supervisor "
         "privilege.\nAborted (core dumped)\n";
}
constexpr std::string_view kAperture =
    "Callback: Queue 0x7f aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to "
    "access memory beyond the largest legal address. code: 0x29\n";
// The kernel's side of a fault (ROCm/amdgpu#204's journal, the device's address made the world's).
std::string DmesgFault(std::string_view pci) {
  return "kernel: amdgpu " + std::string(pci) +
         ": amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32792)\nkernel: amdgpu " + std::string(pci) +
         ": amdgpu:          Faulty UTCL2 client ID: CPF (0x4)\n";
}

CliResult RunLog(const WorldCopy& w, std::string_view log, bool json_out = true) {
  w.Write("tmp/crash.log", log);
  std::vector<std::string> args = {"doctor", "--log", w.Path("tmp/crash.log")};
  if (json_out) args.push_back("--json");
  return w.Ctl(args);
}

json LogSection(const WorldCopy& w, std::string_view log) {
  CliResult r = RunLog(w, log);
  json doc = r.Json();
  EXPECT_TRUE(doc.is_object()) << r.out << r.err;
  return doc.is_object() ? doc["log"] : json();
}

std::set<std::string> Subjects(const json& log) {
  std::set<std::string> out;
  for (const json& m : log["matches"]) out.insert(m["subject"].is_null() ? "" : m["subject"].get<std::string>());
  return out;
}

std::set<std::string> LogFindingIds(const json& log) {
  std::set<std::string> out;
  for (const json& m : log["matches"]) out.insert(m["id"].get<std::string>());
  return out;
}

const json& Match(const json& log, std::string_view id) {
  static const json kNone;
  for (const json& m : log["matches"])
    if (m["id"] == id) return m;
  ADD_FAILURE() << id << " not among " << log.dump();
  return kNone;
}

// mi210x8: eight MI210s on KFD nodes 2..9; node 2 is 0000:63:00.0, node 4 is 0000:03:00.0.
TEST(DoctorLogTest, NodeNIsTheGpuOfThatKfdNodeNotEveryGpu) {
  WorldCopy w("mi210x8");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  json log = LogSection(w, FaultLog(2) + std::string(kAperture));
  EXPECT_EQ(log["gpus"], json::array({"0000:63:00.0"}));
  EXPECT_THAT(Subjects(log), ElementsAre("0000:63:00.0"));
  EXPECT_EQ(log["likely_cause"], "issue.aperture-violation-kernel-fault");
  EXPECT_EQ(log["names"][0]["text"], "node-2");
  EXPECT_EQ(log["names"][0]["kind"], "kfd-node");
}

TEST(DoctorLogTest, TwoGpusNamedAreBothBlamedAndNoOther) {
  WorldCopy w("mi210x8");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  json log = LogSection(w, FaultLog(2) + DmesgFault("0000:03:00.0") + std::string(kAperture));
  EXPECT_EQ(log["gpus"], json::array({"0000:03:00.0", "0000:63:00.0"}));
  EXPECT_THAT(Subjects(log), ElementsAre("0000:03:00.0", "0000:63:00.0"));
}

TEST(DoctorLogTest, ALogOfGpusNotHereBlamesNoGpuHere) {
  WorldCopy w("mi210x8");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  json log = LogSection(w, FaultLog(42) + std::string(kAperture));
  EXPECT_THAT(log["gpus"], ::testing::IsEmpty());
  EXPECT_THAT(Subjects(log), ElementsAre(""));
  EXPECT_THAT(LogFindingIds(log), Contains("log.other-gpu"));
  EXPECT_THAT(Match(log, "log.other-gpu")["evidence"], Contains(HasSubstr("node-42")));
}

TEST(DoctorLogTest, ALogThatNamesNoGpuIsMatchedAgainstEveryGpuAsBefore) {
  WorldCopy w("mi210x8");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  json log = LogSection(w, kAperture);
  std::set<std::string> explained;
  for (const json& m : log["matches"])
    if (m["id"] == "issue.aperture-violation-kernel-fault") explained.insert(m["subject"].get<std::string>());
  EXPECT_EQ(explained.size(), 8u);
  EXPECT_THAT(log["gpus"], ::testing::IsEmpty());
  // An explanation of the error, no cause: the crash stays unexplained, for no GPU in particular.
  EXPECT_TRUE(Match(log, "log.unexplained-crash")["subject"].is_null());
}

// The seed: an RX 9070 XT (gfx1201) under ROCm 6.2.4, which has no code for it. The match links
// the runtime's code finding (it linked AMD's table's before the runtime's code was judged).
TEST(DoctorLogTest, NoBinaryForGpuIsLinkedToTheGpusSupportFinding) {
  WorldCopy w("rx9070xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  w.Write("opt/rocm/.info/version", "6.2.4\n");
  for (std::string_view line :
       {":1:hip_code_object.cpp :505 : hipErrorNoBinaryForGpu: Unable to find code object for all current "
        "devices!\n:1:hip_code_object.cpp :509 :   amdgcn-amd-amdhsa--gfx1201 - [Not Found]\n",
        "RuntimeError: HIP error: invalid device function\n"}) {
    SCOPED_TRACE(line);
    CliResult r = RunLog(w, line);
    EXPECT_EQ(r.exit_code, kExitFailed);
    json doc = r.Json();
    json support;
    for (const json& f : doc["findings"])
      if (f["id"] == "runtime.no-code") support = f;
    ASSERT_TRUE(support.is_object()) << doc["findings"].dump();
    const json& log = doc["log"];
    EXPECT_EQ(log["likely_cause"], "log.missing-code-object");
    const json& m = Match(log, "log.missing-code-object");
    EXPECT_EQ(m["subject"], "0000:0f:00.0");
    EXPECT_THAT(m["evidence"], Contains(HasSubstr("runtime.no-code")));
    EXPECT_THAT(m["why"].get<std::string>(), HasSubstr("carries no code for gfx1201"));
    EXPECT_EQ(m["fix"], support["fix"]);
    EXPECT_FALSE(m["fix"]["rocm"].is_null());
  }
}

// RDNA1's missing code is the runtime's (it was the rdna1-not-supported issue, with "no fix"): the
// match carries the fix that exists, TheRock's native gfx1010 builds.
TEST(DoctorLogTest, NoBinaryOnRdna1IsLinkedToTheRuntimesMissingCode) {
  WorldCopy w("rx5700xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  w.Write("opt/rocm/.info/version", "6.2.0\n");
  json log = LogSection(w, "\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"\n");
  const json& m = Match(log, "log.missing-code-object");
  EXPECT_THAT(m["evidence"], Contains(HasSubstr("runtime.no-code")));
  EXPECT_TRUE(m["fix"]["none"].is_null());
  EXPECT_THAT(m["fix"]["text"].get<std::string>(), HasSubstr("device-gfx1010"));
}

TEST(DoctorLogTest, NoBinaryOnASupportedGpuNamesTheBuildNotTheGpu) {
  WorldCopy w("rx7900xtx");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  w.Write("opt/rocm/.info/version", "6.2.0\n");
  json log = LogSection(w, "RuntimeError: HIP error: no kernel image is available for execution on the device\n");
  const json& m = Match(log, "log.missing-code-object");
  EXPECT_THAT(m["evidence"], Contains(HasSubstr("runtime.code")));
  EXPECT_THAT(m["fix"]["text"].get<std::string>(), HasSubstr("--offload-arch=gfx1100"));
}

void Kernel(const WorldCopy& w, std::string_view release) {
  w.Write("proc/sys/kernel/osrelease", std::string(release) + "\n");
}

// RDNA3 (rx7900xtx, gfx1100) and RDNA4 (rx9070xt, gfx1201) on 6.18: ROCm/amdgpu#204, ROCm#5833.
TEST(DoctorLogTest, Rdna3AndRdna4FaultsOnKernel618AreTheKernelRegression) {
  for (auto [world, pci] : {std::pair{"rx7900xtx", "0000:03:00.0"}, std::pair{"rx9070xt", "0000:0f:00.0"},
                            std::pair{"rx7800xt", "0000:03:00.0"}}) {
    SCOPED_TRACE(world);
    WorldCopy w(world);
    testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
    w.Write("opt/rocm/.info/version", "7.1.1\n");
    Kernel(w, "6.18.4-arch1-1");
    std::string crash = FaultLog(1) + DmesgFault(pci);
    json log = LogSection(w, crash);
    EXPECT_EQ(log["likely_cause"], "issue.rdna3-rdna4-kernel-6.18-fault");
    const json& m = Match(log, "issue.rdna3-rdna4-kernel-6.18-fault");
    EXPECT_EQ(m["fix"]["kernel"], "< 6.18");
    EXPECT_EQ(m["confidence"], "low");
    EXPECT_THAT(m["evidence"], Contains("kernel 6.18.4-arch1-1"));
    EXPECT_THAT(LogFindingIds(log), Not(Contains("log.unexplained-crash")));
    Kernel(w, "6.17.9-arch1-1");  // the kernel the reports go back to
    json before = LogSection(w, crash);
    EXPECT_THAT(LogFindingIds(before), Not(Contains("issue.rdna3-rdna4-kernel-6.18-fault")));
    EXPECT_THAT(LogFindingIds(before), Contains("log.unexplained-crash"));
  }
}

constexpr std::string_view kStrixNode = "sys/devices/virtual/kfd/kfd/topology/nodes/1/properties";

// A Strix Halo on a kernel with AMD's KFD fixes (the node exports cwsr_size and ctl_stack_size).
void StrixHalo(const WorldCopy& w) {
  std::string props = w.Read(kStrixNode);
  props.replace(props.find("gfx_target_version 110500"), 25, "gfx_target_version 110501");
  w.Write(kStrixNode, props + "cwsr_size 4263936\nctl_stack_size 20480\n");
}

// The captured Strix Point (LACT's snapshot) runs MES 0x00000083, the firmware ROCm#5724 had rolled back.
constexpr std::string_view kStrixMes = "sys/devices/pci0000:00/0000:c1:00.0/fw_version/mes_fw_version";

// Strix Point (gfx1150, the captured world) and Strix Halo (gfx1151): ROCm#5724.
TEST(DoctorLogTest, StrixFaultsPointAtTheMesFirmware) {
  for (bool halo : {false, true}) {
    SCOPED_TRACE(halo ? "gfx1151" : "gfx1150");
    WorldCopy w("strixpoint");
    testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
    if (halo) StrixHalo(w);
    ASSERT_EQ(w.Read(kStrixMes), "0x00000083\n");
    std::string crash = FaultLog(1) + DmesgFault("0000:c1:00.0");
    json log = LogSection(w, crash);
    EXPECT_EQ(log["gpus"], json::array({"0000:c1:00.0"}));
    EXPECT_EQ(log["likely_cause"], "issue.strix-mes-firmware-0x83");
    const json& m = Match(log, "issue.strix-mes-firmware-0x83");
    EXPECT_THAT(m["evidence"], Contains("0000:c1:00.0 runs MES firmware 0x00000083"));
    EXPECT_THAT(m["fix"]["text"].get<std::string>(), HasSubstr("mes_fw_version"));
    // Without a log doctor names it too: the firmware alone is the risk.
    json doc = w.Ctl({"doctor", "--json"}).Json();
    bool named = false;
    for (const json& f : doc["findings"]) named |= f["id"] == "issue.strix-mes-firmware-0x83";
    EXPECT_TRUE(named) << doc["findings"].dump();
    // With the reverted firmware the same log is not blamed on it.
    w.Write(kStrixMes, "0x00000080\n");
    json fixed = LogSection(w, crash);
    EXPECT_THAT(LogFindingIds(fixed), Not(Contains("issue.strix-mes-firmware-0x83")));
    EXPECT_THAT(LogFindingIds(fixed), Contains("log.unexplained-crash"));
    if (!halo) continue;
    // A Strix Halo kernel without AMD's KFD fixes (no cwsr_size): that is the likely cause.
    std::string props = w.Read(kStrixNode);
    w.Write(kStrixNode, props.substr(0, props.find("cwsr_size")));
    json old_kernel = LogSection(w, crash);
    EXPECT_EQ(old_kernel["likely_cause"], "issue.strix-halo-kernel-without-kfd-fixes");
  }
  // An RDNA3 dGPU's fault is not the Strix firmware.
  WorldCopy other("rx7900xtx");
  testing::GiveKfd(other);  // the capture has no KFD: give the GPU the node ROCm needs
  EXPECT_THAT(LogFindingIds(LogSection(other, FaultLog(1))), Not(Contains("issue.strix-mes-firmware-0x83")));
}

// RDNA2 (rx6600, gfx1032) under ROCm 6.4 with a Winograd fault: the MIOpen issue.
TEST(DoctorLogTest, Rdna2ConvFaultOnAnRx6600IsTheMiopenIssue) {
  WorldCopy w("rx6600");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  w.Write("opt/rocm/.info/version", "6.4.1\n");
  json log = LogSection(w, "MIOpen(HIP): Info [Conv_Winograd_v30_3_1]\n" + FaultLog(1) + DmesgFault("0000:12:00.0"));
  EXPECT_EQ(log["likely_cause"], "issue.rdna2-miopen-conv-fault");
  EXPECT_THAT(Subjects(log), ElementsAre("0000:12:00.0"));
}

// rocBLAS's abort when its Tensile library has no code for the GPU (the lines of ROCm/ROCm#4625,
// gfx906 on ROCm 6.4.0, as an RX 6700 XT's gfx1031 prints them): the GPU without code and the fix
// that works here (the in-family override), never "report it upstream".
TEST(DoctorLogTest, RocblasTensileLibraryAbortNamesTheGpuWithoutCodeAndTheOverride) {
  WorldCopy w("rx6900xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  const std::string node = "sys/class/kfd/kfd/topology/nodes/1/properties";
  std::string props = w.Read(node);
  props.replace(props.find("gfx_target_version 100300"), 25, "gfx_target_version 100301");
  w.Write(node, props);
  w.Write("opt/rocm/.info/version", "6.4.0\n");
  const std::string log =
      "rocBLAS error: Cannot read /opt/rocm-6.4.0/lib/rocblas/library/TensileLibrary.dat: No such file or "
      "directory for GPU arch : gfx1031\n List of available TensileLibrary Files : \n"
      "\"/opt/rocm-6.4.0/lib/rocblas/library/TensileLibrary_lazy_gfx1030.dat\"\n"
      "\"/opt/rocm-6.4.0/lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat\"\nAborted (core dumped)\n";
  json log_doc = LogSection(w, log);
  EXPECT_EQ(log_doc["likely_cause"], "log.missing-code-object");
  EXPECT_THAT(LogFindingIds(log_doc), Not(Contains("log.unexplained-crash")));
  const json& m = Match(log_doc, "log.missing-code-object");
  EXPECT_EQ(m["subject"], "0000:0c:00.0");
  EXPECT_THAT(m["what"].get<std::string>(), HasSubstr("gfx1031"));
  EXPECT_THAT(m["fix"]["text"].get<std::string>(), HasSubstr("HSA_OVERRIDE_GFX_VERSION=10.3.0"));
  EXPECT_THAT(m["fix"]["text"].get<std::string>(), Not(HasSubstr("github.com/ROCm/ROCm/issues")));
  // "Illegal seek", the newer rocBLAS's errno text, is the same abort.
  json seek = LogSection(w, "rocBLAS error: Cannot read /x/TensileLibrary.dat: Illegal seek for GPU arch : gfx1031\n");
  EXPECT_EQ(seek["likely_cause"], "log.missing-code-object");
}

// The MES hang lines (kernel mes_v11_0.c, kfd_device_queue_manager.c; as in ROCm/ROCm#5724's
// journals) on a Strix GPU running MES 0x83 are that firmware; with 0x80 they are not.
TEST(DoctorLogTest, MesHangLinesOnStrixWithMes0x83AreTheFirmware) {
  WorldCopy w("strixpoint");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  ASSERT_EQ(w.Read(kStrixMes), "0x00000083\n");
  const std::string log =
      "kernel: amdgpu 0000:c1:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE\n"
      "kernel: amdgpu 0000:c1:00.0: amdgpu: failed to remove hardware queue from MES, doorbell=0x1806\n"
      "kernel: amdgpu 0000:c1:00.0: amdgpu: MES might be in unrecoverable state, issue a GPU reset\n"
      "kernel: amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!\n";
  json log_doc = LogSection(w, log);
  EXPECT_EQ(log_doc["gpus"], json::array({"0000:c1:00.0"}));
  EXPECT_EQ(log_doc["likely_cause"], "issue.strix-mes-firmware-0x83");
  EXPECT_THAT(Match(log_doc, "issue.strix-mes-firmware-0x83")["symptoms"], Contains("MES failed to respond"));
  w.Write(kStrixMes, "0x00000080\n");
  EXPECT_THAT(LogFindingIds(LogSection(w, log)), Not(Contains("issue.strix-mes-firmware-0x83")));
}

// A generic fault line (llama.cpp, ollama: no MIOpen solver named) on RDNA2 under ROCm 6.4 is not
// the MIOpen convolution issue; the same line with a Winograd solver is (the test above).
TEST(DoctorLogTest, AGenericFaultOnRdna2IsNotBlamedOnMiopen) {
  WorldCopy w("rx6600");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  w.Write("opt/rocm/.info/version", "6.4.1\n");
  json log_doc = LogSection(w, "llama_model_load: loaded meta data\n" + FaultLog(1) + DmesgFault("0000:12:00.0"));
  EXPECT_THAT(LogFindingIds(log_doc), Not(Contains("issue.rdna2-miopen-conv-fault")));
  EXPECT_THAT(LogFindingIds(log_doc), Contains("log.unexplained-crash"));
  // The machine's note says which line makes it this issue.
  json doc = w.Ctl({"doctor", "--json"}).Json();
  bool note = false;
  for (const json& f : doc["findings"])
    if (f["id"] == "issue.rdna2-miopen-conv-fault") {
      note = true;
      EXPECT_THAT(f["what"].get<std::string>(), HasSubstr("with \"Conv_Winograd\""));
    }
  EXPECT_TRUE(note);
}

// An aperture violation on RDNA1 is the 10.3.0 override in the crashed program's environment, even
// when the environment rocmtune judged does not set it: the match says where to look. An override
// of another value there rules it out.
TEST(DoctorLogTest, ApertureViolationOnRdna1SaysToLookForTheOverride) {
  WorldCopy w("rx5700xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  w.Write("opt/rocm/.info/version", "6.2.0\n");
  const std::string log = std::string(kAperture) + "Aborted (core dumped)\n";
  json log_doc = LogSection(w, log);
  EXPECT_EQ(log_doc["likely_cause"], "issue.rdna1-override-gfx1030");
  const json& m = Match(log_doc, "issue.rdna1-override-gfx1030");
  EXPECT_THAT(m["fix"]["text"].get<std::string>(),
              HasSubstr("Look for HSA_OVERRIDE_GFX_VERSION=10.3.* in the crashed program's own environment"));
  EXPECT_THAT(m["evidence"], Contains(HasSubstr("not set in the environment rocmtune judged")));
  // Set in the shell that runs doctor: the match is plain, no "look for".
  ::setenv("HSA_OVERRIDE_GFX_VERSION", "10.3.0", 1);
  json seen = LogSection(w, log);
  ::setenv("HSA_OVERRIDE_GFX_VERSION", "11.0.0", 1);
  json other = LogSection(w, log);
  ::unsetenv("HSA_OVERRIDE_GFX_VERSION");
  EXPECT_EQ(seen["likely_cause"], "issue.rdna1-override-gfx1030");
  EXPECT_THAT(Match(seen, "issue.rdna1-override-gfx1030")["fix"]["text"].get<std::string>(),
              Not(HasSubstr("Look for")));
  EXPECT_THAT(LogFindingIds(other), Not(Contains("issue.rdna1-override-gfx1030")));
}

// A large model that fails to allocate on an APU (Phoenix, gfx1103, TTM at its default of half the
// RAM) points at the memory ROCm can allocate there, with the numbers and the limit that caps it.
TEST(DoctorLogTest, OutOfResourcesOnAnApuIsTheAllocatableMemoryLimit) {
  WorldCopy w("phoenix");
  testing::GiveKfd(w);                                       // the capture has no KFD: give the GPU the node ROCm needs
  w.Write("proc/meminfo", "MemTotal:       61394488 kB\n");  // pages_limit 7674311 is half of it
  const std::string log =
      "llama_model_load: loading model tensors\n"
      "hsa_amd_memory_pool_allocate failed: HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the "
      "necessary resources.\n";
  json log_doc = LogSection(w, log);
  EXPECT_EQ(log_doc["likely_cause"], "issue.apu-rocm-memory-limit");
  const json& m = Match(log_doc, "issue.apu-rocm-memory-limit");
  EXPECT_THAT(m["evidence"].dump(),
              HasSubstr("ROCm can allocate 29.2 GiB of 58.5 GiB RAM (limited by ttm.pages_limit"));
  EXPECT_THAT(m["fix"]["text"].get<std::string>(), HasSubstr("ttm.pages_limit"));
  // With the limit raised past half the RAM, the same log is not blamed on it.
  w.Write("sys/module/ttm/parameters/pages_limit", "12582912\n");  // 48 GiB
  w.Write("sys/devices/pci0000:00/0000:64:00.0/mem_info_gtt_total", std::to_string(12582912ULL * 4096) + "\n");
  EXPECT_THAT(LogFindingIds(LogSection(w, log)), Not(Contains("issue.apu-rocm-memory-limit")));
}

// A crash no known issue explains: a warning with what was seen and what to collect, exit 1.
TEST(DoctorLogTest, AnUnexplainedCrashIsAWarningNeverNothingWrongFound) {
  WorldCopy w("rx6900xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  w.Write("opt/rocm/.info/version", "7.0.2\n");
  std::string crash = FaultLog(1) + DmesgFault("0000:0c:00.0");
  CliResult text = RunLog(w, crash, /*json_out=*/false);
  EXPECT_EQ(text.exit_code, kExitFailed) << text.out;
  EXPECT_THAT(text.out, Not(HasSubstr("Nothing wrong found")));
  EXPECT_THAT(text.out, HasSubstr("The log shows no known cause:"));
  EXPECT_THAT(text.out, HasSubstr("rocmtunectl snapshot"));
  EXPECT_THAT(text.out, HasSubstr("id: log.unexplained-crash"));
  EXPECT_THAT(text.out, HasSubstr("The log names 0000:0c:00.0: GPU 0000:0c:00.0"));
  json log = LogSection(w, crash);
  EXPECT_TRUE(log["likely_cause"].is_null());
  const json& m = Match(log, "log.unexplained-crash");
  EXPECT_EQ(m["severity"], "warning");
  EXPECT_THAT(m["evidence"], Contains(HasSubstr("GPU memory access fault")));
  EXPECT_THAT(m["evidence"], Contains(HasSubstr("GPU page fault")));
  EXPECT_THAT(m["sources"], Each(Not(HasSubstr(".md"))));
  // The same machine without a crash in the log stays quiet.
  CliResult fine = RunLog(w, "training finished\n", /*json_out=*/false);
  EXPECT_EQ(fine.exit_code, kExitOk) << fine.out;
  EXPECT_THAT(fine.out, HasSubstr("Nothing wrong found"));
}

}  // namespace
}  // namespace rocmtune::client
