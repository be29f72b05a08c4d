#include "knobs/module_param_checks.h"

#include <fmt/format.h>

#include "knobs/effective.h"
#include "knobs/kernel_rules.h"
#include "knobs/size_checks.h"
#include "sys/module_info.h"

namespace rocmtune::knobs {
namespace {

const detect::ModuleState& ModuleStateFor(const KnobContext& ctx, std::string_view module) {
  return module == "amdgpu" ? ctx.inventory.system.amdgpu : ctx.inventory.system.ttm;
}

std::string AffectedList(const knowledge::ModuleParam& p) {
  std::string out;
  for (const std::string& gc : p.affects_gc) out += (out.empty() ? "" : "/") + gc;
  return out;
}

std::string GpuList(const detect::Inventory& inventory) {
  std::string gpus;
  for (const auto& g : inventory.gpus)
    gpus += fmt::format("{}{} ({}, GC {})", gpus.empty() ? "" : ", ", g.id, g.gfx_target.value_or("gfx unknown"),
                        g.gc_ip.value_or("unknown"));
  return gpus;
}

std::string Suggestions(const KnobContext& ctx, const KnobKey& key) {
  std::string out;
  for (const auto* s : ctx.catalog.Suggest(key.module, key.name))
    out += fmt::format("{}{}.{}", out.empty() ? "" : " or ",
                       s->module == "ttm" && key.module == "amdttm" ? "amdttm" : s->module, s->name);
  return out;
}

std::optional<KernelMinor> VersionAfter(std::string_view text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return std::nullopt;
  return KernelVersion(std::string(text.substr(prefix.size())));
}

// Why the running kernel lacks a parameter its sysfs directory does not show, with the source
// of that answer; nullopt when it has it (`confirmed`: the installed module declares it) or when
// nothing proves it lacks it.
std::optional<std::pair<std::string, std::string>> MissingFromKernel(const KnobContext& ctx, const KnobKey& key,
                                                                     const knowledge::ModuleParam& param,
                                                                     bool& confirmed) {
  confirmed = false;
  const std::string text = key.Text();
  const std::string kernel = ctx.inventory.system.kernel.value_or("unknown");
  if (ctx.inventory.system.kernel) {
    auto installed = sys::InstalledModuleParams(ctx.root, kernel, key.module);
    if (installed) {
      confirmed = installed->names.count(key.name) > 0;
      if (confirmed) return std::nullopt;
      return std::pair{fmt::format("the running kernel ({}) has no {}: the installed module {} does not declare it "
                                   "(modinfo) and /sys/module/{}/parameters does not show it",
                                   kernel, text, ctx.root.Display(installed->file), key.module),
                       std::string("modinfo of ") + ctx.root.Display(installed->file)};
    }
  }
  auto running = KernelVersion(ctx.inventory.system.kernel);
  auto since = KernelVersion(param.since);
  auto removed_after = param.removed ? VersionAfter(*param.removed, "after ") : std::nullopt;
  if (running && ((since && *running < *since) || (removed_after && *running > *removed_after)))
    return std::pair{fmt::format("the running kernel ({}) has no {} (it appeared in {}{})", kernel, text, param.since,
                                 param.removed ? fmt::format(" and was removed {}", *param.removed) : ""),
                     param.source};
  return std::nullopt;
}

}  // namespace

std::vector<SettingIssue> CheckModuleParam(const KnobContext& ctx, const KnobKey& key,
                                           const std::optional<std::string>& value) {
  std::vector<SettingIssue> out;
  const std::string text = key.Text();
  const knowledge::ModuleParam* param = ctx.catalog.Find(key.module, key.name);
  if (!param) {
    std::string suggest = Suggestions(ctx, key);
    // The name meant may itself be deprecated (guides write amdgpu.gtt_size for amdgpu.gttsize,
    // which ttm.pages_limit replaces): point at what to set today, not only at the spelling.
    const auto meant = ctx.catalog.Suggest(key.module, key.name);
    const knowledge::ModuleParam* old = !meant.empty() && meant.front()->deprecated_by ? meant.front() : nullptr;
    if (old) {
      std::string successor = *old->deprecated_by;
      if (successor.starts_with("ttm.") && ctx.root.IsDirectory("sys/module/amdttm"))
        successor = "amdttm." + successor.substr(4);  // amdgpu-dkms counts its own TTM's limit
      out.push_back(
          {"unknown-parameter", IssueLevel::kRefuse,
           fmt::format("{} is not a parameter of the {} module: the kernel ignores it (\"unknown parameter "
                       "'{}' ignored\"). The name is close to {}, which is deprecated{}: {} is the setting "
                       "that does this now.",
                       text, key.module, key.name, old->Key(),
                       old->deprecated_since ? fmt::format(" from kernel {} on", *old->deprecated_since) : "",
                       successor),
           fmt::format("set {} instead (rocmtunectl explain {}); the kernel ignores {}", successor, successor, text),
           fmt::format("{}; {}", kUnknownParamSource, old->source)});
      return out;
    }
    out.push_back({"unknown-parameter", IssueLevel::kRefuse,
                   fmt::format("{} is not a parameter of the {} module.{}", text, key.module,
                               suggest.empty() ? "" : fmt::format(" Did you mean {}?", suggest)),
                   suggest.empty() ? "remove it: the kernel ignores an unknown parameter"
                                   : fmt::format("did you mean {}? The kernel ignores {}", suggest, text),
                   kUnknownParamSource});
    return out;
  }
  if (!value) return out;  // removing a setting needs no further checks
  auto canonical = knowledge::ValidateValue(*param, *value);
  if (!canonical) {
    out.push_back({"invalid-value", IssueLevel::kRefuse, fmt::format("{}: {}", text, canonical.error().message),
                   fmt::format("use a valid value or remove it (rocmtunectl explain {})", text), param->source});
    return out;
  }
  // Sizes against the RAM (a negative size is refused here, before any other check).
  std::vector<SettingIssue> size_issues = CheckSize(ctx, text, *param, *canonical);
  for (const SettingIssue& issue : size_issues)
    if (issue.level == IssueLevel::kRefuse) return size_issues;

  // The running kernel must have the parameter: an unknown option is ignored with a dmesg
  // warning, so writing it would only look like it worked.
  const detect::ModuleState& m = ModuleStateFor(ctx, key.module == "amdttm" ? "ttm" : key.module);
  bool module_dir = key.module == "amdttm" ? ctx.root.IsDirectory("sys/module/amdttm") : m.loaded;
  if (module_dir && key.module != "amdttm" && !m.parameters.empty() && !m.parameters.count(key.name)) {
    // Not in /sys/module/<m>/parameters is no proof: a parameter with permission 0 never appears
    // there. The installed module's modinfo decides; without it, the catalog's versions.
    bool confirmed = false;
    if (auto missing = MissingFromKernel(ctx, key, *param, confirmed)) {
      out.push_back({"not-in-kernel", IssueLevel::kRefuse, std::move(missing->first),
                     "remove it: the kernel ignores a parameter it does not have", std::move(missing->second)});
      return out;
    }
    if (!confirmed)
      out.push_back({"cannot-check", IssueLevel::kCannotCheck,
                     fmt::format("/sys/module/{}/parameters does not show {}, which is no proof the kernel lacks it "
                                 "(parameters without sysfs permission never appear there), and the installed "
                                 "module could not be asked",
                                 key.module, key.name),
                     "", ""});
  }
  if (!module_dir)
    out.push_back({"cannot-check", IssueLevel::kCannotCheck,
                   fmt::format("cannot check that the kernel has {}: the {} module is not loaded", text, key.module),
                   "", ""});
  if (key.module == "ttm" && ctx.root.IsDirectory("sys/module/amdttm"))
    out.push_back({"wrong-module", IssueLevel::kWarn,
                   fmt::format("amdgpu-dkms is installed: its TTM is amdttm, so set amdttm.{} instead", key.name),
                   fmt::format("use amdttm.{}", key.name),
                   "ROCm docs how-to/system-optimization/mi300a.rst (amdttm with amdgpu-dkms)"});

  const Verdict taints = Taints(*param, ctx.inventory.system.kernel);
  const std::string kernel = ctx.inventory.system.kernel.value_or("unknown");
  const bool useless = (!param->affects_gc.empty() || param->affects_apu_only) && !ctx.inventory.gpus.empty() &&
                       AffectedGpus(*param, ctx.inventory).empty();
  if (useless) {
    std::string only = param->affects_apu_only ? "APUs" : fmt::format("GC {}", AffectedList(*param));
    std::string message = fmt::format("{} does nothing on this machine's GPUs ({}): the driver only reads it for {}",
                                      text, GpuList(ctx.inventory), only);
    if (taints == Verdict::kNo) {
      out.push_back({"no-effect", IssueLevel::kWarn, std::move(message), "remove it", param->source});
    } else {
      // Nothing to gain and a tainted kernel to lose (bug reports against a tainted kernel are
      // not taken): refused unless the admin insists.
      message +=
          fmt::format(", and setting it {} the kernel (TAINT_USER) on kernel {}; --force sets it anyway",
                      taints == Verdict::kYes ? "taints" : "may taint (unknown for this kernel version)", kernel);
      out.push_back({"no-effect", IssueLevel::kRefuseUnlessForced, std::move(message), "remove it", param->source});
    }
  } else if (taints != Verdict::kNo) {
    out.push_back({"taints-kernel", IssueLevel::kWarn,
                   taints == Verdict::kYes
                       ? fmt::format("{} is an unsafe parameter: setting it taints the kernel (TAINT_USER)", text)
                       : fmt::format("{} is an unsafe parameter from kernel {} on: setting it may taint this "
                                     "kernel ({}) (TAINT_USER)",
                                     text, param->taints_since.value_or("?"), kernel),
                   "", param->source});
  }
  // Before the kernel that deprecates it, the replacement is still the better setting: say when.
  const auto deprecated_from = param->deprecated_since ? KernelVersion(*param->deprecated_since) : std::nullopt;
  const auto running = KernelVersion(ctx.inventory.system.kernel);
  const bool not_yet = deprecated_from && running && *running < *deprecated_from;
  // Before that kernel it is a note (the running kernel still reads it without complaint).
  if (param->deprecated_by)
    out.push_back({"deprecated", not_yet ? IssueLevel::kNote : IssueLevel::kWarn,
                   not_yet ? fmt::format("{} is deprecated from kernel {} on (this kernel: {}); use {}", text,
                                         *param->deprecated_since, kernel, *param->deprecated_by)
                           : fmt::format("{} is deprecated; use {}", text, *param->deprecated_by),
                   fmt::format("use {} instead", *param->deprecated_by), param->source});
  out.insert(out.end(), std::make_move_iterator(size_issues.begin()), std::make_move_iterator(size_issues.end()));
  return out;
}

void AddToPlan(std::string key_text, SettingIssue issue, plan::Plan& plan) {
  plan::Message m{std::move(key_text), std::move(issue.message), std::move(issue.source)};
  switch (issue.level) {
    case IssueLevel::kRefuse: plan.refused.push_back(std::move(m)); break;
    case IssueLevel::kRefuseUnlessForced: plan.needs_force.push_back(std::move(m)); break;
    case IssueLevel::kWarn:
    case IssueLevel::kCannotCheck: plan.warnings.push_back(std::move(m)); break;
    case IssueLevel::kNote: plan.notes.push_back(std::move(m)); break;
  }
}

std::optional<detect::Finding> ModuleIssueFinding(SettingIssue issue, const KnobKey& key, std::string_view file,
                                                  int line) {
  // A deprecation the running kernel does not have yet stays an info: the setting works today.
  const bool later = issue.id == "deprecated" && issue.level == IssueLevel::kNote;
  if (!later &&
      (issue.level == IssueLevel::kCannotCheck || issue.level == IssueLevel::kNote || issue.id == "taints-kernel"))
    return std::nullopt;
  // About a file already on the machine, not a `set`: the set verb's "--force sets it anyway" is
  // not advice here.
  for (std::string_view tail : {". --force sets it anyway", "; --force sets it anyway"})
    if (issue.message.ends_with(tail)) {
      issue.message.resize(issue.message.size() - tail.size());
      issue.message += '.';
    }
  // The message says what is wrong; where it is written travels as file and line.
  detect::Finding f{.id = "module." + issue.id,
                    .severity = later ? detect::Severity::kInfo : detect::Severity::kWarning,
                    .subject = key.Text(),
                    .what = std::move(issue.message)};
  f.file = std::string(file);
  f.line = line;
  f.fix.text = issue.hint.empty() ? fmt::format("remove it from /{}", file) : std::move(issue.hint);
  f.sources = detect::SourcesOf(std::move(issue.source));
  return f;
}

}  // namespace rocmtune::knobs
