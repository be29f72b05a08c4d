// The memory ROCm programs can allocate, in KFD's numbers (diagnose/rocm_memory.h), on a Strix
// Halo built from the captured Strix Point (gfx1151, 128 GiB of RAM, a 512 MiB carve-out):
// amdgpu.gttsize=126976 makes amdgpu's GTT 124 GiB, but TTM's default pages_limit (half the RAM)
// still stops ROCm at about 62 GiB: status, doctor and the export say so, and name what caps it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace rocmtune::client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::ordered_json;
using testing::WorldCopy;

constexpr std::string_view kDev = "sys/devices/pci0000:00/0000:c1:00.0/";
constexpr uint64_t kMemTotalKb = 129390640;            // 123.4 GiB: 128 GiB less the carve-out and firmware
constexpr uint64_t kPagesLimit = kMemTotalKb / 4 / 2;  // TTM's default: half of RAM, in 4 KiB pages
constexpr uint64_t kGttsizeMib = 126976;               // the guides' amdgpu.gttsize for 124 GiB

void StrixHalo128(const WorldCopy& w, std::string_view ttm_module = "ttm") {
  testing::GiveKfd(w);
  std::string node = "sys/class/kfd/kfd/topology/nodes/1/properties";
  std::string props = w.Read(node);
  props.replace(props.find("gfx_target_version 110500"), 25, "gfx_target_version 110501");
  w.Write(node, props);
  w.Write("proc/meminfo", "MemTotal:       " + std::to_string(kMemTotalKb) + " kB\nMemFree:        120000000 kB\n");
  w.Write(std::string(kDev) + "mem_info_gtt_total", std::to_string(kGttsizeMib * 1024 * 1024) + "\n");
  w.Write("sys/module/amdgpu/parameters/gttsize", std::to_string(kGttsizeMib) + "\n");
  w.Write("sys/module/" + std::string(ttm_module) + "/parameters/pages_limit", std::to_string(kPagesLimit) + "\n");
  w.Write("sys/module/ttm/parameters/pages_limit", std::to_string(kPagesLimit) + "\n");
}

const json& Gpu(const json& doc) { return doc["gpus"][0]; }

TEST(RocmMemoryTest, GttsizeDoesNotRaiseWhatKfdLetsRocmAllocate) {
  WorldCopy w("strixpoint");
  StrixHalo128(w);
  json doc = w.Ctl({"status", "--json"}).Json();
  const json& m = Gpu(doc)["rocm_memory"];
  EXPECT_EQ(m["gtt_bytes"], kGttsizeMib * 1024 * 1024);
  EXPECT_EQ(m["ttm_module"], "ttm");
  EXPECT_EQ(m["ttm_limit_bytes"], kPagesLimit * 4096);
  EXPECT_EQ(m["gtt_allocatable_bytes"], kPagesLimit * 4096);
  EXPECT_EQ(m["limited_by"], "ttm.pages_limit");
  EXPECT_EQ(m["allocatable_bytes"], 536870912 + kPagesLimit * 4096);  // the carve-out and TTM's share
  // KFD's system limit (RAM - RAM/64 - 1.5 GiB) is above TTM's half here.
  EXPECT_GT(m["kfd_system_limit_bytes"].get<uint64_t>(), kPagesLimit * 4096);
  EXPECT_TRUE(m["unknown"].is_null());
  // status says it on the GPU's line, doctor raises the Strix Halo limit with the numbers.
  std::string text = w.Ctl({"status"}).out;
  EXPECT_THAT(text, HasSubstr("0000:c1:00.0: memory ROCm programs can allocate: 62.1 GiB (512 MiB VRAM + 61.6 GiB "
                              "system memory, limited by ttm.pages_limit; amdgpu's GTT is 124 GiB)"));
  json doctor = w.Ctl({"doctor", "--json"}).Json();
  json limit;
  for (const json& f : doctor["findings"])
    if (f["id"] == "issue.strix-halo-gtt-limit") limit = f;
  ASSERT_TRUE(limit.is_object()) << doctor["findings"].dump();
  EXPECT_THAT(limit["evidence"].dump(), HasSubstr("ROCm can allocate 61.6 GiB of 123.3 GiB RAM (limited by "
                                                  "ttm.pages_limit; amdgpu's GTT is 124 GiB)"));
  // The export carries the same number.
  std::string metrics = w.Ctl({"export"}).out;
  EXPECT_THAT(metrics, HasSubstr("rocmtune_gpu_rocm_allocatable_bytes{gpu=\"0000:c1:00.0\"} " +
                                 std::to_string(536870912 + kPagesLimit * 4096)));
}

