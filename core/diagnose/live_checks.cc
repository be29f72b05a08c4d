// doctor's findings from rocm-smi-lib's live facts (diagnose::LiveChecks). Only the live root has
// them; a value rocm-smi-lib did not give makes no finding, but facts unknown altogether (the
// library missing, rsmi_init failing) are said once.
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "detect/finding_ids.h"
#include "diagnose/checks.h"

namespace rocmtune::diagnose {
namespace {

using detect::Severity;

constexpr const char* kSmiHeader = "rocm-smi-lib rocm_smi.h";

std::string Speed(uint64_t rate) { return fmt::format("{:.1f} GT/s", static_cast<double>(rate) / 1e9); }

void CheckEcc(const detect::LiveFacts& live, std::vector<Finding>& out) {
  std::vector<std::string> ue, ce;
  for (const sys::SmiNamedEcc& e : live.smi.ecc) {
    if (!e.count.value) continue;
    if (e.count.value->uncorrectable > 0) ue.push_back(fmt::format("{} {}", e.block, e.count.value->uncorrectable));
    if (e.count.value->correctable > 0) ce.push_back(fmt::format("{} {}", e.block, e.count.value->correctable));
  }
  const std::vector<std::string> sources = {
      fmt::format("{} rsmi_dev_ecc_count_get", kSmiHeader),
      "linux drivers/gpu/drm/amd/amdgpu/amdgpu_ras.c (ras/<block>_err_count: ue, ce)",
      "linux Documentation/gpu/amdgpu/ras.rst"};
  if (!ue.empty()) {
    Finding f = MakeFinding(FindingName(FindingId::kLiveEccUncorrectable), Severity::kError, live.gpu_id,
                            fmt::format("Uncorrectable ECC errors since boot: {}", fmt::join(ue, ", ")),
                            "An uncorrectable error is data the GPU's memory or an engine lost; a program that "
                            "touched it got wrong results or was killed, and the driver may reset the GPU",
                            "Check ras/gpu_vram_bad_pages and dmesg for the retired pages; if the count grows, the "
                            "board needs service (RMA)",
                            sources);
    f.evidence = ue;
    out.push_back(std::move(f));
  }
  if (!ce.empty()) {
    Finding f = MakeFinding(FindingName(FindingId::kLiveEccCorrectable), Severity::kInfo, live.gpu_id,
                            fmt::format("Correctable ECC errors since boot: {}", fmt::join(ce, ", ")),
                            "ECC corrected them, so no data was lost; a steadily growing count can precede "
                            "uncorrectable errors",
                            "Watch the count (rocmtunectl doctor, rocm-smi --showrasinfo)", sources);
    f.evidence = ce;
    out.push_back(std::move(f));
  }
}

void CheckPcie(const detect::LiveFacts& live, std::vector<Finding>& out) {
  if (auto link = detect::LinkOf(live.smi.pcie); link && link->BelowMax()) {
    out.push_back(
        MakeFinding(FindingName(FindingId::kLivePcieBelowMax), Severity::kInfo, live.gpu_id,
                    fmt::format("The PCIe link runs at {} x{}; the GPU's fastest level is {} x{}", Speed(link->rate),
                                link->lanes, Speed(link->max_rate), link->max_lanes),
                    "amdgpu's power management lowers the link while the GPU is idle; a link that stays below "
                    "its fastest level under load slows every transfer between host and GPU",
                    "Check again under load; if it stays low, check the slot (electrically x16, wired to the "
                    "CPU), risers and the PCIe generation set in the firmware setup",
                    {fmt::format("{} rsmi_dev_pci_bandwidth_get", kSmiHeader),
                     "linux Documentation/gpu/amdgpu/thermal.rst (pp_dpm_pcie)"}));
  }
  const auto& replays = live.smi.replay_count.value;
  if (replays && *replays >= kReplayWarning) {
    out.push_back(
        MakeFinding(FindingName(FindingId::kLivePcieReplays), Severity::kWarning, live.gpu_id,
                    fmt::format("The PCIe link replayed {} packets since boot", *replays),
                    fmt::format("A replay is a packet sent again after a NAK: a few over a long uptime are normal, "
                                "{} or more (rocmtune's threshold, not a vendor number) point to a marginal link "
                                "(riser, slot, signal integrity) that costs bandwidth and can end in link errors",
                                kReplayWarning),
                    "Reseat the GPU, remove risers or extension cables, or lower the slot's PCIe generation in "
                    "the firmware setup",
                    {fmt::format("{} rsmi_dev_pci_replay_counter_get", kSmiHeader),
                     "linux drivers/gpu/drm/amd/amdgpu/amdgpu_device.c (DOC: pcie_replay_count)"}));
  }
}

void CheckThrottle(const detect::LiveFacts& live, std::vector<Finding>& out) {
  const auto& status = live.smi.throttle_status.value;
  if (!status || *status == 0) return;
  Finding f = MakeFinding(
      FindingName(FindingId::kLiveThrottling), Severity::kInfo, live.gpu_id,
      fmt::format("The GPU's power management firmware reports throttling (throttle_status {:#010x})", *status),
      "The SMU lowers clocks to stay within power, current or temperature limits; the bits' meaning depends on the "
      "SMU generation",
      "If it persists under normal load, check cooling, the power cable and the power cap (hwmon power1_cap)",
      {fmt::format("{} rsmi_gpu_metrics_t throttle_status", kSmiHeader),
       "linux Documentation/gpu/amdgpu/thermal.rst (gpu_metrics)",
       "linux drivers/gpu/drm/amd/include/kgd_pp_interface.h (gpu_metrics_v1_*)"});
  f.evidence.push_back(fmt::format("throttle_status={:#010x}", *status));
  out.push_back(std::move(f));
}

}  // namespace

std::vector<Finding> LiveChecks(const std::vector<detect::LiveFacts>& live) {
  std::vector<Finding> out;
  std::set<std::string> unavailable;
  for (const detect::LiveFacts& f : live) {
    if (!f.unavailable.empty()) {
      unavailable.insert(f.unavailable);
      continue;
    }
    CheckEcc(f, out);
    CheckPcie(f, out);
    CheckThrottle(f, out);
  }
  for (const std::string& why : unavailable) {
    bool missing = why.starts_with("rocm-smi-lib is not installed") || why.starts_with("neither amd-smi nor");
    out.push_back(
        MakeFinding(FindingName(FindingId::kLiveUnknown), Severity::kInfo, "rocm-smi-lib",
                    fmt::format("Firmware versions, ECC counts, the PCIe link and throttling are unknown: {}", why),
                    "rocmtune asks rocm-smi-lib for what sysfs alone does not give cleanly",
                    missing ? "Install it: apt install librocm-smi64-1"
                            : "Run rocm-smi to see what rocm-smi-lib itself says about this machine",
                    {fmt::format("{} rsmi_init", kSmiHeader)}));
  }
  return out;
}

}  // namespace rocmtune::diagnose
