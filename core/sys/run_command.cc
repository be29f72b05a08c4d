#include "sys/run_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "sys/unique_fd.h"

namespace rocmtune::sys {
namespace {

// Whether `pid` has exited, without reaping it: while it is a zombie its pid, and so its process
// group's id, cannot be reused, so killing the group afterwards reaches nobody else.
bool Exited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

}  // namespace

CommandResult RunCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout, size_t max_output) {
  CommandResult ran;
  if (argv.empty()) return {false, "", "no program to run"};
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return {false, "", fmt::format("pipe: {}", std::strerror(errno))};
  UniqueFd read_end(pipe_fds[0]);
  UniqueFd write_end(pipe_fds[1]);
  // The argv before the fork: the child only calls async-signal-safe functions.
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return {false, "", fmt::format("fork: {}", std::strerror(errno))};
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(write_end.get(), STDOUT_FILENO);
    int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null >= 0) ::dup2(null, STDIN_FILENO);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  // Both sides make the group (setpgid(2)): whichever runs first, it exists before a kill needs it.
  ::setpgid(pid, pid);
  write_end.Reset();
  // The child's exit wakes the poll below at once; without pidfd_open (Linux < 5.3) a poll ends
  // every 50 ms to look.
  UniqueFd exit_fd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timed_out = false;
  bool reading = true;
  char buf[65536];
  auto drain = [&](int wait_ms) {
    pollfd pfd{read_end.get(), POLLIN, 0};
    while (reading && ::poll(&pfd, 1, wait_ms) > 0) {
      ssize_t n = ::read(read_end.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        reading = false;
        break;
      }
      if (ran.out.size() < max_output)
        ran.out.append(buf, std::min(static_cast<size_t>(n), max_output - ran.out.size()));
      wait_ms = 0;
    }
  };
  while (!Exited(pid)) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    int wait_ms = static_cast<int>(std::min<long long>(left.count(), exit_fd.get() >= 0 ? left.count() : 50));
    pollfd fds[2] = {{reading ? read_end.get() : -1, POLLIN, 0}, {exit_fd.get(), POLLIN, 0}};
    int r = ::poll(fds, 2, wait_ms);
    if (r < 0 && errno != EINTR) break;
    if (r > 0 && (fds[0].revents & (POLLIN | POLLHUP))) drain(0);
  }
  drain(0);  // what the program wrote before it exited
  // Whatever is left of its group (a background grandchild, or all of it after the deadline).
  ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (timed_out)
    ran.why = fmt::format("{} did not finish within {} s (killed)", argv.front(),
                          std::chrono::duration_cast<std::chrono::seconds>(timeout).count());
  else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) ran.ok = true;
  else if (WIFEXITED(status)) ran.why = fmt::format("{} exited with status {}", argv.front(), WEXITSTATUS(status));
  else ran.why = fmt::format("{} was killed by signal {}", argv.front(), WTERMSIG(status));
  return ran;
}

}  // namespace rocmtune::sys
