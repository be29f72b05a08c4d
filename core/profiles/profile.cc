#include "profiles/profile.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "profiles/machine_values.h"
#include "util/toml_reader.h"

namespace rocmtune::profiles {
namespace {

constexpr int64_t kSchemaVersion = 1;
constexpr size_t kMaxTextBytes = 4096;  // why / source / description: one paragraph, not a document

tl::unexpected<Error> Bad(std::string_view where, std::string_view what) {
  return Fail(ErrorCode::kInvalidData, fmt::format("{}: {}", where, what));
}

// The keys of each table a profile holds (util/toml_reader.h refuses any other, naming the
// file and the item: a typo such as "optinal = true" would otherwise be silently ignored).
constexpr TomlKey kTopKeys[] = {
    {"schema_version", TomlType::kInteger}, {"description", TomlType::kString},
    {"include", TomlType::kStringArray},    {"match", TomlType::kTable},
    {"reset", TomlType::kBoolean},          {"items", TomlType::kTableArray},
};
constexpr TomlKey kMatchKeys[] = {{"gfx", TomlType::kStringArray},
                                  {"family", TomlType::kStringArray},
                                  {"apu", TomlType::kBoolean},
                                  {"all", TomlType::kBoolean}};
constexpr TomlKey kItemKeys[] = {
    {"id", TomlType::kString},    {"action", TomlType::kString},    {"key", TomlType::kString},
    {"value", TomlType::kString}, {"optional", TomlType::kBoolean}, {"match", TomlType::kTable},
    {"why", TomlType::kString},   {"source", TomlType::kString},
};

// nullopt when absent; an error when present with the wrong type or empty.
Result<std::optional<std::string>> OptString(const toml::table& t, std::string_view key, std::string_view where) {
  const toml::node* n = t.get(key);
  if (!n) return std::optional<std::string>();
  auto s = n->value<std::string>();
  if (!n->is_string() || !s) return Bad(where, fmt::format("'{}' must be a string, not {}", key, TomlTypeName(*n)));
  if (s->empty()) return Bad(where, fmt::format("'{}' is empty", key));
  if (s->size() > kMaxTextBytes) return Bad(where, fmt::format("'{}' is longer than {} bytes", key, kMaxTextBytes));
  return std::optional<std::string>(std::move(*s));
}

Result<std::string> ReqString(const toml::table& t, std::string_view key, std::string_view where) {
  auto s = OptString(t, key, where);
  if (!s) return tl::unexpected(s.error());
  if (!*s) return Bad(where, fmt::format("'{}' is missing", key));
  return std::move(**s);
}

Result<std::optional<bool>> OptBool(const toml::table& t, std::string_view key, std::string_view where) {
  const toml::node* n = t.get(key);
  if (!n) return std::optional<bool>();
  if (!n->is_boolean()) return Bad(where, fmt::format("'{}' must be true or false, not {}", key, TomlTypeName(*n)));
  return std::optional<bool>(*n->value<bool>());
}

Result<std::vector<std::string>> StringList(const toml::node& n, std::string_view key, std::string_view where) {
  const toml::array* a = n.as_array();
  if (!a) return Bad(where, fmt::format("'{}' must be an array of strings, not {}", key, TomlTypeName(n)));
  if (a->empty()) return Bad(where, fmt::format("'{}' is empty", key));
  std::vector<std::string> out;
  for (const toml::node& e : *a) {
    auto s = e.value<std::string>();
    if (!e.is_string() || !s) return Bad(where, fmt::format("'{}' must hold strings, not {}", key, TomlTypeName(e)));
    out.push_back(std::move(*s));
  }
  return out;
}

bool ValidGfx(std::string_view s) {
  if (s.size() < 6 || s.size() > 12 || !s.starts_with("gfx")) return false;
  return std::all_of(s.begin() + 3, s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

Result<Match> ParseMatch(const toml::node& node, std::string_view where) {
  const toml::table* t = node.as_table();
  if (!t) return Bad(where, fmt::format("'match' must be a table, not {}", TomlTypeName(node)));
  if (auto ok = CheckTomlTable(*t, kMatchKeys, where); !ok) return tl::unexpected(ok.error());
  Match m;
  if (const toml::node* g = t->get("gfx")) {
    auto list = StringList(*g, "match.gfx", where);
    if (!list) return tl::unexpected(list.error());
    for (const std::string& s : *list)
      if (!ValidGfx(s)) return Bad(where, fmt::format("'{}' is not a gfx target (like gfx1030 or gfx90a)", s));
    m.gfx = std::move(*list);
  }
  if (const toml::node* f = t->get("family")) {
    auto list = StringList(*f, "match.family", where);
    if (!list) return tl::unexpected(list.error());
    for (const std::string& s : *list) {
      auto family = knowledge::ParseFamily(s);
      if (!family)
        return Bad(where, fmt::format("'{}' is not a family (GCN3, GCN4, GCN5, RDNA1, RDNA2, RDNA3, RDNA3.5, RDNA4, "
                                      "CDNA1, CDNA2, CDNA3, CDNA4)",
                                      s));
      m.family.push_back(*family);
    }
  }
  auto apu = OptBool(*t, "apu", where);
  if (!apu) return tl::unexpected(apu.error());
  m.apu = *apu;
  auto all = OptBool(*t, "all", where);
  if (!all) return tl::unexpected(all.error());
  m.all = all->value_or(false);
  if (m.gfx.empty() && m.family.empty() && !m.apu) return Bad(where, "'match' needs gfx, family or apu");
  return m;
}

Result<Item> ParseItem(const toml::table& t, std::string_view where_file, size_t index) {
  std::string where = fmt::format("{}: items[{}]", where_file, index);
  auto id = ReqString(t, "id", where);
  if (!id) return tl::unexpected(id.error());
  if (!ValidProfileName(*id))
    return Bad(where, fmt::format("id '{}' must be lower-case letters, digits, '-', '_' or '.' (at most 64)", *id));
  where = fmt::format("{}: item '{}'", where_file, *id);
  if (auto ok = CheckTomlTable(t, kItemKeys, where); !ok) return tl::unexpected(ok.error());

  Item item;
  item.id = std::move(*id);
  auto action = ReqString(t, "action", where);
  if (!action) return tl::unexpected(action.error());
  if (*action == "set") item.action = Action::kSet;
  else if (*action == "unset") item.action = Action::kUnset;
  else if (*action == "note") item.action = Action::kNote;
  else return Bad(where, fmt::format("unknown action '{}' (set, unset or note)", *action));

  auto key = OptString(t, "key", where);
  if (!key) return tl::unexpected(key.error());
  auto value = OptString(t, "value", where);
  if (!value) return tl::unexpected(value.error());
  if (item.action == Action::kNote) {
    if (*key || *value) return Bad(where, "a note takes no key or value (put the advice in 'why')");
  } else {
    if (!*key) return Bad(where, fmt::format("'{}' needs a key", *action));
    auto parsed = knobs::ParseKnobKey(**key);
    if (!parsed) return Bad(where, parsed.error().message);
    item.key = std::move(*parsed);
    if (item.action == Action::kSet && !*value) return Bad(where, "'set' needs a value");
    if (item.action == Action::kUnset && *value) return Bad(where, "'unset' takes no value");
    if (*value && LooksLikePlaceholder(**value))
      return Bad(where,
                 fmt::format("value '{}' is not a known placeholder (known: {})", **value, kGttPagesPlaceholder));
    item.value = std::move(*value);
  }
  auto optional = OptBool(t, "optional", where);
  if (!optional) return tl::unexpected(optional.error());
  item.optional = optional->value_or(false);
  if (item.optional && item.action == Action::kNote) return Bad(where, "a note cannot be optional");
  if (const toml::node* m = t.get("match")) {
    auto match = ParseMatch(*m, where);
    if (!match) return tl::unexpected(match.error());
    item.match = std::move(*match);
  }
  auto why = ReqString(t, "why", where);
  if (!why) return tl::unexpected(why.error());
  auto source = ReqString(t, "source", where);
  if (!source) return tl::unexpected(source.error());
  item.why = std::move(*why);
  item.source = std::move(*source);
  return item;
}

}  // namespace

std::string_view ActionName(Action action) {
  switch (action) {
    case Action::kSet: return "set";
    case Action::kUnset: return "unset";
    case Action::kNote: return "note";
  }
  return "note";
}

Result<Profile> ParseProfile(std::string_view name, std::string_view text, std::string_view origin) {
  if (!ValidProfileName(name))
    return Bad(origin, fmt::format("'{}' is not a profile name (lower-case letters, digits, '-', '_', '.')", name));
  if (text.size() > kMaxProfileBytes) return Bad(origin, fmt::format("larger than {} bytes", kMaxProfileBytes));
  // toml++ would stop at a NUL as at an unexpected character anyway; say what it is.
  if (text.find('\0') != std::string_view::npos) return Bad(origin, "contains a NUL byte");
  auto doc = ParseTomlDocument(text, origin);
  if (!doc) return tl::unexpected(doc.error());
  // The version first: a newer schema's keys are not typos.
  const toml::node* version = doc->get("schema_version");
  if (!version) return Bad(origin, "'schema_version' is missing (this rocmtune reads 1)");
  if (!version->is_integer() || *version->value<int64_t>() != kSchemaVersion)
    return Bad(origin, "unsupported 'schema_version' (this rocmtune reads 1)");
  if (auto ok = CheckTomlTable(*doc, kTopKeys, origin); !ok) return tl::unexpected(ok.error());

  Profile p;
  p.name = std::string(name);
  p.origin = std::string(origin);
  auto description = ReqString(*doc, "description", origin);
  if (!description) return tl::unexpected(description.error());
  p.description = std::move(*description);
  if (const toml::node* inc = doc->get("include")) {
    auto list = StringList(*inc, "include", origin);
    if (!list) return tl::unexpected(list.error());
    for (const std::string& n : *list) {
      if (!ValidProfileName(n)) return Bad(origin, fmt::format("include '{}' is not a profile name", n));
      if (n == name) return Bad(origin, "a profile cannot include itself");
    }
    p.includes = std::move(*list);
  }
  if (const toml::node* m = doc->get("match")) {
    auto match = ParseMatch(*m, fmt::format("{}: [match]", origin));
    if (!match) return tl::unexpected(match.error());
    p.match = std::move(*match);
  }
  auto reset = OptBool(*doc, "reset", origin);
  if (!reset) return tl::unexpected(reset.error());
  p.reset = reset->value_or(false);

  if (const toml::node* items = doc->get("items")) {
    const toml::array* a = items->as_array();
    if (!a)
      return Bad(origin, fmt::format("'items' must be an array of tables ([[items]]), not {}", TomlTypeName(*items)));
    std::set<std::string> ids;
    for (size_t i = 0; i < a->size(); ++i) {
      const toml::table* t = (*a)[i].as_table();
      if (!t) return Bad(origin, fmt::format("items[{}] must be a table, not {}", i, TomlTypeName((*a)[i])));
      auto item = ParseItem(*t, origin, i);
      if (!item) return tl::unexpected(item.error());
      if (!ids.insert(item->id).second) return Bad(origin, fmt::format("item id '{}' is used twice", item->id));
      item->from = p.name;
      p.items.push_back(std::move(*item));
    }
  }
  if (p.reset) {
    if (p.match) return Bad(origin, "a reset profile matches every machine: drop [match]");
    if (!p.includes.empty()) return Bad(origin, "a reset profile cannot include other profiles");
    for (const Item& item : p.items)
      if (item.action != Action::kNote)
        return Bad(origin, fmt::format("item '{}': a reset profile carries only notes", item.id));
  }
  return p;
}

}  // namespace rocmtune::profiles
