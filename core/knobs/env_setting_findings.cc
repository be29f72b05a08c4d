// ROCm/HIP/PyTorch variables already set in the environment files (knobs/env_sources.h: pam_env,
// environment.d, login shells) and in rocmtune's own drop-ins, checked by the rules `set env.X`
// applies (knowledge/env_vars.h, EnvBackend::Validate) plus the tables of variables nothing reads
// and of debugging switches (data/env_vars.toml). Each problem is one finding at its file and line.
//
// Only names data/env_vars.toml lists are looked at. Another name with a ROCm prefix (HSA_,
// HIP_, ROCR_, AMD_, GPU_, PYTORCH_, MIOPEN_, ...) gives nothing: ROCm reads hundreds of
// variables (rocclr's flags.hpp alone declares over a hundred), "rocmtune does not check this"
// is nothing to act on, and a line for each would bury the findings that are. PATH, LANG and
// the like are never looked at.
#include <algorithm>

#include <fmt/format.h>

#include "detect/finding_ids.h"
#include "knobs/env_backend.h"
#include "knobs/env_sources.h"
#include "knobs/setting_findings.h"
#include "knowledge/env_vars.h"

namespace rocmtune::knobs {
namespace {

class EnvChecker {
 public:
  explicit EnvChecker(const KnobContext& ctx) : ctx_(ctx) {}

  void Check(const EnvSetting& s, bool owned) {
    const knowledge::EnvVars& table = knowledge::EnvVars::Builtin();
    // The message says what is wrong; where (file, line) are the finding's own fields.
    if (const knowledge::NotReadVar* nobody = table.FindNotRead(s.name)) {
      Add(detect::FindingName(detect::FindingId::kEnvNotRead), detect::Severity::kWarning,
          fmt::format("{}: {}", s.name, nobody->why), s, owned ? Unset(s) : nobody->hint, nobody->source);
      return;
    }
    if (!s.value) return;  // computed by the shell: nothing more can be said of its value
    const std::string& value = *s.value;
    if (const knowledge::EnvVar* var = table.Find(s.name)) {
      if (std::string why = knowledge::CheckEnvGrammar(*var, value); !why.empty()) {
        bool fails = var->on_invalid == "fails";
        Add(detect::FindingName(detect::FindingId::kEnvInvalidValue),
            fails ? detect::Severity::kError : detect::Severity::kWarning,
            fmt::format("{}{}", why, fails ? "" : " (the library ignores it, as if unset)"), s,
            owned ? fmt::format("rocmtunectl set env.{}=<a valid value>, or {}", s.name, Unset(s))
                  : "correct the value or remove the line",
            var->source);
        return;
      }
      for (const OverrideProblem& p : OverrideProblems(ctx_, s)) {
        Add(detect::FindingName(detect::FindingId::kEnvOverrideOtherIsa), detect::Severity::kError,
            WithoutLocation(p.message.message, s), s,
            owned ? Unset(s)
                  : "remove it: an override only works between targets of one ISA family (gfx1031..gfx1036 as "
                    "10.3.0), never across generations",
            p.message.source);
        out_.back().gpu = p.gpu;
      }
    }
    if (const knowledge::DebugVar* debug = table.FindDebug(s.name); debug && knowledge::DebugSwitchOn(*debug, value))
      Add(detect::FindingName(detect::FindingId::kEnvDebugSwitch), detect::Severity::kWarning,
          fmt::format("the debugging switch {}={} is on: {}", s.name, value, debug->cost), s,
          owned ? Unset(s) : debug->hint, debug->source);
  }

  std::vector<detect::Finding> Take() { return std::move(out_); }

 private:
  // `set` warns with "<file>:<line> sets NAME=..." (a plan message has no file field); a finding
  // has one, so its message starts at NAME.
  std::string WithoutLocation(const std::string& message, const EnvSetting& s) const {
    const std::string prefix = SettingPlace(ctx_.root, s) + " sets ";
    return message.starts_with(prefix) ? message.substr(prefix.size()) : message;
  }

  static std::string Unset(const EnvSetting& s) {
    return fmt::format("rocmtunectl unset env.{} (rocmtune wrote it to {})", s.name, s.file);
  }

  void Add(std::string id, detect::Severity severity, std::string message, const EnvSetting& s, std::string hint,
           std::string source) {
    out_.push_back({.id = std::move(id),
                    .severity = severity,
                    .subject = s.name,
                    .what = std::move(message),
                    .fix = {.text = std::move(hint)},
                    .sources = detect::SourcesOf(std::move(source)),
                    .file = s.file,
                    .line = s.line});
  }

  const KnobContext& ctx_;
  std::vector<detect::Finding> out_;
};

}  // namespace

std::vector<detect::Finding> EnvSettingFindings(const KnobContext& ctx) {
  if (!ctx.foreign_env) ctx.foreign_env = ForeignEnvSettings(ctx.root);
  EnvChecker checker(ctx);
  for (const EnvSetting& s : *ctx.foreign_env) checker.Check(s, false);
  // rocmtune writes the same assignments to both drop-ins: the profile.d copy is reported only
  // where it says something else (edited by hand), so one `set` gives one finding.
  std::vector<EnvSetting> written;
  for (const EnvSource& source : OwnedEnvSources()) {
    for (const EnvSetting& s : ReadEnvSource(ctx.root, source)) {
      bool mirror = std::any_of(written.begin(), written.end(),
                                [&](const EnvSetting& w) { return w.name == s.name && w.value == s.value; });
      if (!mirror) checker.Check(s, true);
      if (!source.shell) written.push_back(s);
    }
  }
  return checker.Take();
}

std::vector<detect::Finding> CallerEnvFindings(const KnobContext& ctx, const std::vector<EnvSetting>& caller) {
  EnvChecker checker(ctx);
  for (const EnvSetting& s : caller) checker.Check(s, false);
  return checker.Take();
}

bool KnownEnvName(std::string_view name) {
  const knowledge::EnvVars& table = knowledge::EnvVars::Builtin();
  return table.Find(name) || table.FindNotRead(name) || table.FindDebug(name);
}

}  // namespace rocmtune::knobs
