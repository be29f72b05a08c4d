#include "knowledge/known_issues.h"

#include <algorithm>
#include <charconv>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/enum_names.h"
#include "util/toml_reader.h"

namespace rocmtune::knowledge {

namespace {

constexpr TomlKey kKnownIssuesTopKeys[] = {{"schema_version", TomlType::kInteger}, {"issue", TomlType::kTableArray}};
constexpr TomlKey kWhenKeys[] = {
    {"gfx", TomlType::kStringArray},        {"apu", TomlType::kBoolean},       {"rocm_min", TomlType::kString},
    {"rocm_below", TomlType::kString},      {"kernel_min", TomlType::kString}, {"kernel_below", TomlType::kString},
    {"env", TomlType::kStringTable},        {"facts", TomlType::kStringArray}, {"log_only", TomlType::kBoolean},
    {"rocm_lines", TomlType::kStringArray},
};
constexpr TomlKey kFixKeys[] = {
    {"text", TomlType::kString},       {"profile", TomlType::kString}, {"set", TomlType::kStringArray},
    {"unset", TomlType::kStringArray}, {"rocm", TomlType::kString},    {"kernel", TomlType::kString},
    {"none", TomlType::kString},
};
constexpr TomlKey kIssueKeys[] = {
    {"id", TomlType::kString},
    {"title", TomlType::kString},
    {"why", TomlType::kString},
    {"severity", TomlType::kString},
    {"confidence", TomlType::kString},
    {"outcome", TomlType::kString},
    {"workloads", TomlType::kStringArray},
    {"symptoms", TomlType::kStringArray},
    {"requires_symptom", TomlType::kStringArray},
    {"when", TomlType::kTable, true},
    {"fix", TomlType::kTable, true},
    {"sources", TomlType::kStringArray},
    {"supersedes", TomlType::kStringArray},
};
constexpr EnumNames<Outcome, 4> kOutcomes = {{{Outcome::kCrash, "crash"},
                                              {Outcome::kNoGpu, "no-gpu"},
                                              {Outcome::kLimits, "limits"},
                                              {Outcome::kExplains, "explains"}}};
constexpr EnumNames<IssueSeverity, 3> kSeverities = {
    {{IssueSeverity::kInfo, "info"}, {IssueSeverity::kWarning, "warning"}, {IssueSeverity::kError, "error"}}};
constexpr EnumNames<Confidence, 3> kConfidences = {
    {{Confidence::kHigh, "high"}, {Confidence::kMedium, "medium"}, {Confidence::kLow, "low"}}};
static_assert(Distinct(kOutcomes) && Distinct(kSeverities) && Distinct(kConfidences));
const std::set<std::string_view> kFacts = {kFactGttAtMostHalfRam, kFactGpuNotInKfd, kFactMesFirmware0x83,
                                           kFactKfdWithoutCwsrSize, kFactCwsrDisabledWithKfdFix};

Result<std::optional<Version>> VersionField(const toml::table& t, std::string_view key, std::string_view where) {
  auto text = TomlString(t, key);
  if (!text) return std::optional<Version>();
  auto v = ParseVersion(*text);
  if (!v) return Fail(ErrorCode::kInvalidData, fmt::format("{}: {} '{}' is not a version", where, key, *text));
  return v;
}

Result<IssueRule> ParseRule(const toml::table& when, std::string_view where) {
  if (auto ok = CheckTomlTable(when, kWhenKeys, where); !ok) return tl::unexpected(ok.error());
  IssueRule r;
  r.gfx = TomlStrings(when, "gfx");
  r.apu = TomlBool(when, "apu");
  r.log_only = TomlBool(when, "log_only").value_or(false);
  for (auto [key, slot] : {std::pair{"rocm_min", &r.rocm_min}, std::pair{"rocm_below", &r.rocm_below},
                           std::pair{"kernel_min", &r.kernel_min}, std::pair{"kernel_below", &r.kernel_below}}) {
    auto v = VersionField(when, key, where);
    if (!v) return tl::unexpected(v.error());
    *slot = *v;
  }
  for (const std::string& line : TomlStrings(when, "rocm_lines")) {
    auto v = ParseVersion(line);
    if (!v || v->parts.empty() || v->parts.size() > 2)
      return Fail(ErrorCode::kInvalidData,
                  fmt::format("{}: rocm_lines '{}' is not a release line (major.minor)", where, line));
    r.rocm_lines.push_back(*v);
  }
  if (const toml::table* env = when["env"].as_table())
    for (const auto& [k, v] : *env) r.env[std::string(k.str())] = *v.value<std::string>();
  r.facts = TomlStrings(when, "facts");
  for (const std::string& f : r.facts)
    if (!kFacts.count(f)) return Fail(ErrorCode::kInvalidData, fmt::format("{}: unknown fact '{}'", where, f));
  return r;
}

// `outcome` (required: check-compute's answer depends on it) and `workloads` (optional, crashes
// only; names from kWorkloads, "any" being what leaving the key out says).
Result<void> ParseOutcome(const toml::table& t, KnownIssue& i, std::string_view where) {
  auto outcome = ParseName(kOutcomes, TomlString(t, "outcome").value_or(""));
  if (!outcome)
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: outcome must be crash, no-gpu, limits or explains", where));
  i.outcome = *outcome;
  if (!t.contains("workloads")) return {};
  const toml::array* list = t["workloads"].as_array();
  if (list->empty())
    return Fail(ErrorCode::kInvalidData,
                fmt::format("{}: workloads must be a non-empty list (leave it out for every workload)", where));
  if (i.outcome != Outcome::kCrash)
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: workloads is for outcome \"crash\" only", where));
  for (const toml::node& n : *list) {
    auto w = n.value<std::string>();
    if (!w || !IsWorkload(*w))
      return Fail(ErrorCode::kInvalidData,
                  fmt::format("{}: unknown workload '{}' (known: {}; leave workloads out for every workload)", where,
                              w.value_or("?"), fmt::join(kWorkloads, ", ")));
    i.workloads.push_back(*w);
  }
  return {};
}

