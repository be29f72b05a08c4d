// The memory ROCm programs can allocate, in KFD's numbers (diagnose/rocm_memory.h), on a Strix
// Halo built from the captured Strix Point (gfx1151, 128 GiB of RAM, a 512 MiB carve-out):
// amdgpu.gttsize=126976 makes amdgpu's GTT 124 GiB, but TTM's default pages_limit (half the RAM)
// still stops ROCm at about 62 GiB: status, doctor and the export say so, and name what caps it.
#include <filesystem>

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

// The captured Strix Point (gfx1150) with 128 GiB and the guides' gttsize; StrixHalo128 makes it a
// gfx1151, the GPU with a known issue about this limit (and a profile).
void StrixPoint128(const WorldCopy& w, std::string_view ttm_module = "ttm") {
  testing::GiveKfd(w);
  w.Write("proc/meminfo", "MemTotal:       " + std::to_string(kMemTotalKb) + " kB\nMemFree:        120000000 kB\n");
  w.Write(std::string(kDev) + "mem_info_gtt_total", std::to_string(kGttsizeMib * 1024 * 1024) + "\n");
  // As the Strix Halo guides have it: an admin's modprobe.d line, running since the last boot.
  w.Write("etc/modprobe.d/strix.conf", "options amdgpu gttsize=" + std::to_string(kGttsizeMib) + "\n");
  w.Write("sys/module/amdgpu/parameters/gttsize", std::to_string(kGttsizeMib) + "\n");
  w.Write("sys/module/" + std::string(ttm_module) + "/parameters/pages_limit", std::to_string(kPagesLimit) + "\n");
  w.Write("sys/module/ttm/parameters/pages_limit", std::to_string(kPagesLimit) + "\n");
}

