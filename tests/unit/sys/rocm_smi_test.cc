// The child's answer codec, and the probe's own failures (the library missing or failing).
#include "sys/rocm_smi.h"

#include <sys/stat.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace rocmtune::sys {
namespace {

SmiDevice Sample() {
  SmiDevice d;
  d.bdfid = 0x6400;
  for (const std::string& b : SmiFirmwareBlocks())
    d.firmware.push_back({b, {std::nullopt, "rocm-smi-lib: not supported"}});
  d.firmware[0].version = {0x43, {}};
  d.ecc_enabled = {0x5, {}};
  for (const std::string& b : SmiEccBlocks()) d.ecc.push_back({b, {SmiEccCount{3, 1}, {}}});
  d.ecc[2].count = {std::nullopt, "rocm-smi-lib: RSMI_STATUS_NOT_SUPPORTED"};
  d.pcie = {SmiPcie{{{2500000000, 8}, {8000000000, 16}}, 1}, {}};
  d.replay_count = {3, {}};
  d.throttle_status = {std::nullopt, "rocm-smi-lib: RSMI_STATUS_NOT_SUPPORTED"};
  return d;
}

TEST(RocmSmiTest, CodecRoundTrips) {
  SmiProbe probe;
  probe.version = "1.0.0";
  probe.devices = {Sample()};
  SmiProbe back = SmiProbeFromJson(SmiProbeToJson(probe));
  ASSERT_EQ(back.devices.size(), 1u);
  const SmiDevice& d = back.devices[0];
  EXPECT_EQ(back.version, "1.0.0");
  EXPECT_EQ(d.bdfid, 0x6400u);
  EXPECT_EQ(d.firmware[0].block, "mec");
  EXPECT_EQ(d.firmware[0].version.value, 0x43u);
  EXPECT_EQ(d.firmware[1].version.unknown, "rocm-smi-lib: not supported");
  EXPECT_EQ(d.ecc_enabled.value, 0x5u);
  EXPECT_EQ(d.ecc[0].count.value->correctable, 3u);
  EXPECT_EQ(d.ecc[0].count.value->uncorrectable, 1u);
  EXPECT_EQ(d.ecc[2].count.unknown, "rocm-smi-lib: RSMI_STATUS_NOT_SUPPORTED");
  ASSERT_TRUE(d.pcie.value);
  EXPECT_EQ(d.pcie.value->current, 1u);
  EXPECT_EQ(d.pcie.value->levels[1].transfer_rate, 8000000000u);
  EXPECT_EQ(d.pcie.value->levels[1].lanes, 16u);
  EXPECT_EQ(d.replay_count.value, 3u);
  EXPECT_FALSE(d.throttle_status.value);
}

TEST(RocmSmiTest, CodecRefusesACurrentLevelOutOfRange) {
  SmiProbe probe;
  probe.devices = {Sample()};
  auto doc = SmiProbeToJson(probe);
  doc["devices"][0]["pcie"]["current"] = 2;
  EXPECT_THROW(SmiProbeFromJson(doc), nlohmann::json::exception);
}

// nlohmann's get<uint64_t>() casts any number (1e46 is undefined behaviour, found by the
// rocm_smi_reply fuzz target); an answer whose numbers are not unsigned integers of their field's
// size is not understood.
TEST(RocmSmiTest, CodecRefusesNumbersThatAreNotUnsignedIntegersOfTheirSize) {
  SmiProbe probe;
  probe.devices = {Sample()};
  const nlohmann::ordered_json good = SmiProbeToJson(probe);
  EXPECT_NO_THROW(SmiProbeFromJson(good));
  auto refused = [&](const nlohmann::ordered_json::json_pointer& at, const nlohmann::ordered_json& value) {
    nlohmann::ordered_json doc = good;
    doc[at] = value;
    EXPECT_THROW(SmiProbeFromJson(doc), nlohmann::json::exception) << at.to_string() << " = " << value.dump();
  };
  using Ptr = nlohmann::ordered_json::json_pointer;
  refused(Ptr("/devices/0/bdfid"), 1.26667e+46);
  refused(Ptr("/devices/0/bdfid"), -1);
  refused(Ptr("/devices/0/replay_count"), 2.5);
  refused(Ptr("/devices/0/ecc/umc/0"), -3);
  refused(Ptr("/devices/0/firmware/mec"), 1e300);
  refused(Ptr("/devices/0/throttle_status"), 4294967296ULL);  // 2^32 in a 32-bit field
  refused(Ptr("/devices/0/pcie/levels/0/1"), 4294967296ULL);
  refused(Ptr("/devices/0/pcie/current"), 0.0);
  refused(Ptr("/devices/0/ecc_enabled"), "5");
  // The largest values of each field are still values.
  nlohmann::ordered_json big = good;
  big["devices"][0]["throttle_status"] = 4294967295ULL;
  big["devices"][0]["replay_count"] = 18446744073709551615ULL;
  SmiProbe back = SmiProbeFromJson(big);
  EXPECT_EQ(back.devices[0].throttle_status.value, 4294967295u);
  EXPECT_EQ(back.devices[0].replay_count.value, 18446744073709551615ULL);
}

TEST(RocmSmiTest, BlockNamesFollowTheHeadersBits) {
  EXPECT_EQ(SmiBlockNames(0x5), (std::vector<std::string>{"umc", "gfx"}));
  EXPECT_EQ(SmiBlockNames(0x2000 | (1ULL << 20)), (std::vector<std::string>{"fuse", "bit 20"}));
  EXPECT_TRUE(SmiBlockNames(0).empty());
}

TEST(RocmSmiTest, AMissingLibraryIsAnErrorNotACrash) {
  SmiProbe probe =
      ProbeRocmSmi({{{sys::SmiKind::kRocmSmi, "/nonexistent/librocm_smi64.so.1"}}, std::chrono::milliseconds(5000)});
  EXPECT_NE(probe.error.find("rocm-smi-lib is not installed (/nonexistent/librocm_smi64.so.1"), std::string::npos)
      << probe.error;
  EXPECT_TRUE(probe.devices.empty());
}

TEST(RocmSmiTest, ALibraryWithoutTheFunctionsIsAnError) {
  // libm is loadable and has no rsmi_init.
  SmiProbe probe = ProbeRocmSmi({{{sys::SmiKind::kRocmSmi, "libm.so.6"}}, std::chrono::milliseconds(5000)});
  EXPECT_EQ(probe.error, "libm.so.6 has no rsmi_init");
}

TEST(RocmSmiTest, TheRealLibraryWithoutDrmFailsInitCleanly) {
  struct stat st {};
  if (stat("/sys/class/drm", &st) == 0) GTEST_SKIP() << "/sys/class/drm exists here: rsmi_init may succeed";
  // Captured at the file descriptors, which the child inherits.
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  SmiProbe probe = ProbeRocmSmi();
  std::string out = ::testing::internal::GetCapturedStdout();
  std::string err = ::testing::internal::GetCapturedStderr();
  if (probe.error.starts_with("rocm-smi-lib is not installed")) GTEST_SKIP() << probe.error;
  // rocm-smi-lib 5.2 throws inside rsmi_init without /sys/class/drm and prints "Failed to open
  // drm root directory" and "Exception caught: rsmi_init."; the child keeps both, the parent
  // gets the status.
  EXPECT_EQ(out, "");
  EXPECT_EQ(err, "");
  EXPECT_NE(probe.error.find("rsmi_init failed (rocm-smi-lib: "), std::string::npos) << probe.error;
  EXPECT_FALSE(probe.version.empty());  // rsmi_version_get answers before rsmi_init
}

}  // namespace
}  // namespace rocmtune::sys
