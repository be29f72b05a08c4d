// The errors the crash suite injects, made for real, without injection: a directory the helper may
// not write (EACCES, as uid 65534), a read-only /etc (EROFS, a read-only bind mount) and a full
// file system (ENOSPC, a small tmpfs). Each must end in a failed result that names the errno
// and the path, the tree as before, and a journal with nothing incomplete. The mounts are made
// in a private mount namespace of this test process; a test skips, saying why, when it cannot
// get the privilege or the mount it needs.
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "crash_scenario.h"
#include "journal/journal.h"
#include "sys/root.h"
#include "test_tree.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace rocmtune::crash {
namespace {

constexpr uid_t kNobody = 65534;
const std::vector<std::string> kRealErrorKnobs = {"amdgpu.noretry=1", "cmdline.iommu=pt", "env.HSA_ENABLE_SDMA=0"};
constexpr const char* kModprobeFile = "etc/modprobe.d/rocmtune.conf";

// This process's mounts made private to it, once: what the tests mount is seen by nobody else
// and goes away with the process. Returns why not, or "".
std::string PrivateMounts() {
  static const std::string error = []() -> std::string {
    if (::unshare(CLONE_NEWNS) != 0) return fmt::format("unshare(CLONE_NEWNS): {}", std::strerror(errno));
    if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
      return fmt::format("making / a private mount: {}", std::strerror(errno));
    return "";
  }();
  return error;
}

// A mount undone (lazily, so a file still open cannot keep it) when the test ends.
class Mount {
 public:
  Mount() = default;
  ~Mount() {
    if (!target_.empty()) ::umount2(target_.c_str(), MNT_DETACH);
  }
  Mount(const Mount&) = delete;
  Mount& operator=(const Mount&) = delete;

  // Returns why it failed, or "".
  std::string Tmpfs(const std::string& target, const std::string& options) {
    if (::mount("tmpfs", target.c_str(), "tmpfs", 0, options.c_str()) != 0)
      return fmt::format("mounting a tmpfs ({}) on {}: {}", options, target, std::strerror(errno));
    target_ = target;
    return "";
  }
  std::string ReadOnlyBind(const std::string& dir) {
    if (::mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0)
      return fmt::format("bind-mounting {}: {}", dir, std::strerror(errno));
    target_ = dir;
    if (::mount(nullptr, dir.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY, nullptr) != 0)
      return fmt::format("remounting {} read-only: {}", dir, std::strerror(errno));
    return "";
  }

 private:
  std::string target_;
};

class RealErrorTest : public ::testing::Test {
 protected:
  // mi210x8 copied to `root` (with etc/modprobe.d when `modprobe_dir`), the knobs planned on it.
  void Prepare(const std::string& root, bool modprobe_dir) {
    root_ = root;
    CopyWorld(WorldDir("mi210x8"), root_);
    if (modprobe_dir) fs::create_directory(root_ + "/etc/modprobe.d");
    plan_json_ = PlanText(PlanSet(root_, kRealErrorKnobs));
  }

  RunResult Apply(const RunOptions& options = {}) {
    before_ = Snapshot(root_);
    // A helper dropping to another uid runs a copy that uid can reach (see ReachableCopy).
    std::string helper = options.uid ? testing::ReachableCopy(kRealHelper, scratch_.Path("bin")) : kRealHelper;
    return RunHelper(helper, {"--root", root_, "apply"}, plan_json_, options);
  }

  void ExpectFailedCleanly(const RunResult& r, int err, const std::string& path) {
    std::cout << "real " << strerrorname_np(err) << ": " << r.messages();
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_EQ(r.status(), "failed") << r.output;
    EXPECT_THAT(r.messages(), HasSubstr(std::strerror(err))) << r.output;
    EXPECT_THAT(r.messages(), HasSubstr(path)) << r.output;
    EXPECT_EQ(Difference(before_, Snapshot(root_)), "");
    auto root = sys::Root::Open(root_);
    ASSERT_TRUE(root);
    auto txns = journal::Load(*root);
    ASSERT_TRUE(txns) << txns.error().message;
    for (const journal::Transaction& t : *txns) EXPECT_NE(journal::StateName(t.state), "interrupted") << t.id;
  }