// Raising pages_limit past amdgpu's GTT makes GTT the cap; the finding goes once ROCm gets more
// than half the RAM.
TEST(RocmMemoryTest, ThePagesLimitRaisedMakesGttTheCapAndEndsTheFinding) {
  WorldCopy w("strixpoint");
  StrixHalo128(w);
  const uint64_t raised = 26214400;  // 100 GiB: below KFD's system limit (about 120 GiB here)
  w.Write("sys/module/ttm/parameters/pages_limit", std::to_string(raised) + "\n");
  w.Write(std::string(kDev) + "mem_info_gtt_total", std::to_string(raised * 4096) + "\n");
  json doc = w.Ctl({"status", "--json"}).Json();
  const json& m = Gpu(doc)["rocm_memory"];
  EXPECT_EQ(m["gtt_allocatable_bytes"], raised * 4096);
  EXPECT_EQ(m["limited_by"], "ttm.pages_limit");
  json doctor = w.Ctl({"doctor", "--json"}).Json();
  for (const json& f : doctor["findings"]) EXPECT_NE(f["id"], "issue.strix-halo-gtt-limit");
  // Beyond KFD's system limit (RAM - RAM/64 - 1.5 GiB) the RAM caps it, whatever TTM allows.
  w.Write("sys/module/ttm/parameters/pages_limit", std::to_string(31457280) + "\n");  // 120 GiB
  w.Write(std::string(kDev) + "mem_info_gtt_total", std::to_string(31457280ULL * 4096) + "\n");
  EXPECT_EQ(Gpu(w.Ctl({"status", "--json"}).Json())["rocm_memory"]["limited_by"], "ram");
  // GTT below TTM's limit (amdgpu.gttsize smaller): GTT caps it.
  w.Write(std::string(kDev) + "mem_info_gtt_total", std::to_string(8ULL << 30) + "\n");
  EXPECT_EQ(Gpu(w.Ctl({"status", "--json"}).Json())["rocm_memory"]["limited_by"], "gtt");
}

// Under amdgpu-dkms the driver counts amdttm's pages_limit, not ttm's.
TEST(RocmMemoryTest, AmdttmCountsUnderAmdgpuDkms) {
  WorldCopy w("strixpoint");
  StrixHalo128(w, "amdttm");
  w.Write("sys/module/ttm/parameters/pages_limit", std::to_string(kPagesLimit * 2) + "\n");
  const json doc = w.Ctl({"status", "--json"}).Json();
  const json m = Gpu(doc)["rocm_memory"];
  EXPECT_EQ(m["ttm_module"], "amdttm");
  EXPECT_EQ(m["limited_by"], "amdttm.pages_limit");
  EXPECT_EQ(m["ttm_limit_bytes"], kPagesLimit * 4096);
  // Its row is there before rocmtune sets it, and ttm's rows say they do not count.
  json amdttm, ttm;
  for (const json& k : doc["knobs"]) {
    if (k["key"] == "amdttm.pages_limit") amdttm = k;
    if (k["key"] == "ttm.pages_limit") ttm = k;
  }
  ASSERT_TRUE(amdttm.is_object()) << doc["knobs"].dump();
  EXPECT_EQ(amdttm["running"], std::to_string(kPagesLimit));
  EXPECT_FALSE(amdttm["ineffective"].get<bool>());
  ASSERT_TRUE(ttm.is_object());
  EXPECT_TRUE(ttm["ineffective"].get<bool>());
  EXPECT_THAT(ttm["notes"].dump(), HasSubstr("counts amdttm.pages_limit"));
  // Without amdgpu-dkms there is no amdttm row and ttm's counts.
  WorldCopy plain("strixpoint");
  StrixHalo128(plain);
  const json plain_doc = plain.Ctl({"status", "--json"}).Json();  // kept: a range-for over a temporary's member dangles
  for (const json& k : plain_doc["knobs"]) {
    EXPECT_NE(k["key"], "amdttm.pages_limit");
    if (k["key"] == "ttm.pages_limit") {
      EXPECT_FALSE(k["ineffective"].get<bool>());
    }
  }
}

// A dGPU's is its VRAM; what cannot be read is unknown with the reason, never a guess.
TEST(RocmMemoryTest, ADgpuIsItsVramAndUnreadableIsUnknown) {
  WorldCopy w("rx6900xt");
  const json m = Gpu(w.Ctl({"status", "--json"}).Json())["rocm_memory"];
  EXPECT_EQ(m["allocatable_bytes"], m["vram_bytes"]);
  EXPECT_FALSE(m["vram_bytes"].is_null());
  WorldCopy apu("strixpoint");
  StrixHalo128(apu);
  std::filesystem::remove(apu.Path(std::string(kDev) + "mem_info_gtt_total"));
  const json u = Gpu(apu.Ctl({"status", "--json"}).Json())["rocm_memory"];
  EXPECT_TRUE(u["allocatable_bytes"].is_null());
  EXPECT_THAT(u["unknown"].get<std::string>(), HasSubstr("mem_info_gtt_total"));
  EXPECT_THAT(apu.Ctl({"status"}).out, HasSubstr("memory ROCm programs can allocate: unknown"));
  EXPECT_THAT(apu.Ctl({"status"}).out, Not(HasSubstr("62.1 GiB")));
}

}  // namespace
}  // namespace rocmtune::client
