#include "detect/live_facts.h"

#include <algorithm>

#include <fmt/format.h>

namespace rocmtune::detect {

PciAddress FromBdfId(uint64_t bdfid) {
  return PciAddress{static_cast<uint32_t>(bdfid >> 32), static_cast<uint8_t>((bdfid >> 8) & 0xff),
                    static_cast<uint8_t>((bdfid >> 3) & 0x1f), static_cast<uint8_t>(bdfid & 0x7)};
}

sys::SmiDevice UnknownDevice(const std::string& reason) {
  sys::SmiDevice d;
  for (const std::string& block : sys::SmiFirmwareBlocks()) d.firmware.push_back({block, {std::nullopt, reason}});
  d.ecc_enabled = {std::nullopt, reason};
  for (const std::string& block : sys::SmiEccBlocks()) d.ecc.push_back({block, {std::nullopt, reason}});
  d.pcie = {std::nullopt, reason};
  d.replay_count = {std::nullopt, reason};
  d.throttle_status = {std::nullopt, reason};
  return d;
}

std::vector<LiveFacts> MatchLiveFacts(const std::vector<Gpu>& gpus, const sys::SmiProbe& probe) {
  std::vector<LiveFacts> out;
  for (const Gpu& g : gpus) {
    LiveFacts f{g.id, probe.source, probe.version, probe.error, {}};
    auto same = [&](const sys::SmiDevice& d) { return FromBdfId(d.bdfid).ToString() == g.id; };
    auto it = std::find_if(probe.devices.begin(), probe.devices.end(), same);
    if (f.unavailable.empty() && it == probe.devices.end())
      f.unavailable = fmt::format("{} does not list this GPU", probe.source);
    f.smi = f.unavailable.empty() ? *it : UnknownDevice(f.unavailable);
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<LiveFacts> ReadLiveFacts(const std::vector<Gpu>& gpus, const sys::SmiOptions& options) {
  if (gpus.empty()) return {};
  return MatchLiveFacts(gpus, sys::ProbeRocmSmi(options));
}

std::optional<PcieLink> LinkOf(const sys::SmiFact<sys::SmiPcie>& pcie) {
  if (!pcie.value || pcie.value->levels.empty() || pcie.value->current >= pcie.value->levels.size())
    return std::nullopt;
  PcieLink link;
  const sys::SmiPcieLevel& now = pcie.value->levels[pcie.value->current];
  link.rate = now.transfer_rate;
  link.lanes = now.lanes;
  for (const sys::SmiPcieLevel& l : pcie.value->levels) {
    link.max_rate = std::max(link.max_rate, l.transfer_rate);
    link.max_lanes = std::max(link.max_lanes, l.lanes);
  }
  return link;
}

}  // namespace rocmtune::detect
