#include "helper/allow_list.h"

#include <array>
#include <optional>

#include <fmt/format.h>

#include "boot/grub_config.h"
#include "helper/rules.h"
#include "knobs/cmdline_backend.h"
#include "plan/admin_lines.h"
#include "plan/owned_paths.h"
#include "plan/trial_state.h"

namespace rocmtune::helper {
namespace {

// PATH_MAX is 4096, but no path rocmtune writes is longer than ~120 bytes (a BLS entry, a sysfs
// attribute); a short limit also keeps hostile names out of logs.
constexpr size_t kMaxPathBytes = 512;
constexpr size_t kMaxComponentBytes = 255;  // NAME_MAX
// A request sets a few knobs; 64 logical GPUs x every sysfs attribute plus the files is far below.
constexpr size_t kMaxOps = 4096;

// The characters of every path rocmtune writes: file names, BLS entry names (machine-id,
// kernel version), sysfs PCI addresses ("0000:03:00.0"). No space, quote, '\', '*', '~'.
bool IsPathChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-' || c == ':' || c == '+';
}

struct FileRule {
  plan::BackendId backend;
  Result<void> (*grammar)(std::string_view);  // owned files: what the whole content must be
  std::optional<SharedFile> shared;           // shared files: which lines may change
  // An admin's file where one line may be commented out (`--admin-lines`) and put back.
  std::optional<plan::AdminLineFile> admin_line = std::nullopt;
  // A trial boot's entry: rendered again and compared (trial_boot_rules.cc).
  bool trial_entry = false;
};

// rocmtune's own files: written whole or removed. Their grammar holds every line.
struct OwnedFile {
  std::string_view path;
  FileRule rule;
};
const std::array<OwnedFile, 8> kOwnedFiles = {{
    {plan::kModprobeDropIn, {plan::BackendId::kModprobe, CheckModprobeDropIn, std::nullopt}},
    {plan::kEnvironmentDropIn, {plan::BackendId::kEnv, CheckEnvironmentDropIn, std::nullopt}},
    {plan::kProfileDropIn, {plan::BackendId::kEnv, CheckProfileDropIn, std::nullopt}},
    {plan::kGrubDropInPath, {plan::BackendId::kCmdline, CheckGrubDropIn, std::nullopt}},
    {plan::kCmdlineTokensState, {plan::BackendId::kCmdline, CheckTokensState, std::nullopt}},
    {plan::kRuntimeState, {plan::BackendId::kSysfs, CheckRuntimeState, std::nullopt}},
    {plan::kTrialState, {plan::BackendId::kCmdline, CheckTrialState, std::nullopt}},
    {plan::kPpdDropIn, {plan::BackendId::kService, CheckPpdDropIn, std::nullopt}},
}};

// boot/loader/entries/<name>.conf with a plain name (no subdirectory, no dot file), as bootctl,
// kernel-install and grubby create them.
bool IsBlsEntry(std::string_view path) {
  std::string dir = std::string(boot::kBlsEntriesDir) + "/";
  if (!path.starts_with(dir)) return false;
  std::string_view name = path.substr(dir.size());
  return name.find('/') == std::string_view::npos && !name.starts_with('.') && name.size() > 5 &&
         name.ends_with(".conf");
}

// Files the system owns where rocmtune may only edit the command-line lines, never remove.
std::optional<FileRule> FindFileRule(std::string_view path) {
  for (const OwnedFile& f : kOwnedFiles)
    if (path == f.path) return f.rule;
  // Before the BLS entries: boot/loader/entries/rocmtune-trial.conf is rocmtune's own.
  if (IsTrialEntryPath(path)) return FileRule{plan::BackendId::kBootloader, nullptr, std::nullopt, std::nullopt, true};
  if (path == boot::kGrubDefaultsPath) return FileRule{plan::BackendId::kCmdline, nullptr, SharedFile::kGrubDefaults};
  if (path == boot::kKernelCmdlinePath) return FileRule{plan::BackendId::kCmdline, nullptr, SharedFile::kKernelCmdline};
  if (IsBlsEntry(path)) return FileRule{plan::BackendId::kCmdline, nullptr, SharedFile::kBlsEntry};
  if (auto kind = plan::AdminLineFileOf(path)) {
    plan::BackendId backend =
        *kind == plan::AdminLineFile::kModprobe ? plan::BackendId::kModprobe : plan::BackendId::kEnv;
    return FileRule{backend, nullptr, std::nullopt, kind};
  }
  return std::nullopt;
}

}  // namespace

// Text from a plan as it may appear in a message: control and non-ASCII bytes escaped (a hostile
// path or value must not forge log lines), long text cut. Rules quote what they refuse freely;
// CheckOp passes every message through here once.
std::string Printable(std::string_view text, size_t max_bytes) {
  std::string out;
  for (char c : text.substr(0, max_bytes)) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) out += fmt::format("\\x{:02x}", u);
    else out.push_back(c);
  }
  if (text.size() > max_bytes) out += "...";
  return out;
}

