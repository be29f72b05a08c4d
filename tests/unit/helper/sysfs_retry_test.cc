// A sysfs write during a GPU reset or suspend: amdgpu refuses it with EPERM (or EBUSY/EAGAIN)
// until the device is back (amdgpu_pm_dev_state_check, drivers/gpu/drm/amd/pm/amdgpu_pm.c). The
// helper tries again with a bounded backoff, and fails saying so when the device stays busy;
// any other error fails at once. The EPERM is real: a world attribute with the immutable flag
// (chattr +i) refuses to be opened for writing with EPERM, even to root.
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "helper/file_writer.h"
#include "test_tree.h"

namespace rocmtune::helper {
namespace {

using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

constexpr const char* kDev = "sys/devices/pci0000:00/0000:03:00.0";
constexpr const char* kAttr = "sys/class/drm/card0/device/power_dpm_force_performance_level";

std::string SlurpAttribute(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Sets or clears FS_IMMUTABLE_FL; returns why it could not, or "".
std::string SetImmutable(const std::string& path, bool on) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fmt::format("open {}: {}", path, std::strerror(errno));
  int flags = 0;
  std::string why;
  if (::ioctl(fd, FS_IOC_GETFLAGS, &flags) != 0) {
    why = fmt::format("FS_IOC_GETFLAGS: {}", std::strerror(errno));
  } else {
    flags = on ? (flags | FS_IMMUTABLE_FL) : (flags & ~FS_IMMUTABLE_FL);
    if (::ioctl(fd, FS_IOC_SETFLAGS, &flags) != 0) why = fmt::format("FS_IOC_SETFLAGS: {}", std::strerror(errno));
  }
  ::close(fd);
  return why;
}

// Fails the sysfs write with `err` for the first `failures` tries, and counts the tries.
class FailingWrites final : public StepHook {
 public:
  FailingWrites(int err, int failures) : err_(err), failures_(failures) {}
  Result<void> Before(Step step, std::string_view) override {
    if (step != Step::kSysfsWrite) return {};
    if (tries_++ < failures_) return Fail(ErrorCode::kIo, "injected", err_);
    return {};
  }
  int tries() const { return tries_; }

 private:
  int err_;
  int failures_;
  int tries_ = 0;
};

class SysfsRetryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_.Write(fmt::format("{}/power_dpm_force_performance_level", kDev), "auto\n");
    tree_.Symlink("sys/class/drm/card0/device", "../../../devices/pci0000:00/0000:03:00.0");
    file_ = tree_.Path(fmt::format("{}/power_dpm_force_performance_level", kDev));
  }
  void TearDown() override { SetImmutable(file_, false); }
  testing::TestTree tree_;
  sys::Root root_ = *sys::Root::Open(tree_.path());
  std::string file_;
};

TEST_F(SysfsRetryTest, ADeviceBusyForAWhileIsWrittenOnceItIsBack) {
  if (std::string why = SetImmutable(file_, true); !why.empty())
    GTEST_SKIP() << "cannot make a file immutable here (needs root and ext4/xfs/btrfs): " << why;
  // The reset ends 150 ms later.
  std::thread reset_ends([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    SetImmutable(file_, false);
  });
  NoHooks hooks;
  FileWriter writer(root_, hooks);
  const auto start = Clock::now();
  auto written = writer.WriteAttribute(kAttr, "high");
  const auto took = Clock::now() - start;
  reset_ends.join();
  ASSERT_TRUE(written) << written.error().message;
  EXPECT_EQ(SlurpAttribute(file_), "high");
  EXPECT_GE(took, std::chrono::milliseconds(150));
  EXPECT_LT(took, std::chrono::seconds(2));
}

TEST_F(SysfsRetryTest, ADeviceThatStaysBusyFailsWithinTwoSecondsSayingWhy) {
  if (std::string why = SetImmutable(file_, true); !why.empty())
    GTEST_SKIP() << "cannot make a file immutable here (needs root and ext4/xfs/btrfs): " << why;
  NoHooks hooks;
  FileWriter writer(root_, hooks);
  const auto start = Clock::now();
  auto written = writer.WriteAttribute(kAttr, "high");
  const auto took = Clock::now() - start;
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().errno_value, EPERM);
  EXPECT_THAT(written.error().message, HasSubstr("power_dpm_force_performance_level"));
  EXPECT_THAT(written.error().message, HasSubstr("5 tries"));
  EXPECT_THAT(written.error().message, HasSubstr("GPU reset"));
  EXPECT_GE(took, std::chrono::milliseconds(700)) << "50 + 100 + 200 + 400 ms between the tries";
  EXPECT_LT(took, std::chrono::seconds(2));
  SetImmutable(file_, false);
  EXPECT_EQ(SlurpAttribute(file_), "auto\n");
}

TEST_F(SysfsRetryTest, EbusyAndEagainAreTriedAgainOtherErrorsAreNot) {
  for (int err : {EBUSY, EAGAIN}) {
    SCOPED_TRACE(std::strerror(err));
    FailingWrites hook(err, 2);
    FileWriter writer(root_, hook);
    auto written = writer.WriteAttribute(kAttr, "high");
    ASSERT_TRUE(written) << written.error().message;
    EXPECT_EQ(hook.tries(), 3);
  }
  for (int err : {EIO, EACCES, ENOSPC}) {
    SCOPED_TRACE(std::strerror(err));
    FailingWrites hook(err, 1);
    FileWriter writer(root_, hook);
    auto written = writer.WriteAttribute(kAttr, "low");
    ASSERT_FALSE(written);
    EXPECT_EQ(written.error().errno_value, err);
    EXPECT_EQ(hook.tries(), 1) << "not tried again";
  }
  EXPECT_EQ(SlurpAttribute(file_), "high");
}

}  // namespace
}  // namespace rocmtune::helper
