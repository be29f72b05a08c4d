// GRUB's trial entry (trial_boot.h): grub.cfg's menu read the way GRUB picks its default entry,
// and that entry copied under rocmtune's id with the trial's tokens on its `linux` lines.
#include <algorithm>

#include <fmt/format.h>

#include "boot/trial_boot.h"
#include "util/text.h"

namespace rocmtune::boot {
namespace {

// The words of a line of GRUB script, quotes removed: '...' literal, "..." and bare text with
// backslash escapes (the GRUB manual, "Shell-like scripting": quoting). Variables stay as text.
std::vector<std::string> Words(std::string_view line) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == ' ' || c == '\t') {
      if (in_word) out.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      size_t end = line.find('\'', i + 1);
      if (end == std::string_view::npos) end = line.size();
      word += line.substr(i + 1, end - i - 1);
      i = end;
    } else if (c == '"') {
      for (++i; i < line.size() && line[i] != '"'; ++i) {
        if (line[i] == '\\' && i + 1 < line.size()) ++i;
        word += line[i];
      }
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
    } else {
      word += c;
    }
  }
  if (in_word) out.push_back(std::move(word));
  return out;
}

struct MenuItem {
  bool submenu = false;
  std::string title, id;
  std::vector<std::string_view> body;  // a menuentry's lines between its braces
  std::vector<MenuItem> children;      // a submenu's entries
};

struct Menu {
  std::vector<MenuItem> items;
  std::optional<std::string> default_value;  // the last `set default=` outside any entry
};

std::string_view LastWord(std::string_view line) {
  line = text::Trim(line);
  size_t sp = line.find_last_of(" \t");
  return sp == std::string_view::npos ? line : line.substr(sp + 1);
}

// `menuentry TITLE [--class C] [--users U] [--unrestricted] [--hotkey K] [--id ID | $menuentry_id_option ID] {`
// (the GRUB manual, "menuentry"; 10_linux writes the id after $menuentry_id_option).
MenuItem Header(const std::vector<std::string>& words) {
  MenuItem item;
  item.submenu = words[0] == "submenu";
  if (words.size() > 1) item.title = words[1];
  for (size_t i = 2; i + 1 < words.size(); ++i)
    if (words[i] == "--id" || words[i] == "$menuentry_id_option" || words[i] == "${menuentry_id_option}")
      item.id = words[i + 1];
  return item;
}

// The lines of one level of the menu, from `i` up to the `}` that closes it (nested) or the end.
Result<std::vector<MenuItem>> ParseLevel(const std::vector<std::string_view>& lines, size_t& i, bool nested,
                                         Menu& menu) {
  std::vector<MenuItem> items;
  int depth = 0;  // braces of functions and the like at this level
  for (; i < lines.size(); ++i) {
    std::string_view line = text::Trim(lines[i]);
    if (line.empty() || line.starts_with('#')) continue;
    std::vector<std::string> words = Words(line);
    if (words.empty()) continue;
    if (words[0] == "menuentry" || words[0] == "submenu") {
      if (LastWord(line) != "{")
        return Fail(ErrorCode::kInvalidData,
                    fmt::format("grub.cfg line {}: a {} whose '{{' is not at the end of its line", i + 1, words[0]));
      MenuItem item = Header(words);
      ++i;
      if (item.submenu) {
        auto children = ParseLevel(lines, i, true, menu);
        if (!children) return tl::unexpected(children.error());
        item.children = std::move(*children);
      } else {
        int inner = 0;
        for (; i < lines.size(); ++i) {
          std::string_view body = text::Trim(lines[i]);
          if (body == "}" && inner == 0) break;
          if (body == "}") --inner;
          else if (body.ends_with('{')) ++inner;
          item.body.push_back(lines[i]);
        }
      }
      if (i >= lines.size())
        return Fail(ErrorCode::kInvalidData, fmt::format("grub.cfg: the {} '{}' is not closed", words[0], item.title));
      items.push_back(std::move(item));
      continue;
    }
    if (line == "}") {
      if (depth > 0) --depth;
      else if (nested) return items;
      continue;
    }
    if (line.ends_with('{')) ++depth;
    // 00_header: `if [ "${next_entry}" ] ; then set default="${next_entry}" ... else set
    // default="${GRUB_DEFAULT}" fi`: the one-shot branch is not the default.
    std::string_view assignment;
    if (words[0] == "set" && words.size() == 2) assignment = words[1];
    else if (words.size() == 1) assignment = words[0];
    if (assignment.starts_with("default=")) {
      std::string value(assignment.substr(8));
      if (value != "${next_entry}" && value != "$next_entry") menu.default_value = std::move(value);
    }
  }
  if (nested) return Fail(ErrorCode::kInvalidData, "grub.cfg: a submenu is not closed");
  return items;
}

