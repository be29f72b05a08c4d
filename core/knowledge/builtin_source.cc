// The generator's half of knowledge/builtin_data.h: C++ source that constructs a parsed table,
// record by record, field by field (designated initializers, so a field renamed or reordered in
// a record is a compile error of the generated file, not a silent default). Only
// rocmtune-knowledge-gen links this file.
#include <concepts>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "knowledge/amdgpu_ids.h"
#include "knowledge/builtin_data.h"
#include "knowledge/catalog.h"
#include "knowledge/env_vars.h"
#include "knowledge/gfx_targets.h"
#include "knowledge/gpu_table.h"
#include "knowledge/kernel_options.h"
#include "knowledge/known_issues.h"
#include "knowledge/rocm_support.h"
#include "knowledge/runtime_code.h"

namespace rocmtune::knowledge {
namespace {

// The enum types a record holds, as the generated code names them.
template <typename E>
constexpr std::string_view kEnumType = {};
template <>
constexpr std::string_view kEnumType<ParamType> = "ParamType";
template <>
constexpr std::string_view kEnumType<SizeUnit> = "SizeUnit";
template <>
constexpr std::string_view kEnumType<Family> = "Family";
template <>
constexpr std::string_view kEnumType<IssueSeverity> = "IssueSeverity";
template <>
constexpr std::string_view kEnumType<Confidence> = "Confidence";
template <>
constexpr std::string_view kEnumType<Outcome> = "Outcome";

// Every overload is declared before the templates that call them (std types find none by ADL).
std::string Lit(std::string_view s);
std::string Lit(const std::string& s);
std::string Lit(bool b);
template <std::integral T>
std::string Lit(T v);
template <typename E>
requires std::is_enum_v<E> std::string Lit(E e);
std::string Lit(const Version& v);
std::string Lit(const IssueRule& r);
std::string Lit(const IssueFix& f);
template <typename T>
std::string Lit(const std::optional<T>& v);
template <typename T>
std::string Lit(const std::vector<T>& v);
template <typename K, typename V>
std::string Lit(const std::map<K, V>& m);
template <typename A, typename B>
std::string Lit(const std::pair<A, B>& p);

// A narrow string literal; every byte outside printable ASCII as a three-digit octal escape (one
// byte each, and no digit after it can extend it). A NUL would end the std::string it builds.
std::string Lit(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c == 0) throw std::invalid_argument("a string with a NUL byte");
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c >= 0x20 && c < 0x7f) {
      out += ch;
    } else {
      out += fmt::format("\\{:03o}", c);
    }
  }
  return out + "\"";
}
std::string Lit(const std::string& s) { return Lit(std::string_view(s)); }
std::string Lit(bool b) { return b ? "true" : "false"; }

template <std::integral T>
std::string Lit(T v) {
  if constexpr (std::is_signed_v<T>) {
    if (v == std::numeric_limits<T>::min()) return fmt::format("({} - 1)", static_cast<long long>(v) + 1);
    return fmt::format("{}", static_cast<long long>(v));
  } else {
    return fmt::format("{}u", static_cast<unsigned long long>(v));
  }
}

template <typename E>
requires std::is_enum_v<E> std::string Lit(E e) {
  static_assert(!kEnumType<E>.empty(), "name the enum in kEnumType");
  return fmt::format("static_cast<{}>({})", kEnumType<E>, static_cast<long long>(e));
}

template <typename T>
std::string Lit(const std::optional<T>& v) {
  return v ? Lit(*v) : "std::nullopt";
}

template <typename T>
std::string Lit(const std::vector<T>& v) {
  std::string out = "{";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + Lit(v[i]);
  return out + "}";
}

template <typename K, typename V>
std::string Lit(const std::map<K, V>& m) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : m) {
    out += fmt::format("{}{{{}, {}}}", first ? "" : ", ", Lit(k), Lit(v));
    first = false;
  }
  return out + "}";
}

template <typename A, typename B>
std::string Lit(const std::pair<A, B>& p) {
  return fmt::format("{{{}, {}}}", Lit(p.first), Lit(p.second));
}

// `Type{.a = ..., .b = ...}`, the fields named in declaration order.
class Record {
 public:
  explicit Record(std::string_view type) : out_(fmt::format("{}{{", type)) {}
  template <typename T>
  Record& F(std::string_view name, const T& value) {
    out_ += fmt::format("{}.{} = {}", first_ ? "" : ", ", name, Lit(value));
    first_ = false;
    return *this;
  }
  std::string Done() const { return out_ + "}"; }

