// Matching rocm-smi-lib's devices to the inventory's GPUs, and the PCIe link from DPM levels.
#include "detect/live_facts.h"

#include <gtest/gtest.h>

namespace rocmtune::detect {
namespace {

Gpu GpuAt(std::string id) {
  Gpu g;
  g.id = std::move(id);
  return g;
}

sys::SmiDevice DeviceAt(uint64_t bdfid, uint64_t mec) {
  sys::SmiDevice d = UnknownDevice("not asked");
  d.bdfid = bdfid;
  d.firmware[0].version = {mec, {}};
  return d;
}

TEST(LiveFactsTest, DecodesBdfIdAsRocmSmiHeaderSays) {
  // rocm_smi.h: domain 63:32, bus 15:8, device 7:3, function 2:0.
  EXPECT_EQ(FromBdfId(0x6400).ToString(), "0000:64:00.0");
  EXPECT_EQ(FromBdfId((uint64_t{2} << 32) | (0xc1 << 8) | (0x1f << 3) | 7).ToString(), "0002:c1:1f.7");
  EXPECT_EQ(FromBdfId(0x0300 | (1 << 3)).ToString(), "0000:03:01.0");
}

TEST(LiveFactsTest, MatchesDevicesByPciAddressInInventoryOrder) {
  sys::SmiProbe probe;
  probe.source = "rocm-smi-lib";
  probe.version = "1.0.0";
  probe.devices = {DeviceAt(0xc100, 0x43), DeviceAt(0x0300, 0x99)};  // rsmi's order differs
  auto live = MatchLiveFacts({GpuAt("0000:03:00.0"), GpuAt("0000:c1:00.0"), GpuAt("0000:0c:00.0")}, probe);
  ASSERT_EQ(live.size(), 3u);
  EXPECT_EQ(live[0].gpu_id, "0000:03:00.0");
  EXPECT_EQ(live[0].smi.firmware[0].version.value, 0x99u);
  EXPECT_EQ(live[0].library_version, "1.0.0");
  EXPECT_EQ(live[0].source, "rocm-smi-lib");
  EXPECT_TRUE(live[0].unavailable.empty());
  EXPECT_EQ(live[1].smi.firmware[0].version.value, 0x43u);
  // Not listed by rocm-smi-lib: every value unknown, with the reason.
  EXPECT_EQ(live[2].unavailable, "rocm-smi-lib does not list this GPU");
  EXPECT_FALSE(live[2].smi.firmware[0].version.value);
  EXPECT_EQ(live[2].smi.replay_count.unknown, "rocm-smi-lib does not list this GPU");
  EXPECT_EQ(live[2].smi.ecc.size(), sys::SmiEccBlocks().size());
}

TEST(LiveFactsTest, AFailedProbeLeavesEveryGpuUnknownWithItsReason) {
  sys::SmiProbe probe;
  probe.error = "rocm-smi-lib is not installed (librocm_smi64.so.1: cannot open shared object file)";
  probe.devices = {DeviceAt(0x0300, 1)};  // ignored: the probe as a whole failed
  auto live = MatchLiveFacts({GpuAt("0000:03:00.0")}, probe);
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].unavailable, probe.error);
  EXPECT_FALSE(live[0].smi.firmware[0].version.value);
  EXPECT_EQ(live[0].smi.throttle_status.unknown, probe.error);
  EXPECT_EQ(live[0].smi.pcie.unknown, probe.error);
}

TEST(LiveFactsTest, NoGpuNoProbe) {
  // A library that cannot exist: asked, it would give an error; not asked, nothing at all.
  EXPECT_TRUE(ReadLiveFacts(
                  {}, {{{sys::SmiKind::kRocmSmi, "/nonexistent/librocm_smi64.so.1"}}, std::chrono::milliseconds(1000)})
                  .empty());
  auto one = ReadLiveFacts({GpuAt("0000:03:00.0")}, {{{sys::SmiKind::kRocmSmi, "/nonexistent/librocm_smi64.so.1"}},
                                                     std::chrono::milliseconds(5000)});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_NE(one[0].unavailable.find("rocm-smi-lib is not installed"), std::string::npos) << one[0].unavailable;
}

TEST(LiveFactsTest, LinkIsTheCurrentLevelAgainstTheFastestWidest) {
  // rx6600 capture: "0: 2.5GT/s, x1 81Mhz" / "1: 8.0GT/s, x8 619Mhz *"
  sys::SmiFact<sys::SmiPcie> pcie{sys::SmiPcie{{{2500000000, 1}, {8000000000, 8}}, 1}, {}};
  auto link = LinkOf(pcie);
  ASSERT_TRUE(link);
  EXPECT_EQ(link->rate, 8000000000u);
  EXPECT_EQ(link->lanes, 8u);
  EXPECT_FALSE(link->BelowMax());
  pcie.value->current = 0;
  ASSERT_TRUE(LinkOf(pcie));
  EXPECT_TRUE(LinkOf(pcie)->BelowMax());
  EXPECT_EQ(LinkOf(pcie)->max_lanes, 8u);
  // Same speed, fewer lanes than another level: below its max too.
  sys::SmiFact<sys::SmiPcie> narrow{sys::SmiPcie{{{16000000000, 16}, {16000000000, 8}}, 1}, {}};
  EXPECT_TRUE(LinkOf(narrow)->BelowMax());
  EXPECT_FALSE(LinkOf({std::nullopt, "no pp_dpm_pcie"}));
  EXPECT_FALSE(LinkOf({sys::SmiPcie{{}, 0}, {}}));
}

}  // namespace
}  // namespace rocmtune::detect
