#include "sys/root.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_tree.h"

namespace rocmtune::sys {
namespace {

using ::testing::HasSubstr;
using testing::TestTree;

// Enough ".." to climb from anywhere in a temp tree to the host's "/" (extra ones stay at "/").
std::string Climb() {
  std::string up;
  for (int i = 0; i < 32; ++i) up += "../";
  return up;
}

std::string ReadHostFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

Root OpenRoot(const TestTree& t) {
  auto root = Root::Open(t.path());
  if (!root) throw std::runtime_error(root.error().message);
  return std::move(*root);
}

// "Live" is a fact about the directory, not about how its path is spelled.
TEST(RootTest, LiveIsTheSameDirectoryAsSlashWhateverThePathSays) {
  for (const char* spelling : {"/", "//", "/.", "/./", "/etc/.."}) {
    auto root = Root::Open(spelling);
    ASSERT_TRUE(root) << spelling;
    EXPECT_TRUE(root->IsLive()) << spelling;
    EXPECT_EQ(root->Display("etc/fstab"), "/etc/fstab") << spelling;
  }
  TestTree tree;
  tree.Symlink("to-slash", "/");
  EXPECT_TRUE(Root::Open(tree.Path("to-slash"))->IsLive()) << "a link to / is /";
  tree.Mkdir("w");
  auto world = Root::Open(tree.Path("w"));
  ASSERT_TRUE(world);
  EXPECT_FALSE(world->IsLive());
  EXPECT_EQ(world->Display("etc/fstab"), tree.Path("w") + "/etc/fstab");
}

// The handle keeps naming the directory it opened after the path is pointed elsewhere.
TEST(RootTest, AnOpenRootIsTheDirectoryNotThePath) {
  TestTree tree;
  tree.Write("w/etc/marker", "planned\n");
  tree.Write("other/etc/marker", "other\n");
  auto root = Root::Open(tree.Path("w"));
  ASSERT_TRUE(root);
  ASSERT_EQ(::rename(tree.Path("w").c_str(), tree.Path("w.moved").c_str()), 0);
  tree.Symlink("w", "other");
  EXPECT_EQ(root->ReadFile("etc/marker").value(), "planned\n");
  auto dup = root->Duplicate();
  ASSERT_TRUE(dup);
  EXPECT_EQ(dup->id(), root->id());
  EXPECT_EQ(dup->ReadFile("etc/marker").value(), "planned\n");
  auto reopened = Root::Open(tree.Path("w"));
  ASSERT_TRUE(reopened);
  EXPECT_NE(reopened->id(), root->id()) << "the path now names another directory";
  auto adopted = Root::Adopt(UniqueFd(::fcntl(root->fd(), F_DUPFD_CLOEXEC, 0)), "shown");
  ASSERT_TRUE(adopted);
  EXPECT_EQ(adopted->id(), root->id());
  EXPECT_EQ(adopted->ReadFile("etc/marker").value(), "planned\n");
  EXPECT_FALSE(Root::Adopt(UniqueFd(), "none"));
  UniqueFd file(::open(tree.Path("other/etc/marker").c_str(), O_RDONLY | O_CLOEXEC));
  EXPECT_FALSE(Root::Adopt(std::move(file), "a file")) << "a root is a directory";
}

TEST(RootTest, ReadFileReturnsBytesExactly) {
  TestTree t;
  const std::string content("0xc1\n\0\0\0  \r\n\0", 13);
  t.Write("sys/revision", content);
  Root root = OpenRoot(t);
  auto read = root.ReadFile("sys/revision");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, content);  // NULs and whitespace kept: cleaning is the caller's job
  EXPECT_EQ(read->size(), 13u);
}

TEST(RootTest, LeadingSlashIsRelativeToTheRoot) {
  TestTree t;
  t.Write("etc/hostname", "world\n");
  Root root = OpenRoot(t);
  EXPECT_EQ(root.ReadFile("/etc/hostname").value_or(""), "world\n");
}

TEST(RootTest, MissingFileIsNotFoundAndNamesThePath) {
  TestTree t;
  Root root = OpenRoot(t);
  auto read = root.ReadFile("sys/no/such/file");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(read.error().errno_value, ENOENT);
  EXPECT_THAT(read.error().message, HasSubstr(t.path() + "/sys/no/such/file"));
}

TEST(RootTest, FileOverTheLimitIsTooLarge) {
  TestTree t;
  t.Write("big", std::string(2 << 20, 'x'));
  Root root = OpenRoot(t);
  auto read = root.ReadFile("big");  // default limit: 1 MiB
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, ErrorCode::kTooLarge);
  EXPECT_THAT(read.error().message, HasSubstr(t.path() + "/big"));
}

