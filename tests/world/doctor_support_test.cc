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

// The rocm.* findings, in order.
std::vector<json> RocmFindings(const json& doc) {
  std::vector<json> out;
  for (const json& f : doc["findings"])
    if (f["id"].get<std::string>().starts_with("rocm.")) out.push_back(f);
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
    // Before ROCm 7.0 the RDNA2 convolution fault is a risk doctor names (a warning): exit 1.
    EXPECT_EQ(d.exit_code, std::string(rocm) < "7" ? kExitFailed : kExitOk) << d.doc["findings"].dump(1);
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
    json f = OnlyRocmFinding(d.doc);
    EXPECT_EQ(f["id"], "rocm.gpu-not-supported");
    EXPECT_EQ(f["severity"], "warning");
    EXPECT_EQ(f["what"], std::string("gfx1151 is not a supported target of ROCm ") + rocm);
    EXPECT_EQ(f["fix"]["rocm"], "7.0.2");
    EXPECT_THAT(f["fix"]["text"].get<std::string>(), HasSubstr("nearest ROCm release that supports gfx1151 is 7.0.2"));
    EXPECT_THAT(f["sources"], Contains(HasSubstr("ROCm/ROCm#5108")));
    EXPECT_EQ(d.exit_code, kExitFailed);
  }
  SupportDoctor d = RunSupportDoctor(w, "7.0.2");
  json f = OnlyRocmFinding(d.doc);
  EXPECT_EQ(f["id"], "rocm.gpu-supported");
  EXPECT_THAT(f["why"].get<std::string>(), HasSubstr("Radeon and Ryzen"));
}

TEST(DoctorSupportTest, Rdna1IsTheKnownIssueOnlyNotAlsoTheGenericWarning) {
  WorldCopy w("rx5700xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  for (const char* rocm : {"5.2.0", "6.2.4", "7.2.0"}) {
    SCOPED_TRACE(rocm);
    SupportDoctor d = RunSupportDoctor(w, rocm);
    std::set<std::string> ids = SupportFindingIds(d.doc);
    EXPECT_THAT(ids, Contains("issue.rdna1-not-supported"));
    EXPECT_THAT(ids, Not(Contains("rocm.gpu-not-supported")));
    EXPECT_TRUE(RocmFindings(d.doc).empty()) << d.doc["findings"].dump(1);
  }
}

TEST(DoctorSupportTest, ATargetNoReleaseSupportsSaysNone) {
  WorldCopy w("rx6600");
  testing::GiveKfd(
      w);  // the capture has no KFD: give the GPU the node ROCm needs  // gfx1032 (Navi 23), on ROCm 6.3.1 as captured
  SupportDoctor d = RunSupportDoctor(w);
  json f = OnlyRocmFinding(d.doc);
  EXPECT_EQ(f["id"], "rocm.gpu-not-supported");
  EXPECT_EQ(f["what"], "gfx1032 is not a supported target of ROCm 6.3.1");
  EXPECT_TRUE(f["fix"]["rocm"].is_null());
  EXPECT_THAT(f["fix"]["none"].get<std::string>(), HasSubstr("no ROCm release supports this GPU"));
  EXPECT_THAT(f["fix"]["text"].get<std::string>(), HasSubstr("No ROCm release from 5.0 to 7.2 supports gfx1032"));
}

TEST(DoctorSupportTest, EndOfLifeRowsAreCalledUnsupportedAndADroppedTargetPointsBack) {
  WorldCopy vega("vega56");
  testing::GiveKfd(vega);  // the capture has no KFD: give the GPU the node ROCm needs  // gfx900 on ROCm 5.7.1: the
                           // MI25 row says unsupported
  json f = OnlyRocmFinding(RunSupportDoctor(vega).doc);
  EXPECT_EQ(f["id"], "rocm.gpu-not-supported");
  EXPECT_THAT(f["why"].get<std::string>(), HasSubstr("lists gfx900 as unsupported"));
  EXPECT_TRUE(f["fix"]["rocm"].is_null());
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
  std::vector<json> found = RocmFindings(d.doc);
  ASSERT_EQ(found.size(), d.doc["gpus"].size());
  for (const json& g : found) {
    EXPECT_EQ(g["id"], "rocm.gpu-not-supported");
    EXPECT_THAT(g["why"].get<std::string>(), HasSubstr("lists gfx906 as unsupported"));
    EXPECT_EQ(g["fix"]["rocm"], "6.2");  // no newer release: the last that supported it
    EXPECT_THAT(g["fix"]["text"].get<std::string>(), HasSubstr("older than the one installed"));
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
  EXPECT_EQ(f["what"], "ROCm 3.5.1 is not in rocmtune's GPU support table (5.0 to 7.2)");
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
