#include "helper_run.h"

#include <grp.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "test_tree.h"

extern char** environ;

namespace rocmtune::crash {
namespace {

int MemFd(const char* name) {
  int fd = ::memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) throw std::runtime_error(fmt::format("memfd_create: {}", std::strerror(errno)));
  return fd;
}

std::string ReadMemFd(int fd) {
  std::string out;
  char buf[65536];
  off_t at = 0;
  for (;;) {
    ssize_t n = ::pread(fd, buf, sizeof(buf), at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
    at += n;
  }
  return out;
}

}  // namespace

std::string RunResult::status() const { return doc.is_object() ? doc.value("status", "") : ""; }

std::string RunResult::messages() const {
  std::string out;
  if (doc.is_object() && doc.contains("messages") && doc["messages"].is_array())
    for (const auto& m : doc["messages"]) out += m.get<std::string>() + "\n";
  return out;
}

RunResult RunHelper(const std::string& binary, const std::vector<std::string>& args, const std::string& input,
                    const RunOptions& options) {
  int in = MemFd("plan"), out = MemFd("stdout"), err = MemFd("stderr");
  if (::write(in, input.data(), input.size()) != static_cast<ssize_t>(input.size()) || ::lseek(in, 0, SEEK_SET) != 0)
    throw std::runtime_error("writing the plan to a memfd failed");
  // Everything the child needs is built before fork(): after it, only async-signal-safe calls.
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e)
    if (!std::string_view(*e).starts_with("ROCMTUNE_FAULT")) env_text.emplace_back(*e);
  for (const auto& [k, v] : options.env) env_text.push_back(k + "=" + v);
  std::vector<char*> envp, argv{const_cast<char*>(binary.c_str())};
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    if (::dup2(in, STDIN_FILENO) < 0 || ::dup2(out, STDOUT_FILENO) < 0 || ::dup2(err, STDERR_FILENO) < 0) ::_exit(125);
    if (options.uid && (::setgroups(0, nullptr) != 0 || ::setresgid(*options.uid, *options.uid, *options.uid) != 0 ||
                        ::setresuid(*options.uid, *options.uid, *options.uid) != 0))
      ::_exit(testing::kNoPrivilegeDrop);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  RunResult r;
  if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
    r.killed_by_sigkill = r.signal == SIGKILL;
  } else {
    r.exit_code = WEXITSTATUS(status);
  }
  std::string stdout_text = ReadMemFd(out);
  r.output = stdout_text + ReadMemFd(err);
  r.doc = nlohmann::json::parse(stdout_text, nullptr, false);
  ::close(in);
  ::close(out);
  ::close(err);
  return r;
}

std::vector<LoggedStep> ReadStepLog(const std::string& file) {
  std::vector<LoggedStep> steps;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    LoggedStep step;
    std::istringstream fields(line);
    fields >> step.number >> step.name;
    std::getline(fields >> std::ws, step.path);
    if (!fields && !fields.eof()) throw std::runtime_error("bad step log line: " + line);
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace rocmtune::crash
