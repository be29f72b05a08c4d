// amd-smi through the probe child: the test-only libamd_smi stand-in (fake_amd_smi.cc; the real
// library is not in Debian 12), a library that aborts or hangs, the order libraries are tried in,
// rocm-smi-lib's init flags; and the real libamd_smi where one is installed.
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "sys/rocm_smi.h"

namespace rocmtune::sys {
namespace {

// The probe child loads the library as an unprivileged user (nobody, when the tests run as root):
// a build beneath a private (0700) clone is out of its reach, so the stand-in is copied once to a
// directory everyone can read, as the real one is in /usr/lib.
struct ReadableDir {
  std::string dir;  // empty when it could not be made: the build's own file is used
  ~ReadableDir() {
    std::error_code ignored;
    if (!dir.empty()) std::filesystem::remove_all(dir, ignored);
  }
};

std::string ReadableCopy() {
  static const ReadableDir scratch = [] {
    char dir[] = "/tmp/rocmtune-fake-amdsmi-XXXXXX";
    if (!::mkdtemp(dir)) return ReadableDir{};
    std::filesystem::permissions(dir, std::filesystem::perms(0755));
    std::filesystem::copy_file(ROCMTUNE_FAKE_AMD_SMI, std::string(dir) + "/libfake_amd_smi.so");
    std::filesystem::permissions(std::string(dir) + "/libfake_amd_smi.so", std::filesystem::perms(0644));
    return ReadableDir{dir};
  }();
  return scratch.dir.empty() ? std::string(ROCMTUNE_FAKE_AMD_SMI) : scratch.dir + "/libfake_amd_smi.so";
}

class AmdSmiTest : public ::testing::Test {
 protected:
  void SetUp() override { kFake = {SmiKind::kAmdSmi, ReadableCopy()}; }
  void TearDown() override { unsetenv("FAKE_AMDSMI_MODE"); }
  SmiLibrary kFake;
  static SmiProbe Probe(std::vector<SmiLibrary> libraries, int ms = 10000) {
    return ProbeRocmSmi({.libraries = std::move(libraries), .timeout = std::chrono::milliseconds(ms)});
  }
};

TEST_F(AmdSmiTest, ReadsTheFactsAmdSmiGives) {
  SmiProbe probe = Probe({kFake});
  ASSERT_EQ(probe.error, "");
  EXPECT_EQ(probe.source, "amd-smi");
  EXPECT_EQ(probe.library, kFake.name);
  EXPECT_EQ(probe.version, "26.2.0");
  ASSERT_EQ(probe.devices.size(), 1u);
  const SmiDevice& d = probe.devices[0];
  EXPECT_EQ(d.bdfid, 0x300u);
  std::map<std::string, SmiFact<uint64_t>> fw;
  for (const SmiNamedFirmware& f : d.firmware) fw[f.block] = f.version;
  EXPECT_EQ(fw["mec"].value, 0x1feu);
  EXPECT_EQ(fw["rlc"].value, 0x61u);
  EXPECT_EQ(fw["smc"].value, 0x4e5600u);
  EXPECT_EQ(fw["sos"].value, 0x210c64u);
  // Past num_fw_info, and absent: unknown with the reason.
  EXPECT_FALSE(fw["vcn"].value);
  EXPECT_EQ(fw["vcn"].unknown, "amd-smi: the library does not list this firmware");
  EXPECT_FALSE(fw["sdma"].value);
  EXPECT_EQ(d.ecc_enabled.value, 0x5u);
  ASSERT_EQ(d.ecc.size(), 3u);
  EXPECT_EQ(d.ecc[0].block, "umc");
  ASSERT_TRUE(d.ecc[0].count.value);
  EXPECT_EQ(d.ecc[0].count.value->correctable, 5u);
  EXPECT_EQ(d.ecc[0].count.value->uncorrectable, 2u);
  EXPECT_EQ(d.ecc[1].count.unknown, "amd-smi: AMDSMI_STATUS_NOT_SUPPORTED: Feature not supported");
  EXPECT_EQ(d.replay_count.value, 42u);
  EXPECT_FALSE(d.pcie.value);
  EXPECT_NE(d.pcie.unknown.find("amdsmi_get_gpu_pci_bandwidth"), std::string::npos) << d.pcie.unknown;
  EXPECT_FALSE(d.throttle_status.value);
  EXPECT_NE(d.throttle_status.unknown.find("amdsmi_get_gpu_metrics_info"), std::string::npos);
}

// rocm_smi_lib issue 232: rocm-smi-lib 7.2 fails an assert() on the WINDOW_3D power profile and
// aborts. A library that aborts costs the probe, names itself, and the caller goes on.
TEST_F(AmdSmiTest, ALibraryThatAbortsCostsOneProbe) {
  setenv("FAKE_AMDSMI_MODE", "abort", 1);
  SmiProbe probe = Probe({kFake});
  EXPECT_EQ(probe.error, "amd-smi failed: the process asking it was killed by signal 6 (Aborted)");
  EXPECT_TRUE(probe.devices.empty());
  unsetenv("FAKE_AMDSMI_MODE");
  EXPECT_EQ(Probe({kFake}).error, "");  // the next probe answers
}

TEST_F(AmdSmiTest, ALibraryThatHangsIsKilledAtTheTimeout) {
  setenv("FAKE_AMDSMI_MODE", "hang", 1);
  SmiProbe probe = Probe({kFake}, 1500);
  EXPECT_EQ(probe.error, "amd-smi did not answer within 1500 ms");
}

TEST_F(AmdSmiTest, TheFirstLibraryThatLoadsAnswers) {
  SmiProbe probe = Probe({{SmiKind::kAmdSmi, "/nonexistent/libamd_smi.so.27"},
                          kFake,
                          {SmiKind::kRocmSmi, "/nonexistent/librocm_smi64.so.1"}});
  EXPECT_EQ(probe.source, "amd-smi");
  EXPECT_EQ(probe.devices.size(), 1u);
  // A library without amd-smi's functions is passed over, and named when nothing answers.
  SmiProbe none = Probe({{SmiKind::kAmdSmi, "libm.so.6"}, {SmiKind::kRocmSmi, "/nonexistent/librocm_smi64.so.7"}});
  EXPECT_EQ(none.error, "libm.so.6 has no amdsmi_init");
  SmiProbe missing = Probe(
      {{SmiKind::kAmdSmi, "/nonexistent/libamd_smi.so.26"}, {SmiKind::kRocmSmi, "/nonexistent/librocm_smi64.so.7"}});
  EXPECT_EQ(missing.error,
            "neither amd-smi nor rocm-smi-lib is installed (tried /nonexistent/libamd_smi.so.26, "
            "/nonexistent/librocm_smi64.so.7)");
}

TEST_F(AmdSmiTest, EverySonameInUseIsTried) {
  std::vector<std::string> names;
  for (const SmiLibrary& l : DefaultSmiLibraries()) names.push_back(l.name);
  for (const char* soname : {"libamd_smi.so.27", "libamd_smi.so.26", "librocm_smi64.so.7", "librocm_smi64.so.1"})
    EXPECT_NE(std::find(names.begin(), names.end(), soname), names.end()) << soname;
  EXPECT_EQ(DefaultSmiLibraries().front().kind, SmiKind::kAmdSmi);  // the successor first
}

// RSMI_INIT_FLAG_THRAD_ONLY_MUTEX from rocm-smi-lib 7.2.0 (ROCm 6.1.2) on; Debian 12's 5.2.3
// reports 1.0.0 and ROCm 6.1.1's 7.0.0.
TEST(RsmiInitFlagsTest, ThreadOnlyMutexFromTheReleaseThatHasIt) {
  EXPECT_EQ(RsmiInitFlags(1, 0), 0u);
  EXPECT_EQ(RsmiInitFlags(5, 0), 0u);
  EXPECT_EQ(RsmiInitFlags(7, 1), 0u);
  EXPECT_EQ(RsmiInitFlags(7, 2), 0x400000000000000u);
  EXPECT_EQ(RsmiInitFlags(8, 0), 0x400000000000000u);
}

// The real amd-smi, where it is installed (Debian sid, Ubuntu 26.04, Fedora, Arch): the probe
// answers or says why, and never takes the caller down.
TEST(AmdSmiRealTest, TheInstalledLibraryAnswersOrSaysWhy) {
  std::vector<SmiLibrary> amd;
  for (const SmiLibrary& l : DefaultSmiLibraries())
    if (l.kind == SmiKind::kAmdSmi) amd.push_back(l);
  SmiProbe probe = ProbeRocmSmi({.libraries = amd, .timeout = std::chrono::seconds(20)});
  if (probe.source.empty()) GTEST_SKIP() << "libamd_smi is not installed here: " << probe.error;
  EXPECT_EQ(probe.source, "amd-smi");
  EXPECT_TRUE(!probe.error.empty() || !probe.version.empty()) << "an answer without a version";
  for (const SmiDevice& d : probe.devices) EXPECT_EQ(d.firmware.size(), SmiFirmwareBlocks().size());
}

}  // namespace
}  // namespace rocmtune::sys
