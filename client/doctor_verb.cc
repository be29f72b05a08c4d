// `rocmtunectl doctor [--log FILE|-]`: every check of this machine (or a --root world) with what
// to do about each finding; with a crash log, the likely cause for the GPUs here. Exit 0 when
// nothing is wrong, 1 when something is, 2 when the log cannot be read (not a regular file or
// stdin, or over 16 MiB). Run by a user, who may not read the journal, it asks rocmtuned
// (Doctor) and adds the checks about that user (who may open /dev/kfd) made here.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "api/doctor.h"
#include "api/faults.h"
#include "api/log_input.h"
#include "client/caller_env.h"
#include "client/document.h"
#include "client/exit_codes.h"
#include "client/fault_text.h"
#include "client/verbs.h"
#include "diagnose/checks.h"
#include "sys/unique_fd.h"
#include "util/json_text.h"

namespace rocmtune::client {
namespace {

Result<std::string> ReadBounded(int fd, const std::string& name) {
  std::string text;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Fail(ErrorCode::kInvalidArgument, fmt::format("cannot read the log {}", name), errno);
    if (n == 0) return text;
    if (auto size = api::CheckDoctorLogSize(text.size() + static_cast<size_t>(n), name); !size)
      return tl::unexpected(size.error());
    text.append(buf, static_cast<size_t>(n));
  }
}

// `--log FILE|-`: stdin, or a regular file. A FIFO, device or directory is
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

}  // namespace

Result<std::string> ReadLogFile(const std::string& path) { return ReadLog(path); }

