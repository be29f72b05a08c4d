// Module options in modprobe.d checked by the rules `set` applies (module_param_checks.h). The
// kernel command line's `amdgpu.x=` tokens are CmdlineTokenFindings' (with the boot files that
// hold them), so each file and line is reported once.
#include <algorithm>

#include "knobs/module_param_checks.h"
#include "knobs/setting_findings.h"

namespace rocmtune::knobs {

namespace {
constexpr std::string_view kModules[] = {"amdgpu", "ttm", "amdttm"};
}  // namespace

std::vector<detect::Finding> ModuleOptionFindings(const KnobContext& ctx) {
  std::vector<detect::Finding> out;
  // modprobe.d as the modprobe backend reads it (the same cache); unreadable files are
  // file.unreadable findings already.
  if (!ctx.modprobe_config) ctx.modprobe_config = sys::ReadModprobeConfig(ctx.root, kModules);
  if (!*ctx.modprobe_config) return out;
  for (const sys::ModuleOption& o : (*ctx.modprobe_config)->options) {
    if (o.file == "proc/cmdline") continue;
    KnobKey key{KnobKind::kModuleParam, o.module, "", o.name};
    // A bare name is `true` for a bool parameter (kernel/params.c parse_one()).
    const knowledge::ModuleParam* p = ctx.catalog.Find(o.module, o.name);
    std::string value = o.bare && p && p->type == knowledge::ParamType::kBool ? "1" : o.value;
    for (SettingIssue& issue : CheckModuleParam(ctx, key, value)) {
      auto f = ModuleIssueFinding(std::move(issue), key, o.file, o.line);
      if (!f) continue;
      bool seen = std::any_of(out.begin(), out.end(), [&](const detect::Finding& g) {
        return g.id == f->id && g.subject == f->subject && g.file == f->file && g.line == f->line;
      });
      if (!seen) out.push_back(std::move(*f));
    }
  }
  return out;
}

}  // namespace rocmtune::knobs
