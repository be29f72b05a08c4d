// api::CheckCompute on copies of captured worlds with the seeds' settings written in (as
// tests/world/doctor_test.cc makes them): per GPU and workload, the known issue that makes it
// unsafe, its outcome and evidence; a fix in effect clears it; the errors for a workload or device
// that does not exist; the answer when there is no GPU.
#include "api/check_compute.h"

#include <filesystem>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace rocmtune::api {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::WorldCopy;

sys::Root Open(const WorldCopy& w) { return *sys::Root::Open(w.root()); }

ComputeReport Check(const WorldCopy& w, std::string_view workload, std::string_view device = "") {
  auto report = CheckCompute(Open(w), workload, device);
  EXPECT_TRUE(report) << report.error().message;
  return report ? *report : ComputeReport{};
}

std::set<std::string> ReasonIds(const ComputeReport& r) {
  std::set<std::string> ids;
  for (const ComputeGpu& g : r.gpus)
    for (const ComputeReason& reason : g.reasons) ids.insert(reason.finding.id);
  return ids;
}

// A known issue only a crash log can show (MIOpen faults AMD could not reproduce) never decides a
// verdict: every RX 6800/6900 on ROCm < 7.0 was "not safe for conv" with no crash seen. It stays
// a note, "if a program's log shows X, the likely cause is Y".
TEST(CheckComputeTest, Rdna2BeforeRocm7IsSafeWithTheMiopenFaultAsANote) {
  WorldCopy w("rx6900xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs  // gfx1030, ROCm 6.2.4 as captured
  for (std::string_view workload : {"conv", "gemm", "any"}) {
    ComputeReport r = Check(w, workload);
    ASSERT_EQ(r.gpus.size(), 1u);
    EXPECT_TRUE(r.safe()) << workload;
    EXPECT_EQ(r.gpus[0].state, diagnose::State::kSafe) << workload;
    EXPECT_THAT(r.gpus[0].reasons, IsEmpty()) << workload;
  }
  ComputeReport conv = Check(w, "conv");
  ASSERT_EQ(conv.gpus[0].notes.size(), 1u);
  const ComputeReason& note = conv.gpus[0].notes[0];
  EXPECT_EQ(note.finding.id, "issue.rdna2-miopen-conv-fault");
  EXPECT_EQ(note.outcome, "none");
  EXPECT_THAT(note.finding.what, HasSubstr("If a program's log shows"));
  EXPECT_EQ(note.finding.fix.rocm, ">= 7.0");
  // ROCm 7: the rule no longer holds, not even as a note.
  w.Write("opt/rocm/.info/version", "7.0.2\n");
  EXPECT_THAT(Check(w, "conv").gpus[0].notes, IsEmpty());
}

// Before: "Rdna1IsUnsafeForEveryWorkloadAndTheOverrideIsACrashOnTop": every workload was not
// usable (issue.rdna1-not-supported, no-gpu, "use the CPU"). Changed: rdna1-not-supported is
// log_only; the code the runtime carries decides. AMD's rocBLAS has gfx1010 Tensile code from ROCm
// 6.2, MIOpen (AMD's GPU table standing in for its databases) has none: gemm is safe, conv and any
// are unsupported (runtime.no-code), and the GPU stays usable.
TEST(CheckComputeTest, Rdna1GemmIsSafeConvIsUnsupportedAndTheOverrideIsACrash) {
  WorldCopy w("rx5700xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs  // gfx1010
  w.Write("opt/rocm/.info/version", "6.2.0\n");
  for (std::string_view workload : {"conv", "any"}) {
    ComputeReport r = Check(w, workload);
    EXPECT_FALSE(r.safe()) << workload;
    EXPECT_EQ(r.state(), diagnose::State::kUnsupported) << workload;
    ASSERT_EQ(r.gpus.size(), 1u);
    EXPECT_TRUE(r.gpus[0].usable()) << workload;
    EXPECT_EQ(ReasonIds(r), std::set<std::string>{"runtime.no-code"}) << workload;
    EXPECT_EQ(r.gpus.at(0).reasons.at(0).outcome, "unsupported");
    EXPECT_THAT(r.gpus.at(0).reasons.at(0).finding.fix.text, HasSubstr("rocm[libraries,device-gfx1010]"));
    EXPECT_TRUE(r.gpus.at(0).reasons.at(0).finding.fix.none.empty());
  }
  ComputeReport safe_gemm = Check(w, "gemm");
  EXPECT_TRUE(safe_gemm.safe());
  EXPECT_EQ(safe_gemm.gpus.at(0).state, diagnose::State::kSafe);
  EXPECT_THAT(ReasonIds(safe_gemm), IsEmpty());
  // ROCm 5.2's rocBLAS has no gfx1010 Tensile code: gemm is unsupported there too.
  w.Write("opt/rocm/.info/version", "5.2.0\n");
  ComputeReport old_gemm = Check(w, "gemm");
  EXPECT_EQ(old_gemm.state(), diagnose::State::kUnsupported);
  EXPECT_EQ(ReasonIds(old_gemm), std::set<std::string>{"runtime.no-code"});
  w.Write("opt/rocm/.info/version", "6.2.0\n");
  // The seeds' override: a crash for every kind of work (ROCm#2527: convolutions and hipBLAS).
  w.Write("etc/environment", "HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
  ComputeReport gemm = Check(w, "gemm");
  EXPECT_EQ(gemm.state(), diagnose::State::kUnsafe);
  // The override runs another ISA's code: the code check says nothing (before, the
  // rdna1-not-supported issue was a reason as well), and the known issue replaces the generic
  // env.override-other-isa (one finding per fact).
  EXPECT_EQ(ReasonIds(gemm), (std::set<std::string>{"issue.rdna1-override-gfx1030"}));
  EXPECT_THAT(gemm.gpus.at(0).notes, IsEmpty());
  // ROCm 5.2, the last release the override is reported to work with: the known issue does not
  // hold, but the override still runs another ISA family's code (RDNA2 on RDNA1), which the
  // environment check says for any release (one verdict: status and doctor say it too).
  w.Write("opt/rocm/.info/version", "5.2.0\n");
  ComputeReport conv = Check(w, "conv");
  EXPECT_EQ(conv.state(), diagnose::State::kUnsafe);
  EXPECT_EQ(ReasonIds(conv), std::set<std::string>{"env.override-other-isa"});
}

TEST(CheckComputeTest, AHealthyGpuIsSafeForEveryWorkload) {
  for (std::string_view world : {"mi210x8", "rx7900xtx"}) {  // gfx90a on ROCm 6.2.0, gfx1100 on 6.1.3
    SCOPED_TRACE(world);
    WorldCopy w(world);
    testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
    for (std::string_view workload : {"conv", "gemm", "any"}) {
      ComputeReport r = Check(w, workload);
      EXPECT_TRUE(r.safe()) << workload;
      EXPECT_FALSE(r.gpus.empty());
      EXPECT_THAT(ReasonIds(r), IsEmpty());
      EXPECT_TRUE(r.reason.empty());
    }
  }
}

TEST(CheckComputeTest, StrixHaloAtTheTtmDefaultIsSafeWithALimitNoted) {
  WorldCopy w("strixpoint");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  std::string node = "sys/devices/virtual/kfd/kfd/topology/nodes/1/properties";
  std::string props = w.Read(node);
  props.replace(props.find("gfx_target_version 110500"), 25, "gfx_target_version 110501");
  // A kernel with AMD's KFD fixes (cwsr_size): without them every ROCm is unstable on gfx1151
  // (issue.strix-halo-kernel-without-kfd-fixes).
  w.Write(node, props + "cwsr_size 4263936\nctl_stack_size 20480\n");
  // The captured MES firmware 0x83 is a known crash of its own (issue.strix-mes-firmware-0x83).
  w.Write("sys/devices/pci0000:00/0000:c1:00.0/fw_version/mes_fw_version", "0x00000080\n");
  w.Write("proc/meminfo", "MemTotal:       32110204 kB\n");  // the captured GTT is half of it
  w.Write("opt/rocm/.info/version", "7.2.1\n");              // a release whose GPU table lists gfx1151
  ComputeReport r = Check(w, "any");
  ASSERT_EQ(r.gpus.size(), 1u);
  EXPECT_TRUE(r.safe());
  ASSERT_EQ(r.gpus[0].notes.size(), 1u);
  EXPECT_EQ(r.gpus[0].notes[0].finding.id, "issue.strix-halo-gtt-limit");
  EXPECT_EQ(r.gpus[0].notes[0].outcome, "limits");
}

// A GPU the runtime has no code for is never "safe" (the README's promise): gfx900 on ROCm 5.7.1,
// whose GPU table calls it unsupported, and no library of it was found to say otherwise.
TEST(CheckComputeTest, AGpuTheRuntimeHasNoCodeForIsUnsupported) {
  WorldCopy w("vega56");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs  // gfx900, ROCm 5.7.1 as captured
  ComputeReport r = Check(w, "conv");
  ASSERT_EQ(r.gpus.size(), 1u);
  EXPECT_FALSE(r.safe());
  EXPECT_EQ(r.state(), diagnose::State::kUnsupported);
  ASSERT_EQ(r.gpus[0].reasons.size(), 1u);
  EXPECT_EQ(r.gpus[0].reasons[0].finding.id, "runtime.no-code");
  EXPECT_EQ(r.gpus[0].reasons[0].outcome, "unsupported");
  EXPECT_THAT(r.gpus[0].reasons[0].finding.what, HasSubstr("ROCm 5.7.1"));
  EXPECT_THAT(r.gpus[0].reasons[0].finding.why, HasSubstr("AMD's GPU table for ROCm"));
  nlohmann::ordered_json doc = CheckComputeJson(r);
  EXPECT_EQ(doc["state"], "unsupported");
  EXPECT_EQ(doc["safe"], false);
  EXPECT_EQ(doc["gpus"][0]["reasons"][0]["outcome"], "unsupported");
  // Without any runtime there is nothing to judge the code by: unknown, safe is null, not true.
  std::filesystem::remove_all(std::filesystem::path(w.root()) / "opt");
  ComputeReport none = Check(w, "conv");
  EXPECT_EQ(none.state(), diagnose::State::kUnknown);
  EXPECT_THAT(ReasonIds(none), Contains("runtime.unknown"));
  EXPECT_TRUE(CheckComputeJson(none)["safe"].is_null());
}

// An APU target AMD's libraries lack (gfx1103 on ROCm 6.3.0) is unsupported, and the fix that
// works here is named: the in-family override, never "fix: none".
TEST(CheckComputeTest, AnUnsupportedApuGetsTheInFamilyOverrideAsItsFix) {
  WorldCopy w("phoenix");  // gfx1103, ROCm 6.3.0 as captured
  testing::GiveKfd(w);
  ComputeReport r = Check(w, "gemm");
  ASSERT_EQ(r.gpus.size(), 1u);
  EXPECT_EQ(r.state(), diagnose::State::kUnsupported);
  const DoctorFinding& f = r.gpus[0].reasons.at(0).finding;
  EXPECT_EQ(f.id, "runtime.no-code");
  EXPECT_TRUE(f.fix.none.empty());
  EXPECT_THAT(f.fix.set, Contains("env.HSA_OVERRIDE_GFX_VERSION=11.0.0"));
  // With that override in effect the runtime's gfx1100 code runs it, and the override is not
  // offered again.
  w.Write("etc/environment", "HSA_OVERRIDE_GFX_VERSION=11.0.0\n");
  ComputeReport fixed = Check(w, "gemm");
  EXPECT_TRUE(fixed.safe());
  EXPECT_THAT(ReasonIds(fixed), IsEmpty());
}

TEST(CheckComputeTest, AGpuWithoutARocmIsaIsNotUsable) {
  WorldCopy w("r9-280");
  testing::GiveKfd(
      w);  // the capture has no KFD: give the GPU the node ROCm needs  // Tahiti (SI): amdgpu drives it, KFD never does
  ComputeReport r = Check(w, "gemm");
  ASSERT_EQ(r.gpus.size(), 1u);
  EXPECT_FALSE(r.safe());
  EXPECT_THAT(ReasonIds(r), Contains("gpu.no-rocm-isa"));
  EXPECT_EQ(r.gpus[0].reasons.at(0).outcome, "no-gpu");
}

TEST(CheckComputeTest, NoGpuIsNotSafeAndSaysWhy) {
  for (std::string_view world : {"no-amd", "hd7870"}) {
    SCOPED_TRACE(world);
    WorldCopy w(world);
    testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
    ComputeReport r = Check(w, "conv");
    EXPECT_FALSE(r.safe());
    EXPECT_TRUE(r.gpus.empty());
    EXPECT_THAT(r.reason, HasSubstr("no AMD GPU driven by amdgpu"));
  }
  WorldCopy radeon("hd7870");
  testing::GiveKfd(radeon);  // the capture has no KFD: give the GPU the node ROCm needs
  EXPECT_THAT(Check(radeon, "any").reason, HasSubstr("is driven by radeon, not amdgpu"));
}

TEST(CheckComputeTest, ADeviceIsNamedByIdCardOrRenderNode) {
  WorldCopy w("rx6900xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  for (std::string_view device : {"0000:0c:00.0", "card0", "renderD128"}) {
    ComputeReport r = Check(w, "conv", device);
    ASSERT_EQ(r.gpus.size(), 1u) << device;
    EXPECT_EQ(r.gpus[0].gpu.id, "0000:0c:00.0");
    EXPECT_EQ(r.device, device);
  }
  WorldCopy many("mi210x8");
  testing::GiveKfd(many);  // the capture has no KFD: give the GPU the node ROCm needs
  ComputeReport all = Check(many, "any");
  ASSERT_EQ(all.gpus.size(), 8u);
  ComputeReport one = Check(many, "any", all.gpus[3].gpu.id);
  ASSERT_EQ(one.gpus.size(), 1u);
  EXPECT_EQ(one.gpus[0].gpu.id, all.gpus[3].gpu.id);
}

TEST(CheckComputeTest, UnknownWorkloadsAndDevicesAreTheCallersMistake) {
  WorldCopy w("rx6900xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  auto bad_workload = CheckCompute(Open(w), "convolution", "");
  ASSERT_FALSE(bad_workload);
  EXPECT_EQ(bad_workload.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(bad_workload.error().message, HasSubstr("unknown workload 'convolution': use one of conv, gemm, any"));
  auto bad_device = CheckCompute(Open(w), "conv", "card7");
  ASSERT_FALSE(bad_device);
  EXPECT_EQ(bad_device.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(bad_device.error().message, HasSubstr("no GPU 'card7' here (GPUs: 0000:0c:00.0 (card0))"));
  // What is not a name is not echoed back.
  auto hostile = CheckCompute(Open(w), std::string(4096, 'x') + "\n", "");
  ASSERT_FALSE(hostile);
  EXPECT_EQ(hostile.error().code, ErrorCode::kInvalidArgument);
  EXPECT_LT(hostile.error().message.size(), 200u);
  auto hostile_device = CheckCompute(Open(w), "conv", "card0\n");
  ASSERT_FALSE(hostile_device);
  EXPECT_EQ(hostile_device.error().code, ErrorCode::kInvalidArgument);
}

TEST(CheckComputeTest, TheDocumentCarriesTheContractsFields) {
  WorldCopy w("rx6900xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  w.Write("etc/environment", "HSA_OVERRIDE_GFX_VERSION=9.0.0\n");  // gfx900 code on gfx1030: a crash
  nlohmann::ordered_json doc = CheckComputeJson(Check(w, "conv", "card0"));
  EXPECT_EQ(doc["schema"], "rocmtune.check_compute.v1");
  EXPECT_EQ(doc["safe"], false);
  EXPECT_EQ(doc["state"], "unsafe");
  EXPECT_EQ(doc["program"]["kind"], "machine");  // no caller environment given: a login shell's programs
  EXPECT_EQ(doc["program"]["runtime"]["kind"], "system");
  EXPECT_EQ(doc["workload"], "conv");
  EXPECT_EQ(doc["device"], "card0");
  EXPECT_TRUE(doc["reason"].is_null());
  const auto& gpu = doc["gpus"].at(0);
  EXPECT_EQ(gpu["id"], "0000:0c:00.0");
  EXPECT_EQ(gpu["gfx_target"], "gfx1030");
  EXPECT_EQ(gpu["safe"], false);
  EXPECT_EQ(gpu["state"], "unsafe");
  EXPECT_EQ(gpu["visible"], true);
  EXPECT_EQ(gpu["hip_index"], 0);
  const auto& reason = gpu["reasons"].at(0);
  for (const char* key : {"id", "outcome", "title", "why", "evidence", "fix", "sources"})
    EXPECT_TRUE(reason.contains(key)) << key;
  EXPECT_FALSE(reason["sources"].empty());
  EXPECT_TRUE(reason["fix"]["text"].is_string());
  nlohmann::ordered_json none = CheckComputeJson(Check(WorldCopy("no-amd"), "any"));
  EXPECT_EQ(none["safe"], false);
  EXPECT_EQ(none["state"], "unusable");
  EXPECT_TRUE(none["gpus"].empty());
  EXPECT_TRUE(none["reason"].is_string());
  EXPECT_TRUE(none["device"].is_null());
}

}  // namespace
}  // namespace rocmtune::api
