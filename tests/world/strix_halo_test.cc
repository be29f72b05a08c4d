// AMD's kernel x ROCm matrix for Strix Halo (ROCm 7.14 docs, rdna3-5.rst) as one rule that doctor,
// status and check-compute share: the kernel's KFD fixes are seen in the KFD node's properties
// (cwsr_size), the unsupported releases (6.4.x, 7.1.x, 7.9, 7.10) take precedence over the
// release's own GPU table, and amdgpu.cwsr_enable=0 on a fixed kernel is an obsolete workaround.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace rocmtune::client {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::ordered_json;
using testing::WorldCopy;

constexpr std::string_view kNode = "sys/class/kfd/kfd/topology/nodes/1/properties";

// The captured Strix Point as a Strix Halo (gfx1151); `fixed`: its kernel exports cwsr_size.
void StrixHalo(const WorldCopy& w, std::string_view rocm, bool fixed) {
  testing::GiveKfd(w);
  std::string props = w.Read(std::string(kNode));
  props.replace(props.find("gfx_target_version 110500"), 25, "gfx_target_version 110501");
  if (fixed) props += "cwsr_size 4263936\nctl_stack_size 20480\n";
  w.Write(std::string(kNode), props);
  w.Write("opt/rocm/.info/version", std::string(rocm) + "\n");
  w.Write("sys/devices/pci0000:00/0000:c1:00.0/fw_version/mes_fw_version", "0x00000080\n");
}

std::set<std::string> Ids(const json& doc) {
  std::set<std::string> out;
  for (const json& f : doc["findings"]) out.insert(f["id"].get<std::string>());
  return out;
}

TEST(StrixHaloTest, Rocm71IsUnsupportedOnAFixedKernelAnd72IsNot) {
  WorldCopy w("strixpoint");
  StrixHalo(w, "7.1.0", true);
  json doctor = w.Ctl({"doctor", "--json"}).Json();
  EXPECT_THAT(Ids(doctor), Contains("issue.strix-halo-rocm-release-unsupported"));
  EXPECT_THAT(Ids(doctor), Not(Contains("issue.strix-halo-kernel-without-kfd-fixes")));
  // The release's own table said "supported": the matrix takes precedence.
  EXPECT_THAT(Ids(doctor), Not(Contains("rocm.gpu-supported")));
  json status = w.Ctl({"status", "--json"}).Json();
  EXPECT_EQ(status["gpus"][0]["compute"]["state"], "unsafe");
  EXPECT_THAT(status["gpus"][0]["compute"]["reasons"], Contains("issue.strix-halo-rocm-release-unsupported"));
  for (const char* release : {"6.4.1", "7.9.0", "7.10.0"}) {
    w.Write("opt/rocm/.info/version", std::string(release) + "\n");
    EXPECT_THAT(Ids(w.Ctl({"doctor", "--json"}).Json()), Contains("issue.strix-halo-rocm-release-unsupported"))
        << release;
  }
  for (const char* release : {"7.2.1", "7.2.4", "7.0.2"}) {
    w.Write("opt/rocm/.info/version", std::string(release) + "\n");
    EXPECT_THAT(Ids(w.Ctl({"doctor", "--json"}).Json()), Not(Contains("issue.strix-halo-rocm-release-unsupported")))
        << release;
  }
}

TEST(StrixHaloTest, AKernelWithoutTheKfdFixesIsUnstableWithAnyRocm) {
  WorldCopy w("strixpoint");
  StrixHalo(w, "7.2.1", false);
  json doctor = w.Ctl({"doctor", "--json"}).Json();
  json found;
  for (const json& f : doctor["findings"])
    if (f["id"] == "issue.strix-halo-kernel-without-kfd-fixes") found = f;
  ASSERT_TRUE(found.is_object()) << doctor["findings"].dump();
  EXPECT_THAT(found["evidence"].dump(), HasSubstr("has no cwsr_size property"));
  EXPECT_EQ(found["fix"]["kernel"], ">= 6.18.4");
  // A Strix Point (gfx1150) is not in AMD's Ryzen AI Max requirement.
  WorldCopy point("strixpoint");
  testing::GiveKfd(point);
  EXPECT_THAT(Ids(point.Ctl({"doctor", "--json"}).Json()), Not(Contains("issue.strix-halo-kernel-without-kfd-fixes")));
}

