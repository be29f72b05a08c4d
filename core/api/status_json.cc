#include "api/status_json.h"

#include <nlohmann/json.hpp>

#include "api/size_json.h"
#include "util/json_object.h"

namespace rocmtune::api {
namespace {

using json = nlohmann::ordered_json;

template <typename T>
json OrNull(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json ModuleJson(const detect::ModuleState& module) {
  json params = json::object();
  for (const auto& [name, value] : module.parameters) params[name] = OrNull(value);
  return json{{"loaded", module.loaded}, {"parameters", std::move(params)}};
}

json SystemJson(const detect::SystemFacts& s) {
  return json{
      {"kernel", OrNull(s.kernel)},
      {"cmdline", OrNull(s.cmdline)},
      {"os",
       {{"id", OrNull(s.os.id)}, {"version_id", OrNull(s.os.version_id)}, {"pretty_name", OrNull(s.os.pretty_name)}}},
      {"rocm_version", OrNull(s.rocm_version)},
      {"boot", s.boot.kind ? json(detect::BootKindName(*s.boot.kind)) : json(nullptr)},
      {"boot_evidence", s.boot.evidence},
      // Why `boot` is null when something this caller may not read could decide it.
      {"boot_unknown", s.boot.why_unknown.empty() ? json(nullptr) : json(s.boot.why_unknown)},
      {"initramfs", s.boot.initramfs ? json(detect::InitramfsKindName(*s.boot.initramfs)) : json(nullptr)},
      {"initramfs_evidence", s.boot.initramfs_evidence},
      {"iommu",
       {{"enabled", OrNull(s.iommu.enabled)},
        {"mode", OrNull(s.iommu.mode)},
        {"evidence", s.iommu.evidence.empty() ? json(nullptr) : json(s.iommu.evidence)}}},
      {"modules", {{"amdgpu", ModuleJson(s.amdgpu)}, {"ttm", ModuleJson(s.ttm)}}},
  };
}

}  // namespace

json GpuJson(const detect::Gpu& g) {
  JsonObject doc(16);
  doc.Add("id", g.id);
  doc.Add("card", OrNull(g.card));
  doc.Add("render_node", OrNull(g.render_node));
  doc.Add("pci_id", OrNull(g.pci_id));
  doc.Add("revision", OrNull(g.revision));
  doc.Add("subsystem", OrNull(g.subsystem));
  doc.Add("marketing_name", g.marketing_name);
  doc.Add("gfx_target", OrNull(g.gfx_target));
  doc.Add("gfx_target_version", OrNull(g.gfx_target_version));
  doc.Add("gc_ip", OrNull(g.gc_ip));
  doc.Add("family", g.family ? json(knowledge::FamilyName(*g.family)) : json(nullptr));
  doc.Add("apu", OrNull(g.apu));
  doc.Add("vram_bytes", OrNull(g.vram_bytes));
  doc.Add("kfd_node", OrNull(g.kfd_node));
  doc.Add("physical_id", g.physical_id);
  doc.Add("identified_by", g.identified_by);
  return doc.Take();
}

json StatusJson(const detect::Inventory& inv) {
  json gpus = json::array();
  for (const detect::Gpu& g : inv.gpus) gpus.push_back(GpuJson(g));
  json findings = json::array();
  for (const detect::Finding& f : inv.findings) {
    const std::string source = detect::SourceText(f);
    findings.push_back({{"id", f.id},
                        {"severity", detect::SeverityName(f.severity)},
                        {"subject", f.subject.empty() ? json(nullptr) : json(f.subject)},
                        {"message", f.what},
                        {"file", f.file.empty() ? json(nullptr) : json(f.file)},
                        {"line", f.line > 0 ? json(f.line) : json(nullptr)},
                        {"hint", f.fix.text.empty() ? json(nullptr) : json(f.fix.text)},
                        {"source", source.empty() ? json(nullptr) : json(source)}});
  }
  return json{
      {"schema", kStatusSchema},         {"system", SystemJson(inv.system)},
      {"gpus", std::move(gpus)},         {"profile", nullptr},
      {"pending_reboot", false},         {"knobs", json::array()},
      {"findings", std::move(findings)},
  };
}

json StatusJson(const detect::Inventory& inv, const std::vector<knobs::KnobState>& knob_states) {
  json doc = StatusJson(inv);
  json knobs = json::array();
  bool pending = false;
  for (const knobs::KnobState& k : knob_states) {
    pending |= k.pending_reboot;
    knobs.push_back(WithSizes({{"key", k.key.Text()},
                               {"configured", OrNull(k.configured)},
                               {"configured_in", OrNull(k.configured_in)},
                               {"file", OrNull(k.configured_in)},
                               {"line", k.configured_line > 0 ? json(k.configured_line) : json(nullptr)},
                               {"running", OrNull(k.running)},
                               {"effective", OrNull(k.effective)},
                               {"owner", knobs::Name(k.owner)},
                               {"pending_reboot", k.pending_reboot},
                               {"gone_after_reboot", k.gone_after_reboot},
                               {"ineffective", k.ineffective},
                               {"notes", k.notes}},
                              k.key.Text()));
  }
  doc["knobs"] = std::move(knobs);
  doc["pending_reboot"] = pending;
  return doc;
}

}  // namespace rocmtune::api