std::optional<SharedFile> SharedFileOf(std::string_view path) {
  auto rule = FindFileRule(path);
  return rule ? rule->shared : std::nullopt;
}

namespace {

// The writer opens with RESOLVE_NO_SYMLINKS anyway; a symlink (or a file where a directory
// belongs) on the way to a file rocmtune writes means someone else arranged it: refuse early,
// with a message that says so, rather than fail half-way through a transaction.
Result<void> CheckPathEntries(const sys::Root& root, std::string_view path) {
  for (size_t end = 0;; ++end) {
    end = path.find('/', end);
    std::string_view prefix = path.substr(0, end);
    bool last = end == std::string_view::npos;
    sys::EntryType type = root.TypeOf(prefix);
    if (type == sys::EntryType::kMissing) return {};  // the writer creates what is missing
    if (type == sys::EntryType::kSymlink)
      return Refuse(rule::kPathSymlink, fmt::format("/{} is a symlink", prefix), ErrorCode::kEscapesRoot);
    if (!last && type != sys::EntryType::kDirectory)
      return Refuse(rule::kPathSymlink, fmt::format("/{} is not a directory", prefix));
    if (last) {
      if (type != sys::EntryType::kFile)
        return Refuse(rule::kPathSymlink, fmt::format("/{} is not a regular file", prefix));
      return {};
    }
  }
}

// The planner's proof that only the command line changes is a comparison with `before`; it only
// holds if `before` is what the file contains. (The executor checks again under its lock.)
Result<void> CheckSharedWrite(const sys::Root& root, SharedFile kind, const plan::Op& op) {
  if (!op.before)
    return Refuse(rule::kSharedBefore, "an edit of a file rocmtune shares must carry the content it edits");
  auto now = root.ReadFile(op.path, kMaxContentBytes);
  if (!now) return Refuse(rule::kSharedBefore, fmt::format("cannot read the file to compare: {}", now.error().message));
  if (*now != *op.before)
    return Refuse(rule::kSharedBefore, "the file is not what the plan's `before` says (stale plan?)");
  return CheckSharedEdit(kind, *op.before, *op.after);
}

// The admin's file, with `before` what it holds, and the edit the one rule for it allows.
Result<void> CheckAdminLineWrite(const sys::Root& root, plan::AdminLineFile kind, const plan::Op& op) {
  if (!op.before) return Refuse(rule::kSharedBefore, "an edit of an admin's file must carry the content it edits");
  if (auto ok = CheckAdminFile(root, op.path); !ok) return ok;
  auto now = root.ReadFile(op.path, kMaxContentBytes);
  if (!now) return Refuse(rule::kSharedBefore, fmt::format("cannot read the file to compare: {}", now.error().message));
  if (*now != *op.before)
    return Refuse(rule::kSharedBefore, "the file is not what the plan's `before` says (stale plan?)");
  return CheckAdminLineEdit(kind, *op.before, *op.after);
}

Result<FileRule> CheckFileRule(const plan::Op& op) {
  if (auto ok = CheckPathSyntax(op.path); !ok) return tl::unexpected(ok.error());
  std::optional<FileRule> rule = FindFileRule(op.path);
  if (!rule)
    return Refuse(rule::kPathNotAllowed,
                  "rocmtune writes only its own files (modprobe.d, environment.d, profile.d, grub.d drop-ins, "
                  "its state and a trial boot's entry), the command-line lines of /etc/default/grub, "
                  "/etc/kernel/cmdline and BLS entries, "
                  "and one commented-out line of /etc/environment, /etc/environment.d/*.conf, /etc/profile.d/*.sh, "
                  "/etc/modprobe.d/*.conf");
  if (op.backend != rule->backend)
    return Refuse(rule::kBackendMismatch, fmt::format("backend '{}' does not own this file (it belongs to '{}')",
                                                      plan::Name(op.backend), plan::Name(rule->backend)));
  return *rule;
}

Result<void> CheckFileOp(const sys::Root& root, const plan::Op& op) {
  auto rule = CheckFileRule(op);
  if (!rule) return tl::unexpected(rule.error());
  if (!op.argv.empty()) return Refuse(rule::kOpShape, "a file op carries no command");
  if (op.kind == plan::OpKind::kRemoveFile) {
    if (rule->shared || rule->admin_line)
      return Refuse(rule::kSharedFileRemoval, "a file rocmtune shares with the system is edited, never removed");
    if (op.after) return Refuse(rule::kOpShape, "a removal carries no content");
    return CheckPathEntries(root, op.path);
  }
  if (!op.after) return Refuse(rule::kOpShape, "a write needs the content to write");
  if (auto ok = CheckPathEntries(root, op.path); !ok) return ok;
  // The admin's bytes (a NUL, Latin-1 text, CRLF) stay as they are: only the one line is checked.
  if (rule->admin_line) return CheckAdminLineWrite(root, *rule->admin_line, op);
  if (auto ok = CheckText(*op.after); !ok) return ok;
  if (rule->trial_entry) return CheckTrialEntryWrite(root, op);
  if (rule->shared) return CheckSharedWrite(root, *rule->shared, op);
  return rule->grammar(*op.after);
}

}  // namespace