 private:
  std::string out_;
  bool first_ = true;
};

std::string Lit(const Version& v) { return Record("Version").F("parts", v.parts).Done(); }

std::string Lit(const IssueRule& r) {
  return Record("IssueRule")
      .F("gfx", r.gfx)
      .F("apu", r.apu)
      .F("rocm_min", r.rocm_min)
      .F("rocm_below", r.rocm_below)
      .F("rocm_lines", r.rocm_lines)
      .F("kernel_min", r.kernel_min)
      .F("kernel_below", r.kernel_below)
      .F("env", r.env)
      .F("facts", r.facts)
      .F("log_only", r.log_only)
      .Done();
}

std::string Lit(const IssueFix& f) {
  return Record("IssueFix")
      .F("text", f.text)
      .F("profile", f.profile)
      .F("set", f.set)
      .F("unset", f.unset)
      .F("rocm", f.rocm)
      .F("kernel", f.kernel)
      .F("none", f.none)
      .Done();
}

std::string Lit(const ModuleParam& p) {
  return Record("ModuleParam")
      .F("module", p.module)
      .F("name", p.name)
      .F("type", p.type)
      .F("default_value", p.default_value)
      .F("min", p.min)
      .F("max", p.max)
      .F("values", p.values)
      .F("value_names", p.value_names)
      .F("unit", p.unit)
      .F("runtime_writable", p.runtime_writable)
      .F("takes_effect", p.takes_effect)
      .F("since", p.since)
      .F("removed", p.removed)
      .F("deprecated_by", p.deprecated_by)
      .F("effective_rule", p.effective_rule)
      .F("config_dependency", p.config_dependency)
      .F("note", p.note)
      .F("taints", p.taints)
      .F("taints_since", p.taints_since)
      .F("deprecated_since", p.deprecated_since)
      .F("affects_gc", p.affects_gc)
      .F("affects_apu_only", p.affects_apu_only)
      .F("description", p.description)
      .F("source", p.source)
      .Done();
}

std::string Lit(const EnvVar& v) {
  return Record("EnvVar")
      .F("name", v.name)
      .F("check", v.check)
      .F("values", v.values)
      .F("description", v.description)
      .F("source", v.source)
      .F("on_invalid", v.on_invalid)
      .Done();
}

std::string Lit(const NotReadVar& v) {
  return Record("NotReadVar").F("name", v.name).F("why", v.why).F("hint", v.hint).F("source", v.source).Done();
}

std::string Lit(const DebugVar& v) {
  return Record("DebugVar")
      .F("name", v.name)
      .F("on", v.on)
      .F("off", v.off)
      .F("cost", v.cost)
      .F("hint", v.hint)
      .F("source", v.source)
      .Done();
}

std::string Lit(const GfxTarget& t) {
  return Record("GfxTarget")
      .F("version", t.version)
      .F("name", t.name)
      .F("gc_ips", t.gc_ips)
      .F("family", t.family)
      .F("apu", t.apu)
      .F("source", t.source)
      .Done();
}

std::string Lit(const GpuModel& m) {
  return Record("GpuModel")
      .F("product", m.product)
      .F("pci_ids", m.pci_ids)
      .F("gfx_target", m.gfx_target)
      .F("gfx_target_version", m.gfx_target_version)
      .F("gc_ip", m.gc_ip)
      .F("family", m.family)
      .F("apu", m.apu)
      .F("source", m.source)
      .Done();
}

std::string Lit(const KernelOption& o) {
  return Record("KernelOption")
      .F("name", o.name)
      .F("values", o.values)
      .F("list", o.list)
      .F("refuse", o.refuse)
      .F("description", o.description)
      .F("source", o.source)
      .Done();
}

std::string Lit(const KnownIssue& i) {
  return Record("KnownIssue")
      .F("id", i.id)
      .F("title", i.title)
      .F("why", i.why)
      .F("severity", i.severity)
      .F("confidence", i.confidence)
      .F("outcome", i.outcome)
      .F("workloads", i.workloads)
      .F("symptoms", i.symptoms)
      .F("requires_symptom", i.requires_symptom)
      .F("when", i.when)
      .F("fix", i.fix)
      .F("sources", i.sources)
      .F("supersedes", i.supersedes)
      .Done();
}

std::string Lit(const RocmRelease& r) {
  return Record("RocmRelease")
      .F("version", r.version)
      .F("version_text", r.version_text)
      .F("supported", r.supported)
      .F("deprecated", r.deprecated)
      .F("unsupported", r.unsupported)
      .F("radeon_ryzen", r.radeon_ryzen)
      .F("source", r.source)
      .F("note", r.note)
      .Done();
}

