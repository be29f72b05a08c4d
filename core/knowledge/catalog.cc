#include "knowledge/catalog.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "util/enum_names.h"
#include "util/suggest.h"
#include "util/toml_reader.h"

namespace rocmtune::knowledge {
namespace {

constexpr EnumNames<ParamType, 9> kTypeNames{{
    {ParamType::kInt, "int"},
    {ParamType::kUint, "uint"},
    {ParamType::kUlong, "ulong"},
    {ParamType::kUllong, "ullong"},
    {ParamType::kHexint, "hexint"},
    {ParamType::kBool, "bool"},
    {ParamType::kBint, "bint"},
    {ParamType::kCharp, "charp"},
    {ParamType::kString, "string"},
}};
static_assert(Distinct(kTypeNames));

constexpr TomlKey kCatalogTopKeys[] = {{"param", TomlType::kTableArray}};
// Every key a [[param]] may have: a misspelt key is an error, not a silently missing fact.
constexpr TomlKey kParamKeys[] = {
    {"module", TomlType::kString},
    {"name", TomlType::kString},
    {"type", TomlType::kString},
    {"default", TomlType::kString},
    {"min", TomlType::kInteger},
    {"max", TomlType::kInteger},
    {"values", TomlType::kIntegerArray},
    {"value_names", TomlType::kStringTable},
    {"unit", TomlType::kString},
    {"runtime_writable", TomlType::kBoolean},
    {"takes_effect", TomlType::kString},
    {"since", TomlType::kString},
    {"removed", TomlType::kString},
    {"taints", TomlType::kBoolean},
    {"taints_since", TomlType::kString},
    {"deprecated_by", TomlType::kString},
    {"deprecated_since", TomlType::kString},
    {"effective_rule", TomlType::kString},
    {"affects_gc", TomlType::kStringArray},
    {"affects_apu_only", TomlType::kBoolean},
    {"config_dependency", TomlType::kString},
    {"description", TomlType::kString},
    {"note", TomlType::kString},
    {"source", TomlType::kString},
};

constexpr size_t kMaxSuggestDistance = 2;
constexpr size_t kMaxSuggestInput = 64;
constexpr size_t kMaxValueBytes = 4096;  // beyond any real value; keeps messages and files small
// amdgpu.h AMDGPU_MAX_TIMEOUT_PARAM_LENGTH is 256 with the NUL: params.c param_set_copystring()
// refuses 256 characters for lockup_timeout. charp has no kernel limit; no real value is longer.
constexpr size_t kMaxStringBytes = 255;

bool IsNameChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

// Fills `p` from one [[param]] table that CheckTomlTable passed; returns what is wrong, or "".
std::string ReadParam(const toml::table& t, ModuleParam& p) {
  p.module = TomlString(t, "module").value_or("");
  p.name = TomlString(t, "name").value_or("");
  if (p.module != "amdgpu" && p.module != "ttm") return fmt::format("module '{}' is not amdgpu or ttm", p.module);
  if (p.name.empty() || !std::all_of(p.name.begin(), p.name.end(), IsNameChar)) return "bad or missing name";
  auto type = ParseParamType(TomlString(t, "type").value_or(""));
  if (!type) return "bad or missing type";
  p.type = *type;
  auto default_value = TomlString(t, "default");
  if (!default_value) return "no default";
  p.default_value = *default_value;
  p.min = TomlInt(t, "min");
  p.max = TomlInt(t, "max");
  if (p.min && p.max && *p.min > *p.max) return "min > max";
  if (const toml::array* a = t["values"].as_array()) {
    for (const toml::node& n : *a) {
      const int64_t v = *n.value<int64_t>();
      if ((p.min && v < *p.min) || (p.max && v > *p.max)) return fmt::format("value {} outside min..max", v);
      p.values.push_back(v);
    }
  }
  if (const toml::table* names = t["value_names"].as_table())
    for (const auto& [key, node] : *names) p.value_names[std::string(key.str())] = *node.value<std::string>();
  if (auto unit = TomlString(t, "unit")) {
    if (*unit == "page") p.unit = SizeUnit::kPage;
    else if (*unit == "MiB") p.unit = SizeUnit::kMib;
    else return fmt::format("unit '{}' is not page or MiB", *unit);
  }
  p.runtime_writable = TomlBool(t, "runtime_writable").value_or(false);
  p.takes_effect = TomlString(t, "takes_effect").value_or("");
  p.since = TomlString(t, "since").value_or("");
  p.removed = TomlString(t, "removed");
  p.deprecated_by = TomlString(t, "deprecated_by");
  p.deprecated_since = TomlString(t, "deprecated_since");
  p.effective_rule = TomlString(t, "effective_rule");
  p.config_dependency = TomlString(t, "config_dependency");
  p.note = TomlString(t, "note");
  p.taints = TomlBool(t, "taints").value_or(false);
  p.taints_since = TomlString(t, "taints_since");
  p.affects_gc = TomlStrings(t, "affects_gc");
  p.affects_apu_only = TomlBool(t, "affects_apu_only").value_or(false);
  p.description = TomlString(t, "description").value_or("");
  p.source = TomlString(t, "source").value_or("");
  if (p.takes_effect.empty() || p.since.empty()) return "takes_effect and since are required";
  if (p.source.empty()) return "no source";
  return "";
}

std::string_view CanonicalModule(std::string_view module) { return module == "amdttm" ? "ttm" : module; }

std::string Squash(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::optional<ParamType> ParseParamType(std::string_view name) { return ParseName(kTypeNames, name); }

std::string_view ParamTypeName(ParamType type) { return NameOf(kTypeNames, type, "?"); }

Result<Catalog> Catalog::Parse(std::string_view toml_text, std::string_view origin) {
  auto parsed = ParseTomlDocument(toml_text, origin);
  if (!parsed) return tl::unexpected(parsed.error());
  if (auto ok = CheckTomlTable(*parsed, kCatalogTopKeys, origin); !ok) return tl::unexpected(ok.error());
  const std::vector<const toml::table*> entries = TomlTables(*parsed, "param");
  if (entries.empty()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: no [[param]] entries", origin));
  Catalog catalog;
  std::set<std::string> keys;
  for (size_t i = 0; i < entries.size(); ++i) {
    const toml::table& t = *entries[i];
    const std::string where =
        TomlEntryName(origin, "param", i,
                      fmt::format("{}.{}", TomlString(t, "module").value_or("?"), TomlString(t, "name").value_or("?")));
    if (auto ok = CheckTomlTable(t, kParamKeys, where); !ok) return tl::unexpected(ok.error());
    ModuleParam p;
    if (std::string why = ReadParam(t, p); !why.empty())
      return Fail(ErrorCode::kInvalidData, fmt::format("{}: {}", where, why));
    if (!keys.insert(p.Key()).second)
      return Fail(ErrorCode::kInvalidData, fmt::format("{}: {} is listed twice", origin, p.Key()));
    catalog.params_.push_back(std::move(p));
  }
  return catalog;
}

const ModuleParam* Catalog::Find(std::string_view module, std::string_view name) const {
  module = CanonicalModule(module);
  for (const ModuleParam& p : params_)
    if (p.module == module && p.name == name) return &p;
  return nullptr;
}

std::vector<const ModuleParam*> Catalog::Suggest(std::string_view module, std::string_view name) const {
  module = CanonicalModule(module);
  if (name.size() > kMaxSuggestInput) return {};  // no parameter name is that long; keeps the distance table small
  const std::string squashed = Squash(name);
  std::vector<std::tuple<size_t, std::string_view, const ModuleParam*>> ranked;
  for (const ModuleParam& p : params_) {
    if (p.module != module) continue;
    // 0: the same letters without '_' ("gtt_size"); otherwise 1 + the edit distance.
    size_t score = Squash(p.name) == squashed
                       ? 0
                       : 1 + std::min(text::EditDistance(name, p.name), text::EditDistance(squashed, Squash(p.name)));
    if (score <= kMaxSuggestDistance + 1) ranked.emplace_back(score, p.name, &p);
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<const ModuleParam*> out;
  for (size_t i = 0; i < ranked.size() && i < 3; ++i) out.push_back(std::get<2>(ranked[i]));
  return out;
}

namespace {

bool IsUnsigned(ParamType t) {
  return t == ParamType::kUint || t == ParamType::kUlong || t == ParamType::kUllong || t == ParamType::kHexint;
}

bool IsAsciiAlnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool IsInteger(ParamType t) { return t == ParamType::kInt || IsUnsigned(t); }

// kernel/params.c: int and uint/hexint are 32-bit; ulong is 64-bit on the 64-bit kernels
// ROCm runs on; ullong is 64-bit.
uint64_t TypeMax(ParamType t) {
  if (t == ParamType::kInt) return std::numeric_limits<int32_t>::max();
  if (t == ParamType::kUint || t == ParamType::kHexint) return std::numeric_limits<uint32_t>::max();
  return std::numeric_limits<uint64_t>::max();
}

std::string Accepted(const ModuleParam& p) {
  if (p.type == ParamType::kBool || p.type == ParamType::kBint) return "Y or N (y, n, 1 and 0 are accepted too)";
  if (p.type == ParamType::kCharp || p.type == ParamType::kString)
    return fmt::format("up to {} characters from A-Z a-z 0-9 and , . _ : + - /", kMaxStringBytes);
  if (!p.values.empty()) {
    std::string out = "one of";
    for (int64_t v : p.values) {
      auto name = p.value_names.find(std::to_string(v));
      out += fmt::format("{} {}", out == "one of" ? "" : ",", v);
      if (name != p.value_names.end()) out += fmt::format(" ({})", name->second);
    }
    return out;
  }
  std::string kind = IsUnsigned(p.type) ? "a decimal or 0x-hex integer" : "a decimal integer";
  std::string lo = p.min ? std::to_string(*p.min) : IsUnsigned(p.type) ? "0" : "-2147483648";
  std::string hi = p.max ? std::to_string(*p.max) : std::to_string(TypeMax(p.type));
  return fmt::format("{} from {} to {}", kind, lo, hi);
}

// Why these bytes can never be a parameter value, or "". Checked before anything else, so
// later messages may quote the value.
std::string RejectBytes(std::string_view v) {
  if (v.empty()) return "the value is empty";
  if (v.size() > kMaxValueBytes) return fmt::format("the value is longer than {} bytes", kMaxValueBytes);
  for (char ch : v) {
    auto c = static_cast<unsigned char>(ch);
    if (c == 0) return "the value contains a NUL byte";
    if (c == '\n' || c == '\r') return "the value contains a line break";
    if (c < 0x20 || c == 0x7f) return "the value contains a control character";
    if (c >= 0x80) return "the value contains a non-ASCII character (digits must be ASCII 0-9)";
    if (c == ' ') return "the value contains a space";
    if (c == '"' || c == '\'' || c == '`') return "the value contains a quote";
    if (std::string_view(";&|$<>()\\*?[]{}~!#=%^@").find(ch) != std::string_view::npos)
      return fmt::format("the value contains '{}'", ch);
  }
  return "";
}

std::string Shown(std::string_view v) { return v.size() <= 40 ? fmt::format("'{}'", v) : "the value"; }

int DigitValue(char c, int base) {
  int d = c >= '0' && c <= '9'   ? c - '0'
          : c >= 'a' && c <= 'f' ? c - 'a' + 10
          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                 : 99;
  return d < base ? d : -1;
}

Result<std::string> ValidateInteger(const ModuleParam& p, std::string_view v) {
  auto refuse = [&](std::string_view why) {
    return Fail(ErrorCode::kInvalidArgument, fmt::format("{} {}; expected {}", Shown(v), why, Accepted(p)));
  };
  std::string_view digits = v;
  bool negative = !digits.empty() && digits[0] == '-';
  if (negative) digits.remove_prefix(1);
  if (negative && IsUnsigned(p.type))
    return refuse("is negative, but the parameter is unsigned (the kernel refuses it)");
  int base = 10;
  if (digits.size() >= 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    if (negative || !IsUnsigned(p.type)) return refuse("is hex, which rocmtune accepts only for unsigned parameters");
    base = 16;
    digits.remove_prefix(2);
    if (digits.empty()) return refuse("has no digits after 0x");
  }
  if (digits.empty()) return refuse("is not a number");
  if (base == 10 && digits.size() > 1 && digits[0] == '0')
    return refuse("has a leading zero (the kernel would read it as octal)");
  uint64_t magnitude = 0;
  for (char c : digits) {
    int d = DigitValue(c, base);
    if (d < 0) return refuse(base == 16 ? "is not a hex number" : "is not a decimal integer");
    if (magnitude > (std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base))
      return refuse("is too large");
    magnitude = magnitude * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  if (negative && magnitude == 0) return refuse("is not written plainly (use 0)");
  uint64_t limit = negative ? TypeMax(p.type) + 1 : TypeMax(p.type);
  if (magnitude > limit) return refuse(fmt::format("does not fit the kernel's {} type", ParamTypeName(p.type)));

  std::optional<int64_t> number;  // unset only for unsigned values above INT64_MAX
  if (negative) number = -static_cast<int64_t>(magnitude);
  else if (magnitude <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    number = static_cast<int64_t>(magnitude);
  if ((p.min && number && *number < *p.min) || (p.max && (!number || *number > *p.max)))
    return refuse("is out of range");
  if (!p.values.empty() && (!number || std::find(p.values.begin(), p.values.end(), *number) == p.values.end()))
    return refuse("is not an accepted value");

  if (p.type == ParamType::kHexint) return fmt::format("0x{:06x}", magnitude);  // params.c "%#08x"
  return negative ? fmt::format("-{}", magnitude) : fmt::format("{}", magnitude);
}

// amdgpu.lockup_timeout: amdgpu_device_get_job_timeout_settings() splits the string at ',' and
// reads each field with kstrtol(field, 0, ...) as GFX, Compute, SDMA, Video in ms (0 keeps the
// default, a negative value disables the timeout and taints the kernel); a field it cannot read
// makes amdgpu_device_init() fail ("invalid lockup_timeout parameter syntax"): the GPU does not
// come up. It stops at an empty field and ignores a fifth. rocmtune takes one to four decimal
// fields without leading zeros (base 0 would read "010" as octal 8) and nothing the kernel would
// skip silently.
constexpr size_t kTimeoutFields = 4;
constexpr std::string_view kTimeoutGrammar =
    "one to four comma-separated integers in ms, for GFX,Compute,SDMA,Video (one value sets every queue on "
    "6.19 and later kernels; 0 keeps the default, a negative value means no timeout)";

Result<std::string> ValidateTimeouts(std::string_view v) {
  auto refuse = [&](std::string_view why) {
    return Fail(ErrorCode::kInvalidArgument, fmt::format("{} {}; expected {}", Shown(v), why, kTimeoutGrammar));
  };
  if (v.size() > kMaxStringBytes) return refuse("is too long");
  size_t fields = 0;
  size_t start = 0;
  while (true) {
    const size_t comma = v.find(',', start);
    std::string_view field = v.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    ++fields;
    if (field.empty()) return refuse("has an empty field (the kernel stops reading there and ignores what follows)");
    if (fields > kTimeoutFields) return refuse("has more than four fields (the kernel ignores the fifth and later)");
    std::string_view digits = field;
    if (digits.front() == '-') digits.remove_prefix(1);
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return refuse(fmt::format("has '{}', which is not a decimal integer (the GPU would not initialize)", field));
    if (digits.size() > 1 && digits.front() == '0')
      return refuse(fmt::format("has '{}' with a leading zero (the kernel would read it as octal)", field));
    if (field == "-0") return refuse("has '-0' (use 0)");
    // kstrtol: a long; no timeout needs more than 18 digits.
    if (digits.size() > 18) return refuse(fmt::format("has '{}', which does not fit the kernel's long", field));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return std::string(v);
}

// String parameters whose value the driver parses further: the grammar each is held to.
struct StringGrammar {
  std::string_view key;
  Result<std::string> (*validate)(std::string_view);
};
constexpr StringGrammar kStringGrammars[] = {{"amdgpu.lockup_timeout", ValidateTimeouts}};

}  // namespace

Result<std::string> ValidateValue(const ModuleParam& param, std::string_view value) {
  if (std::string why = RejectBytes(value); !why.empty())
    return Fail(ErrorCode::kInvalidArgument, fmt::format("{}; expected {}", why, Accepted(param)));
  if (IsInteger(param.type)) return ValidateInteger(param, value);
  auto refuse = [&](std::string_view why) {
    return Fail(ErrorCode::kInvalidArgument, fmt::format("{} {}; expected {}", Shown(value), why, Accepted(param)));
  };
  if (param.type == ParamType::kBool || param.type == ParamType::kBint) {
    // kernel/params.c param_set_bool() -> kstrtobool(); sysfs shows bool as Y/N, bint as 1/0.
    bool on = value == "Y" || value == "y" || value == "1";
    bool off = value == "N" || value == "n" || value == "0";
    if (!on && !off) return refuse("is not a boolean");
    if (param.type == ParamType::kBool) return std::string(on ? "Y" : "N");
    return std::string(on ? "1" : "0");
  }
  for (const StringGrammar& g : kStringGrammars)
    if (g.key == param.Key()) return g.validate(value);
  if (value.size() > kMaxStringBytes) return refuse("is too long");
  for (char c : value)
    if (!IsAsciiAlnum(c) && std::string_view(",._:+-/").find(c) == std::string_view::npos)
      return refuse(fmt::format("contains '{}'", c));
  if (value.find("..") != std::string_view::npos) return refuse("contains '..'");
  return std::string(value);
}

}  // namespace rocmtune::knowledge
