#include "runtime/resolve.h"

#include <algorithm>

#include <fmt/format.h>

namespace rocmtune::runtime {
namespace {

constexpr int kMaxSymlinks = 40;  // linux/include/linux/namei.h MAXSYMLINKS

std::vector<std::string> SplitPath(std::string_view path) {
  std::vector<std::string> parts;
  size_t at = 0;
  while (at <= path.size()) {
    size_t slash = path.find('/', at);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view part = path.substr(at, slash - at);
    if (!part.empty() && part != ".") parts.emplace_back(part);
    at = slash + 1;
  }
  return parts;
}

std::string JoinParts(const std::vector<std::string>& parts) {
  std::string joined;
  for (const std::string& part : parts) {
    if (!joined.empty()) joined += '/';
    joined += part;
  }
  return joined;
}

}  // namespace

std::string Absolute(std::string_view rel) {
  while (rel.starts_with('/')) rel.remove_prefix(1);
  return "/" + std::string(rel);
}

Result<Resolved> ResolveInRoot(const sys::Root& root, std::string_view rel) {
  Resolved resolved;
  std::vector<std::string> done;                   // resolved components so far
  std::vector<std::string> todo = SplitPath(rel);  // components left, in reverse order below
  std::reverse(todo.begin(), todo.end());
  int links = 0;
  while (!todo.empty()) {
    std::string part = std::move(todo.back());
    todo.pop_back();
    if (part == "..") {
      if (!done.empty()) done.pop_back();
      continue;
    }
    done.push_back(part);
    std::string here = JoinParts(done);
    sys::EntryType type = root.TypeOf(here);
    if (type == sys::EntryType::kMissing) {
      return Fail(ErrorCode::kNotFound, fmt::format("{} does not exist", root.Display(here)));
    }
    if (type != sys::EntryType::kSymlink) continue;
    if (++links > kMaxSymlinks) {
      return Fail(ErrorCode::kInvalidData, fmt::format("{}: too many levels of symbolic links", root.Display(rel)));
    }
    auto target = root.ReadLink(here);
    if (!target) return tl::unexpected(target.error());
    done.pop_back();
    if (target->starts_with('/')) done.clear();
    std::vector<std::string> target_parts = SplitPath(*target);
    for (auto it = target_parts.rbegin(); it != target_parts.rend(); ++it) todo.push_back(*it);
    resolved.links.push_back(fmt::format("{} -> {}", Absolute(here), *target));
  }
  resolved.rel = JoinParts(done);
  return resolved;
}

}  // namespace rocmtune::runtime
