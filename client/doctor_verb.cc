// `rocmtunectl doctor [--log FILE|-]`: every check of this machine (or a --root world) with what
// to do about each finding; with a crash log, the likely cause for the GPUs here. Exit 0 when
// nothing is wrong, 1 when something is, 2 when the log cannot be read (not a regular file or
// stdin, or over 16 MiB).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/doctor.h"
#include "client/caller_env.h"
#include "client/exit_codes.h"
#include "client/verbs.h"
#include "sys/unique_fd.h"
#include "util/json_text.h"

namespace rocmtune::client {
namespace {

// A crash log is text a person pasted; more than this is not a log of one crash. Larger logs
// are refused (not cut): a cut log could lose the crash, and the user can pick the part (tail -c).
constexpr size_t kMaxLogBytes = 16u << 20;

Result<std::string> ReadBounded(int fd, const std::string& name) {
  std::string text;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Fail(ErrorCode::kInvalidArgument, fmt::format("cannot read the log {}", name), errno);
    if (n == 0) return text;
    if (text.size() + static_cast<size_t>(n) > kMaxLogBytes)
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("the log {} is larger than {} MiB: pass the part around the crash (tail -c 16M)", name,
                              kMaxLogBytes >> 20));
    text.append(buf, static_cast<size_t>(n));
  }
}

// `--log FILE|-` (issue 24 item 7): stdin, or a regular file. A FIFO, device or directory is
// refused before it is read: opening a FIFO waits for a writer and reading a device may never
// end. The type is checked with stat() first so no device is even opened, and again on the
// descriptor (opened O_NONBLOCK, so a FIFO swapped in meanwhile cannot block the open either).
// A symlink to a log is followed: the user named it, and what it opens is checked.
Result<std::string> ReadLog(const std::string& path) {
  if (path == "-") return ReadBounded(STDIN_FILENO, "on stdin");
  auto not_regular = [&path] {
    return Fail(ErrorCode::kInvalidArgument, fmt::format("the log {} is not a regular file (use - for stdin)", path));
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return Fail(ErrorCode::kInvalidArgument, fmt::format("cannot read the log {}", path), errno);
  if (!S_ISREG(st.st_mode)) return not_regular();
  sys::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd.valid()) return Fail(ErrorCode::kInvalidArgument, fmt::format("cannot read the log {}", path), errno);
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return not_regular();
  return ReadBounded(fd.get(), path);
}

void PrintFinding(const api::DoctorFinding& f) {
  fmt::print("{:<7} {}{}\n", detect::SeverityName(f.severity), f.what,
             f.subject.empty() ? "" : fmt::format(" [{}]", f.subject));
  if (!f.why.empty()) fmt::print("        why: {}\n", f.why);
  for (const std::string& e : f.evidence) fmt::print("        seen: {}\n", e);
  if (!f.fix.none.empty()) fmt::print("        fix: none: {}\n", f.fix.none);
  if (!f.fix.text.empty()) fmt::print("        do: {}\n", f.fix.text);
  if (!f.fix.profile.empty()) fmt::print("        profile: sudo rocmtunectl apply {}\n", f.fix.profile);
  for (const std::string& s : f.fix.set) fmt::print("        set: {}\n", s);
  for (const std::string& u : f.fix.unset) fmt::print("        unset: {}\n", u);
  if (!f.fix.rocm.empty()) fmt::print("        ROCm: {}\n", f.fix.rocm);
  // Paths as on the machine, one way everywhere (status, doctor, check-compute): /etc/environment:2.
  if (!f.file.empty()) fmt::print("        at: /{}{}\n", f.file, f.line > 0 ? fmt::format(":{}", f.line) : "");
  for (const std::string& s : f.sources) fmt::print("        source: {}\n", s);
  fmt::print("        id: {}\n", f.id);
}

// Which GPUs the log names, then its matches: a cause when one is known, else what was seen.
void PrintLog(const api::DoctorReport& report) {
  for (const diagnose::LogGpuRef& r : report.log_names)
    fmt::print("The log names {}: {}\n", r.text,
               r.gpus.empty() ? (r.judged ? std::string("no GPU here")
                                          : std::string("no GPU here (a code object target, not necessarily a GPU)"))
                              : fmt::format("GPU {}", fmt::join(r.gpus, ", ")));
  bool cause = std::any_of(report.log_matches.begin(), report.log_matches.end(), diagnose::IsLogCause);
  if (report.log_matches.empty()) fmt::print("The log shows no known issue of the GPUs here.\n\n");
  else if (cause) fmt::print("Likely cause of the crash in the log:\n");
  else fmt::print("The log shows no known cause:\n");
  for (const api::DoctorFinding& f : report.log_matches) PrintFinding(f);
  if (!report.log_matches.empty()) fmt::print("\nThis machine:\n");
}

}  // namespace

void AddDoctorOptions(CLI::App& sub, Args& args) {
  sub.add_option("--log", args.log, "A crash log to match against the known issues (- for stdin)")->option_text("FILE");
}

int RunDoctor(const Context& ctx, const Args& args) {
  std::optional<std::string> log;
  if (!args.log.empty()) {
    auto text = ReadLog(args.log);
    if (!text) return Failed(ctx, text.error(), kExitUsage);
    log = std::move(*text);
  }
  auto root = ctx.OpenRoot();
  if (!root) return Failed(ctx, root.error(), ExitFor(root.error()));
  // As the programs of the user running it see the machine: its own environment too.
  api::DoctorOptions options;
  options.log = std::move(log);
  options.caller_env = CallerEnvironment(*root);
  auto report = api::Doctor(*root, std::move(options));
  if (!report) return Failed(ctx, report.error(), ExitFor(report.error()));
  if (ctx.json) {
    fmt::print("{}\n", JsonText(api::DoctorJson(*report)));
  } else {
    if (report->log_given) PrintLog(*report);
    for (const api::DoctorFinding& f : report->findings) PrintFinding(f);
    fmt::print("{}\n", api::DoctorFoundProblems(*report) ? "Something is wrong: see the warnings and errors above."
                                                         : "Nothing wrong found.");
  }
  return api::DoctorFoundProblems(*report) ? kExitFailed : kExitOk;
}

}  // namespace rocmtune::client
