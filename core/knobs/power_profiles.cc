#include "knobs/power_profiles.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "util/text.h"

namespace rocmtune::knobs {
namespace {

// CUSTOM takes its parameters after the index in the same write
// (drivers/gpu/drm/amd/pm/amdgpu_pm.c amdgpu_set_pp_power_profile_mode()): not managed.
constexpr std::string_view kCustom = "CUSTOM";

bool Blank(char c) { return c == ' ' || c == '\t' || c == '\0' || c == '\r'; }
bool Digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool NameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// The profiles of one line starting at `begin` (offsets into the whole content), or none when
// the line is not a row of the table (headers, per-clock detail rows, coefficient rows).
std::vector<PowerProfile> ParseLine(std::string_view content, size_t begin, size_t end) {
  std::vector<PowerProfile> out;
  size_t i = begin;
  auto skip_blank = [&] {
    while (i < end && Blank(content[i])) ++i;
  };
  skip_blank();
  while (i < end) {
    size_t digits = i;
    while (i < end && Digit(content[i])) ++i;
    if (i == digits || i - digits > 2 || i == end || !Blank(content[i])) return {};
    PowerProfile p;
    p.index = static_cast<int>(*text::ParseU64(content.substr(digits, i - digits)));
    skip_blank();
    p.name_begin = i;
    while (i < end && NameChar(content[i])) ++i;
    p.name_end = i;
    std::string_view name = content.substr(p.name_begin, p.name_end - p.name_begin);
    if (name.empty() ||
        std::none_of(name.begin(), name.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }))
      return {};
    p.name = std::string(name);
    skip_blank();
    if (i < end && content[i] == '*') {
      p.active = true;
      p.mark = i++;
      skip_blank();
    }
    out.push_back(std::move(p));
    if (i < end && content[i] == ':') break;  // the row's settings follow
    if (i < end && !Digit(content[i])) return {};
  }
  if (out.size() > 1)
    for (PowerProfile& p : out) p.row_of_many = true;
  return out;
}

const PowerProfile* Active(const std::vector<PowerProfile>& profiles) {
  for (const PowerProfile& p : profiles)
    if (p.active) return &p;
  return nullptr;
}

std::optional<int> ParseIndex(std::string_view value) {
  bool small_decimal = !value.empty() && value.size() <= 2 && std::all_of(value.begin(), value.end(), Digit) &&
                       !(value.size() == 2 && value.front() == '0');
  if (!small_decimal) return std::nullopt;
  return static_cast<int>(*text::ParseU64(value));
}

// Where a row's mark goes: a fixed distance from the end of right-aligned names (one profile a
// line) or from the start of left-aligned ones (many a line).
size_t Anchor(const PowerProfile& p) { return p.row_of_many ? p.name_begin : p.name_end; }

bool BlankUpTo(std::string_view content, const PowerProfile& p, size_t slot) {
  if (slot >= content.size() || slot < p.name_end) return false;
  for (size_t k = p.name_end; k <= slot; ++k)
    if (!Blank(content[k]) || content[k] == '\0') return false;
  return true;
}

class Codec final : public SysfsCodec {
 public:
  std::optional<std::string> Current(std::string_view raw) const override {
    const auto profiles = ParsePowerProfiles(raw);
    const PowerProfile* active = Active(profiles);
    return active ? std::optional(active->name) : std::nullopt;
  }
  std::optional<std::string> Restorable(std::string_view raw) const override {
    const auto profiles = ParsePowerProfiles(raw);
    const PowerProfile* active = Active(profiles);
    if (!active || active->name == kCustom) return std::nullopt;
    return std::to_string(active->index);
  }
  Result<std::string> Encode(std::string_view raw, std::string_view wanted) const override {
    const auto profiles = ParsePowerProfiles(raw);
    for (const PowerProfile& p : profiles)
      if (p.name == wanted && p.name != kCustom) return std::to_string(p.index);
    std::string names;
    for (const PowerProfile& p : profiles)
      if (p.name != kCustom) names += (names.empty() ? "" : ", ") + p.name;
    return Fail(
        ErrorCode::kInvalidArgument,
        fmt::format("offers no profile '{}' (it has: {}; CUSTOM needs parameters and is not managed)", wanted, names));
  }
  bool ReadsDeviceToCheck() const override { return true; }
  Result<void> CheckWrite(std::string_view raw, std::string_view written) const override {
    auto index = ParseIndex(written);
    if (!index) return Fail(ErrorCode::kInvalidArgument, fmt::format("'{}' is not a profile index (0-99)", written));
    for (const PowerProfile& p : ParsePowerProfiles(raw))
      if (p.index == *index && p.name != kCustom) return {};
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("the device lists no profile {} rocmtune may select", written));
  }
  bool Holds(std::string_view raw, std::string_view written) const override {
    const auto profiles = ParsePowerProfiles(raw);
    const PowerProfile* active = Active(profiles);
    auto index = ParseIndex(text::Trim(written));
    return active && index && active->index == *index;
  }
  std::string Emulate(std::string_view raw, std::string_view written) const override {
    return MarkPowerProfile(raw, written);
  }
};

}  // namespace

