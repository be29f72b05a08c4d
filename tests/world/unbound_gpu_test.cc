// An AMD GPU on the bus that amdgpu does not drive, end to end through rocmtunectl on a copy of
// the no-amd world (an Intel iGPU, no amdgpu module): no driver, vfio-pci, and Secure Boot with
// amdgpu-dkms whose key is not enrolled; and the EFFECTIVE value of an unloaded module's option.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "driver_layouts.h"

namespace rocmtune::client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::ordered_json;
using testing::WorldCopy;

constexpr std::string_view kUnboundSlot = "0000:03:00.0";

// Navi 21 and its HDMI audio function, neither bound.
void AddUnboundNavi21(const WorldCopy& w, std::string_view driver = "") {
  testing::AddPciFunction(w.root(), kUnboundSlot, "0x1002", "0x73bf", "0x030000", driver);
  testing::AddPciFunction(w.root(), "0000:03:00.1", "0x1002", "0xab28", "0x040300", "");
}

json UnboundDoctor(const WorldCopy& w) {
  auto r = w.Ctl({"doctor", "--json"});
  json doc = r.Json();
  EXPECT_EQ(doc["schema"], "rocmtune.doctor.v1") << r.out << r.err;
  return doc;
}

std::vector<json> FindingsWithId(const json& doc, std::string_view id) {
  std::vector<json> out;
  for (const json& f : doc["findings"])
    if (f["id"] == id) out.push_back(f);
  return out;
}

TEST(UnboundGpuWorld, NoDriverIsOneWarningForThatGpuAndNoGpuNone) {
  WorldCopy w("no-amd");
  json before = UnboundDoctor(w);
  EXPECT_EQ(FindingsWithId(before, "gpu.none").size(), 1u);  // the control: nothing AMD on the bus
  EXPECT_TRUE(FindingsWithId(before, "gpu.not-amdgpu").empty());
  AddUnboundNavi21(w);
  json doc = UnboundDoctor(w);
  auto found = FindingsWithId(doc, "gpu.not-amdgpu");
  ASSERT_EQ(found.size(), 1u) << doc.dump(1);  // the audio function is not a GPU
  EXPECT_EQ(found[0]["severity"], "warning");
  EXPECT_EQ(found[0]["effect"], "no-gpu");
  EXPECT_EQ(found[0]["gpu"], kUnboundSlot);
  EXPECT_THAT(found[0]["what"].get<std::string>(), HasSubstr("has no driver and the amdgpu module is not loaded"));
  EXPECT_TRUE(FindingsWithId(doc, "gpu.none").empty()) << doc.dump(1);
  auto cc = w.Ctl({"check-compute", "--json"});
  EXPECT_EQ(cc.exit_code, 1) << cc.out << cc.err;
  EXPECT_THAT(cc.Json()["reason"].get<std::string>(), HasSubstr("0000:03:00.0 (1002:73bf) has no driver"));
}

TEST(UnboundGpuWorld, VfioIsInfoAndGpuNoneNamesIt) {
  WorldCopy w("no-amd");
  AddUnboundNavi21(w, "vfio-pci");
  json doc = UnboundDoctor(w);
  auto found = FindingsWithId(doc, "gpu.not-amdgpu");
  ASSERT_EQ(found.size(), 1u) << doc.dump(1);
  EXPECT_EQ(found[0]["severity"], "info");
  EXPECT_EQ(found[0]["effect"], "none");
  auto none = FindingsWithId(doc, "gpu.none");
  ASSERT_EQ(none.size(), 1u);
  EXPECT_THAT(none[0]["fix"]["text"].get<std::string>(), HasSubstr("0000:03:00.0: vfio-pci"));
}

TEST(UnboundGpuWorld, SecureBootRefusingDkmsNamesTheKeyNotTheSeat) {
  WorldCopy w("no-amd");
  AddUnboundNavi21(w);
  testing::SetSecureBoot(w.root(), true);
  testing::InstallAmdgpuDkms(w.root());
  w.Write("var/lib/dkms/mok.pub", testing::kDkmsCertificate);
  testing::SetMokList(w.root(), "Debian Secure Boot CA, and no DKMS key");
  ASSERT_FALSE(w.Exists("sys/module/amdgpu"));
  json doc = UnboundDoctor(w);
  auto found = FindingsWithId(doc, "gpu.not-amdgpu");
  ASSERT_EQ(found.size(), 1u) << doc.dump(1);
  EXPECT_EQ(found[0]["severity"], "error");
  const std::string what = found[0]["what"].get<std::string>(), fix = found[0]["fix"]["text"].get<std::string>();
  EXPECT_THAT(what, HasSubstr("DKMS signs its amdgpu module with /var/lib/dkms/mok.pub, which is not enrolled"));
  EXPECT_THAT(fix, HasSubstr("mokutil --import /var/lib/dkms/mok.pub"));
  EXPECT_THAT(fix, HasSubstr("remove amdgpu-dkms"));
  EXPECT_THAT(doc.dump(), Not(HasSubstr("seated")));
  EXPECT_THAT(found[0]["sources"][0].get<std::string>(), HasSubstr("kernel/module/signing.c"));
  // The human text says the same.
  auto text = w.Ctl({"doctor"});
  EXPECT_THAT(text.out, HasSubstr("mokutil --import /var/lib/dkms/mok.pub")) << text.out << text.err;
  // Secure Boot off: the key is no reason.
  testing::SetSecureBoot(w.root(), false);
  auto off = FindingsWithId(UnboundDoctor(w), "gpu.not-amdgpu");
  ASSERT_EQ(off.size(), 1u);
  EXPECT_EQ(off[0]["severity"], "warning");
  EXPECT_THAT(off[0]["fix"]["text"].get<std::string>(), Not(HasSubstr("mokutil")));
}

TEST(UnboundGpuWorld, AnUnloadedModulesOptionIsNeverEffective) {
  WorldCopy w("no-amd");
  ASSERT_FALSE(w.Exists("sys/module/amdgpu"));
  w.Write("etc/modprobe.d/amdgpu-local.conf", "options amdgpu noretry=0\n");
  auto r = w.Ctl({"status", "--json"});
  json doc = r.Json();
  const json* row = nullptr;
  for (const json& k : doc["knobs"])
    if (k["key"] == "amdgpu.noretry") row = &k;
  ASSERT_TRUE(row) << r.out << r.err;
  EXPECT_EQ((*row)["configured"], "0");
  EXPECT_EQ((*row)["effective"], "not loaded");
  auto text = w.Ctl({"status"});
  EXPECT_THAT(text.out, HasSubstr("not loaded")) << text.out;
}

}  // namespace
}  // namespace rocmtune::client