TEST(StrixHaloTest, CwsrDisabledOnAFixedKernelIsOfferedForRemoval) {
  WorldCopy w("strixpoint");
  StrixHalo(w, "7.2.1", true);
  w.Write("sys/module/amdgpu/parameters/cwsr_enable", "0\n");
  json doctor = w.Ctl({"doctor", "--json"}).Json();
  json found;
  for (const json& f : doctor["findings"])
    if (f["id"] == "issue.strix-cwsr-disabled-obsolete") found = f;
  ASSERT_TRUE(found.is_object()) << doctor["findings"].dump();
  // Only the running module has it (loaded by hand): nothing to unset, the next boot drops it.
  EXPECT_EQ(found["fix"]["unset"], json::array());
  EXPECT_THAT(found["fix"]["text"].get<std::string>(),
              HasSubstr("Nothing configures amdgpu.cwsr_enable any more: the running kernel keeps 0"));
  // Still needed without the fixes; nothing to say with CWSR on.
  WorldCopy old_kernel("strixpoint");
  StrixHalo(old_kernel, "7.2.1", false);
  old_kernel.Write("sys/module/amdgpu/parameters/cwsr_enable", "0\n");
  EXPECT_THAT(Ids(old_kernel.Ctl({"doctor", "--json"}).Json()), Not(Contains("issue.strix-cwsr-disabled-obsolete")));
  w.Write("sys/module/amdgpu/parameters/cwsr_enable", "1\n");
  EXPECT_THAT(Ids(w.Ctl({"doctor", "--json"}).Json()), Not(Contains("issue.strix-cwsr-disabled-obsolete")));
}

json CwsrFinding(const WorldCopy& w) {
  json doctor = w.Ctl({"doctor", "--json"}).Json();
  for (const json& f : doctor["findings"])
    if (f["id"] == "issue.strix-cwsr-disabled-obsolete") return f;
  ADD_FAILURE() << doctor["findings"].dump();
  return json::object();
}

// Advice against what is already there: rocmtune's own cwsr_enable=0 is offered for unset; once
// unset, the fix says it waits for a reboot instead of asking again; an admin's modprobe.d line
// is named with the opt-in edit (rocmtune's unset would not touch it).
TEST(StrixHaloTest, TheCwsrFixFollowsWhoSetsIt) {
  WorldCopy w("strixpoint");
  StrixHalo(w, "7.2.1", true);
  w.Write("sys/module/amdgpu/parameters/cwsr_enable", "0\n");
  ASSERT_EQ(w.Ctl({"set", "amdgpu.cwsr_enable=0"}).exit_code, 0);
  json ours = CwsrFinding(w);
  EXPECT_EQ(ours["fix"]["unset"], json::parse(R"(["amdgpu.cwsr_enable"])")) << ours.dump();

  ASSERT_EQ(w.Ctl({"unset", "amdgpu.cwsr_enable"}).exit_code, 0);
  json unset = CwsrFinding(w);
  EXPECT_EQ(unset["fix"]["unset"], json::array()) << unset.dump();
  EXPECT_THAT(unset["fix"]["text"].get<std::string>(), HasSubstr("keeps 0 until the next boot"));
  EXPECT_THAT(w.Ctl({"doctor"}).out, Not(HasSubstr("unset: amdgpu.cwsr_enable")));

  w.Write("etc/modprobe.d/strix.conf", "# the forum's fix\noptions amdgpu cwsr_enable=0\n");
  json admin = CwsrFinding(w);
  EXPECT_EQ(admin["fix"]["unset"], json::array()) << admin.dump();
  const std::string text = admin["fix"]["text"].get<std::string>();
  EXPECT_THAT(text, HasSubstr("amdgpu.cwsr_enable is set by /etc/modprobe.d/strix.conf:2"));
  EXPECT_THAT(text, HasSubstr("sudo rocmtunectl unset amdgpu.cwsr_enable --admin-lines"));
  // The fix itself first, then where the line is.
  EXPECT_LT(text.find("Remove amdgpu.cwsr_enable=0"), text.find("/etc/modprobe.d/strix.conf:2"));
}

}  // namespace
}  // namespace rocmtune::client
