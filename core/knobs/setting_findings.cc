#include "knobs/setting_findings.h"

namespace rocmtune::knobs {

std::vector<detect::Finding> SettingFindings(const KnobContext& ctx) {
  std::vector<detect::Finding> out = ModuleOptionFindings(ctx);
  for (detect::Finding& f : CmdlineTokenFindings(ctx)) out.push_back(std::move(f));
  for (detect::Finding& f : EnvSettingFindings(ctx)) out.push_back(std::move(f));
  return out;
}

}  // namespace rocmtune::knobs
