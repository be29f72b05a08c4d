#include "boot/loader_entries.h"

#include <fnmatch.h>
#include <string.h>

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "detect/boot_setup.h"
#include "detect/loader_vars.h"
#include "util/text.h"

namespace rocmtune::boot {
namespace {

constexpr size_t kMaxEntryBytes = 64 * 1024;  // kMaxBootFileBytes: what the helper copies

std::optional<int> Number(std::string_view s) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// boot.c config_entry_parse_tries: "+LEFT[-DONE]" right before ".conf", the last '+' of the name.
void ParseTries(std::string_view name, LoaderEntry& e) {
  if (!name.ends_with(".conf")) return;
  std::string_view stem = name.substr(0, name.size() - 5);
  size_t plus = stem.rfind('+');
  if (plus == std::string_view::npos) return;
  std::string_view counter = stem.substr(plus + 1);
  size_t dash = counter.find('-');
  auto left = Number(counter.substr(0, dash));
  auto done = dash == std::string_view::npos ? std::optional<int>(0) : Number(counter.substr(dash + 1));
  if (!left || !done) return;
  e.tries_left = *left;
  e.tries_done = *done;
}

// The id without ".conf" and without a boot counter: systemd's ids have changed form across
// releases (with and without the suffix), and kernelstub writes `default Pop_OS-current`.
std::vector<std::string> IdForms(const LoaderEntry& e) {
  std::vector<std::string> out = {e.id};
  std::string stem = e.id.ends_with(".conf") ? e.id.substr(0, e.id.size() - 5) : e.id;
  out.push_back(stem);
  if (e.tries_left >= 0)
    if (size_t plus = stem.rfind('+'); plus != std::string::npos) {
      out.push_back(stem.substr(0, plus));
      out.push_back(stem.substr(0, plus) + ".conf");
    }
  return out;
}

bool Matches(const std::string& pattern, const LoaderEntry& e) {
  for (const std::string& id : IdForms(e))
    if (fnmatch(pattern.c_str(), id.c_str(), 0) == 0) return true;
  return false;
}

// glibc's strverscmp stands in for systemd's strverscmp_improved: both order digit runs by value.
int VersionCompare(const std::string& a, const std::string& b) { return ::strverscmp(a.c_str(), b.c_str()); }

std::optional<std::string> FindEsp(const sys::Root& root) {
  for (std::string_view esp : detect::kEspCandidates) {
    std::string loader = fmt::format("{}/loader", esp);
    if (root.Exists(fmt::format("{}/loader.conf", loader)) || root.IsDirectory(fmt::format("{}/entries", loader)))
      return std::string(esp);
  }
  return std::nullopt;
}

std::vector<LoaderEntry> Entries(const sys::Root& root, std::string_view esp) {
  std::vector<std::string> dirs = {fmt::format("{}/loader/entries", esp)};
  if (esp != "boot") dirs.emplace_back("boot/loader/entries");  // XBOOTLDR
  std::vector<LoaderEntry> out;
  for (const std::string& dir : dirs) {
    auto names = root.ListDir(dir);
    if (!names) continue;
    for (const std::string& n : *names) {
      // boot.c config_load_entries: *.conf, not hidden, not "auto-*".
      if (n.size() <= 5 || !text::ToLower(n).ends_with(".conf") || n.starts_with('.') || n.starts_with("auto-"))
        continue;
      std::string path = sys::JoinPath(dir, n);
      auto content = root.ReadFile(path, kMaxEntryBytes);
      if (!content) continue;
      if (auto e = ParseLoaderEntry(path, *content)) out.push_back(std::move(*e));
    }
  }
  std::stable_sort(out.begin(), out.end(), LoaderEntryBefore);
  return out;
}

}  // namespace

std::optional<LoaderEntry> ParseLoaderEntry(std::string path, std::string_view content) {
  LoaderEntry e;
  bool bootable = false;
  for (std::string_view line : text::SplitLines(content)) {
    line = text::Trim(line);
    if (line.empty() || line.starts_with('#')) continue;
    size_t sp = line.find_first_of(" \t");
    std::string_view key = line.substr(0, sp);
    std::string value(sp == std::string_view::npos ? std::string_view() : text::Trim(line.substr(sp)));
    if (key == "sort-key") e.sort_key = value;
    else if (key == "machine-id") e.machine_id = value;
    else if (key == "version") e.version = value;
    else if (key == "linux" || key == "efi" || key == "uki") bootable = true;
  }
  if (!bootable) return std::nullopt;
  std::string name = path.substr(path.rfind('/') + 1);
  e.id = text::ToLower(name);
  ParseTries(e.id, e);
  e.path = std::move(path);
  return e;
}

bool LoaderEntryBefore(const LoaderEntry& a, const LoaderEntry& b) {
  if ((a.tries_left == 0) != (b.tries_left == 0)) return b.tries_left == 0;
  if (a.sort_key.empty() != b.sort_key.empty()) return !a.sort_key.empty();
  if (!a.sort_key.empty()) {
    if (int r = a.sort_key.compare(b.sort_key); r != 0) return r < 0;
    if (int r = a.machine_id.compare(b.machine_id); r != 0) return r < 0;
    if (int r = VersionCompare(a.version, b.version); r != 0) return r > 0;
  }
  if (int r = VersionCompare(a.id, b.id); r != 0) return r > 0;
  if (a.tries_left < 0 || b.tries_left < 0) return false;
  if (a.tries_left != b.tries_left) return a.tries_left > b.tries_left;
  return a.tries_done < b.tries_done;
}

std::vector<std::pair<int, std::string>> LoaderEntryOptions(std::string_view content) {
  std::vector<std::pair<int, std::string>> out;
  int number = 0;
  for (std::string_view line : text::SplitLines(content)) {
    ++number;
    line = text::Trim(line);
    if (!line.starts_with("options") || (line.size() > 7 && line[7] != ' ' && line[7] != '\t')) continue;
    out.emplace_back(number, std::string(text::Trim(line.substr(7))));
  }
  return out;
}

Result<DefaultLoaderEntry> FindDefaultLoaderEntry(const sys::Root& root) {
  auto esp = FindEsp(root);
  if (!esp) {
    if (auto hidden = detect::HiddenEsp(root))
      return Fail(ErrorCode::kNotAuthorized,
                  fmt::format("cannot read {} as this user: run as root or through rocmtuned", root.Display(*hidden)));
    return Fail(ErrorCode::kNotFound, "no ESP with loader/loader.conf or loader/entries in /efi, /boot/efi or /boot");
  }
  std::vector<LoaderEntry> entries = Entries(root, *esp);
  if (entries.empty())
    return Fail(ErrorCode::kNotFound,
                fmt::format("no boot loader entry in {}", root.Display(*esp + "/loader/entries")));
  std::optional<std::string> pattern = detect::ReadLoaderString(root, "LoaderEntryDefault");
  std::string from = "the LoaderEntryDefault EFI variable";
  if (!pattern || pattern->empty()) {
    pattern.reset();
    std::string conf = fmt::format("{}/loader/loader.conf", *esp);
    if (auto content = root.ReadFile(conf, kMaxEntryBytes))
      for (std::string_view line : text::SplitLines(*content)) {
        auto words = text::Tokens(line);
        if (words.size() >= 2 && words[0] == "default") pattern = std::string(words[1]);  // the last one wins
      }
    from = fmt::format("`default` in {}", root.Display(conf));
  }
  if (!pattern) return DefaultLoaderEntry{*esp, entries.front().path, "the first entry in systemd-boot's order"};
  std::string lowered = text::ToLower(*pattern);
  if (lowered == "@saved")
    return Fail(ErrorCode::kInvalidData,
                fmt::format("{} is @saved: the next boot boots the entry booted last (LoaderEntryLastBooted)", from));
  for (const LoaderEntry& e : entries)
    if (Matches(lowered, e)) return DefaultLoaderEntry{*esp, e.path, fmt::format("{} '{}'", from, *pattern)};
  // boot.c: no match falls through to the first entry in order.
  return DefaultLoaderEntry{
      *esp, entries.front().path,
      fmt::format("the first entry in systemd-boot's order ({} '{}' matches none)", from, *pattern)};
}

}  // namespace rocmtune::boot