TEST(RootTest, LimitIsInclusive) {
  TestTree t;
  t.Write("ten", "0123456789");
  Root root = OpenRoot(t);
  EXPECT_EQ(root.ReadFile("ten", 10).value_or(""), "0123456789");
  auto read = root.ReadFile("ten", 9);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, ErrorCode::kTooLarge);
}

TEST(RootTest, FifoIsRefusedWithoutBlocking) {
  TestTree t;
  ASSERT_EQ(::mkfifo(t.Path("fifo").c_str(), 0600), 0);
  Root root = OpenRoot(t);
  // No writer exists: a blocking open or read would hang here (and time out under ctest).
  auto read = root.ReadFile("fifo");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, ErrorCode::kInvalidData);
  EXPECT_THAT(read.error().message, HasSubstr("not a regular file"));
}

// Security review 3, item 7: as root, ReadFile opened an entry before it looked at its type, and
// opening a device node can act by itself (a watchdog starts counting). inotify reports every
// open(2) of a watched entry (IN_OPEN); the O_PATH lookup now made first opens nothing.
TEST(RootTest, AsRootWhatIsNotARegularFileIsNeverOpened) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root: only root's reads look before they open";
  TestTree t;
  ASSERT_EQ(::mkfifo(t.Path("fifo").c_str(), 0600), 0);
  // /dev/null's numbers: harmless if opened, but a device all the same.
  ASSERT_EQ(::mknod(t.Path("null").c_str(), S_IFCHR | 0600, makedev(1, 3)), 0) << std::strerror(errno);
  t.Symlink("to-fifo", "fifo");
  t.Write("file", "x");
  Root root = OpenRoot(t);
  int in = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  ASSERT_GE(in, 0);
  for (const char* name : {"fifo", "null", "file"})
    ASSERT_GE(::inotify_add_watch(in, t.Path(name).c_str(), IN_OPEN), 0) << name;
  char events[4096];
  for (const char* name : {"fifo", "null", "to-fifo"}) {
    auto read = root.ReadFile(name);
    ASSERT_FALSE(read) << name;
    EXPECT_EQ(read.error().code, ErrorCode::kInvalidData) << name;
    EXPECT_THAT(read.error().message, HasSubstr("not a regular file")) << name;
    errno = 0;
    EXPECT_LT(::read(in, events, sizeof(events)), 0) << name << " was opened";
    EXPECT_EQ(errno, EAGAIN) << name;
  }
  // The watch sees an open: the regular file is opened and read.
  EXPECT_EQ(root.ReadFile("file").value_or(""), "x");
  EXPECT_GT(::read(in, events, sizeof(events)), 0) << "inotify saw no open of the regular file";
  ::close(in);
}

TEST(RootTest, DirectoryIsNotReadAsAFile) {
  TestTree t;
  t.Mkdir("sys/class");
  Root root = OpenRoot(t);
  auto read = root.ReadFile("sys/class");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, ErrorCode::kInvalidData);
  EXPECT_THAT(read.error().message, HasSubstr("not a regular file"));
}