Result<KnownIssue> ParseIssue(const toml::table& t, std::string_view origin) {
  KnownIssue i;
  i.id = TomlString(t, "id").value_or("");
  std::string where = fmt::format("{}: issue '{}'", origin, i.id);
  if (auto ok = CheckTomlTable(t, kIssueKeys, where); !ok) return tl::unexpected(ok.error());
  i.title = TomlString(t, "title").value_or("");
  i.why = TomlString(t, "why").value_or("");
  const std::string severity = TomlString(t, "severity").value_or("");
  const std::string confidence = TomlString(t, "confidence").value_or("");
  i.symptoms = TomlStrings(t, "symptoms");
  i.requires_symptom = TomlStrings(t, "requires_symptom");
  if (!i.requires_symptom.empty() && i.symptoms.empty())
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: requires_symptom without symptoms", where));
  for (const std::string& s : i.requires_symptom)
    if (s.find_first_not_of(" \t") == std::string::npos)
      return Fail(ErrorCode::kInvalidData, fmt::format("{}: an empty requires_symptom matches every log", where));
  i.sources = TomlStrings(t, "sources");
  if (i.id.empty() || i.title.empty() || i.why.empty())
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: id, title and why are required", where));
  auto parsed_severity = ParseIssueSeverity(severity);
  if (!parsed_severity)
    return Fail(ErrorCode::kInvalidData,
                fmt::format("{}: severity '{}' must be info, warning or error", where, severity));
  i.severity = *parsed_severity;
  auto parsed_confidence = ParseConfidence(confidence);
  if (!parsed_confidence)
    return Fail(ErrorCode::kInvalidData,
                fmt::format("{}: confidence '{}' must be high, medium or low", where, confidence));
  i.confidence = *parsed_confidence;
  if (i.sources.empty()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: no sources", where));
  i.supersedes = TomlStrings(t, "supersedes");
  for (const std::string& id : i.supersedes)
    if (id.find('.') == std::string::npos || id.starts_with("issue."))
      return Fail(ErrorCode::kInvalidData,
                  fmt::format("{}: supersedes '{}' is not a doctor check's finding id", where, id));
  if (auto ok = ParseOutcome(t, i, where); !ok) return tl::unexpected(ok.error());
  const toml::table* when = t["when"].as_table();
  const toml::table* fix = t["fix"].as_table();
  auto rule = ParseRule(*when, where + " [when]");
  if (!rule) return tl::unexpected(rule.error());
  i.when = std::move(*rule);
  if (i.when.log_only && i.symptoms.empty())
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: log_only without symptoms can never match", where));
  if (auto ok = CheckTomlTable(*fix, kFixKeys, where + " [fix]"); !ok) return tl::unexpected(ok.error());
  i.fix = {TomlString(*fix, "text").value_or(""),
           TomlString(*fix, "profile").value_or(""),
           TomlStrings(*fix, "set"),
           TomlStrings(*fix, "unset"),
           TomlString(*fix, "rocm").value_or(""),
           TomlString(*fix, "kernel").value_or(""),
           TomlString(*fix, "none").value_or("")};
  if (i.fix.text.empty()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: [fix] has no text", where));
  if (!i.fix.none.empty() && i.outcome != Outcome::kNoGpu)
    return Fail(ErrorCode::kInvalidData,
                fmt::format("{}: [fix] none (no fix on this hardware) needs outcome \"no-gpu\"", where));
  return i;
}

}  // namespace

std::optional<Version> ParseVersion(std::string_view text) {
  Version v;
  size_t pos = 0;
  while (pos < text.size()) {
    int n = 0;
    auto [end, ec] = std::from_chars(text.data() + pos, text.data() + text.size(), n);
    if (ec != std::errc() || n < 0) break;
    v.parts.push_back(n);
    pos = static_cast<size_t>(end - text.data());
    if (pos >= text.size() || text[pos] != '.') break;
    ++pos;
  }
  if (v.parts.empty()) return std::nullopt;
  while (v.parts.size() > 1 && v.parts.back() == 0) v.parts.pop_back();
  return v;
}

Result<KnownIssues> KnownIssues::Parse(std::string_view toml_text, std::string_view origin) {
  auto parsed = ParseTomlDocument(toml_text, origin);
  if (!parsed) return tl::unexpected(parsed.error());
  if (auto ok = CheckTomlTable(*parsed, kKnownIssuesTopKeys, origin); !ok) return tl::unexpected(ok.error());
  const std::vector<const toml::table*> entries = TomlTables(*parsed, "issue");
  if (entries.empty()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: no [[issue]] entries", origin));
  KnownIssues out;
  std::set<std::string> ids;
  for (const toml::table* t : entries) {
    auto issue = ParseIssue(*t, origin);
    if (!issue) return tl::unexpected(issue.error());
    if (!ids.insert(issue->id).second)
      return Fail(ErrorCode::kInvalidData, fmt::format("{}: issue '{}' appears twice", origin, issue->id));
    out.issues_.push_back(std::move(*issue));
  }
  return out;
}

std::string_view OutcomeName(Outcome outcome) { return NameOf(kOutcomes, outcome, "explains"); }

std::string_view IssueSeverityName(IssueSeverity severity) { return NameOf(kSeverities, severity, "info"); }

std::optional<IssueSeverity> ParseIssueSeverity(std::string_view name) { return ParseName(kSeverities, name); }

std::string_view ConfidenceName(Confidence confidence) { return NameOf(kConfidences, confidence, "high"); }

std::optional<Confidence> ParseConfidence(std::string_view name) { return ParseName(kConfidences, name); }

bool IsWorkload(std::string_view name) {
  return std::find(kWorkloads.begin(), kWorkloads.end(), name) != kWorkloads.end();
}

bool KnownIssue::Hits(std::string_view workload) const {
  if (workloads.empty() || workload == kWorkloadAny) return true;
  return std::find(workloads.begin(), workloads.end(), workload) != workloads.end();
}

const KnownIssue* KnownIssues::Find(std::string_view id) const {
  for (const KnownIssue& i : issues_)
    if (i.id == id) return &i;
  return nullptr;
}

}  // namespace rocmtune::knowledge