  ScratchDir scratch_;
  std::string root_, plan_json_;
  Tree before_;
};

// etc/modprobe.d belongs to root; the helper runs as nobody (or, not being root, finds the
// directory made read-only for its own user).
TEST_F(RealErrorTest, UnwritableDirectoryIsEaccesAndChangesNothing) {
  Prepare(scratch_.Path("root"), true);
  RunOptions options;
  if (::geteuid() == 0) {
    // Nobody must reach the tree and own rocmtune's state directory, nothing else.
    ASSERT_EQ(::chmod(scratch_.path().c_str(), 0755), 0);
    fs::create_directories(root_ + "/" + std::string(journal::kJournalDir));
    for (const std::string dir : {"var/lib/rocmtune", "var/lib/rocmtune/journal"})
      ASSERT_EQ(::chown((root_ + "/" + dir).c_str(), kNobody, kNobody), 0) << dir;
    options.uid = kNobody;
  } else {
    ASSERT_EQ(::chmod((root_ + "/etc/modprobe.d").c_str(), 0555), 0);
  }
  RunResult r = Apply(options);
  if (r.exit_code == testing::kNoPrivilegeDrop) GTEST_SKIP() << "cannot switch to uid " << kNobody << ": " << r.output;
  ExpectFailedCleanly(r, EACCES, kModprobeFile);
}

// /etc read-only, as on an image-based system: the first write into it (creating
// etc/modprobe.d) fails, and rolling back must not need to write there either.
TEST_F(RealErrorTest, ReadOnlyEtcIsErofsAndChangesNothing) {
  if (std::string why = PrivateMounts(); !why.empty()) GTEST_SKIP() << why;
  Prepare(scratch_.Path("root"), false);
  Mount etc;
  if (std::string why = etc.ReadOnlyBind(root_ + "/etc"); !why.empty()) GTEST_SKIP() << why;
  RunResult r = Apply();
  ExpectFailedCleanly(r, EROFS, "etc/modprobe.d");
  // The journal holds nothing to recover: the next run starts cleanly, even with /etc still read-only.
  RunResult again = RunHelper(kRealHelper, {"--root", root_, "recover"}, "");
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(again.status(), "unchanged") << again.output;
}

// A file system with one free page left: enough for the journal record, not for the new file.
TEST_F(RealErrorTest, FullFileSystemIsEnospcAndChangesNothing) {
  if (std::string why = PrivateMounts(); !why.empty()) GTEST_SKIP() << why;
  const std::string small = scratch_.Path("small");
  fs::create_directory(small);
  Mount tmpfs;
  if (std::string why = tmpfs.Tmpfs(small, "size=4m,mode=0755"); !why.empty()) GTEST_SKIP() << why;
  Prepare(small + "/root", true);
  // The journal directory and the lock exist before the disk fills, as on a system used before.
  RunResult recovered = RunHelper(kRealHelper, {"--root", root_, "recover"}, "");
  ASSERT_EQ(recovered.exit_code, 0) << recovered.output;

  const std::string filler = small + "/filler";
  int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  const std::string page(4096, 'x');
  off_t size = 0;
  while (::write(fd, page.data(), page.size()) == static_cast<ssize_t>(page.size())) size += 4096;
  EXPECT_EQ(errno, ENOSPC);
  ASSERT_EQ(::ftruncate(fd, size - 4096), 0) << std::strerror(errno);
  ::close(fd);

  RunResult r = Apply();
  ExpectFailedCleanly(r, ENOSPC, kModprobeFile);
}

}  // namespace
}  // namespace rocmtune::crash