TEST(RootTest, SymlinkLoopIsAnError) {
  TestTree t;
  t.Symlink("a", "b");
  t.Symlink("b", "a");
  Root root = OpenRoot(t);
  auto read = root.ReadFile("a");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().errno_value, ELOOP);
  EXPECT_THAT(read.error().message, HasSubstr("symbolic links"));
}

TEST(RootTest, RelativeSymlinkDoesNotClimbOutOfTheRoot) {
  TestTree outside;
  outside.Write("secret", "TOP-SECRET\n");
  TestTree t;
  t.Symlink("sys/escape", Climb() + outside.path().substr(1) + "/secret");
  // Followed by the host, the link does reach the secret: only Root keeps it in.
  ASSERT_EQ(ReadHostFile(t.Path("sys/escape")), "TOP-SECRET\n");
  Root root = OpenRoot(t);

  auto read = root.ReadFile("sys/escape");
  ASSERT_FALSE(read) << "read outside the root: " << *read;
  EXPECT_EQ(read.error().code, ErrorCode::kNotFound);

  // The ".." stop at the root, so the same path inside the world is what the link names.
  t.Write(outside.path().substr(1) + "/secret", "in-world copy\n");
  EXPECT_EQ(root.ReadFile("sys/escape").value_or(""), "in-world copy\n");
}

TEST(RootTest, AbsoluteSymlinkResolvesInsideTheRoot) {
  TestTree t;
  t.Symlink("sys/passwd-link", "/etc/passwd");
  Root root = OpenRoot(t);
  auto missing = root.ReadFile("sys/passwd-link");
  ASSERT_FALSE(missing) << "read the host's /etc/passwd";
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);

  t.Write("etc/passwd", "world:x:0:0::/:/bin/false\n");
  auto read = root.ReadFile("sys/passwd-link");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, "world:x:0:0::/:/bin/false\n");
  std::string host = ReadHostFile("/etc/passwd");
  if (!host.empty()) {
    EXPECT_NE(*read, host);
  }
}

TEST(RootTest, DotDotInTheRequestCannotEscape) {
  TestTree outside;
  outside.Write("secret", "TOP-SECRET\n");
  TestTree t;
  Root root = OpenRoot(t);
  auto read = root.ReadFile(Climb() + outside.path().substr(1) + "/secret");
  ASSERT_FALSE(read) << "read outside the root: " << *read;
  EXPECT_EQ(read.error().code, ErrorCode::kNotFound);

  t.Write("etc/passwd", "world\n");
  t.Mkdir("sys/class");
  EXPECT_EQ(root.ReadFile("sys/class/../../../../../etc/passwd").value_or(""), "world\n");
}

// Exit codes of the unprivileged child below.
enum ChildExit { kChildOk = 0, kChildControlFailed = 11, kChildReadSucceeded, kChildWrongError };

int CheckUnreadable(const Root& root) {
  if (!root.ReadFile("readable")) return kChildControlFailed;
  auto read = root.ReadFile("unreadable");
  if (read) return kChildReadSucceeded;
  if (read.error().errno_value != EACCES || read.error().code != ErrorCode::kIo) return kChildWrongError;
  return kChildOk;
}

TEST(RootTest, UnreadableFileIsAnErrorWithEacces) {
  TestTree t;
  ASSERT_EQ(::chmod(t.path().c_str(), 0755), 0);  // mkdtemp's 0700 would hide everything from "nobody"
  t.Write("readable", "ok\n");
  t.Write("unreadable", "hidden\n");
  t.Chmod("unreadable", 0);
  Root root = OpenRoot(t);
  // Root ignores permission bits (CAP_DAC_OVERRIDE): check as "nobody" in a child.
  int result = testing::RunAsNobody([](const void* r) { return CheckUnreadable(*static_cast<const Root*>(r)); }, &root);
  if (result == testing::kNoPrivilegeDrop) GTEST_SKIP() << "cannot drop privileges to uid 65534 here";
  EXPECT_EQ(result, kChildOk)
      << "11: readable control file failed, 12: mode 000 file was read, 13: error without EACCES";
}

