#include "plan/admin_lines.h"

#include "plan/owned_paths.h"

namespace rocmtune::plan {
namespace {

// DIR/NAME with a plain NAME (no subdirectory, no dot file: a hidden file or rocmtune's own
// temporary) ending in `suffix`, as environment.d(5) and /etc/profile read them.
bool IsEntryOf(std::string_view path, std::string_view dir, std::string_view suffix) {
  if (!path.starts_with(dir) || path.size() <= dir.size() || path[dir.size()] != '/') return false;
  std::string_view name = path.substr(dir.size() + 1);
  return !name.empty() && name.find('/') == std::string_view::npos && !name.starts_with('.') &&
         name.size() > suffix.size() && name.ends_with(suffix);
}

}  // namespace

std::optional<AdminLineFile> AdminLineFileOf(std::string_view path) {
  if (IsOwnedFile(path)) return std::nullopt;
  if (path == "etc/environment" || IsEntryOf(path, "etc/environment.d", ".conf")) return AdminLineFile::kEnvList;
  if (IsEntryOf(path, "etc/profile.d", ".sh")) return AdminLineFile::kEnvShell;
  if (IsEntryOf(path, "etc/modprobe.d", ".conf")) return AdminLineFile::kModprobe;
  return std::nullopt;
}

std::string_view MarkOf(AdminLineFile kind) { return kind == AdminLineFile::kEnvShell ? kShellMark : kListMark; }

std::string CommentOut(AdminLineFile kind, std::string_view line) {
  return std::string(MarkOf(kind)) + std::string(line);
}

std::optional<std::string_view> CommentedOriginal(AdminLineFile kind, std::string_view line) {
  std::string_view mark = MarkOf(kind);
  if (!line.starts_with(mark)) return std::nullopt;
  return line.substr(mark.size());
}

std::optional<std::vector<LineChange>> ChangedLines(std::string_view before, std::string_view after) {
  std::vector<LineChange> changes;
  size_t b = 0, a = 0;
  for (size_t number = 1;; ++number) {
    size_t b_end = before.find('\n', b), a_end = after.find('\n', a);
    bool b_last = b_end == std::string_view::npos, a_last = a_end == std::string_view::npos;
    std::string_view b_line = before.substr(b, b_last ? std::string_view::npos : b_end - b);
    std::string_view a_line = after.substr(a, a_last ? std::string_view::npos : a_end - a);
    if (b_line != a_line) changes.push_back({number, b_line, a_line});
    if (b_last != a_last) return std::nullopt;
    if (b_last) return changes;
    b = b_end + 1;
    a = a_end + 1;
  }
}

}  // namespace rocmtune::plan
