// rocm-smi-lib's answer as the parent reads it from the child's pipe (sys/rocm_smi.h): any bytes.
// The child runs a library rocmtune does not control (another release, asserts, stray writes),
// so the parent takes its answer as input: bounded JSON parse, SmiProbeFromJson, matched to the
// GPUs of the mi210x8 world, rendered as status's `live` objects and as doctor's live findings.
// Invariants: a decoded answer encodes and decodes to itself; each GPU gets exactly one entry,
// every value of it known or with a reason; a PCIe link in use is never above the fastest level.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "api/doctor.h"
#include "api/live_json.h"
#include "detect/inventory.h"
#include "detect/live_facts.h"
#include "diagnose/checks.h"
#include "fuzz_support.h"
#include "sys/rocm_smi.h"
#include "sys/root.h"
#include "util/json_limits.h"
#include "util/json_text.h"

using namespace rocmtune;

namespace {

using json = nlohmann::ordered_json;

// status's `live` object: every value that is null has a non-empty reason under "unknown".
void CheckReasons(const json& live) {
  const json& unknown = live.at("unknown");
  auto explained = [&](const std::string& path, const json& value) {
    if (value.is_null() && (!unknown.contains(path) || unknown.at(path).get<std::string>().empty())) std::abort();
  };
  for (const auto& [block, v] : live.at("firmware").items()) explained("firmware." + block, v);
  for (const auto& [block, v] : live.at("ecc").items()) explained("ecc." + block, v);
  explained("pcie.replay_count", live.at("pcie").at("replay_count"));
  explained("throttle_status", live.at("throttle_status"));
  if (live.at("pcie").at("width").is_null() && !unknown.contains("pcie.link")) {
    // A link that is known but has no level in use cannot come from SmiProbeFromJson.
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::ScratchRoot world("mi210x8");
  static const detect::Inventory inventory = detect::Detect(*sys::Root::Open(world.path()), {.use_libdrm = false});

  auto doc = ParseBoundedJson(fuzz::AsText(data, size), "rocm-smi-lib's answer");
  if (!doc) return 0;
  sys::SmiProbe probe;
  try {
    probe = sys::SmiProbeFromJson(*doc);
  } catch (const nlohmann::json::exception&) {
    return 0;  // ProbeRocmSmi: "rocm-smi-lib's answer is not understood"
  }
  // What the child would send for this probe reads back as the same probe.
  const std::string once = JsonText(sys::SmiProbeToJson(probe));
  if (JsonText(sys::SmiProbeToJson(sys::SmiProbeFromJson(sys::SmiProbeToJson(probe)))) != once) std::abort();

  std::vector<detect::LiveFacts> live = detect::MatchLiveFacts(inventory.gpus, probe);
  if (live.size() != inventory.gpus.size()) std::abort();
  for (size_t i = 0; i < live.size(); ++i) {
    if (live[i].gpu_id != inventory.gpus[i].id) std::abort();
    if (!live[i].unavailable.empty() && live[i].smi.pcie.value) std::abort();
    if (auto link = detect::LinkOf(live[i].smi.pcie)) {
      if (link->rate > link->max_rate || link->lanes > link->max_lanes) std::abort();
    }
    const json rendered = api::LiveJson(live[i]);
    CheckReasons(rendered);
    (void)JsonText(rendered);
  }
  for (const api::DoctorFinding& f : diagnose::LiveChecks(live)) {
    if (f.id.empty() || f.what.empty()) std::abort();
    (void)JsonText(api::DoctorFixJson(f.fix));
  }
  return 0;
}
