#include "client/local_writer.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/status_json.h"
#include "journal/write_access.h"
#include "plan/plan_json.h"
#include "sys/unique_fd.h"
#include "util/json_text.h"

namespace rocmtune::client {
namespace {

Result<void> WriteAll(int fd, std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return Fail(ErrorCode::kIo, fmt::format("writing the plan to rocmtune-helper: {}", std::strerror(errno)));
    text.remove_prefix(static_cast<size_t>(n));
  }
  return {};
}

std::string ReadAll(int fd) {
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// The helper works on the client's own handle of the root (fd 3 in the child): the directory
// the plan was made for, whatever the path names by now.
constexpr int kRootFdInChild = 3;
// rocmtune-helper's exit code when it may not change the running system (not root).
constexpr int kHelperNotAuthorized = 4;

}  // namespace

Result<void> LocalWriter::MayWrite(const sys::Root& root) const { return journal::CheckWriteAccess(root); }

Result<plan::HelperReply> LocalWriter::Run(std::vector<std::string> args, const std::string& input) {
  auto root = ctx_.OpenRoot();
  if (!root) return tl::unexpected(root.error());
  ::signal(SIGPIPE, SIG_IGN);  // the helper may end before reading a refused plan
  args.insert(args.begin(), {"--root", root->path(), "--root-fd", std::to_string(kRootFdInChild)});
  std::string helper = HelperPath();
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0)
    return Fail(ErrorCode::kIo, fmt::format("pipe: {}", std::strerror(errno)));
  sys::UniqueFd in_read(in[0]), in_write(in[1]), out_read(out[0]), out_write(out[1]);
  std::vector<char*> argv{helper.data()};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return Fail(ErrorCode::kIo, fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    ::dup2(in_read.get(), STDIN_FILENO);
    ::dup2(out_write.get(), STDOUT_FILENO);
    // dup2 clears O_CLOEXEC on the copy; a descriptor that already is 3 keeps its flag.
    if (root->fd() == kRootFdInChild) ::fcntl(kRootFdInChild, F_SETFD, 0);
    else ::dup2(root->fd(), kRootFdInChild);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  in_read.Reset();
  out_write.Reset();
  auto written = WriteAll(in_write.get(), input);
  in_write.Reset();
  std::string reply = ReadAll(out_read.get());
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (exit_code == 127 && reply.empty()) return Fail(ErrorCode::kNotFound, fmt::format("cannot run {}", helper));
  if (exit_code == kHelperNotAuthorized && reply.empty())
    return Fail(ErrorCode::kNotAuthorized, "rocmtune-helper: not authorized to change this root");
  auto parsed = plan::ParseHelperReply(reply);
  if (!parsed) {
    if (!written) return tl::unexpected(written.error());
    return Fail(ErrorCode::kInvalidData, fmt::format("rocmtune-helper ended ({}) without a result", exit_code));
  }
  return parsed;
}

Result<plan::HelperReply> LocalWriter::Apply(const plan::Plan& plan, bool force) {
  std::vector<std::string> args{"apply"};
  if (force) args.push_back("--force");
  return Run(std::move(args), JsonText(plan::PlanToJson(plan), -1));
}

Result<plan::HelperReply> LocalWriter::Recover() { return Run({"recover"}, ""); }

Result<plan::HelperReply> LocalWriter::Publish(const std::vector<plan::PublishFile>& files) {
  return Run({"publish"}, JsonText(plan::PublishRequestJson(files), -1));
}

std::string HelperPath() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const bool build_tree = !ec && self == std::filesystem::path(ROCMTUNE_BUILD_CLIENT);
  // The helper is what root runs as root: an installed rocmtunectl run as root (`sudo -E`, `su`
  // keeping the caller's environment) must not take its path from the environment, and
  // secure_getenv(3) ignores it where the kernel marks the process secure (setuid, file
  // capabilities). The build tree's client (tests, development) and any user's own client,
  // whose helper runs as that user, still honour it.
  if (const char* env = ::secure_getenv("ROCMTUNE_HELPER"); env && *env) {
    if (build_tree || ::geteuid() != 0) return env;
    static bool told = false;
    if (!told)
      fmt::print(stderr, "rocmtunectl: ROCMTUNE_HELPER is ignored: an installed rocmtunectl run as root runs {}\n",
                 ROCMTUNE_INSTALLED_HELPER);
    told = true;
  }
  if (build_tree && std::filesystem::exists(ROCMTUNE_BUILD_HELPER)) return ROCMTUNE_BUILD_HELPER;
  return ROCMTUNE_INSTALLED_HELPER;
}

}  // namespace rocmtune::client
