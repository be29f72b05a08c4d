// `rocmtunectl check-compute` end to end on the seeds' machines: the exit code
// a script branches on, the human lines (one per GPU, then why and the fix), the JSON document,
// --device, the usage errors, no GPU; and a fix in effect (the override removed) clearing its crash.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"

namespace rocmtune::client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::ordered_json;
using testing::CliResult;
using testing::WorldCopy;

CliResult Check(const WorldCopy& w, std::vector<std::string> args) {
  args.insert(args.begin(), "check-compute");
  return w.Ctl(args);
}

std::vector<std::string> ReasonIds(const json& gpu) {
  std::vector<std::string> ids;
  for (const json& r : gpu["reasons"]) ids.push_back(r["id"]);
  return ids;
}

TEST(CheckComputeCliTest, Rdna2ConvolutionsAreNotSafeAndMatrixMultipliesAre) {
  WorldCopy w("rx6900xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs  // gfx1030, ROCm 6.2.4
  CliResult conv = Check(w, {"--workload", "conv"});
  EXPECT_EQ(conv.exit_code, kExitFailed) << conv.out << conv.err;
  EXPECT_THAT(conv.out, HasSubstr("0000:0c:00.0 card0 AMD Radeon RX 6900 XT"));
  EXPECT_THAT(conv.out, HasSubstr("(gfx1030): NOT SAFE for conv work\n  crash: MIOpen convolution"));
  EXPECT_THAT(conv.out, HasSubstr("    why: Memory access faults in MIOpen convolution solvers"));
  EXPECT_THAT(conv.out, HasSubstr("    fix: Upgrade to ROCm >= 7.0"));
  EXPECT_EQ(conv.err, "");
  CliResult gemm = Check(w, {"--workload", "gemm"});
  EXPECT_EQ(gemm.exit_code, kExitOk) << gemm.out << gemm.err;
  EXPECT_THAT(gemm.out, HasSubstr("(gfx1030): safe for gemm work\n"));
  EXPECT_THAT(gemm.out, Not(HasSubstr("crash:")));
  EXPECT_EQ(Check(w, {}).exit_code, kExitFailed);  // any: the convolution crash counts
}

TEST(CheckComputeCliTest, Rdna1IsNotSafeForAnythingAndRemovingTheOverrideRemovesItsCrash) {
  WorldCopy w("rx5700xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  w.Write("opt/rocm/.info/version", "6.2.0\n");
  for (const char* workload : {"conv", "gemm", "any"}) {
    CliResult r = Check(w, {"--workload", workload, "--json"});
    EXPECT_EQ(r.exit_code, kExitFailed) << workload << r.err;
    json doc = r.Json();
    EXPECT_EQ(doc["safe"], false);
    EXPECT_EQ(ReasonIds(doc["gpus"][0]), std::vector<std::string>{"issue.rdna1-not-supported"}) << workload;
    EXPECT_EQ(doc["gpus"][0]["reasons"][0]["outcome"], "no-gpu");
    EXPECT_THAT(doc["gpus"][0]["reasons"][0]["fix"]["none"].get<std::string>(), HasSubstr("use the CPU"));
  }
  // The seeds' override in /etc/environment adds the crash, for matrix multiplies too (rocmtune
  // itself refuses to set it on RDNA1, even with --force); removing it, as doctor's fix says,
  // takes the crash away and leaves the unsupported hardware.
  CliResult set = w.Ctl({"set", "env.HSA_OVERRIDE_GFX_VERSION=10.3.0", "--force"});
  EXPECT_EQ(set.exit_code, kExitRefused) << set.out << set.err;
  w.Write("etc/environment", "HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
  json with = Check(w, {"--workload", "gemm", "--json"}).Json();
  // The known issue and the environment check (another ISA family's code) both say it: a crash.
  EXPECT_EQ(ReasonIds(with["gpus"][0]), (std::vector<std::string>{"env.override-other-isa", "issue.rdna1-not-supported",
                                                                  "issue.rdna1-override-gfx1030"}));
  for (const auto& r : with["gpus"][0]["reasons"])
    if (r["id"] != "issue.rdna1-not-supported") {
      EXPECT_EQ(r["outcome"], "crash") << r["id"];
    }
  w.Write("etc/environment", "");
  json after = Check(w, {"--workload", "gemm", "--json"}).Json();
  EXPECT_EQ(ReasonIds(after["gpus"][0]), std::vector<std::string>{"issue.rdna1-not-supported"});
}

TEST(CheckComputeCliTest, AHealthyWorldIsSafe) {
  WorldCopy w("phoenix");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  CliResult r = Check(w, {});
  EXPECT_EQ(r.exit_code, kExitOk) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("0000:64:00.0 card1 "));
  // ROCm 6.3's table does not list the 780M: no known crash, and the support note.
  EXPECT_THAT(
      r.out,
      HasSubstr("(gfx1103): no known crash for any work, but not supported by the installed ROCm (see the note)\n"));
  // The MI210s on ROCm 6.2.0, which supports them: nothing to note.
  WorldCopy mi210("mi210x8");
  testing::GiveKfd(mi210);  // the capture has no KFD: give the GPU the node ROCm needs
  CliResult supported = Check(mi210, {});
  EXPECT_EQ(supported.exit_code, kExitOk) << supported.out << supported.err;
  EXPECT_THAT(supported.out, HasSubstr("(gfx90a): safe for any work\n"));
  EXPECT_THAT(supported.out, Not(HasSubstr("note:")));
  json doc = Check(w, {"--json"}).Json();
  EXPECT_EQ(doc["schema"], "rocmtune.check_compute.v1");
  EXPECT_EQ(doc["safe"], true);
  EXPECT_EQ(doc["workload"], "any");
  EXPECT_TRUE(doc["device"].is_null());
  EXPECT_TRUE(doc["reason"].is_null());
  ASSERT_EQ(doc["gpus"].size(), 1u);
  for (const char* key : {"id", "name", "card", "gfx_target", "safe", "reasons", "notes"})
    EXPECT_TRUE(doc["gpus"][0].contains(key)) << key;
  EXPECT_EQ(doc["gpus"][0]["safe"], true);
  EXPECT_TRUE(doc["gpus"][0]["reasons"].empty());
}

// gfx900 on ROCm 5.7.1, which AMD's table lists as unsupported: no known crash, and the note says
// what the release does not promise.
TEST(CheckComputeCliTest, AGpuTheInstalledRocmDoesNotSupportIsSafeWithTheSupportNote) {
  WorldCopy w("vega56");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  CliResult r = Check(w, {"--workload", "conv"});
  EXPECT_EQ(r.exit_code, kExitOk) << r.out << r.err;
  EXPECT_THAT(
      r.out,
      HasSubstr("(gfx900): no known crash for conv work, but not supported by the installed ROCm (see the note)\n"));
  EXPECT_THAT(r.out, HasSubstr("  note: gfx900 is not a supported target of ROCm 5.7.1 [rocm.gpu-not-supported]\n"));
  json doc = Check(w, {"--json"}).Json();
  EXPECT_EQ(doc["safe"], true);
  EXPECT_EQ(doc["gpus"][0]["notes"][0]["outcome"], "unsupported");
}

// The Strix Halo seed (gfx1151 at the TTM default: GTT half of RAM): programs run, with less
// memory than the APU has, so it is safe, and the GTT limit is a note with its profile.
TEST(CheckComputeCliTest, StrixHaloAtTheGttLimitIsSafeWithTheLimitAsANote) {
  WorldCopy w("strixpoint");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  std::string node = "sys/devices/virtual/kfd/kfd/topology/nodes/1/properties";
  std::string props = w.Read(node);
  props.replace(props.find("gfx_target_version 110500"), 25, "gfx_target_version 110501");
  w.Write(node, props);
  // The captured MES firmware 0x83 is a known crash of its own (issue.strix-mes-firmware-0x83).
  w.Write("sys/devices/pci0000:00/0000:c1:00.0/fw_version/mes_fw_version", "0x00000080\n");
  w.Write("proc/meminfo", "MemTotal:       32110204 kB\nMemFree:         1000000 kB\n");
  CliResult r = Check(w, {"--workload", "conv"});
  EXPECT_EQ(r.exit_code, kExitOk) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("(gfx1151): safe for conv work, with limits (see the notes)\n"));
  json doc = Check(w, {"--json"}).Json();
  ASSERT_EQ(doc["gpus"].size(), 1u);
  EXPECT_EQ(doc["gpus"][0]["gfx_target"], "gfx1151");
  EXPECT_EQ(doc["gpus"][0]["safe"], true);
  EXPECT_TRUE(doc["gpus"][0]["reasons"].empty());
  std::vector<std::string> notes;
  for (const json& n : doc["gpus"][0]["notes"]) notes.push_back(n["id"]);
  EXPECT_THAT(notes, ::testing::Contains("issue.strix-halo-gtt-limit")) << doc.dump();
}

TEST(CheckComputeCliTest, DeviceSelectsOneGpu) {
  WorldCopy w("mi210x8");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  json all = Check(w, {"--json"}).Json();
  ASSERT_EQ(all["gpus"].size(), 8u);
  std::string id = all["gpus"][5]["id"];
  CliResult one = Check(w, {"--device", id, "--json"});
  EXPECT_EQ(one.exit_code, kExitOk) << one.err;
  json doc = one.Json();
  ASSERT_EQ(doc["gpus"].size(), 1u);
  EXPECT_EQ(doc["gpus"][0]["id"], id);
  EXPECT_EQ(doc["device"], id);
  WorldCopy rdna2("rx6900xt");
  testing::GiveKfd(rdna2);  // the capture has no KFD: give the GPU the node ROCm needs
  EXPECT_EQ(Check(rdna2, {"--device", "renderD128", "--workload", "gemm"}).exit_code, kExitOk);
  EXPECT_EQ(Check(rdna2, {"--device", "card0", "--workload", "conv"}).exit_code, kExitFailed);
}

TEST(CheckComputeCliTest, UnknownWorkloadOrDeviceIsAUsageError) {
  WorldCopy w("rx6900xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  CliResult workload = Check(w, {"--workload", "convolution"});
  EXPECT_EQ(workload.exit_code, kExitUsage);
  EXPECT_EQ(workload.err, "rocmtunectl: unknown workload 'convolution': use one of conv, gemm, any\n");
  EXPECT_EQ(workload.out, "");
  CliResult device = Check(w, {"--device", "card9", "--json"});
  EXPECT_EQ(device.exit_code, kExitUsage);
  json doc = device.Json();
  EXPECT_EQ(doc["schema"], "rocmtune.error.v1");
  EXPECT_EQ(doc["code"], "not-found");
  EXPECT_THAT(doc["message"].get<std::string>(), HasSubstr("no GPU 'card9' here"));
  EXPECT_EQ(Check(w, {"--workload"}).exit_code, kExitUsage);  // CLI11: the option needs its value
}

TEST(CheckComputeCliTest, NoGpuIsExitOneWithTheReason) {
  WorldCopy w("no-amd");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  CliResult r = Check(w, {"--workload", "conv"});
  EXPECT_EQ(r.exit_code, kExitFailed);
  EXPECT_EQ(r.out, "No usable GPU: no AMD GPU driven by amdgpu was found\n");
  json doc = Check(w, {"--json"}).Json();
  EXPECT_EQ(doc["safe"], false);
  EXPECT_TRUE(doc["gpus"].empty());
  EXPECT_EQ(doc["reason"], "no AMD GPU driven by amdgpu was found");
}

}  // namespace
}  // namespace rocmtune::client
