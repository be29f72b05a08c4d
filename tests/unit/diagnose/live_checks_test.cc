// doctor's findings from live facts, and the status document's `live` object, over a fake
// table of rocm-smi-lib values.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/live_json.h"
#include "diagnose/checks.h"

namespace rocmtune::diagnose {
namespace {

using api::LiveJson;

// A healthy GPU: every value known, nothing to report.
detect::LiveFacts Healthy(std::string id = "0000:03:00.0") {
  detect::LiveFacts f{std::move(id), "rocm-smi-lib", "1.0.0", {}, detect::UnknownDevice("unused")};
  for (size_t i = 0; i < f.smi.firmware.size(); ++i) f.smi.firmware[i].version = {0x43 + i, {}};
  f.smi.ecc_enabled = {0x1, {}};
  for (auto& e : f.smi.ecc) e.count = {sys::SmiEccCount{0, 0}, {}};
  f.smi.pcie = {sys::SmiPcie{{{2500000000, 8}, {8000000000, 16}}, 1}, {}};
  f.smi.replay_count = {0, {}};
  f.smi.throttle_status = {0, {}};
  return f;
}

std::vector<std::string> Ids(const std::vector<Finding>& findings) {
  std::vector<std::string> ids;
  ids.reserve(findings.size());
  for (const Finding& f : findings) ids.push_back(f.id);
  return ids;
}

const Finding* Find(const std::vector<Finding>& findings, const std::string& id) {
  for (const Finding& f : findings)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(DoctorLiveTest, AHealthyGpuHasNoFinding) { EXPECT_TRUE(LiveChecks({Healthy()}).empty()); }

TEST(DoctorLiveTest, UncorrectableEccIsAnErrorCorrectableInfo) {
  detect::LiveFacts f = Healthy();
  f.smi.ecc[0].count = {sys::SmiEccCount{5, 2}, {}};  // umc: 5 corrected, 2 not
  auto found = LiveChecks({f});
  EXPECT_EQ(Ids(found), (std::vector<std::string>{"live.ecc-uncorrectable", "live.ecc-correctable"}));
  const Finding* ue = Find(found, "live.ecc-uncorrectable");
  ASSERT_TRUE(ue);
  EXPECT_EQ(ue->severity, detect::Severity::kError);
  EXPECT_EQ(ue->subject, "0000:03:00.0");
  EXPECT_EQ(ue->what, "Uncorrectable ECC errors since boot: umc 2");
  EXPECT_FALSE(ue->why.empty());
  EXPECT_FALSE(ue->fix.text.empty());
  EXPECT_FALSE(ue->sources.empty());
  EXPECT_EQ(Find(found, "live.ecc-correctable")->severity, detect::Severity::kInfo);
  // Correctable alone is no problem for doctor's exit code.
  f.smi.ecc[0].count = {sys::SmiEccCount{5, 0}, {}};
  EXPECT_EQ(Ids(LiveChecks({f})), (std::vector<std::string>{"live.ecc-correctable"}));
}

TEST(DoctorLiveTest, ALinkBelowItsFastestLevelIsInfo) {
  detect::LiveFacts f = Healthy();
  f.smi.pcie.value->current = 0;
  auto found = LiveChecks({f});
  ASSERT_EQ(Ids(found), (std::vector<std::string>{"live.pcie-below-max"}));
  EXPECT_EQ(found[0].severity, detect::Severity::kInfo);
  EXPECT_EQ(found[0].what, "The PCIe link runs at 2.5 GT/s x8; the GPU's fastest level is 8.0 GT/s x16");
}

TEST(DoctorLiveTest, ManyReplaysAreAWarningAFewNothing) {
  detect::LiveFacts f = Healthy();
  f.smi.replay_count = {kReplayWarning - 1, {}};
  EXPECT_TRUE(LiveChecks({f}).empty());
  f.smi.replay_count = {kReplayWarning, {}};
  auto found = LiveChecks({f});
  ASSERT_EQ(Ids(found), (std::vector<std::string>{"live.pcie-replays"}));
  EXPECT_EQ(found[0].severity, detect::Severity::kWarning);
  EXPECT_EQ(found[0].what, "The PCIe link replayed 100 packets since boot");
}

TEST(DoctorLiveTest, ThrottlingIsInfoWithItsBits) {
  detect::LiveFacts f = Healthy();
  f.smi.throttle_status = {0x4, {}};
  auto found = LiveChecks({f});
  ASSERT_EQ(Ids(found), (std::vector<std::string>{"live.throttling"}));
  EXPECT_EQ(found[0].severity, detect::Severity::kInfo);
  EXPECT_EQ(found[0].evidence, (std::vector<std::string>{"throttle_status=0x00000004"}));
}

TEST(DoctorLiveTest, UnknownValuesMakeNoFindingButAMissingLibraryIsSaidOnce) {
  detect::LiveFacts f = Healthy();
  f.smi = detect::UnknownDevice("rocm-smi-lib: RSMI_STATUS_NOT_SUPPORTED");
  EXPECT_TRUE(LiveChecks({f}).empty());
  std::string why = "rocm-smi-lib is not installed (librocm_smi64.so.1: cannot open shared object file)";
  detect::LiveFacts a{"0000:03:00.0", "", "", why, detect::UnknownDevice(why)};
  detect::LiveFacts b{"0000:0c:00.0", "", "", why, detect::UnknownDevice(why)};
  auto found = LiveChecks({a, b});
  ASSERT_EQ(Ids(found), (std::vector<std::string>{"live.unknown"}));
  EXPECT_NE(found[0].what.find(why), std::string::npos);
  EXPECT_EQ(found[0].severity, detect::Severity::kInfo);
  EXPECT_EQ(found[0].fix.text, "Install it: apt install librocm-smi64-1");
  // Neither library under any of its names: the same hint.
  std::string neither = "neither amd-smi nor rocm-smi-lib is installed (tried libamd_smi.so.27, librocm_smi64.so.1)";
  detect::LiveFacts n{"0000:03:00.0", "", "", neither, detect::UnknownDevice(neither)};
  EXPECT_EQ(LiveChecks({n}).at(0).fix.text, "Install it: apt install librocm-smi64-1");
  // Another reason, per GPU: said once per reason, and no install hint.
  detect::LiveFacts c{"0000:0c:00.0", "rocm-smi-lib", "1.0.0", "rocm-smi-lib does not list this GPU",
                      detect::UnknownDevice("rocm-smi-lib does not list this GPU")};
  found = LiveChecks({a, c, Healthy()});
  ASSERT_EQ(Ids(found), (std::vector<std::string>{"live.unknown", "live.unknown"}));
  const Finding& listed = found[0].what.find("does not list") != std::string::npos ? found[0] : found[1];
  EXPECT_NE(listed.what.find("does not list this GPU"), std::string::npos);
  EXPECT_EQ(listed.fix.text, "Run rocm-smi to see what rocm-smi-lib itself says about this machine");
}

TEST(LiveJsonTest, ValuesAndWhyTheOthersAreUnknown) {
  detect::LiveFacts f = Healthy();
  f.smi.firmware[4].version = {std::nullopt, "rocm-smi-lib: RSMI_STATUS_NOT_SUPPORTED"};  // sos
  f.smi.replay_count = {3, {}};
  f.smi.throttle_status = {std::nullopt, "rocm-smi-lib: RSMI_STATUS_NOT_YET_IMPLEMENTED"};
  auto doc = LiveJson(f);
  EXPECT_EQ(doc["library_version"], "1.0.0");
  EXPECT_EQ(doc["firmware"]["mec"], "0x00000043");
  EXPECT_TRUE(doc["firmware"]["sos"].is_null());
  EXPECT_EQ(doc["unknown"]["firmware.sos"], "rocm-smi-lib: RSMI_STATUS_NOT_SUPPORTED");
  EXPECT_EQ(doc["ecc"]["enabled_blocks"], nlohmann::ordered_json::array({"umc"}));
  EXPECT_EQ(doc["ecc"]["umc"]["uncorrectable"], 0);
  EXPECT_EQ(doc["pcie"]["speed_gt_s"], 8.0);
  EXPECT_EQ(doc["pcie"]["width"], 16);
  EXPECT_EQ(doc["pcie"]["max_speed_gt_s"], 8.0);
  EXPECT_EQ(doc["pcie"]["replay_count"], 3);
  EXPECT_TRUE(doc["throttle_status"].is_null());
  EXPECT_TRUE(doc["throttling"].is_null());
  EXPECT_EQ(doc["unknown"]["throttle_status"], "rocm-smi-lib: RSMI_STATUS_NOT_YET_IMPLEMENTED");
  EXPECT_EQ(doc["unknown"].size(), 2u);
}

TEST(LiveJsonTest, EverythingUnknownHasAReasonPerValue) {
  std::string why = "rsmi_init failed (rocm-smi-lib: RSMI_STATUS_INIT_ERROR)";
  auto doc = LiveJson({"0000:03:00.0", "rocm-smi-lib", "", why, detect::UnknownDevice(why)});
  EXPECT_TRUE(doc["library_version"].is_null());
  EXPECT_TRUE(doc["pcie"]["width"].is_null());
  EXPECT_EQ(doc["unknown"]["pcie.link"], why);
  EXPECT_EQ(doc["unknown"]["ecc.enabled_blocks"], why);
  // firmware blocks + ecc blocks + enabled_blocks + link + replays + throttle
  EXPECT_EQ(doc["unknown"].size(), sys::SmiFirmwareBlocks().size() + sys::SmiEccBlocks().size() + 4);
}

}  // namespace
}  // namespace rocmtune::diagnose
