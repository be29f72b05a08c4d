// `rocmtunectl status`: the inventory as a table for people or rocmtune.status.v1 JSON.
#include <cstdio>

#include <fmt/format.h>

#include "api/status.h"
#include "api/status_json.h"
#include "client/exit_codes.h"
#include "client/table.h"
#include "client/verbs.h"
#include "util/json_text.h"

namespace rocmtune::client {
namespace {

template <typename T>
std::string Or(const std::optional<T>& v, std::string_view unknown = "-") {
  if (!v) return std::string(unknown);
  return fmt::format("{}", *v);
}

std::string SystemLine(const detect::SystemFacts& s) {
  std::string os = s.os.pretty_name.value_or(s.os.id.value_or("unknown OS"));
  return fmt::format("{}, kernel {}", os, Or(s.kernel, "unknown"));
}

std::string BootLine(const detect::SystemFacts& s) {
  return fmt::format("{} (initramfs: {})", Or(s.boot.kind, "unknown"), Or(s.boot.initramfs, "unknown"));
}

std::string IommuLine(const detect::IommuState& iommu) {
  if (!iommu.mode) {
    if (iommu.enabled) return *iommu.enabled ? "enabled, mode unknown" : "no IOMMU";
    return "unknown";
  }
  return iommu.evidence.empty() ? *iommu.mode : fmt::format("{} ({})", *iommu.mode, iommu.evidence);
}

std::string GpuTable(const std::vector<detect::Gpu>& gpus) {
  bool partitions = false;
  for (const auto& g : gpus) partitions |= g.physical_id != g.id;
  std::vector<std::string> header = {"GPU", "NAME", "GFX", "GC", "FAMILY", "TYPE", "VRAM", "CARD", "KFD"};
  if (partitions) header.push_back("PHYSICAL");
  Table table(header);
  for (const auto& g : gpus) {
    std::vector<std::string> row = {
        g.id,
        g.marketing_name,
        Or(g.gfx_target),
        Or(g.gc_ip),
        g.family ? std::string(knowledge::FamilyName(*g.family)) : "-",
        g.apu ? (*g.apu ? "APU" : "dGPU") : "-",
        g.vram_bytes ? HumanBytes(*g.vram_bytes) : "-",
        Or(g.card),
        Or(g.kfd_node),
    };
    if (partitions) row.push_back(g.physical_id);
    table.AddRow(std::move(row));
  }
  return table.Render();
}

std::string KnobTable(const std::vector<knobs::KnobState>& states) {
  Table table({"KNOB", "CONFIGURED", "RUNNING", "EFFECTIVE", "OWNER", "WHERE"});
  for (const auto& k : states)
    table.AddRow({k.key.Text(), Or(k.configured), Or(k.running), Or(k.effective),
                  std::string(knobs::Name(k.owner)) + (k.pending_reboot ? " (reboot pending)" : ""),
                  k.configured_in ? "/" + *k.configured_in : "-"});
  return table.Render();
}

void PrintHuman(const api::StatusReport& report) {
  const detect::Inventory& inv = report.inventory;
  const std::vector<knobs::KnobState>& knob_states = report.knobs;
  const auto& s = inv.system;
  fmt::print("System:  {}\n", SystemLine(s));
  fmt::print("ROCm:    {}\n", Or(s.rocm_version, "not found (/opt/rocm/.info/version)"));
  fmt::print("Boot:    {}\n", BootLine(s));
  fmt::print("IOMMU:   {}\n", IommuLine(s.iommu));
  fmt::print("amdgpu:  {}\n", s.amdgpu.loaded ? "loaded" : "not loaded");
  fmt::print("Profile: {}\n",
             report.active_profile.empty() ? "none (rocmtunectl profiles lists them)" : report.active_profile);
  fmt::print("\n");
  if (inv.gpus.empty()) {
    fmt::print("No AMD GPU driven by amdgpu was found.\n");
  } else {
    fmt::print("{}", GpuTable(inv.gpus));
  }
  if (!knob_states.empty()) fmt::print("\n{}", KnobTable(knob_states));
  if (!inv.findings.empty()) {
    fmt::print("\nFindings:\n");
    for (const auto& f : inv.findings) {
      fmt::print("  {:<7} {}\n", detect::SeverityName(f.severity), f.message);
      if (!f.file.empty()) fmt::print("          in /{}{}\n", f.file, f.line > 0 ? fmt::format(":{}", f.line) : "");
      if (!f.hint.empty()) fmt::print("          do: {}\n", f.hint);
      if (!f.source.empty()) fmt::print("          source: {}\n", f.source);
    }
  }
}

}  // namespace

int RunStatus(const Context& ctx, const Args&) {
  auto root = ctx.OpenRoot();
  if (!root) return Failed(ctx, root.error(), kExitFailed);
  auto report = api::Status(*root);
  if (!report) return Failed(ctx, report.error(), kExitFailed);
  if (ctx.json) fmt::print("{}\n", JsonText(api::StatusJson(*report)));
  else PrintHuman(*report);
  return kExitOk;
}

}  // namespace rocmtune::client