std::string Lit(const CodeBuild& b) {
  return Record("CodeBuild")
      .F("kind", b.kind)
      .F("version", b.version)
      .F("rocm", b.rocm)
      .F("targets", b.targets)
      .F("source", b.source)
      .F("note", b.note)
      .Done();
}

// The source of one table: a function per record (each small, so the compiler's time and memory
// stay linear in the records) appending it to the member, then BuiltinData::Make<name>() calling
// them in order.
class TableSource {
 public:
  TableSource(std::string_view table_type, std::string_view make) : type_(table_type), make_(make) {}

  template <typename T>
  void Member(std::string_view member, std::string_view element_type, const std::vector<T>& items) {
    body_ += fmt::format("  t.{}.reserve({});\n", member, items.size());
    for (const T& item : items) {
      functions_ += fmt::format("[[gnu::noinline]] void Add{}(std::vector<{}>& v) {{\n  v.push_back({});\n}}\n\n",
                                count_, element_type, Lit(item));
      body_ += fmt::format("  Add{}(t.{});\n", count_++, member);
    }
  }

  std::string Done() const {
    return fmt::format("namespace {{\n\n{}}}  // namespace\n\n{} BuiltinData::{}() {{\n  {} t;\n{}  return t;\n}}\n",
                       functions_, type_, make_, type_, body_);
  }

 private:
  std::string type_, make_, functions_, body_;
  size_t count_ = 0;
};

}  // namespace

std::string BuiltinData::Source(const AmdgpuIds& t) {
  // About 700 short entries: a function per 200 of them, inserted in the map's order.
  std::string functions, body = fmt::format("  t.version_ = {};\n", Lit(t.version_));
  size_t n = 0, chunk = 0;
  for (const auto& [key, name] : t.names_) {
    if (n % 200 == 0) {
      if (n) functions += "}\n\n";
      functions += fmt::format(
          "[[gnu::noinline]] void Add{}(std::map<std::pair<uint16_t, uint8_t>, std::string>& m) {{\n", chunk);
      body += fmt::format("  Add{}(t.names_);\n", chunk++);
    }
    functions += fmt::format("  m.emplace_hint(m.end(), std::pair<uint16_t, uint8_t>{}, {});\n", Lit(key), Lit(name));
    ++n;
  }
  if (n) functions += "}\n\n";
  return fmt::format(
      "namespace {{\n\n{}}}  // namespace\n\nAmdgpuIds BuiltinData::MakeAmdgpuIds() {{\n  AmdgpuIds t;\n{}  "
      "return t;\n}}\n",
      functions, body);
}

std::string BuiltinData::Source(const Catalog& t) {
  TableSource s("Catalog", "MakeCatalog");
  s.Member("params_", "ModuleParam", t.params_);
  return s.Done();
}

std::string BuiltinData::Source(const EnvVars& t) {
  TableSource s("EnvVars", "MakeEnvVars");
  s.Member("vars_", "EnvVar", t.vars_);
  s.Member("not_read_", "NotReadVar", t.not_read_);
  s.Member("debug_", "DebugVar", t.debug_);
  return s.Done();
}

std::string BuiltinData::Source(const GfxTargetTable& t) {
  TableSource s("GfxTargetTable", "MakeGfxTargets");
  s.Member("targets_", "GfxTarget", t.targets_);
  return s.Done();
}

std::string BuiltinData::Source(const GpuTable& t) {
  TableSource s("GpuTable", "MakeGpus");
  s.Member("models_", "GpuModel", t.models_);
  return s.Done();
}

std::string BuiltinData::Source(const KernelOptions& t) {
  TableSource s("KernelOptions", "MakeKernelOptions");
  s.Member("options_", "KernelOption", t.options_);
  return s.Done();
}

std::string BuiltinData::Source(const KnownIssues& t) {
  TableSource s("KnownIssues", "MakeKnownIssues");
  s.Member("issues_", "KnownIssue", t.issues_);
  return s.Done();
}

std::string BuiltinData::Source(const RocmSupport& t) {
  TableSource s("RocmSupport", "MakeRocmSupport");
  s.Member("releases_", "RocmRelease", t.releases_);
  return s.Done();
}

std::string BuiltinData::Source(const RuntimeCode& t) {
  TableSource s("RuntimeCode", "MakeRuntimeCode");
  s.Member("builds_", "CodeBuild", t.builds_);
  return s.Done();
}

}  // namespace rocmtune::knowledge
