// The system log reader's prefilter against the captured fault lines (tests/fixtures/faults).
#include "sys/log_match.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sys/system_log.h"

namespace rocmtune::sys {
namespace {

std::vector<std::string> FixtureLines(const std::string& name) {
  std::ifstream in(std::string(ROCMTUNE_FIXTURES_DIR) + "/faults/" + name);
  EXPECT_TRUE(in) << name;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The message as the kernel logged it: without dmesg's "[  629.844077] " or "[Tue Jul 15 ...] "
// and journalctl's "Jan 09 18:55:45 host kernel: ".
std::string KernelMessage(const std::string& line) {
  static const std::regex kPrefix(R"(^(\[[^\]]*\] |[A-Z][a-zä]+ +\d+ [\d:]+ \S+ kernel: ))");
  return std::regex_replace(line, kPrefix, "", std::regex_constants::format_first_only);
}

TEST(LogMatchTest, EveryAmdgpuAndKfdLineOfTheCapturesIsKept) {
  size_t checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ROCMTUNE_FIXTURES_DIR) + "/faults")) {
    std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".log" || name.find("ollama") == 0 || name.find("hsa-") == 0 ||
        name == "gfx1100-python-runtime-fault.log") {
      continue;
    }
    for (const std::string& line : FixtureLines(name)) {
      // Lines of other drivers and programs that the reports pasted between the GPU's.
      if (line.find("snd_hda_intel") != std::string::npos || line.find("systemd") != std::string::npos ||
          line.find("kwin_wayland[") != std::string::npos) {
        EXPECT_FALSE(KernelLineMatters(KernelMessage(line))) << name << ": " << line;
        continue;
      }
      EXPECT_TRUE(KernelLineMatters(KernelMessage(line))) << name << ": " << line;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100u);
}

TEST(LogMatchTest, KernelLinesWithoutTheWordAmdgpu) {
  for (std::string_view kept : {"Evicting PASID 1 queues", "gmc_v11_0_process_interrupt: 632 callbacks suppressed",
                                "kfd2kgd: update_invalid_user_pages: Failed to get user pages: -14",
                                "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout"}) {
    EXPECT_TRUE(KernelLineMatters(kept)) << kept;
  }
  for (std::string_view other : {"usb 1-1: new high-speed USB device number 2 using xhci_hcd",
                                 // Seen in the QEMU guest (tests/vm/scenarios/faults-kmsg.sh): systemd's
                                 // early lines on /dev/kmsg and the DRM core's own.
                                 "systemd[1]: Starting modprobe@drm.service - Load Kernel Module drm...",
                                 "ACPI: bus type drm_connector registered", "EXT4-fs (nvme0n1p2): mounted filesystem",
                                 "audit: type=1400 apparmor=\"DENIED\""}) {
    EXPECT_FALSE(KernelLineMatters(other)) << other;
  }
}

TEST(LogMatchTest, RuntimeFaultLinesOfServicesAreKeptTheirOtherLinesNot) {
  for (const char* name : {"ollama-memory-access-fault-stderr.log", "hsa-memory-aperture-violation.log",
                           "gfx1100-python-runtime-fault.log", "hsa-memory-aperture-violation-gfx1151.log"}) {
    for (const std::string& line : FixtureLines(name)) {
      bool fault = line.find("fault by GPU") != std::string::npos || line.find("HSA_STATUS_ERROR") != std::string::npos;
      EXPECT_EQ(ServiceLineMatters(line), fault) << name << ": " << line;
    }
  }
  EXPECT_TRUE(ServiceLineMatters("HW Exception by GPU node-1 (Agent handle: 0x5f4d0f4a1c60) reason :GPU Hang"));
  EXPECT_TRUE(ServiceLineMatters("rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat"));
  EXPECT_TRUE(ServiceLineMatters("RuntimeError: HIP error: hipErrorNoBinaryForGpu"));
  // The kernel's words in a service's output are not the runtime's.
  EXPECT_FALSE(ServiceLineMatters("amdgpu 0000:03:00.0: amdgpu: [gfxhub] page fault"));
  EXPECT_FALSE(ServiceLineMatters("memory access fault by gpu"));
}

TEST(LogMatchTest, BoundMessage) {
  EXPECT_EQ(BoundMessage(std::string_view("a\0b\0", 4)), "a b ");
  EXPECT_EQ(BoundMessage(std::string(kMaxMessageBytes + 10, 'x')).size(), kMaxMessageBytes);
  // A two-byte character across the bound is left out whole.
  std::string text(kMaxMessageBytes - 1, 'x');
  text +=
      "\xc3\xa4"
      "tail";
  EXPECT_EQ(BoundMessage(text), std::string(kMaxMessageBytes - 1, 'x'));
}

}  // namespace
}  // namespace rocmtune::sys
