#include "client/helper_client.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "plan/plan_json.h"
#include "sys/unique_fd.h"
#include "util/json_limits.h"
#include "util/json_text.h"

namespace rocmtune::client {
namespace {

Result<void> WriteAll(int fd, std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Fail(ErrorCode::kIo, fmt::format("writing the plan to rocmtune-helper: {}", std::strerror(errno)));
    text.remove_prefix(static_cast<size_t>(n));
  }
  return {};
}

// The helper works on the client's own handle of the root (fd 3 in the child): the directory
// the plan was made for, whatever the path names by now.
constexpr int kRootFdInChild = 3;

Result<HelperReply> Run(const Context& ctx, std::vector<std::string> args, const std::string& input) {
  auto root = ctx.OpenRoot();
  if (!root) return tl::unexpected(root.error());
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
  std::string reply;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(out_read.get(), buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reply.append(buf, static_cast<size_t>(n));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  HelperReply r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (r.exit_code == 127 && reply.empty()) return Fail(ErrorCode::kNotFound, fmt::format("cannot run {}", helper));
  auto parsed = ParseBoundedJson(reply, "rocmtune-helper's reply");
  if (!parsed || !parsed->is_object()) {
    if (!written) return tl::unexpected(written.error());
    return Fail(ErrorCode::kInvalidData, fmt::format("rocmtune-helper ended ({}) without a result", r.exit_code));
  }
  const auto& doc = *parsed;
  // Every field read by type: a reply is another process's output, not something to throw on.
  auto text = [&](const nlohmann::ordered_json& obj, const char* key, std::string fallback) {
    auto it = obj.find(key);
    return it != obj.end() && it->is_string() ? it->get<std::string>() : fallback;
  };
  r.status = plan::ParseHelperStatus(text(doc, "status", "")).value_or(plan::HelperStatus::kFailed);
  r.transaction = text(doc, "transaction", "");
  if (auto regen = doc.find("regenerated"); regen != doc.end() && regen->is_object()) {
    r.initramfs = text(*regen, "initramfs", "no");
    r.bootloader = text(*regen, "bootloader", "no");
  }
  for (const char* key : {"messages", "recovered"}) {
    auto list = doc.find(key);
    if (list == doc.end() || !list->is_array()) continue;
    for (const auto& m : *list)
      if (m.is_string()) (std::string_view(key) == "messages" ? r.messages : r.recovered).push_back(m.get<std::string>());
  }
  return r;
}

}  // namespace

std::string HelperPath() {
  if (const char* env = std::getenv("ROCMTUNE_HELPER"); env && *env) return env;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && self == std::filesystem::path(ROCMTUNE_BUILD_CLIENT) && std::filesystem::exists(ROCMTUNE_BUILD_HELPER))
    return ROCMTUNE_BUILD_HELPER;
  return ROCMTUNE_INSTALLED_HELPER;
}

Result<HelperReply> RunHelper(const Context& ctx, const plan::Plan& plan, bool force) {
  std::vector<std::string> args{"apply"};
  if (force) args.push_back("--force");
  return Run(ctx, std::move(args), JsonText(plan::PlanToJson(plan), -1));
}

Result<HelperReply> RunHelperRecover(const Context& ctx) {
  return Run(ctx, {"recover"}, "");
}

}  // namespace rocmtune::client
