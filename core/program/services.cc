// ServiceContexts: the system services whose environment decides what their ROCm does.
//   ollama.service    installed by ollama's install.sh as /etc/systemd/system/ollama.service
//                     (docs/linux.md); docs/gpu.md "Overrides on Linux" has its users set
//                     HSA_OVERRIDE_GFX_VERSION for the server, which `systemctl edit ollama`
//                     writes to /etc/systemd/system/ollama.service.d/override.conf (docs/faq.md).
//   enabled units     what `systemctl enable` links: /etc/systemd/system/*.wants/ and
//                     *.requires/ (systemctl(1) "enable"; [Install] WantedBy=/RequiredBy=).
//                     Links under /usr/lib/systemd/system/*.wants/ are the vendor's static
//                     dependencies, not an administrator's choice: not listed here (a service
//                     pulled in that way is still found when it is ollama, or by name).
#include <algorithm>
#include <set>

#include "program/context.h"
#include "program/unit_env.h"

namespace rocmtune::program {
namespace {

constexpr size_t kMaxWantsDirs = 64;
constexpr size_t kMaxUnits = 256;

bool RocmName(std::string_view name) {
  for (std::string_view prefix : {"HSA_", "HIP_", "ROCR_", "HCC_"})
    if (name.starts_with(prefix)) return true;
  return name == "CUDA_VISIBLE_DEVICES";  // HIP reads it when HIP_VISIBLE_DEVICES is empty
}

std::set<std::string> EnabledServices(const sys::Root& root) {
  std::set<std::string> out;
  const std::string dir = "etc/systemd/system";
  auto entries = root.ListDir(dir);
  if (!entries) return out;
  size_t dirs = 0;
  for (const std::string& entry : *entries) {
    if (!entry.ends_with(".wants") && !entry.ends_with(".requires")) continue;
    if (++dirs > kMaxWantsDirs) break;
    auto links = root.ListDir(sys::JoinPath(dir, entry));
    if (!links) continue;
    for (const std::string& link : *links) {
      if (out.size() >= kMaxUnits) return out;
      if (link.ends_with(".service") && IsUnitName(link)) out.insert(link);
    }
  }
  return out;
}

}  // namespace

std::vector<Context> ServiceContexts(const sys::Root& root) {
  std::vector<Context> out;
  std::set<std::string> names = EnabledServices(root);
  const bool enabled_ollama = names.count("ollama.service") > 0;
  names.insert("ollama.service");
  for (const std::string& name : names) {
    auto ctx = UnitContext(root, name, false, "");
    if (!ctx) continue;                              // a link left behind by a removed package
    if (!ctx->starts && ctx->env.empty()) continue;  // masked
    bool rocm =
        std::any_of(ctx->env.begin(), ctx->env.end(), [](const knobs::EnvSetting& s) { return RocmName(s.name); });
    if (name == "ollama.service" || rocm) {
      if (name == "ollama.service" && !enabled_ollama)
        ctx->notes.push_back("ollama.service is installed but not enabled");
      out.push_back(std::move(*ctx));
    }
  }
  std::sort(out.begin(), out.end(), [](const Context& a, const Context& b) { return a.name < b.name; });
  return out;
}

}  // namespace rocmtune::program
