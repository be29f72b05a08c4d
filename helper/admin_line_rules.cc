// Edits of an admin's file (/etc/environment, /etc/environment.d/*.conf, /etc/profile.d/*.sh,
// /etc/modprobe.d/*.conf) that `set`/`unset --admin-lines` asks for: the only edit allowed is one line turned into its
// commented form (plan/admin_lines.h), and the only way back is the commented lines restored
// (revert, reset, a rollback). Checked here whatever the planner says: the file is the admin's,
// so every other byte must stay as it is.
#include <fcntl.h>
#include <sys/stat.h>

#include <fmt/format.h>

#include "helper/allow_list.h"
#include "helper/rules.h"
#include "knobs/admin_lines.h"
#include "knowledge/env_vars.h"

namespace rocmtune::helper {
namespace {

// The line (of `content`) that rocmtune may comment out or restore: one known variable set
// alone on it (knobs::SoleAssignment: nothing else done there, not continued from the line
// before). A variable rocmtune does not know is not its business, even to switch off. In
// modprobe.d: one option of amdgpu, ttm or amdttm alone on an `options` line (a typo'd name
// included: switching that off is what the admin needs), nothing reaching into other lines.
Result<void> CheckLine(plan::AdminLineFile kind, std::string_view content, size_t number) {
  auto name = knobs::SoleAssignment(kind, content, number);
  if (!name) return Refuse(rule::kAdminLine, fmt::format("line {}: {}", number, name.error().message));
  if (kind == plan::AdminLineFile::kModprobe) return {};
  if (!knowledge::EnvVars::Builtin().Find(*name))
    return Refuse(rule::kAdminLine, fmt::format("line {}: {} is not a variable rocmtune manages", number, *name));
  return {};
}

}  // namespace

Result<void> CheckAdminLineEdit(plan::AdminLineFile kind, std::string_view before, std::string_view after) {
  if (before.size() > kMaxContentBytes || after.size() > kMaxContentBytes)
    return Refuse(rule::kContentText, fmt::format("larger than {} bytes", kMaxContentBytes), ErrorCode::kTooLarge);
  auto changes = plan::ChangedLines(before, after);
  if (!changes)
    return Refuse(rule::kAdminLine, "the number of lines changed: only one line may be commented out or put back");
  if (changes->empty()) return Refuse(rule::kAdminLine, "nothing changes");
  const plan::LineChange& first = changes->front();
  // Commenting out: exactly one line, replaced by the mark and the line itself.
  if (plan::CommentOut(kind, first.before) == first.after) {
    if (changes->size() != 1)
      return Refuse(rule::kAdminLine,
                    fmt::format("{} lines changed: only one line may be commented out at a time", changes->size()));
    return CheckLine(kind, before, first.number);
  }
  // Putting back: every changed line was rocmtune's comment and is now exactly what it held.
  for (const plan::LineChange& c : *changes) {
    std::optional<std::string_view> original = plan::CommentedOriginal(kind, c.before);
    if (!original || *original != c.after)
      return Refuse(rule::kAdminLine, fmt::format("line {} changed, and not by commenting it out or putting back "
                                                  "a line rocmtune commented out",
                                                  c.number));
    if (auto ok = CheckLine(kind, after, c.number); !ok) return ok;
  }
  return {};
}

Result<void> CheckAdminFile(const sys::Root& root, std::string_view path) {
  auto fd = root.Open(path, O_PATH | O_NOFOLLOW);
  if (!fd) return Refuse(rule::kAdminLineFile, fd.error().message);
  struct stat file {};
  struct stat top {};
  if (fstat(fd->get(), &file) != 0 || fstat(root.fd(), &top) != 0)
    return Refuse(rule::kAdminLineFile, "cannot stat the file or the root");
  if (!S_ISREG(file.st_mode)) return Refuse(rule::kAdminLineFile, "not a regular file");
  // Root's file on the live system; in a --root tree, its owner's (what the helper may write).
  if (file.st_uid != 0 && file.st_uid != top.st_uid)
    return Refuse(rule::kAdminLineFile, fmt::format("owned by uid {}, not by root", file.st_uid));
  return {};
}

}  // namespace rocmtune::helper
