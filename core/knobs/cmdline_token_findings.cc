// Kernel command-line tokens rocmtune knows, where they are written (cmdline_scan.h): `amdgpu.x=`
// / `ttm.x=` / `amdttm.x=` by the module parameter rules (module_param_checks.h), the kernel
// options of data/kernel_options.toml by their accepted values. Options rocmtune does not know
// are the admin's business and are not reported.
#include <algorithm>

#include <fmt/format.h>

#include "boot/cmdline_scan.h"
#include "boot/cmdline_tokens.h"
#include "detect/finding_ids.h"
#include "knobs/module_param_checks.h"
#include "knobs/setting_findings.h"
#include "knowledge/kernel_options.h"

namespace rocmtune::knobs {
std::vector<detect::Finding> CmdlineTokenFindings(const KnobContext& ctx) {
  std::vector<detect::Finding> out;
  auto add = [&](detect::Finding f) {
    bool seen = std::any_of(out.begin(), out.end(), [&](const detect::Finding& g) {
      return g.id == f.id && g.subject == f.subject && g.file == f.file && g.line == f.line;
    });
    if (!seen) out.push_back(std::move(f));
  };
  for (const boot::CmdlineTokenAt& t : boot::ScanCmdlineTokens(ctx)) {
    std::string key(boot::TokenKey(t.token));
    std::optional<std::string> value = boot::TokenValue(std::vector<std::string>{t.token}, key);
    size_t dot = key.find('.');
    std::string module = dot == std::string::npos ? "" : key.substr(0, dot);
    if (module == "amdgpu" || module == "ttm" || module == "amdttm") {
      std::string name = key.substr(dot + 1);
      std::replace(name.begin(), name.end(), '-', '_');  // the kernel's parameq()
      KnobKey k{KnobKind::kModuleParam, module, "", name};
      const knowledge::ModuleParam* p = ctx.catalog.Find(module, name);
      bool bare = t.token.find('=') == std::string::npos;
      std::string v = bare && p && p->type == knowledge::ParamType::kBool ? "1" : value.value_or("");
      for (SettingIssue& issue : CheckModuleParam(ctx, k, v))
        if (auto f = ModuleIssueFinding(std::move(issue), k, t.file, t.line)) add(std::move(*f));
      continue;
    }
    const knowledge::KernelOption* option = knowledge::KernelOptions::Builtin().Find(key);
    if (!option) continue;
    std::string why = knowledge::CheckKernelOptionValue(*option, value.value_or(""));
    if (why.empty()) continue;
    if (why.ends_with('.')) why.pop_back();
    detect::Finding f{.id = detect::FindingName(detect::FindingId::kCmdlineInvalidValue),
                      .severity = detect::Severity::kWarning,
                      .subject = "cmdline." + key,
                      .what = fmt::format("{}; ineffective: the kernel ignores it", why)};
    f.file = t.file;
    f.line = t.line;
    f.fix.text = t.file == "proc/cmdline" ? fmt::format("remove {} from the boot configuration it comes from", t.token)
                                          : fmt::format("remove {} from /{}", t.token, t.file);
    f.sources = detect::SourcesOf(option->source);
    add(std::move(f));
  }
  return out;
}

}  // namespace rocmtune::knobs