bool IsNumber(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The item `part` names at one level: a number, an id or a title (GRUB's get_entry_number,
// grub-core/normal/menu.c). GRUB boots the first entry when the default names none ("If
// DEFAULT_ENTRY is not within the menu entries, fall back to the first entry", run_menu).
const MenuItem* Pick(const std::vector<MenuItem>& items, std::string_view part) {
  if (items.empty()) return nullptr;
  if (IsNumber(part)) {
    auto n = text::ParseU64(part);
    return n && *n < items.size() ? &items[*n] : &items.front();
  }
  for (const MenuItem& item : items)
    if (item.id == part || item.title == part) return &item;
  return &items.front();
}

// The value of `default` as GRUB sees it: `${saved_entry}` (GRUB_DEFAULT=saved, 00_header) from
// the environment block that 00_header's `load_env` reads.
Result<std::string> DefaultValue(const Menu& menu, std::string_view grubenv) {
  if (!menu.default_value) return std::string("0");
  const std::string& v = *menu.default_value;
  if (v == "${saved_entry}" || v == "$saved_entry") return GrubEnvValue(grubenv, "saved_entry").value_or("0");
  if (v.find('$') != std::string::npos)
    return Fail(ErrorCode::kInvalidData,
                fmt::format("grub.cfg sets default to '{}', a variable rocmtune cannot read", v));
  return v;
}

Result<const MenuItem*> DefaultEntry(const Menu& menu, std::string_view value) {
  const std::vector<MenuItem>* level = &menu.items;
  const MenuItem* item = nullptr;
  // "1>2": the third entry of the second item's submenu (the GRUB manual, "default").
  for (size_t start = 0;;) {
    size_t gt = value.find('>', start);
    std::string_view part = value.substr(start, gt == std::string_view::npos ? std::string_view::npos : gt - start);
    item = Pick(*level, part);
    if (!item) return Fail(ErrorCode::kInvalidData, "grub.cfg has no menu entry");
    if (gt == std::string_view::npos) break;
    if (!item->submenu) break;
    level = &item->children;
    start = gt + 1;
  }
  if (item->submenu)
    return Fail(ErrorCode::kInvalidData,
                fmt::format("the default of grub.cfg ('{}') is the submenu '{}', not an entry", value, item->title));
  return item;
}

bool IsLinuxLine(std::string_view line) {
  std::string_view word = text::Trim(line);
  word = word.substr(0, word.find_first_of(" \t"));
  return word == "linux" || word == "linux16" || word == "linuxefi";
}

std::string TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

std::optional<std::string> GrubEnvValue(std::string_view grubenv, std::string_view name) {
  for (std::string_view line : text::SplitLines(grubenv)) {
    if (line.size() > name.size() && line.starts_with(name) && line[name.size()] == '=')
      return std::string(line.substr(name.size() + 1));
  }
  return std::nullopt;
}

bool GrubCfgSourcesTrialEntry(std::string_view grub_cfg) {
  return grub_cfg.find(kGrubTrialEntryPath.substr(kGrubTrialEntryPath.rfind('/') + 1)) != std::string_view::npos;
}

Result<std::string> GrubTrialEntry(std::string_view grub_cfg, std::string_view grubenv, const TrialBoot& trial) {
  if (auto ok = CheckTrialTokens(trial.tokens); !ok) return tl::unexpected(ok.error());
  if (TrialIdOf(trial.tokens) != trial.id)
    return Fail(ErrorCode::kInvalidArgument, fmt::format("the trial's id is not {}={}", kTrialIdKey, trial.id));
  std::vector<std::string_view> lines = text::SplitLines(grub_cfg);
  Menu menu;
  size_t i = 0;
  auto items = ParseLevel(lines, i, false, menu);
  if (!items) return tl::unexpected(items.error());
  menu.items = std::move(*items);
  auto value = DefaultValue(menu, grubenv);
  if (!value) return tl::unexpected(value.error());
  auto entry = DefaultEntry(menu, *value);
  if (!entry) return tl::unexpected(entry.error());
  std::string tokens;
  for (const std::string& t : trial.tokens) tokens += " " + t;
  // The entry is sourced by grub.cfg after every other (42_rocmtune), so it may use what 00_header
  // defined (load_video, $menuentry_id_option) like the entry it copies.
  std::string out = TrialHeader(trial);
  out += fmt::format("# grub.cfg's default entry '{}', booted once by next_entry with the trial's tokens.\n",
                     text::EscapeControl((*entry)->title));
  out += fmt::format("menuentry 'rocmtune trial {}' --id {} {{\n", trial.id, kTrialEntryId);
  int linux_lines = 0;
  for (std::string_view line : (*entry)->body) {
    if (IsLinuxLine(line)) {
      out += TrimRight(line) + tokens + "\n";
      ++linux_lines;
    } else {
      out += std::string(line) + "\n";
    }
  }
  out += "}\n";
  if (linux_lines == 0)
    return Fail(ErrorCode::kInvalidData,
                fmt::format("grub.cfg's default entry '{}' has no `linux` line", text::EscapeControl((*entry)->title)));
  return out;
}

}  // namespace rocmtune::boot
