// sys::RunCommand: the trial boot's admin check runs in a process group of its own, and nothing
// of that group outlives it: a grandchild sleeping past the deadline (the check hangs in a
// background process that holds its stdout) or left behind by a check that passed is killed.
#include "sys/run_command.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "test_tree.h"

namespace rocmtune::sys {
namespace {

// The pid the command wrote to `path`, or 0.
pid_t PidIn(const std::string& path) {
  std::ifstream in(path);
  long pid = 0;
  in >> pid;
  return static_cast<pid_t>(pid);
}

// Gone: no such process, or a zombie whose new parent (init, or a subreaper) has yet to reap it.
// The reaping is not ours to wait for: a zombie runs nothing.
bool GoneWithin(pid_t pid, std::chrono::milliseconds limit) {
  auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!stat || !std::getline(stat, line)) return true;
    size_t paren = line.rfind(')');
    if (paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z') return true;
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

TEST(RunCommandTest, ATimedOutCommandsGrandchildIsKilledWithIt) {
  testing::TestTree tree;
  const std::string pid_file = tree.Path("grandchild.pid");
  auto start = std::chrono::steady_clock::now();
  CommandResult ran =
      RunCommand({"/bin/sh", "-c", "sleep 60 & echo $! > " + pid_file + "; sleep 60"}, std::chrono::milliseconds(500));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_FALSE(ran.ok);
  EXPECT_NE(ran.why.find("/bin/sh did not finish within 0 s (killed)"), std::string::npos) << ran.why;
  pid_t grandchild = PidIn(pid_file);
  ASSERT_GT(grandchild, 0) << "the command did not start its background process";
  bool gone = GoneWithin(grandchild, std::chrono::seconds(2));
  if (!gone) ::kill(grandchild, SIGKILL);  // the test's own cleanup, so a failure leaves nothing behind
  EXPECT_TRUE(gone) << "the check's grandchild " << grandchild << " outlived the timeout";
}

TEST(RunCommandTest, APassingCommandLeavesNothingBehind) {
  testing::TestTree tree;
  const std::string pid_file = tree.Path("grandchild.pid");
  auto start = std::chrono::steady_clock::now();
  CommandResult ran =
      RunCommand({"/bin/sh", "-c", "sleep 60 & echo $! > " + pid_file + "; echo done"}, std::chrono::seconds(30), 100);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10))
      << "a background process holding stdout made the check wait for its deadline";
  EXPECT_TRUE(ran.ok) << ran.why;
  EXPECT_EQ(ran.out, "done\n");
  pid_t grandchild = PidIn(pid_file);
  ASSERT_GT(grandchild, 0);
  bool gone = GoneWithin(grandchild, std::chrono::seconds(2));
  if (!gone) ::kill(grandchild, SIGKILL);
  EXPECT_TRUE(gone) << "the check's background process " << grandchild << " outlived it";
}

TEST(RunCommandTest, ExitStatusAndOutputBound) {
  CommandResult failed = RunCommand({"/bin/sh", "-c", "exit 3"}, std::chrono::seconds(10));
  EXPECT_FALSE(failed.ok);
  EXPECT_EQ(failed.why, "/bin/sh exited with status 3");
  CommandResult missing = RunCommand({"/nonexistent/check"}, std::chrono::seconds(10));
  EXPECT_EQ(missing.why, "/nonexistent/check exited with status 127");
  CommandResult bounded = RunCommand({"/bin/echo", "0123456789"}, std::chrono::seconds(10), 4);
  EXPECT_TRUE(bounded.ok);
  EXPECT_EQ(bounded.out, "0123");
}

}  // namespace
}  // namespace rocmtune::sys
