#include "api/live_json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rocmtune::api {
namespace {

using json = nlohmann::ordered_json;

// Records why a value is missing and gives its JSON (null then).
class Unknowns {
 public:
  template <typename T, typename F>
  json Put(const std::string& path, const sys::SmiFact<T>& fact, F&& to_json) {
    if (fact.value) return to_json(*fact.value);
    reasons_[path] = fact.unknown.empty() ? "unknown" : fact.unknown;
    return nullptr;
  }
  json Take() { return std::move(reasons_); }

 private:
  json reasons_ = json::object();
};

// T/s as GT/s (pp_dpm_pcie prints "8.0GT/s").
double GigaTransfers(uint64_t rate) { return static_cast<double>(rate) / 1e9; }

}  // namespace

json LiveJson(const detect::LiveFacts& facts) {
  const sys::SmiDevice& d = facts.smi;
  Unknowns unknown;
  json firmware = json::object();
  for (const sys::SmiNamedFirmware& f : d.firmware)
    firmware[f.block] =
        unknown.Put("firmware." + f.block, f.version, [](uint64_t v) { return fmt::format("{:#010x}", v); });

  json ecc = json::object();
  ecc["enabled_blocks"] =
      unknown.Put("ecc.enabled_blocks", d.ecc_enabled, [](uint64_t mask) { return json(sys::SmiBlockNames(mask)); });
  for (const sys::SmiNamedEcc& e : d.ecc)
    ecc[e.block] = unknown.Put("ecc." + e.block, e.count, [](const sys::SmiEccCount& c) {
      return json{{"correctable", c.correctable}, {"uncorrectable", c.uncorrectable}};
    });

  json pcie = {{"speed_gt_s", nullptr}, {"width", nullptr}, {"max_speed_gt_s", nullptr}, {"max_width", nullptr}};
  unknown.Put("pcie.link", d.pcie, [](const sys::SmiPcie&) { return json(nullptr); });
  if (auto link = detect::LinkOf(d.pcie)) {
    pcie["speed_gt_s"] = GigaTransfers(link->rate);
    pcie["width"] = link->lanes;
    pcie["max_speed_gt_s"] = GigaTransfers(link->max_rate);
    pcie["max_width"] = link->max_lanes;
  }
  pcie["replay_count"] = unknown.Put("pcie.replay_count", d.replay_count, [](uint64_t n) { return json(n); });

  json throttle = unknown.Put("throttle_status", d.throttle_status, [](uint32_t s) { return json(s); });
  return json{
      {"source", facts.source.empty() ? json(nullptr) : json(facts.source)},
      {"library_version", facts.library_version.empty() ? json(nullptr) : json(facts.library_version)},
      {"firmware", std::move(firmware)},
      {"ecc", std::move(ecc)},
      {"pcie", std::move(pcie)},
      {"throttle_status", throttle},
      {"throttling", throttle.is_null() ? json(nullptr) : json(throttle.get<uint32_t>() != 0)},
      {"unknown", unknown.Take()},
  };
}

}  // namespace rocmtune::api
