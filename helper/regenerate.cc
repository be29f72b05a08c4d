#include "helper/regenerate.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "sys/unique_fd.h"

namespace rocmtune::helper {
namespace {

// Not the caller's PATH: the helper runs as root and must not pick up a user's binaries.
constexpr std::array<const char*, 4> kSearchPath = {"/usr/sbin", "/usr/bin", "/sbin", "/bin"};
constexpr size_t kKeepOutput = 4096;

std::optional<std::string> Locate(const std::string& program) {
  for (const char* dir : kSearchPath) {
    std::string candidate = fmt::format("{}/{}", dir, program);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

}  // namespace

Result<RegenResult> RunRegenerator(const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0].find('/') != std::string::npos)
    return Fail(ErrorCode::kInvalidArgument, "a regenerator is named by its program name only");
  auto program = Locate(argv[0]);
  if (!program)
    return Fail(ErrorCode::kNotFound,
                fmt::format("{} is not installed in /usr/sbin, /usr/bin, /sbin or /bin", argv[0]));

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
    return Fail(ErrorCode::kIo, fmt::format("pipe: {}", std::strerror(errno)), errno);
  sys::UniqueFd read_end(pipe_fds[0]), write_end(pipe_fds[1]);

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args[0] = program->data();
  args.push_back(nullptr);
  std::array<char*, 3> env = {const_cast<char*>("PATH=/usr/sbin:/usr/bin:/sbin:/bin"),
                              const_cast<char*>("LC_ALL=C.UTF-8"), nullptr};

  pid_t pid = ::fork();
  if (pid < 0) return Fail(ErrorCode::kIo, fmt::format("fork: {}", std::strerror(errno)), errno);
  if (pid == 0) {
    int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    ::dup2(write_end.get(), STDOUT_FILENO);
    ::dup2(write_end.get(), STDERR_FILENO);
    ::execve(args[0], args.data(), env.data());
    ::_exit(127);
  }
  write_end.Reset();
  RegenResult result;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(read_end.get(), buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(buf, static_cast<size_t>(n));
    if (result.output.size() > 2 * kKeepOutput) result.output.erase(0, result.output.size() - kKeepOutput);
  }
  if (result.output.size() > kKeepOutput) result.output.erase(0, result.output.size() - kKeepOutput);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return Fail(ErrorCode::kIo, fmt::format("waitpid: {}", std::strerror(errno)), errno);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace rocmtune::helper
