// ShmChecks on a world copy: a world-writable /dev/shm/rocm_smi_* file no process holds is a
// warning naming the file and `rm`; one a process holds (a /proc/PID/fd link to it), one only its
// owner may write and other /dev/shm files are not; without readable /proc it says unknown.
#include <sys/stat.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "diagnose/checks.h"

namespace rocmtune::diagnose {
namespace {

class ShmChecksTest : public ::testing::Test {
 protected:
  void Shm(const std::string& name, mode_t mode) const {
    w_.Write("dev/shm/" + name, std::string(40, '\0'));
    ASSERT_EQ(::chmod(w_.Path("dev/shm/" + name).c_str(), mode), 0);
  }
  std::vector<Finding> Check() const { return ShmChecks(*sys::Root::Open(w_.root())); }
  // proc/PID/fd/N -> target, as the kernel shows a process's open file.
  void Holds(const std::string& pid, const std::string& fd, const std::string& target) const {
    std::filesystem::create_directories(w_.Path("proc/" + pid + "/fd"));
    std::filesystem::create_symlink(target, w_.Path("proc/" + pid + "/fd/" + fd));
  }
  testing::WorldCopy w_{"phoenix"};
};

TEST_F(ShmChecksTest, AWorldWritableFileNoProcessHoldsIsStale) {
  Shm("rocm_smi_card0", 0777);
  Shm("rocm_smi_card1", 0666);
  Shm("rocm_smi_card2", 0644);  // only its owner may write: not the hazard
  Shm("pulse-shm-1", 0777);     // not rocm-smi-lib's
  Holds("4242", "3", "/dev/shm/pulse-shm-1");
  auto found = Check();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].id, "live.stale-smi-mutex");
  EXPECT_EQ(found[0].severity, detect::Severity::kWarning);
  EXPECT_EQ(found[0].subject, "/dev/shm/rocm_smi_card0");
  EXPECT_NE(found[0].what.find("no running process holds it"), std::string::npos) << found[0].what;
  EXPECT_EQ(found[0].fix.text, "Remove it: rm /dev/shm/rocm_smi_card0");
  EXPECT_EQ(found[1].subject, "/dev/shm/rocm_smi_card1");
}

TEST_F(ShmChecksTest, AFileAProcessHoldsIsNotStale) {
  Shm("rocm_smi_card0", 0777);
  Shm("rocm_smi_card1", 0777);
  Holds("77", "5", "/dev/shm/rocm_smi_card0");
  auto found = Check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].subject, "/dev/shm/rocm_smi_card1");
}

TEST_F(ShmChecksTest, WithoutReadableProcessesWhetherItIsHeldIsUnknown) {
  Shm("rocm_smi_card0", 0777);  // the world's proc has no process directories
  auto found = Check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].what.find("whether a running process holds it is unknown"), std::string::npos) << found[0].what;
  EXPECT_EQ(found[0].fix.text,
            "If no program holds it (fuser /dev/shm/rocm_smi_card0), remove it: rm /dev/shm/rocm_smi_card0");
}

TEST_F(ShmChecksTest, NoFilesNoFindings) { EXPECT_TRUE(Check().empty()); }

}  // namespace
}  // namespace rocmtune::diagnose
