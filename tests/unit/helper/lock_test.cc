// WriterLock: one writer at a time; a non-waiting second writer is told "busy"; the kernel
// releases the lock when its holder dies.
#include "helper/lock.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "helper/executor.h"
#include "journal/journal.h"
#include "test_tree.h"

namespace rocmtune::helper {
namespace {

class WriterLockTest : public ::testing::Test {
 protected:
  WriterLockTest() : root_(*sys::Root::Open(tree_.path())) {}
  testing::TestTree tree_;
  sys::Root root_;
  NoHooks hooks_;
};

TEST_F(WriterLockTest, ASecondAcquireOnAnotherFdIsBusy) {
  auto first = WriterLock::Acquire(root_, hooks_, false);
  ASSERT_TRUE(first) << first.error().message;
  auto second = WriterLock::Acquire(root_, hooks_, false);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(second.error().message.find("in progress"), std::string::npos) << second.error().message;
  // The executor reports it as busy, without touching anything.
  plan::Plan p;
  p.intent = {"set", "", {}, "", {}};
  Outcome out = Executor(root_, hooks_).Run(p, {false, false});
  EXPECT_EQ(out.status, Status::kBusy);
  EXPECT_EQ(Executor(root_, hooks_).Recover({false, false}).status, Status::kBusy);
}

TEST_F(WriterLockTest, ReleasedWhenTheHolderGoes) {
  {
    auto held = WriterLock::Acquire(root_, hooks_, false);
    ASSERT_TRUE(held);
  }
  auto again = WriterLock::Acquire(root_, hooks_, false);
  EXPECT_TRUE(again) << "the lock went with its holder";
}

TEST_F(WriterLockTest, HeldByAnotherProcessIsBusyUntilItDies) {
  int ready[2], release[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(release), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(ready[0]);
    ::close(release[1]);
    auto lock = WriterLock::Acquire(root_, hooks_, false);
    char c = lock ? 'y' : 'n';
    if (::write(ready[1], &c, 1) != 1) ::_exit(2);
    // Hold the lock until the parent closes its end; then die without unlocking.
    ssize_t n = ::read(release[0], &c, 1);
    ::_exit(n < 0 ? 3 : lock ? 0 : 1);
  }
  ::close(ready[1]);
  ::close(release[0]);
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 'y') << "the child could not take the lock";
  auto busy = WriterLock::Acquire(root_, hooks_, false);
  EXPECT_FALSE(busy) << "a lock held by another process must be seen";
  ::close(release[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ::close(ready[0]);
  auto free = WriterLock::Acquire(root_, hooks_, false);
  EXPECT_TRUE(free) << "the kernel drops the lock of a process that ended";
}

TEST_F(WriterLockTest, TheLockFileIsRocmtunesOwnAndNotASymlink) {
  testing::TestTree outside;
  tree_.Mkdir("var/lib/rocmtune");
  tree_.Symlink(journal::kLockFile, outside.Path("lock"));
  auto lock = WriterLock::Acquire(root_, hooks_, false);
  EXPECT_FALSE(lock) << "a planted symlink at the lock must not be followed";
  EXPECT_FALSE(std::filesystem::exists(outside.Path("lock")));
}

// Security review 3, item 5: the lock file was readable by the daemon's group, flock(2) needs only
// a descriptor open for reading, and uid rocmtune holding it stalled root's offline reset and
// `rocmtune-helper recover` for ever. A lock held only by users who are not root is replaced by
// root's writer, which goes on; the lock is root's alone again; a root holder is still waited
// for and named.
TEST_F(WriterLockTest, ALockHeldOnlyByAUserWhoIsNotRootDoesNotStallRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root: only root's writers replace a lock";
  ASSERT_EQ(::chmod(tree_.path().c_str(), 0755), 0);
  { ASSERT_TRUE(WriterLock::Acquire(root_, hooks_, false)); }
  const std::string lock_path = tree_.Path(journal::kLockFile);
  ASSERT_EQ(::chmod(lock_path.c_str(), 0644), 0);  // as readable as an earlier version's (0640)
  struct stat before {};
  ASSERT_EQ(::stat(lock_path.c_str(), &before), 0);
  int ready[2], release[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(release), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(ready[0]);
    ::close(release[1]);
    char c = 'n';
    if (::setgroups(0, nullptr) == 0 && ::setresgid(65534, 65534, 65534) == 0 &&
        ::setresuid(65534, 65534, 65534) == 0) {
      int fd = ::open(lock_path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0) c = 'y';
    }
    if (::write(ready[1], &c, 1) != 1) ::_exit(2);
    ssize_t n = ::read(release[0], &c, 1);
    ::_exit(n < 0 ? 3 : 0);
  }
  ::close(ready[1]);
  ::close(release[0]);
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ::close(ready[0]);
  if (c != 'y') {
    ::close(release[1]);
    ::waitpid(child, nullptr, 0);
    FAIL() << "uid 65534 could not hold the old lock: the attack was not set up";
  }

  auto lock = WriterLock::Acquire(root_, hooks_, false);
  EXPECT_TRUE(lock) << "root's writer is stalled by uid 65534: " << lock.error().message;
  struct stat after {};
  ASSERT_EQ(::stat(lock_path.c_str(), &after), 0);
  EXPECT_EQ(after.st_mode & 07777, 0600u);
  EXPECT_EQ(after.st_uid, 0u);
  EXPECT_EQ(after.st_gid, 0u);
  EXPECT_NE(after.st_ino, before.st_ino) << "the held lock file was not replaced";
  // A second writer now waits for root's holder, and is told who it is.
  auto second = WriterLock::Acquire(root_, hooks_, false);
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().message.find(fmt::format("held by pid {} (", ::getpid())), std::string::npos)
      << second.error().message;
  EXPECT_NE(second.error().message.find("uid 0)"), std::string::npos) << second.error().message;

  ::close(release[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
}

}  // namespace
}  // namespace rocmtune::helper
