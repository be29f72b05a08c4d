#include "client/polkit_agent.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "sys/unique_fd.h"

namespace rocmtune::client {
namespace {

constexpr const char* kAgent = "/usr/bin/pkttyagent";
constexpr int kRegisterTimeoutMs = 5000;

}  // namespace

PolkitAgent::PolkitAgent() {
  if (geteuid() == 0 || !isatty(STDIN_FILENO) || !isatty(STDERR_FILENO) || access(kAgent, X_OK) != 0) return;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return;
  sys::UniqueFd read_end(fds[0]);
  sys::UniqueFd write_end(fds[1]);
  pid_t pid = fork();
  if (pid < 0) return;
  if (pid == 0) {
    // The agent writes nothing on the notify descriptor: it closes it once it is registered.
    int notify = dup(write_end.get());  // without O_CLOEXEC: the agent keeps it
    if (notify < 0) _exit(127);
    std::string fd_text = std::to_string(notify);
    execl(kAgent, kAgent, "--notify-fd", fd_text.c_str(), "--fallback", static_cast<char*>(nullptr));
    _exit(127);
  }
  pid_ = pid;
  write_end.Reset();
  pollfd p{read_end.get(), POLLIN, 0};
  while (poll(&p, 1, kRegisterTimeoutMs) < 0 && errno == EINTR) {}
}

PolkitAgent::~PolkitAgent() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {}
}

}  // namespace rocmtune::client
