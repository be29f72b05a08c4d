#include "helper/helper_main.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <iterator>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "boot/boot_files.h"
#include "helper/executor.h"
#include "helper/peer_check.h"
#include "helper/publish.h"
#include "journal/write_access.h"
#include "plan/exit_codes.h"
#include "plan/plan_json.h"
#include "sys/system_log_json.h"
#include "util/json_text.h"

namespace rocmtune::helper {
namespace {

// Exit codes as rocmtunectl's (plan/exit_codes.h), so the client can pass them on.
int ExitCode(Status status) {
  switch (status) {
    case Status::kCommitted:
    case Status::kUnchanged: return plan::kExitOk;
    case Status::kRefused: return plan::kExitRefused;
    case Status::kConflict: return plan::kExitDrift;
    case Status::kBusy:
    case Status::kFailed: return plan::kExitFailed;
  }
  return plan::kExitFailed;
}

int Report(const Outcome& out) {
  fmt::print("{}\n", JsonText(plan::HelperReplyJson(out), 2));
  return ExitCode(out.status);
}

Result<std::string> ReadStdin() {
  std::string text;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Fail(ErrorCode::kIo, "reading the plan from stdin failed", errno);
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > plan::kMaxPlanBytes) return Fail(ErrorCode::kTooLarge, "the plan on stdin is too large");
  }
  return text;
}

// The request line: "apply" or "apply --force" (then the plan), "recover", "read-boot" (the
// boot loader's files on a root-only ESP, for the daemon's planner: boot/boot_files.h), or
// "publish" (then the export files: helper/publish.h), or "read-log" (then the query: the GPU
// lines of the journal the daemon's user may not read, sys/system_log_json.h).
struct SocketRequest {
  enum class Kind { kApply, kRecover, kReadBoot, kPublish, kReadLog } kind = Kind::kRecover;
  bool force = false;
  std::string plan;
};

Result<SocketRequest> ParseSocketRequest(std::string_view input) {
  using Kind = SocketRequest::Kind;
  size_t eol = input.find('\n');
  std::string_view line = input.substr(0, eol);
  std::string_view rest = eol == std::string_view::npos ? std::string_view() : input.substr(eol + 1);
  if (line == "recover" && rest.empty()) return SocketRequest{Kind::kRecover, false, {}};
  if (line == "read-boot" && rest.empty()) return SocketRequest{Kind::kReadBoot, false, {}};
  if (line == "apply" || line == "apply --force")
    return SocketRequest{Kind::kApply, line.size() > 5, std::string(rest)};
  if (line == "publish") return SocketRequest{Kind::kPublish, false, std::string(rest)};
  if (line == "read-log") return SocketRequest{Kind::kReadLog, false, std::string(rest)};
  return Fail(ErrorCode::kInvalidArgument,
              "socket mode: the first line must be 'apply', 'apply --force', 'recover', 'read-boot', 'publish' or "
              "'read-log' (and only 'apply', 'publish' and 'read-log' are followed by their request)");
}

}  // namespace

