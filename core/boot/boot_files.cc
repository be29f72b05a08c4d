#include "boot/boot_files.h"

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "boot/setup.h"
#include "boot/trial_boot.h"
#include "util/content_json.h"
#include "util/json_limits.h"

namespace rocmtune::boot {
namespace {

std::string LoaderDir(std::string_view esp) { return fmt::format("{}/loader", esp); }
std::string EntriesDir(std::string_view esp) { return fmt::format("{}/loader/entries", esp); }

bool PermissionDenied(const sys::Root& root, std::string_view dir) {
  auto names = root.ListDir(dir);
  return !names && names.error().errno_value == EACCES;
}

// The two directories of one ESP candidate, and the files of each that are read.
bool IsBootDir(std::string_view path) {
  for (std::string_view esp : kEspCandidates)
    if (path == LoaderDir(esp) || path == EntriesDir(esp)) return true;
  return false;
}

bool IsBootFile(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return false;
  std::string_view dir = path.substr(0, slash);
  std::string_view name = path.substr(slash + 1);
  for (std::string_view esp : kEspCandidates) {
    if (dir == LoaderDir(esp) && name == "loader.conf") return true;
    if (dir == EntriesDir(esp) && name.size() > 5 && name.ends_with(".conf")) return true;
  }
  return false;
}

bool IsText(std::string_view s) { return s.find('\0') == std::string_view::npos && IsValidUtf8(s); }

tl::unexpected<Error> BadBootFiles(std::string_view why) {
  return Fail(ErrorCode::kInvalidData, fmt::format("rocmtune-helper's boot files: {}", why));
}

}  // namespace

bool BootFilesHidden(const sys::Root& root) {
  for (std::string_view esp : kEspCandidates)
    if (PermissionDenied(root, esp) || PermissionDenied(root, LoaderDir(esp))) return true;
  return false;
}

bool BootFilesDecide(const sys::Root& root) {
  detect::BootSetup setup = detect::DetectBootSetup(root);
  if (!setup.why_unknown.empty()) return true;
  const Setup* s = SetupFor(setup.kind);
  return s && s->ReadsEsp();
}

sys::RootSupplement CollectBootFiles(const sys::Root& root) {
  sys::RootSupplement out;
  size_t files = 0;
  for (std::string_view esp : kEspCandidates) {
    for (const std::string& dir : {LoaderDir(esp), EntriesDir(esp)}) {
      if (root.TypeOf(dir) != sys::EntryType::kDirectory) continue;  // no symlinked loader dirs
      auto names = root.ListDir(dir);
      if (!names || names->size() > kMaxBootFiles) continue;
      for (const std::string& name : *names) {
        std::string path = sys::JoinPath(dir, name);
        if (!IsBootFile(path) || files >= kMaxBootFiles || root.TypeOf(path) != sys::EntryType::kFile) continue;
        auto content = root.ReadFile(path, kMaxBootFileBytes);
        if (!content || !IsText(*content)) continue;
        out.files.emplace(std::move(path), std::move(*content));
        ++files;
      }
      out.dirs.emplace(dir, std::move(*names));
    }
  }
  return out;
}

nlohmann::ordered_json BootFilesJson(const sys::RootSupplement& files) {
  nlohmann::ordered_json dirs = nlohmann::ordered_json::object();
  for (const auto& [path, names] : files.dirs) dirs[path] = names;
  nlohmann::ordered_json contents = nlohmann::ordered_json::object();
  for (const auto& [path, content] : files.files) contents[path] = content;
  return {{"dirs", std::move(dirs)}, {"files", std::move(contents)}};
}

Result<sys::RootSupplement> BootFilesFromJson(std::string_view text) {
  auto j = ParseBoundedJson(text, "rocmtune-helper's boot files", 4);
  if (!j) return tl::unexpected(j.error());
  if (!j->is_object() || !j->contains("dirs") || !j->contains("files") || !(*j)["dirs"].is_object() ||
      !(*j)["files"].is_object() || j->size() != 2)
    return BadBootFiles("not an object of \"dirs\" and \"files\"");
  sys::RootSupplement out;
  for (const auto& [path, names] : (*j)["dirs"].items()) {
    if (!IsBootDir(path)) return BadBootFiles(fmt::format("'{}' is not a loader directory", path));
    if (!names.is_array() || names.size() > kMaxBootFiles)
      return BadBootFiles(fmt::format("'{}' has no list of names", path));
    std::vector<std::string> list;
    for (const auto& name : names) {
      if (!name.is_string()) return BadBootFiles(fmt::format("a name in '{}' is not a string", path));
      const std::string& n = name.get_ref<const std::string&>();
      if (n.empty() || n == "." || n == ".." || n.find('/') != std::string::npos || n.find('\0') != std::string::npos)
        return BadBootFiles(fmt::format("'{}' lists the name '{}'", path, n));
      list.push_back(n);
    }
    std::sort(list.begin(), list.end());
    out.dirs.emplace(path, std::move(list));
  }
  if ((*j)["files"].size() > kMaxBootFiles) return BadBootFiles("too many files");
  for (const auto& [path, content] : (*j)["files"].items()) {
    if (!IsBootFile(path)) return BadBootFiles(fmt::format("'{}' is not a loader file", path));
    if (!content.is_string() || content.get_ref<const std::string&>().size() > kMaxBootFileBytes)
      return BadBootFiles(fmt::format("'{}' has no text content", path));
    std::string_view dir = std::string_view(path).substr(0, path.rfind('/'));
    std::string_view name = std::string_view(path).substr(path.rfind('/') + 1);
    auto listed = out.dirs.find(dir);
    if (listed == out.dirs.end() || !std::binary_search(listed->second.begin(), listed->second.end(), name))
      return BadBootFiles(fmt::format("'{}' is not in its directory's list", path));
    out.files.emplace(path, content.get<std::string>());
  }
  return out;
}

}  // namespace rocmtune::boot
