// `rocmtunectl doctor`'s GPU support check on the seeds' machines: each GPU's
// gfx target against the installed ROCm release's GPU table (data/rocm_support.toml). A
// supported target is an info naming the release; one the release does not support is a warning
// with the nearest release that does (or none); the RDNA1 known issue replaces the generic
// warning for its GPUs; without /opt/rocm/.info/version an AMD machine gets one info.
#include <filesystem>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"
#include "test_tree.h"
#include "world_names.h"

namespace rocmtune::client {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::ordered_json;
using testing::WorldCopy;

struct SupportDoctor {
  int exit_code;
  json doc;
};

SupportDoctor RunSupportDoctor(const WorldCopy& w, std::optional<std::string_view> rocm = std::nullopt) {
  if (rocm) w.Write("opt/rocm/.info/version", std::string(*rocm) + "\n");
  auto r = w.Ctl({"doctor", "--json"});
  json doc = r.Json();
  EXPECT_EQ(doc["schema"], "rocmtune.doctor.v1") << r.out << r.err;
  return {r.exit_code, doc};
}

// The rocm.* findings (AMD's GPU table), in order.
std::vector<json> RocmFindings(const json& doc) {
  std::vector<json> out;
  for (const json& f : doc["findings"])
    if (f["id"].get<std::string>().starts_with("rocm.")) out.push_back(f);
  return out;
}

// The finding of the runtime's code for each GPU (runtime.code or runtime.no-code), in order.
std::vector<json> CodeFindings(const json& doc) {
  std::vector<json> out;
  for (const json& f : doc["findings"])
    if (f["id"] == "runtime.code" || f["id"] == "runtime.no-code") out.push_back(f);
  return out;
}

std::set<std::string> SupportFindingIds(const json& doc) {
  std::set<std::string> ids;
  for (const json& f : doc["findings"]) ids.insert(f["id"].get<std::string>());
  return ids;
}

// The only rocm.* finding; fails the test when there is not exactly one.
json OnlyRocmFinding(const json& doc) {
  std::vector<json> found = RocmFindings(doc);
  EXPECT_EQ(found.size(), 1u) << doc["findings"].dump(1);
  return found.empty() ? json() : found.front();
}

void MakeStrixHalo(const WorldCopy& w) {
  std::string node = "sys/devices/virtual/kfd/kfd/topology/nodes/1/properties";
  std::string props = w.Read(node);
  props.replace(props.find("gfx_target_version 110500"), 25, "gfx_target_version 110501");
  w.Write(node, props);
}

TEST(DoctorSupportTest, Gfx1030IsSupportedFrom5xTo7x) {
  WorldCopy w("rx6900xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  for (const char* rocm : {"5.4.3", "6.2.4", "7.2.0"}) {
    SCOPED_TRACE(rocm);
    SupportDoctor d = RunSupportDoctor(w, rocm);
    json f = OnlyRocmFinding(d.doc);
    EXPECT_EQ(f["id"], "rocm.gpu-supported");
    EXPECT_EQ(f["severity"], "info");
    EXPECT_EQ(f["what"], std::string("gfx1030 is a supported target of ROCm ") + rocm);
    EXPECT_EQ(f["subject"], d.doc["gpus"][0]["id"]);
    EXPECT_FALSE(f["sources"].empty());
    // The RDNA2 convolution fault before ROCm 7.0 is log-only: a note, no problem (it was exit 1).
    EXPECT_EQ(d.exit_code, kExitOk) << d.doc["findings"].dump(1);
    std::vector<json> code = CodeFindings(d.doc);
    ASSERT_EQ(code.size(), 1u);
    EXPECT_EQ(code[0]["id"], "runtime.code");
  }
}

TEST(DoctorSupportTest, Gfx1151IsNotSupportedBefore702AndNamesIt) {
  WorldCopy w("strixpoint");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  MakeStrixHalo(w);
  for (const char* rocm : {"6.4.1", "7.0.0"}) {
    SCOPED_TRACE(rocm);
    SupportDoctor d = RunSupportDoctor(w, rocm);
    ASSERT_EQ(d.doc["gpus"][0]["gfx_target"], "gfx1151");
    // The table's "not supported" and the runtime's missing code are one fact: runtime.no-code
    // says it, with the release that has the code.
    EXPECT_TRUE(RocmFindings(d.doc).empty()) << d.doc["findings"].dump(1);
    std::vector<json> code = CodeFindings(d.doc);
    ASSERT_EQ(code.size(), 1u);
    json f = code[0];
    EXPECT_EQ(f["id"], "runtime.no-code");
    EXPECT_EQ(f["severity"], "warning");
    // AMD's rocBLAS carries gfx1151 Tensile code from ROCm 6.3 (data/runtime_code.toml), so only
    // MIOpen (AMD's GPU table standing in for its databases) lacks it: conv, not gemm. Before this
    // said "gemm/conv", and the runtime's label had no "(/opt/rocm)".
    EXPECT_EQ(f["what"],
              std::string("system ROCm ") + rocm +
                  " (/opt/rocm) carries no code for gfx1151: programs cannot start their conv kernels on 0000:c1:00.0");
    EXPECT_EQ(f["effect"], "unsupported");
    EXPECT_EQ(f["fix"]["rocm"], "7.0.2");
    EXPECT_THAT(f["fix"]["text"].get<std::string>(), HasSubstr("ROCm 7.0.2, whose GPU table lists gfx1151"));
    EXPECT_THAT(f["sources"], Contains(HasSubstr("ROCm/ROCm#5108")));
    EXPECT_TRUE(f["fix"]["none"].is_null());
    EXPECT_EQ(d.exit_code, kExitFailed);
  }
  SupportDoctor d = RunSupportDoctor(w, "7.0.2");
  json f = OnlyRocmFinding(d.doc);
  EXPECT_EQ(f["id"], "rocm.gpu-supported");
  EXPECT_THAT(f["why"].get<std::string>(), HasSubstr("Radeon and Ryzen"));
  EXPECT_EQ(CodeFindings(d.doc).at(0)["id"], "runtime.code");
}

// Before: "Rdna1IsTheKnownIssueOnlyNotAlsoTheGenericWarning": issue.rdna1-not-supported (no-gpu)
// superseded rocm.gpu-not-supported. Changed: that issue is log_only (it explains a log) and
// supersedes nothing; the runtime's code decides. AMD's rocBLAS has no gfx1010 code in 5.2 and has
// it from 6.2, MIOpen (AMD's GPU table) never: runtime.no-code for gemm/conv, then conv only. It
// replaces AMD's table entry for the GPU, so the generic warning is still not said twice.
TEST(DoctorSupportTest, Rdna1IsTheRuntimesMissingCodeOnlyNotAlsoTheGenericWarning) {
  WorldCopy w("rx5700xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  for (auto [rocm, kernels] :
       {std::pair{"5.2.0", "gemm/conv"}, std::pair{"6.2.4", "conv"}, std::pair{"7.2.0", "conv"}}) {
    SCOPED_TRACE(rocm);
    SupportDoctor d = RunSupportDoctor(w, rocm);
    std::set<std::string> ids = SupportFindingIds(d.doc);
    EXPECT_THAT(ids, Not(Contains("issue.rdna1-not-supported")));
    EXPECT_THAT(ids, Not(Contains("rocm.gpu-not-supported")));
    EXPECT_TRUE(RocmFindings(d.doc).empty()) << d.doc["findings"].dump(1);
    std::vector<json> code = CodeFindings(d.doc);
    ASSERT_EQ(code.size(), 1u) << d.doc["findings"].dump(1);
    EXPECT_EQ(code[0]["id"], "runtime.no-code");
    EXPECT_EQ(code[0]["severity"], "warning");
    EXPECT_THAT(code[0]["what"].get<std::string>(),
                HasSubstr(std::string("no code for gfx1010: programs cannot start their ") + kernels + " kernels"));
    // A fix that gives it code, not "none".
    EXPECT_THAT(code[0]["fix"]["text"].get<std::string>(), HasSubstr("rocm[libraries,device-gfx1010]"));
    EXPECT_TRUE(code[0]["fix"]["none"].is_null());
    EXPECT_EQ(d.exit_code, kExitFailed);
  }
}

// gfx1032 is in no release's GPU table, yet a fix exists here: its ISA family's gfx1030 code, which
// the runtime carries. Doctor said "fix: none: no ROCm release supports this GPU".
TEST(DoctorSupportTest, ATargetNoReleaseListsGetsItsFamilysOverrideNotNone) {
  WorldCopy w("rx6600");
  testing::GiveKfd(
      w);  // the capture has no KFD: give the GPU the node ROCm needs  // gfx1032 (Navi 23), on ROCm 6.3.1 as captured
  SupportDoctor d = RunSupportDoctor(w);
  EXPECT_TRUE(RocmFindings(d.doc).empty()) << d.doc["findings"].dump(1);
  std::vector<json> code = CodeFindings(d.doc);
  ASSERT_EQ(code.size(), 1u);
  json f = code[0];
  EXPECT_EQ(f["id"], "runtime.no-code");
  EXPECT_TRUE(f["fix"]["none"].is_null());
  EXPECT_THAT(f["fix"]["set"], Contains("env.HSA_OVERRIDE_GFX_VERSION=10.3.0"));
  EXPECT_EQ(f["fix"]["profile"], "rdna2-consumer-compat");
  EXPECT_THAT(f["fix"]["text"].get<std::string>(), HasSubstr("run it as gfx1030 with HSA_OVERRIDE_GFX_VERSION=10.3.0"));
  // Once the profile is applied the override is in effect: the GPU runs gfx1030 code and the
  // override is not offered again.
  w.Write("etc/environment.d/90-rocmtune.conf", "HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
  SupportDoctor fixed = RunSupportDoctor(w);
  code = CodeFindings(fixed.doc);
  ASSERT_EQ(code.size(), 1u);
  EXPECT_EQ(code[0]["id"], "runtime.code");
  EXPECT_THAT(code[0]["what"].get<std::string>(), HasSubstr("runs it as HSA_OVERRIDE_GFX_VERSION=10.3.0"));
}

TEST(DoctorSupportTest, EndOfLifeRowsAreCalledUnsupportedAndADroppedTargetPointsBack) {
  WorldCopy vega("vega56");
  testing::GiveKfd(vega);  // the capture has no KFD: give the GPU the node ROCm needs  // gfx900 on ROCm 5.7.1: the
                           // MI25 row says unsupported
  json f = CodeFindings(RunSupportDoctor(vega).doc).at(0);
  EXPECT_EQ(f["id"], "runtime.no-code");
  EXPECT_THAT(f["why"].get<std::string>(), HasSubstr("AMD's GPU table for ROCm 5.7"));
  EXPECT_TRUE(f["fix"]["rocm"].is_null());  // every release from 5.0 lists gfx900 as unsupported
  EXPECT_FALSE(f["fix"]["text"].get<std::string>().empty());
  // MI50 (gfx906): supported in 6.0.0, deprecated 6.0.2 to 6.2, unsupported in 6.4.2 and 7.0. The
  // mi210x8 machine with KFD's gfx_target_version made 90006 stands in for one.
  WorldCopy mi50("mi210x8");
  testing::GiveKfd(mi50);  // the capture has no KFD: give the GPU the node ROCm needs
  std::string nodes = "sys/devices/virtual/kfd/kfd/topology/nodes";
  for (const auto& node : std::filesystem::directory_iterator(mi50.Path(nodes))) {
    std::string rel = nodes + "/" + node.path().filename().string() + "/properties";
    std::string props = mi50.Read(rel);
    if (size_t at = props.find("gfx_target_version 90010"); at != std::string::npos) {
      props.replace(at, 24, "gfx_target_version 90006");
      mi50.Write(rel, props);
    }
  }
  SupportDoctor d = RunSupportDoctor(mi50, "7.0.1");
  ASSERT_EQ(d.doc["gpus"][0]["gfx_target"], "gfx906");
  // One code finding per physical GPU (the KFD nodes of the 8 MI210s stand in for 8 MI50s).
  std::vector<json> found = CodeFindings(d.doc);
  ASSERT_EQ(found.size(), d.doc["gpus"].size());
  for (const json& g : found) {
    EXPECT_EQ(g["id"], "runtime.no-code");
    EXPECT_EQ(g["fix"]["rocm"], "6.2");  // no newer release: the last that supported it
    EXPECT_THAT(g["fix"]["text"].get<std::string>(), HasSubstr("older than this one"));
  }
  found = RocmFindings(RunSupportDoctor(mi50, "6.1.2").doc);
  ASSERT_EQ(found.size(), d.doc["gpus"].size());
  for (const json& g : found) {
    EXPECT_EQ(g["id"], "rocm.gpu-deprecated");
    EXPECT_EQ(g["severity"], "info");
  }
}

TEST(DoctorSupportTest, NoRocmOrAReleaseOutsideTheTableIsAnInfoOnlyWithAnAmdGpu) {
  WorldCopy strix("strixpoint");
  testing::GiveKfd(strix);  // the capture has no KFD: give the GPU the node ROCm needs  // no /opt/rocm
  json f = OnlyRocmFinding(RunSupportDoctor(strix).doc);
  EXPECT_EQ(f["id"], "rocm.not-installed");
  EXPECT_EQ(f["severity"], "info");
  WorldCopy none("no-amd");
  testing::GiveKfd(none);  // the capture has no KFD: give the GPU the node ROCm needs
  none.Write("opt/rocm/.info/version", "6.2.4\n");
  EXPECT_TRUE(RocmFindings(RunSupportDoctor(none).doc).empty());
  WorldCopy mi25("mi25");
  testing::GiveKfd(mi25);  // the capture has no KFD: give the GPU the node ROCm needs  // ROCm 3.5.1 as captured
  f = OnlyRocmFinding(RunSupportDoctor(mi25).doc);
  EXPECT_EQ(f["id"], "rocm.support-unknown");
  EXPECT_EQ(f["what"], "ROCm 3.5.1 is not in rocmtune's GPU support table (5.0 to 10.1)");
}

// Every seed world: one verdict per physical GPU with a gfx target (compute partitions share
// their GPU's), or one machine-wide info; none on a machine without an AMD GPU.
TEST(DoctorSupportTest, EveryWorldGetsOneVerdictPerPhysicalGpu) {
  testing::TestTree scratch;  // doctor writes nothing: the bundled worlds are read in place
  for (const std::string& name : testing::WorldNames()) {
    SCOPED_TRACE(name);
    auto r = testing::RunCtl(testing::WorldPath(name), {"doctor", "--json"}, scratch.path());
    SupportDoctor d{r.exit_code, r.Json()};
    ASSERT_EQ(d.doc["schema"], "rocmtune.doctor.v1") << r.out << r.err;
    std::vector<json> found = RocmFindings(d.doc);
    std::set<std::string> ids = SupportFindingIds(d.doc);
    std::set<std::string> gpus_with_gfx;
    for (const json& g : d.doc["gpus"])
      if (g["gfx_target"].is_string()) gpus_with_gfx.insert(g["id"].get<std::string>());
    if (d.doc["gpus"].empty()) {
      EXPECT_TRUE(found.empty());
      continue;
    }
    if (ids.count("rocm.not-installed") || ids.count("rocm.support-unknown")) {
      EXPECT_EQ(found.size(), 1u);
      continue;
    }
    // Where the runtime's code was judged, the code finding is the verdict; the table's word is
    // kept only where it adds to it (supported, deprecated, "not supported but has code").
    if (!CodeFindings(d.doc).empty()) found = CodeFindings(d.doc);
    std::set<std::string> subjects;
    for (const json& f : found) {
      EXPECT_TRUE(gpus_with_gfx.count(f["subject"].get<std::string>())) << f.dump();
      EXPECT_TRUE(subjects.insert(f["subject"].get<std::string>()).second) << f.dump();
    }
    if (!ids.count("issue.rdna1-not-supported")) {
      EXPECT_FALSE(found.empty());
    }
  }
  // mi300x-cpx: 8 MI300X in CPX mode, each listed once per compute partition.
  json cpx = testing::RunCtl(testing::WorldPath("mi300x-cpx"), {"doctor", "--json"}, scratch.path()).Json();
  EXPECT_GT(cpx["gpus"].size(), 8u);
  EXPECT_EQ(RocmFindings(cpx).size(), 8u);
}

}  // namespace
}  // namespace rocmtune::client