int HelperMain(int argc, char** argv, StepHook& hook) {
  CLI::App app{"rocmtune-helper - the only part of rocmtune that writes: runs a plan as a journaled transaction"};
  app.require_subcommand(1);
  std::string root_path = "/";
  Options options;
  bool no_wait = false;
  int root_fd = -1;
  app.add_option("--root", root_path, "Work on the tree at DIR instead of /")->check(CLI::ExistingDirectory);
  app.add_option("--root-fd", root_fd,
                 "Work on the directory open as descriptor N (inherited from the planner; --root names it in messages)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--no-wait", no_wait, "Fail at once if another transaction holds the lock");
  CLI::App* apply = app.add_subcommand("apply", "Run the plan (rocmtune.plan.v1 JSON) read from stdin");
  apply->add_flag("--force", options.force, "Overwrite owned files that someone else edited (drift)");
  CLI::App* recover = app.add_subcommand("recover", "Roll back an interrupted transaction, if any");
  bool quiet = false;
  recover->add_flag("--quiet", quiet,
                    "Print the reply only when there was something to roll back or it failed (the boot unit: "
                    "no reply in the journal of every boot)");
  CLI::App* publish = app.add_subcommand(
      "publish", "Write the export files /etc/rocmtune/export.toml enables (rocmtune.publish.v1 JSON on stdin)");
  CLI::App* socket = app.add_subcommand(
      "socket",
      "Serve one request on stdin/stdout, a connection from rocmtune-helper.socket: a line 'apply' or "
      "'apply --force' and the plan, 'recover', 'read-boot' (the boot loader's files on a root-only ESP, "
      "for the daemon's planner), 'publish' and the export files, or 'read-log' and its query (the journal's "
      "GPU lines, for the daemon's faults); the peer must be root or the daemon's user "
      "(rocmtune)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? plan::kExitOk : plan::kExitUsage;
  }
  options.wait = !no_wait;

  auto root = root_fd >= 0 ? sys::Root::Adopt(sys::UniqueFd(root_fd), root_path) : sys::Root::Open(root_path);
  if (!root) {
    fmt::print(stderr, "rocmtune-helper: {}\n", root.error().message);
    return plan::kExitFailed;
  }
  // Not root on the running system, or a tree this user may not write.
  if (auto access = journal::CheckWriteAccess(*root); !access) {
    fmt::print(stderr, "rocmtune-helper: {}\n", access.error().message);
    return plan::kExitNotAuthorized;
  }
  Executor executor(*root, hook);
  if (socket->parsed()) {
    // stdin and stdout are one connection accepted by rocmtune-helper.socket (Accept=yes); the
    // peer's uid is named by this system's /etc/passwd, whatever root is written.
    auto accounts = sys::Root::Open("/");
    auto peer = accounts ? CheckPeer(STDIN_FILENO, *accounts) : Result<void>(tl::unexpected(accounts.error()));
    if (!peer) {
      fmt::print(stderr, "rocmtune-helper: {}\n", peer.error().message);
      return plan::kExitNotAuthorized;
    }
    auto text = ReadStdin();
    if (!text) return Report({Status::kFailed, "", {text.error().message}, {}, {}, {}});
    auto request = ParseSocketRequest(*text);
    if (!request) return Report({Status::kRefused, "", {request.error().message}, {}, {}, {}});
    options.force = request->force;
    if (request->kind == SocketRequest::Kind::kReadBoot) {
      fmt::print("{}\n", JsonText(boot::BootFilesJson(boot::CollectBootFiles(*root)), -1));
      return plan::kExitOk;
    }
    if (request->kind == SocketRequest::Kind::kReadLog) {
      // Read-only, as read-boot: only the GPU lines ReadSystemLog keeps, the reply bounded.
      auto query = sys::LogQueryFromJson(request->plan);
      if (!query) return Report({Status::kRefused, "", {query.error().message}, {}, {}, {}});
      auto read = sys::ReadSystemLog(*root, *query);
      if (!read) {
        fmt::print(stderr, "rocmtune-helper: {}\n", read.error().message);
        return plan::kExitFailed;
      }
      fmt::print("{}\n", sys::LogReadJson(*read));
      return plan::kExitOk;
    }
    if (request->kind == SocketRequest::Kind::kRecover) return Report(executor.Recover(options));
    if (request->kind == SocketRequest::Kind::kPublish)
      return Report(Publish(*root, hook, request->plan, options.wait));
    auto plan = plan::PlanFromJson(request->plan);
    if (!plan) return Report({Status::kRefused, "", {plan.error().message}, {}, {}, {}});
    return Report(executor.Run(*plan, options));
  }
  if (publish->parsed()) {
    auto text = ReadStdin();
    if (!text) return Report({Status::kFailed, "", {text.error().message}, {}, {}, {}});
    return Report(Publish(*root, hook, *text, options.wait));
  }
  if (apply->parsed()) {
    auto text = ReadStdin();
    if (!text) return Report({Status::kFailed, "", {text.error().message}, {}, {}, {}});
    auto plan = plan::PlanFromJson(*text);
    if (!plan) return Report({Status::kRefused, "", {plan.error().message}, {}, {}, {}});
    return Report(executor.Run(*plan, options));
  }
  Outcome out = executor.Recover(options);
  if (quiet && out.status == Status::kUnchanged && out.recovered.empty() && out.messages.empty()) return plan::kExitOk;
  return Report(out);
}

}  // namespace rocmtune::helper