std::vector<PowerProfile> ParsePowerProfiles(std::string_view content) {
  std::vector<PowerProfile> out;
  size_t begin = 0;
  while (begin < content.size()) {
    size_t end = content.find('\n', begin);
    if (end == std::string_view::npos) end = content.size();
    for (PowerProfile& p : ParseLine(content, begin, end)) out.push_back(std::move(p));
    begin = end + 1;
  }
  return out;
}

std::string MarkPowerProfile(std::string_view content, std::string_view index) {
  if (index.ends_with('\n')) index.remove_suffix(1);
  const auto profiles = ParsePowerProfiles(content);
  auto wanted = ParseIndex(index);
  auto target = std::find_if(profiles.begin(), profiles.end(),
                             [&](const PowerProfile& p) { return wanted && p.index == *wanted; });
  if (target == profiles.end()) return std::string(index);
  // The kernel marks one row; a copy marked twice (a hand edit, a fuzzer) keeps only the target's.
  std::vector<const PowerProfile*> marked;
  for (const PowerProfile& p : profiles)
    if (p.active) marked.push_back(&p);
  if (marked.size() == 1 && marked.front() == &*target) return std::string(content);
  const PowerProfile* active = marked.empty() ? nullptr : marked.front();
  // The style is learned from the marked row: how far its '*' sits from its anchor, and whether
  // an unmarked row has blanks there (the mark takes a blank's place) or not (it is inserted).
  size_t gap = active ? active->mark - Anchor(*active) : 0;
  bool in_place = true;
  for (const PowerProfile& p : profiles)
    if (!p.active && p.row_of_many == target->row_of_many) {
      in_place = BlankUpTo(content, p, Anchor(p) + gap);
      break;
    }
  struct Edit {
    size_t at, erase;
    std::string insert;
  };
  std::vector<Edit> edits;
  for (const PowerProfile* m : marked) {
    if (m == &*target) continue;
    if (in_place) {
      edits.push_back({m->mark, 1, " "});
    } else {
      // The blanks and the mark go; a blank stays where they were all that parted this name from
      // the next row's index ("4 VR  *5 COMPUTE", a hand edit; found by the sysfs_values fuzz
      // target): "VR5" would be one name.
      bool joins = m->mark + 1 < content.size() && NameChar(content[m->mark + 1]);
      edits.push_back({m->name_end, m->mark + 1 - m->name_end, joins ? " " : ""});
    }
  }
  if (!target->active) {
    size_t slot = Anchor(*target) + gap;
    if (in_place && BlankUpTo(content, *target, slot)) edits.push_back({slot, 1, "*"});
    else edits.push_back({target->name_end, 0, std::string(gap, ' ') + "*"});
  }
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.at > b.at; });
  std::string out(content);
  for (const Edit& e : edits) out.replace(e.at, e.erase, e.insert);
  return out;
}

const SysfsCodec& PowerProfileCodec() {
  static const Codec kCodec;
  return kCodec;
}

}  // namespace rocmtune::knobs