void StrixHalo128(const WorldCopy& w, std::string_view ttm_module = "ttm") {
  StrixPoint128(w, ttm_module);
  std::string node = "sys/class/kfd/kfd/topology/nodes/1/properties";
  std::string props = w.Read(node);
  props.replace(props.find("gfx_target_version 110500"), 25, "gfx_target_version 110501");
  w.Write(node, props);
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

json GttTtmFinding(const WorldCopy& w) {
  const json doc = w.Ctl({"doctor", "--json"}).Json();
  json found;
  for (const json& f : doc["findings"])
    if (f["id"] == "module.gtt-ttm-disagree") {
      EXPECT_TRUE(found.is_null()) << "twice: " << doc["findings"].dump();
      found = f;
    }
  return found;
}

// amdgpu.gttsize=126976 with TTM's default pages_limit: amdgpu_ttm_init() calls the pair "unusual",
// GTT shows 124 GiB and KFD stops ROCm at 61.6 GiB. One finding names both settings, the number ROCm
// gets, and the pages_limit that makes them agree (on a Strix Point: the Strix Halo's own issue
// takes it in, below).
TEST(RocmMemoryTest, GttsizeAbovePagesLimitNamesBothAndTheFix) {
  WorldCopy w("strixpoint");
  StrixPoint128(w);
  const json f = GttTtmFinding(w);
  ASSERT_TRUE(f.is_object());
  EXPECT_EQ(f["severity"], "warning");
  EXPECT_EQ(f["subject"], "amdgpu.gttsize");
  EXPECT_EQ(f["what"],
            "amdgpu.gttsize=126976 makes amdgpu's GTT 124 GiB, but ttm.pages_limit stops ROCm programs at 61.6 GiB");
  EXPECT_THAT(f["why"].get<std::string>(),
              HasSubstr("ROCm programs can allocate 61.6 GiB of system memory here (limited by ttm.pages_limit)"));
  EXPECT_THAT(f["why"].get<std::string>(), HasSubstr("GTT size has been set as 133143986176 but TTM size"));
  const uint64_t meant = kGttsizeMib * 256;  // 124 GiB in 4 KiB pages
  EXPECT_EQ(f["fix"]["set"],
            json::array({"ttm.pages_limit=" + std::to_string(meant), "ttm.page_pool_size=" + std::to_string(meant)}));
  // gttsize is the admin's line: named, with the opt-in edit (rocmtune's unset would not touch it).
  EXPECT_EQ(f["fix"]["unset"], json::array());
  EXPECT_THAT(f["fix"]["text"].get<std::string>(),
              HasSubstr("amdgpu.gttsize is set by /etc/modprobe.d/strix.conf:1, a file rocmtune does not manage"));
  EXPECT_THAT(f["fix"]["text"].get<std::string>(), HasSubstr("sudo rocmtunectl unset amdgpu.gttsize --admin-lines"));
  EXPECT_THAT(f["sources"].dump(), HasSubstr("amdgpu_ttm_init"));
  EXPECT_THAT(f["sources"].dump(), HasSubstr("amdgpu_amdkfd_gpuvm_init_mem_limits"));
  // status shows it too.
  const json status = w.Ctl({"status", "--json"}).Json();
  bool in_status = false;
  for (const json& x : status["findings"]) in_status = in_status || x["id"] == "module.gtt-ttm-disagree";
  EXPECT_TRUE(in_status);
}

// gttsize below pages_limit: GTT is the cap; the fix is to drop gttsize, nothing to raise.
TEST(RocmMemoryTest, GttsizeBelowPagesLimitCapsTheGpu) {
  WorldCopy w("strixpoint");
  StrixPoint128(w);
  w.Write("sys/module/amdgpu/parameters/gttsize", "8192\n");
  w.Write(std::string(kDev) + "mem_info_gtt_total", std::to_string(8ULL << 30) + "\n");
  std::filesystem::remove(w.root() + "/etc/modprobe.d/strix.conf");
  ASSERT_EQ(w.Ctl({"set", "amdgpu.gttsize=8192"}).exit_code, 0);  // rocmtune's own, this time
  const json f = GttTtmFinding(w);
  ASSERT_TRUE(f.is_object());
  EXPECT_EQ(f["what"],
            "amdgpu.gttsize=8192 caps amdgpu's GTT at 8 GiB, below the 61.6 GiB that ttm.pages_limit allows");
  EXPECT_THAT(f["why"].get<std::string>(), HasSubstr("can allocate 8 GiB of system memory here (limited by gtt)"));
  EXPECT_TRUE(f["fix"]["set"].empty()) << f["fix"];
  EXPECT_EQ(f["fix"]["unset"], json::array({"amdgpu.gttsize"}));
}

// Neighbours: settings that agree (the toolboxes' gttsize=126976 with pages_limit=32505856), no
// gttsize, and a kernel before 6.5, whose GTT had its own default, say nothing.
TEST(RocmMemoryTest, AgreeingOrAbsentGttsizeSaysNothing) {
  WorldCopy w("strixpoint");
  StrixPoint128(w);
  w.Write("sys/module/ttm/parameters/pages_limit", std::to_string(kGttsizeMib * 256) + "\n");
  EXPECT_TRUE(GttTtmFinding(w).is_null());
  w.Write("sys/module/ttm/parameters/pages_limit", std::to_string(kPagesLimit) + "\n");
  ASSERT_TRUE(GttTtmFinding(w).is_object());  // the disagreement back: the cases below each end it
  w.Write("sys/module/amdgpu/parameters/gttsize", "-1\n");
  EXPECT_TRUE(GttTtmFinding(w).is_null());
  w.Write("sys/module/amdgpu/parameters/gttsize", std::to_string(kGttsizeMib) + "\n");
  w.Write("proc/sys/kernel/osrelease", "6.1.0-26-amd64\n");
  EXPECT_TRUE(GttTtmFinding(w).is_null());
  w.Write("proc/sys/kernel/osrelease", "6.5.0-44-generic\n");
  EXPECT_TRUE(GttTtmFinding(w).is_object());
}

// Under amdgpu-dkms the limit and the fix are amdttm's.
TEST(RocmMemoryTest, GttsizeAgainstAmdttmUnderAmdgpuDkms) {
  WorldCopy w("strixpoint");
  StrixPoint128(w, "amdttm");
  const json f = GttTtmFinding(w);
  ASSERT_TRUE(f.is_object());
  EXPECT_THAT(f["what"].get<std::string>(), HasSubstr("amdttm.pages_limit stops ROCm programs at 61.6 GiB"));
  EXPECT_THAT(f["fix"]["set"].dump(), HasSubstr("amdttm.pages_limit="));
  EXPECT_THAT(f["fix"]["set"].dump(), HasSubstr("amdttm.page_pool_size="));
}

// On a Strix Halo the same fact is its known issue's: one finding, not two. The issue keeps the
// disagreement's words and place as evidence, and names the admin's line that sets gttsize, which the
// profile it offers cannot remove.
TEST(RocmMemoryTest, OnStrixHaloTheIssueTakesInTheDisagreement) {
  WorldCopy w("strixpoint");
  StrixHalo128(w);
  EXPECT_TRUE(GttTtmFinding(w).is_null());
  const json doc = w.Ctl({"doctor", "--json"}).Json();
  json issue;
  int about_the_limit = 0;
  for (const json& f : doc["findings"]) {
    if (f["id"] == "issue.strix-halo-gtt-limit") issue = f;
    if (f["what"].get<std::string>().find("stops ROCm programs") != std::string::npos ||
        f["what"].get<std::string>().find("at most half the RAM") != std::string::npos)
      ++about_the_limit;
  }
  EXPECT_EQ(about_the_limit, 1) << doc["findings"].dump();
  ASSERT_TRUE(issue.is_object()) << doc["findings"].dump();
  EXPECT_THAT(issue["evidence"].dump(),
              HasSubstr("amdgpu.gttsize=126976 makes amdgpu's GTT 124 GiB, but ttm.pages_limit stops ROCm programs "
                        "at 61.6 GiB"));
  EXPECT_EQ(issue["fix"]["profile"], "strix-halo");
  EXPECT_THAT(issue["fix"]["text"].get<std::string>(),
              HasSubstr("amdgpu.gttsize is set by /etc/modprobe.d/strix.conf:1, a file rocmtune does not manage"));
  EXPECT_THAT(issue["places"].dump(), HasSubstr("etc/modprobe.d/strix.conf"));
  // status: the same single finding.
  const json status = w.Ctl({"status", "--json"}).Json();
  for (const json& x : status["findings"]) EXPECT_NE(x["id"], "module.gtt-ttm-disagree");
}

// gttsize on the command line of a systemd-boot entry on the ESP (kernel-install copied it from
// /etc/kernel/cmdline): the entry is where the next boot gets it, so the finding names that file.
TEST(RocmMemoryTest, GttsizeInTheLoaderEntryIsNamedThere) {
  WorldCopy w("strixpoint");
  StrixPoint128(w);
  std::filesystem::remove(w.root() + "/etc/modprobe.d/strix.conf");
  const std::string entry = "efi/loader/entries/90b4b26cc181bfaf7bb427bd2a63714e-6.14.5-300.fc42.x86_64.conf";
  std::string content = w.Read(entry);
  const size_t options = content.find("options ");
  ASSERT_NE(options, std::string::npos);
  content.insert(content.find('\n', options), " amdgpu.gttsize=126976");
  w.Write(entry, content);
  const json f = GttTtmFinding(w);
  ASSERT_TRUE(f.is_object());
  EXPECT_EQ(f["file"], entry);
  EXPECT_EQ(f["fix"]["unset"], json::array());
  EXPECT_THAT(f["fix"]["text"].get<std::string>(), HasSubstr("amdgpu.gttsize is set by /" + entry));
  EXPECT_THAT(f["fix"]["text"].get<std::string>(), Not(HasSubstr("Nothing configures")));
}

}  // namespace
}  // namespace rocmtune::client