TEST(RootTest, ListDirIsSortedWithoutDotEntries) {
  TestTree t;
  t.Write("d/card1", "");
  t.Write("d/card0", "");
  t.Mkdir("d/renderD128");
  t.Symlink("d/card10", "card1");
  Root root = OpenRoot(t);
  auto names = root.ListDir("d");
  ASSERT_TRUE(names) << names.error().message;
  EXPECT_EQ(*names, (std::vector<std::string>{"card0", "card1", "card10", "renderD128"}));
}

TEST(RootTest, ListDirOfMissingDirIsNotFound) {
  TestTree t;
  Root root = OpenRoot(t);
  auto names = root.ListDir("sys/class/kfd");
  ASSERT_FALSE(names);
  EXPECT_EQ(names.error().code, ErrorCode::kNotFound);
}

TEST(RootTest, TypeOfSeesTheLinkResolvedTypeOfFollowsIt) {
  TestTree t;
  t.Mkdir("devices/gpu");
  t.Write("file", "x");
  t.Symlink("link", "devices/gpu");
  t.Symlink("dangling", "nowhere");
  ASSERT_EQ(::mkfifo(t.Path("fifo").c_str(), 0600), 0);
  Root root = OpenRoot(t);
  EXPECT_EQ(root.TypeOf("link"), EntryType::kSymlink);
  EXPECT_EQ(root.ResolvedTypeOf("link"), EntryType::kDirectory);
  EXPECT_TRUE(root.IsDirectory("link"));
  EXPECT_EQ(root.TypeOf("dangling"), EntryType::kSymlink);
  EXPECT_EQ(root.ResolvedTypeOf("dangling"), EntryType::kMissing);
  EXPECT_FALSE(root.Exists("dangling"));
  EXPECT_EQ(root.TypeOf("file"), EntryType::kFile);
  EXPECT_EQ(root.TypeOf("fifo"), EntryType::kOther);
  EXPECT_EQ(root.TypeOf("absent"), EntryType::kMissing);
}

TEST(RootTest, ReadLinkReturnsTheStoredTarget) {
  TestTree t;
  t.Symlink("sys/class/drm/card0", "../../devices/pci0000:00/0000:03:00.0/drm/card0");
  t.Write("plain", "x");
  Root root = OpenRoot(t);
  EXPECT_EQ(root.ReadLink("sys/class/drm/card0").value_or(""), "../../devices/pci0000:00/0000:03:00.0/drm/card0");
  EXPECT_FALSE(root.ReadLink("plain"));
  EXPECT_FALSE(root.ReadLink("absent"));
}

TEST(RootTest, DisplayShowsWorldAndLivePaths) {
  TestTree t;
  auto world = Root::Open(t.path() + "/");
  ASSERT_TRUE(world);
  EXPECT_EQ(world->path(), t.path());
  EXPECT_FALSE(world->IsLive());
  EXPECT_EQ(world->Display("sys/class/drm"), t.path() + "/sys/class/drm");
  EXPECT_EQ(world->Display(""), t.path());

  auto live = Root::Open("/");
  ASSERT_TRUE(live) << live.error().message;
  EXPECT_TRUE(live->IsLive());
  EXPECT_EQ(live->Display("sys/class/drm"), "/sys/class/drm");
  EXPECT_EQ(live->Display("/proc/cmdline"), "/proc/cmdline");
}

TEST(RootTest, OpenRefusesMissingPathsAndFiles) {
  TestTree t;
  t.Write("file", "x");
  auto missing = Root::Open(t.path() + "/absent");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_THAT(missing.error().message, HasSubstr(t.path() + "/absent"));
  auto file = Root::Open(t.Path("file"));
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().errno_value, ENOTDIR);
  EXPECT_FALSE(Root::Open(""));
}

}  // namespace
}  // namespace rocmtune::sys