Result<void> CheckFileTarget(const plan::Op& op) {
  if (auto rule = CheckFileRule(op); !rule)
    return Fail(rule.error().code, fmt::format("{}: {}", op.path.empty() ? "(empty path)" : Printable(op.path, 160),
                                               Printable(rule.error().message, 2048)));
  return {};
}

Result<void> CheckPathSyntax(std::string_view path) {
  if (path.empty()) return Refuse(rule::kPathSyntax, "the path is empty", ErrorCode::kEscapesRoot);
  if (path.size() > kMaxPathBytes)
    return Refuse(rule::kPathSyntax, fmt::format("longer than {} bytes", kMaxPathBytes), ErrorCode::kEscapesRoot);
  if (path.front() == '/')
    return Refuse(rule::kPathSyntax, "absolute; ops name paths relative to the root", ErrorCode::kEscapesRoot);
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    std::string_view part =
        path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (part.empty())
      return Refuse(rule::kPathSyntax, "empty component ('//' or a trailing '/')", ErrorCode::kEscapesRoot);
    if (part == "." || part == "..")
      return Refuse(rule::kPathSyntax, "'.' and '..' components are not allowed", ErrorCode::kEscapesRoot);
    if (part.size() > kMaxComponentBytes)
      return Refuse(rule::kPathSyntax, fmt::format("a component is longer than {} bytes", kMaxComponentBytes),
                    ErrorCode::kEscapesRoot);
    for (char c : part)
      if (!IsPathChar(c))
        return Refuse(rule::kPathSyntax,
                      fmt::format("byte 0x{:02x} is not allowed (letters, digits, '.', '_', '-', ':', '+')",
                                  static_cast<unsigned char>(c)),
                      ErrorCode::kEscapesRoot);
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return {};
}

Result<void> CheckOp(const sys::Root& root, const detect::Inventory& inventory, const plan::Op& op) {
  Result<void> verdict;
  switch (op.kind) {
    case plan::OpKind::kWriteFile:
    case plan::OpKind::kRemoveFile: verdict = CheckFileOp(root, op); break;
    case plan::OpKind::kWriteSysfs: verdict = CheckSysfsOp(root, inventory, op); break;
    case plan::OpKind::kRegenerate: verdict = CheckRegenerateOp(op); break;
    default:  // a value no planner makes (a decoded plan can hold anything)
      verdict = Refuse(rule::kOpShape, "unknown op kind");
  }
  if (verdict) return verdict;
  std::string shown_path = op.path.empty() ? "(empty path)" : Printable(op.path, 160);
  return Fail(verdict.error().code, fmt::format("{}: {}", shown_path, Printable(verdict.error().message, 2048)));
}

std::vector<Error> CheckPlan(const sys::Root& root, const detect::Inventory& inventory, const plan::Plan& plan) {
  std::vector<Error> violations;
  if (!plan.refused.empty())
    violations.push_back({ErrorCode::kInvalidArgument, 0,
                          fmt::format("plan: {}: the planner refused it: {}", rule::kPlanRefused,
                                      Printable(plan.refused.front().message, 2048))});
  if (plan.ops.size() > kMaxOps) {
    violations.push_back({ErrorCode::kTooLarge, 0,
                          fmt::format("plan: {}: {} ops (at most {})", rule::kPlanSize, plan.ops.size(), kMaxOps)});
    return violations;
  }
  // What the journal will say this change was (intent_rules.cc): the active profile is read from it.
  auto intent = CheckIntent(plan.intent);
  if (intent) intent = CheckIntentProfile(root, plan.intent);
  if (!intent)
    violations.push_back({intent.error().code, 0, fmt::format("plan: {}", Printable(intent.error().message, 2048))});
  for (const plan::Op& op : plan.ops)
    if (auto ok = CheckOp(root, inventory, op); !ok) violations.push_back(ok.error());
  if (violations.empty())
    if (auto ok = CheckAdminTokens(root, plan); !ok) violations.push_back(ok.error());
  // The trial state's request is what the commit applies and `rocmtunectl trial` shows: its
  // profile must exist like the intent's (its grammar passed CheckOp's CheckTrialState).
  for (const plan::Op& op : plan.ops) {
    if (!violations.empty() || op.path != plan::kTrialState || !op.after) continue;
    auto state = plan::ParseTrialState(*op.after);
    if (!state) continue;
    if (auto ok = CheckIntentProfile(root, state->request); !ok)
      violations.push_back({ok.error().code, 0, fmt::format("{}: {}", op.path, Printable(ok.error().message, 2048))});
  }
  return violations;
}

}  // namespace rocmtune::helper
