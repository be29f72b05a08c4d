// `sudo rocmtunectl snapshot OUT` must write only inside OUT even while the unprivileged owner
// of OUT (or of its parent) swaps OUT, or a directory inside it, for a symlink to a root-only
// place. An attacker running as uid 65534 races many snapshots; the root-only files must stay
// as they were and nothing new may appear beside them.
#include <grp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "snapshot/snapshot.h"
#include "test_tree.h"

namespace fs = std::filesystem;

namespace rocmtune::snapshot {
namespace {

using testing::TestTree;

constexpr uid_t kNobody = 65534;
constexpr int kRuns = 40;

// Every regular file under `dir` with its content: the state the race must not change.
std::map<std::string, std::string> Contents(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    std::string rel = fs::relative(e.path(), dir).string();
    if (e.is_symlink() || !e.is_regular_file()) {
      out[rel] = "<not a file>";
      continue;
    }
    std::ifstream in(e.path(), std::ios::binary);
    out[rel] = std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  return out;
}

enum class Target { kSubdirectory, kOutItself };

// The unprivileged side: whenever a directory it may rename appears, it moves it aside and
// puts a symlink to `victim` in its place. Runs until killed.
[[noreturn]] void Attack(const std::vector<std::string>& outs, const std::string& victim, Target target, int ready_fd) {
  if (::setgroups(0, nullptr) != 0 || ::setresgid(kNobody, kNobody, kNobody) != 0 ||
      ::setresuid(kNobody, kNobody, kNobody) != 0)
    ::_exit(1);
  (void)!::write(ready_fd, "r", 1);
  ::close(ready_fd);
  unsigned moved = 0;
  for (;;) {
    for (const std::string& out : outs) {
      std::vector<std::string> candidates;
      if (target == Target::kOutItself) candidates.push_back(out);
      else
        for (const char* sub : {"etc", "proc", "usr", "sys"}) candidates.push_back(out + "/" + sub);
      for (const std::string& path : candidates) {
        struct stat st {};
        if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        std::string aside = fmt::format("{}.moved{}", path, moved++);
        if (::rename(path.c_str(), aside.c_str()) == 0) (void)!::symlink(victim.c_str(), path.c_str());
      }
    }
  }
}

// A source world with many files under etc/ so a snapshot spends time writing there.
void FillSource(const TestTree& src) {
  src.Write("proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 quiet\n");
  src.Write("etc/os-release", "ID=debian\nVERSION_ID=12\n");
  src.Write("usr/lib/os-release", "ID=debian\nVERSION_ID=12\n");
  src.Write("etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n");
  for (int i = 0; i < 80; ++i) src.Write(fmt::format("etc/modprobe.d/m{:03}.conf", i), "options amdgpu noretry=0\n");
}

void RunRace(Target target) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root: the race is root writing while uid 65534 swaps directories";
  TestTree src, tree;
  FillSource(src);
  tree.Chmod("", 0755);  // uid 65534 must reach its own directory inside
  // Root-only files the attacker wants root to overwrite: victim/<rel> is what a snapshot would
  // write when OUT/etc or OUT itself is swapped for a link to victim.
  tree.Write("victim/default/grub", "root-only original\n");
  tree.Write("victim/etc/default/grub", "root-only original\n");
  tree.Mkdir("victim/modprobe.d");
  tree.Mkdir("victim/etc/modprobe.d");
  tree.Chmod("victim/default/grub", 0600);
  tree.Chmod("victim/etc/default/grub", 0600);
  tree.Chmod("victim", 0700);
  auto before = Contents(tree.Path("victim"));

  tree.Mkdir("parent");
  ASSERT_EQ(::chown(tree.Path("parent").c_str(), kNobody, kNobody), 0);
  std::vector<std::string> outs;
  for (int i = 0; i < kRuns; ++i) {
    outs.push_back(tree.Path(fmt::format("parent/snap{}", i)));
    if (target == Target::kSubdirectory) {  // the user made an empty OUT and asked root to fill it
      ASSERT_EQ(::mkdir(outs.back().c_str(), 0755), 0);
      ASSERT_EQ(::chown(outs.back().c_str(), kNobody, kNobody), 0);
    }
  }

  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(ready[0]);
    Attack(outs, tree.Path("victim"), target, ready[1]);
  }
  ::close(ready[1]);
  char c = 0;
  bool attacking = ::read(ready[0], &c, 1) == 1;
  ::close(ready[0]);
  if (!attacking) {
    ::waitpid(pid, nullptr, 0);
    GTEST_SKIP() << "cannot drop privileges to uid 65534 here";
  }

  auto root = sys::Root::Open(src.path());
  ASSERT_TRUE(root);
  for (const std::string& out : outs) (void)WriteSnapshot(*root, out);  // failing is fine; escaping is not
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);

  size_t swaps = 0;
  for (const auto& e : fs::directory_iterator(tree.Path("parent")))
    if (target == Target::kOutItself && e.path().filename().string().find(".moved") != std::string::npos) ++swaps;
  for (const std::string& out : outs)
    if (target == Target::kSubdirectory && fs::is_directory(out))
      for (const auto& e : fs::directory_iterator(out))
        if (e.path().filename().string().find(".moved") != std::string::npos) ++swaps;
  ASSERT_GT(swaps, 0u) << "the attacker never swapped a directory: the race did not run";
  auto after = Contents(tree.Path("victim"));
  std::string escaped;
  int shown = 0;
  for (const auto& [rel, content] : after)
    if (auto it = before.find(rel); (it == before.end() || it->second != content) && shown++ < 6) escaped += " " + rel;
  EXPECT_EQ(after.size(), before.size()) << "files appeared outside OUT:" << escaped;
  EXPECT_TRUE(escaped.empty()) << "written outside OUT through a symlink (" << swaps << " swaps):" << escaped;
}

TEST(SnapshotRaceTest, SwappingADirectoryInsideAnEmptyOutForASymlinkWritesNothingOutside) {
  RunRace(Target::kSubdirectory);
}

TEST(SnapshotRaceTest, SwappingOutItselfForASymlinkWritesNothingOutside) { RunRace(Target::kOutItself); }

}  // namespace
}  // namespace rocmtune::snapshot