namespace {

const Doc& Member(const Doc& doc, std::string_view key) {
  static const Doc kNull;
  auto it = doc.find(key);
  return it == doc.end() ? kNull : *it;
}

std::vector<std::string> Strings(const Doc& list) {
  std::vector<std::string> out;
  if (list.is_array())
    for (const Doc& s : list)
      if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

// One finding of rocmtune.doctor.v1 as people read it.
void PrintFinding(const Doc& f) {
  std::string subject = Field(f, "subject", "");
  fmt::print("{:<7} {}{}\n", Field(f, "severity"), Field(f, "what", ""),
             subject.empty() ? "" : fmt::format(" [{}]", subject));
  if (std::string why = Field(f, "why", ""); !why.empty()) fmt::print("        why: {}\n", why);
  for (const std::string& e : Strings(Member(f, "evidence"))) fmt::print("        seen: {}\n", e);
  const Doc& fix = Member(f, "fix");
  if (std::string none = Field(fix, "none", ""); !none.empty()) fmt::print("        fix: none: {}\n", none);
  if (std::string text = Field(fix, "text", ""); !text.empty()) fmt::print("        do: {}\n", text);
  if (std::string profile = Field(fix, "profile", ""); !profile.empty())
    fmt::print("        profile: sudo rocmtunectl apply {}\n", profile);
  // A set or unset the do: line already spells as a command is not printed again below it.
  const std::string text = Field(fix, "text", "");
  auto in_text = [&](std::string_view verb, const std::string& item) {
    return text.find(fmt::format("rocmtunectl {} ", verb)) != std::string::npos && text.find(item) != std::string::npos;
  };
  for (const std::string& s : Strings(Member(fix, "set")))
    if (!in_text("set", s)) fmt::print("        set: {}\n", s);
  for (const std::string& u : Strings(Member(fix, "unset")))
    if (!in_text("unset", u)) fmt::print("        unset: {}\n", u);
  if (std::string rocm = Field(fix, "rocm", ""); !rocm.empty()) fmt::print("        ROCm: {}\n", rocm);
  // Paths as on the machine, one way everywhere (status, doctor, check-compute): /etc/environment:2.
  if (std::string at = PlacesText(f); !at.empty()) fmt::print("        at: {}\n", at);
  for (const std::string& s : Strings(Member(f, "sources"))) fmt::print("        source: {}\n", s);
  fmt::print("        id: {}\n", Field(f, "id"));
}

bool Problem(const Doc& f) { return Field(f, "severity", "info") != "info"; }

// rocmtuned answers from the journal, but its checks of who may open /dev/kfd are about its own
// user (read_methods.h): the caller's own replace its placeholder, and "problems" follows.
// The caller's environment (its process and its user's shell files) is checked here too, by the
// same checks an in-process doctor makes (diagnose::CallerFindings).
void AddCallerChecks(const sys::Root& root, Doc& doc) {
  api::DoctorReport mine;
  const detect::Inventory inventory = detect::Detect(root);
  for (api::DoctorFinding& f : diagnose::MachineChecks(root, inventory))
    if (f.id.starts_with("access.")) mine.findings.push_back(std::move(f));
  for (api::DoctorFinding& f : diagnose::CallerFindings(root, inventory, CallerEnvironment(root)))
    mine.findings.push_back(std::move(f));
  Doc& findings = doc["findings"];
  if (!findings.is_array()) return;
  findings.erase(std::remove_if(findings.begin(), findings.end(),
                                [](const Doc& f) { return Field(f, "id") == "access.not-checked"; }),
                 findings.end());
  // A variable, not a temporary: a range-for over a member of a temporary reads it after it is
  // freed (found by make asan).
  const Doc mine_doc = api::DoctorJson(mine);
  for (const Doc& f : Member(mine_doc, "findings")) findings.push_back(f);
  bool problems = std::any_of(findings.begin(), findings.end(), Problem);
  if (const Doc& log = Member(doc, "log"); log.is_object())
    for (const Doc& m : Member(log, "matches")) problems |= Problem(m);
  doc["problems"] = problems;
}

// The GPU faults of the system's log as this user may read it (sd-journal applies the journal's
// file modes): read here, not by rocmtuned, whose user reads other journals than the caller's.
void AddFaults(const sys::Root& root, Doc& doc) {
  api::FaultsOptions options;
  options.causes_this_boot_only = true;
  auto report = api::Faults(root, options);
  if (!report) return;
  doc["faults"] = api::DoctorFaultsJson(*report);
  for (const Doc& r : Member(doc["faults"], "this_boot"))
    for (const Doc& c : Member(r, "causes")) doc["problems"] = DocTrue(doc, "problems") || Problem(c);
}

// Which GPUs the log names, then its matches: a cause when one is known, else what was seen.
void PrintLog(const Doc& log) {
  for (const Doc& r : Member(log, "names")) {
    std::vector<std::string> gpus = Strings(Member(r, "gpus"));
    // A gfx name may be a code object's target, not a GPU: "not here" is never judged from it.
    std::string where = !gpus.empty() ? fmt::format("GPU {}", fmt::join(gpus, ", "))
                        : Field(r, "kind", "") == "gfx-target"
                            ? "no GPU here (a code object target, not necessarily a GPU)"
                            : "no GPU here";
    fmt::print("The log names {}: {}\n", Field(r, "text", ""), where);
  }
  const Doc& matches = Member(log, "matches");
  const bool matched = matches.is_array() && !matches.empty();
  const bool cause = !Member(log, "likely_cause").is_null();
  if (!matched) fmt::print("The log shows no known issue of the GPUs here.\n\n");
  else if (cause) fmt::print("Likely cause of the crash in the log:\n");
  else fmt::print("The log shows no known cause:\n");
  if (matched)
    for (const Doc& f : matches) PrintFinding(f);
  if (matched) fmt::print("\nThis machine:\n");
}

// This boot's GPU faults from the system's log, each with its likely cause and fix, and how many
// more the earlier boots had.
void PrintFaults(const Doc& faults) {
  if (!faults.is_object()) return;
  const Doc& now = Member(faults, "this_boot");
  const int64_t earlier =
      Member(faults, "earlier_boots").is_number() ? Member(faults, "earlier_boots").get<int64_t>() : 0;
  if (Field(faults, "source") == "none") {
    fmt::print("GPU faults: the system's log was not read ({})\n\n", Field(faults, "why_none", "unknown"));
    return;
  }
  if (now.empty() && earlier == 0) return;
  fmt::print("GPU faults in this boot{}\n", now.empty() ? ": none" : ":");
  for (const Doc& r : now) PrintFaultRecord(r, false);
  if (earlier > 0)
    fmt::print("Earlier boots had {} more GPU fault{} (rocmtunectl faults).\n", earlier, earlier == 1 ? "" : "s");
  fmt::print("\n");
}

void PrintDoctor(const Doc& doc) {
  if (const Doc& log = Member(doc, "log"); log.is_object()) PrintLog(log);
  PrintFaults(Member(doc, "faults"));
  for (const Doc& f : Member(doc, "findings")) PrintFinding(f);
  fmt::print("{}\n", DocTrue(doc, "problems") ? "Something is wrong: see the warnings and errors above."
                                              : "Nothing wrong found.");
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
  std::optional<Fetched> doc;
  // A user may not read the journal (doctor's journal checks, what is applied): rocmtuned
  // answers from it, and the checks about the caller are made here.
  if (ReadsAskDaemon(ctx)) {
    const std::string sent = log ? api::DoctorLogAsText(*log) : std::string();
    std::optional<BusReply> reply =
        AskDaemon(ctx, "Doctor", [&sent](sd_bus_message* m) { return sd_bus_message_append(m, "s", sent.c_str()); });
    if (reply && !UnknownMethod(*reply)) {
      doc = FromDaemon(ctx, *reply, "Doctor");
      if (*doc) AddCallerChecks(*root, **doc);
      if (*doc) AddFaults(*root, **doc);
    }
  }
  if (!doc) {
    // As the programs of the user running it see the machine: its own environment too.
    api::DoctorOptions options;
    options.log = std::move(log);
    options.caller_env = CallerEnvironment(*root);
    options.faults = true;
    auto report = api::Doctor(*root, std::move(options));
    if (!report) return Failed(ctx, report.error(), ExitFor(report.error()));
    doc = Fetched(api::DoctorJson(*report));
  }
  if (!*doc) return doc->error();
  const Doc& d = **doc;
  if (ctx.json) PrintJson(d);
  else PrintDoctor(d);
  return DocTrue(d, "problems") ? kExitFailed : kExitOk;
}

}  // namespace rocmtune::client
