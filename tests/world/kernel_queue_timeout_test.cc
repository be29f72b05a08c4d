// amdgpu.lockup_timeout on kernels from 6.19, where its default fell to 2 s for every kernel
// queue (1bea57ea7544): a machine with a Vulkan or Mesa OpenCL driver and the timeout unset is
// told that long jobs there end in a GPU reset, and that ROCm's own queues are not timed; nothing
// is said on an older kernel, with the timeout set, or without such a driver. `set` refuses a
// value the kernel cannot read (the GPU would not come up).
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace rocmtune::client {
namespace {

using json = nlohmann::ordered_json;
using testing::WorldCopy;

constexpr const char* kRadv = "usr/share/vulkan/icd.d/radeon_icd.x86_64.json";

// rx7800xt (gfx1101) booted with a 6.19 kernel and Mesa's RADV installed.
void Kernel619WithRadv(const WorldCopy& w, const char* release = "6.19.2-arch1-1") {
  w.Write("proc/sys/kernel/osrelease", std::string(release) + "\n");
  w.Write(kRadv, "{\"ICD\": {\"library_path\": \"libvulkan_radeon.so\"}}\n");
}

json TimeoutFinding(const WorldCopy& w, const char* verb = "status") {
  const json doc = w.Ctl({verb, "--json"}).Json();
  json found;
  for (const json& f : doc["findings"])
    if (f["id"] == "module.lockup-timeout-short") found = f;
  return found;
}

TEST(KernelQueueTimeoutTest, Kernel619WithVulkanAndNoTimeoutSaysWhoIsAffected) {
  WorldCopy w("rx7800xt");
  Kernel619WithRadv(w);
  const json doctor = w.Ctl({"doctor", "--json"}).Json();
  json f;
  for (const json& x : doctor["findings"])
    if (x["id"] == "module.lockup-timeout-short") f = x;
  ASSERT_TRUE(f.is_object()) << doctor["findings"].dump();
  EXPECT_EQ(f["severity"], "info");
  EXPECT_EQ(f["effect"], "none");  // not a ROCm problem: check-compute's verdict does not move
  EXPECT_EQ(f["subject"], "amdgpu.lockup_timeout");
  const std::string why = f["why"];
  EXPECT_THAT(why, HasSubstr("2000 ms for every kernel queue, compute included"));
  EXPECT_THAT(why, HasSubstr("ring comp_1.0.0 timeout"));
  EXPECT_THAT(why, HasSubstr("ROCm programs (HIP, ROCm's OpenCL) run on KFD user queues"));
  EXPECT_THAT(why, HasSubstr("not affected"));
  EXPECT_THAT(f["fix"]["set"].dump(), HasSubstr("amdgpu.lockup_timeout=10000"));
  EXPECT_THAT(f["evidence"].dump(), HasSubstr(kRadv));
  EXPECT_THAT(f["sources"].dump(), HasSubstr("1bea57ea7544"));
  // doctor's text spells the command once: in its do: line, not again as a set: line.
  const std::string text = w.Ctl({"doctor"}).out;
  EXPECT_THAT(text, HasSubstr("sudo rocmtunectl set amdgpu.lockup_timeout=10000"));
  EXPECT_THAT(text, Not(HasSubstr("set: amdgpu.lockup_timeout=10000")));
  // status shows it too, as an info that is no problem.
  EXPECT_TRUE(TimeoutFinding(w).is_object());
  // check-compute answers for ROCm programs: the same verdict as on 6.18.
  const int on_619 = w.Ctl({"check-compute"}).exit_code;
  w.Write("proc/sys/kernel/osrelease", "6.18.9-arch1-1\n");
  EXPECT_EQ(w.Ctl({"check-compute"}).exit_code, on_619);
}

TEST(KernelQueueTimeoutTest, NothingBefore619) {
  WorldCopy w("rx7800xt");
  Kernel619WithRadv(w, "6.18.9-arch1-1");
  EXPECT_TRUE(TimeoutFinding(w).is_null());
  Kernel619WithRadv(w, "6.17.1-300.fc43.x86_64");
  EXPECT_TRUE(TimeoutFinding(w).is_null());
  Kernel619WithRadv(w, "7.0.3-arch1-1");
  EXPECT_TRUE(TimeoutFinding(w).is_object());
}

TEST(KernelQueueTimeoutTest, NothingWhenTheTimeoutIsSet) {
  {
    WorldCopy w("rx7800xt");
    Kernel619WithRadv(w);
    w.Write("etc/modprobe.d/timeout.conf", "options amdgpu lockup_timeout=10000\n");
    EXPECT_TRUE(TimeoutFinding(w).is_null());
  }
  {
    // Running with it (the kernel command line of this boot), nothing configured.
    WorldCopy w("rx7800xt");
    Kernel619WithRadv(w);
    w.Write("sys/module/amdgpu/parameters/lockup_timeout", "5000\n");
    EXPECT_TRUE(TimeoutFinding(w).is_null());
  }
}

TEST(KernelQueueTimeoutTest, OnlyWhereAKernelQueueDriverIsInstalled) {
  WorldCopy w("rx7800xt");
  w.Write("proc/sys/kernel/osrelease", "6.19.2-arch1-1\n");
  EXPECT_TRUE(TimeoutFinding(w).is_null());  // a ROCm-only machine: nothing it runs is timed
  w.Write("etc/OpenCL/vendors/rusticl.icd", "libRusticlOpenCL.so.1\n");
  const json f = TimeoutFinding(w, "doctor");
  ASSERT_TRUE(f.is_object());
  EXPECT_THAT(f["evidence"].dump(), HasSubstr("/etc/OpenCL/vendors/rusticl.icd"));
  // AMD's own Vulkan driver (AMDVLK) counts as well.
  WorldCopy amdvlk("rx7800xt");
  amdvlk.Write("proc/sys/kernel/osrelease", "6.19.2-arch1-1\n");
  amdvlk.Write("etc/vulkan/icd.d/amd_icd64.json", "{}\n");
  EXPECT_TRUE(TimeoutFinding(amdvlk).is_object());
}

// A value the kernel's kstrtol cannot read fails amdgpu_device_init(): refused, saying why.
TEST(KernelQueueTimeoutTest, SetRefusesAValueTheKernelCannotRead) {
  WorldCopy w("rx7800xt");
  for (const char* bad : {"amdgpu.lockup_timeout=10s", "amdgpu.lockup_timeout=10000,,10000",
                          "amdgpu.lockup_timeout=1,2,3,4,5", "amdgpu.lockup_timeout=010"}) {
    auto r = w.Ctl({"set", "--check", bad});
    EXPECT_EQ(r.exit_code, kExitRefused) << bad << ": " << r.out << r.err;
    EXPECT_THAT(r.out + r.err, HasSubstr("GFX,Compute,SDMA,Video")) << bad;
  }
  auto ok = w.Ctl({"set", "--check", "amdgpu.lockup_timeout=10000"});
  EXPECT_EQ(ok.exit_code, kExitOk) << ok.out << ok.err;
  EXPECT_THAT(ok.out + ok.err, Not(HasSubstr("refused")));
  // An admin's garbage already in modprobe.d is a finding with its file and line.
  w.Write("etc/modprobe.d/timeout.conf", "options amdgpu lockup_timeout=10s\n");
  const json doc = w.Ctl({"status", "--json"}).Json();
  bool invalid = false;
  for (const json& f : doc["findings"])
    invalid = invalid || (f["id"] == "module.invalid-value" && f["subject"] == "amdgpu.lockup_timeout" &&
                          f["file"] == "etc/modprobe.d/timeout.conf" && f["line"] == 1);
  EXPECT_TRUE(invalid) << doc["findings"].dump();
}

}  // namespace
}  // namespace rocmtune::client
