// Which GPUs a ROCm program enumerates, and the ISA an override makes each report. Sources
// (ROCm/ROCR-Runtime at c7785a6, Oct 2024; ROCm/clr at f9f995c, Oct 2024):
//   ROCr order        runtime/hsa-runtime/core/runtime/amd_topology.cpp BuildTopology: GPU agents
//                     in thunk node order; ROCR_VISIBLE_DEVICES indexes that order (kfdIdx).
//   ROCR_VISIBLE_DEVICES  core/inc/amd_filter_device.h + core/runtime/amd_filter_device.cpp
//                     (RvdFilter): set but empty -> no GPU; tokens split at ',', trimmed and
//                     upper-cased; only min(#GPUs, #tokens) tokens are looked at; a token starting
//                     with 'G' is a UUID prefix (5..20 chars) of "GPU-%016llX" of KFD's unique_id
//                     (0: no UUID, never matches); anything else goes through strtol(…, 0) and must
//                     be consumed whole (so 0x1 and 010 are hex and octal). An index out of range,
//                     a UUID matching no GPU or several, a GPU already chosen or a malformed token
//                     ends the list: the GPUs chosen before it stay.
//   HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES  rocclr/device/rocm/rocdevice.cpp Device::init:
//                     HIP_VISIBLE_DEVICES when not empty, else CUDA_VISIBLE_DEVICES; an empty value
//                     filters nothing. Entries index ROCr's agents (after ROCR_VISIBLE_DEVICES); an
//                     entry containing "GPU-" is looked up as a substring of the agent's UUID as
//                     ROCr reports it (HSA_AMD_AGENT_INFO_UUID: lower-case "GPU-%016llx", "GPU-XX"
//                     without one; amd_gpu_agent.cpp), case-sensitively; an index must read
//                     exactly as std::to_string gives it. The first invalid entry ends the list; a
//                     repeated index is skipped.
//   override          libhsakmt/src/topology.c topology_sysfs_get_node_props:
//                     HSA_OVERRIDE_GFX_VERSION_<node> before HSA_OVERRIDE_GFX_VERSION, where <node>
//                     is the thunk's node id (sysfs node ids of the nodes whose render node the
//                     process can open, CPU nodes included: node 0 is a CPU). Parsed with
//                     sscanf("%u.%u.%u%c") == 3, major <= 63, minor and stepping <= 255; any
//                     other value fails the topology snapshot, so ROCm finds no GPU at all.
//                     The per-node variable: ROCT-Thunk-Interface cf49353 (2024-07-04, "Allow
//                     overriding gfx version per-node"), in no rocm-6.2.x tag; first released
//                     with ROCm 6.3 (libhsakmt moved into ROCR-Runtime as 84567b6).
#include "program/visible.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

namespace rocmtune::program {
namespace {

std::vector<const detect::Gpu*> KfdOrder(const detect::Inventory& inventory) {
  std::vector<const detect::Gpu*> gpus;
  for (const detect::Gpu& g : inventory.gpus)
    if (g.kfd_node) gpus.push_back(&g);
  std::stable_sort(gpus.begin(), gpus.end(),
                   [](const detect::Gpu* a, const detect::Gpu* b) { return *a->kfd_node < *b->kfd_node; });
  return gpus;
}

std::string RocrUuid(const detect::Gpu& g) {  // RvdFilter::BuildDeviceUuidList
  if (!g.kfd_unique_id || *g.kfd_unique_id == 0) return "Invalid-UUID";
  return fmt::format("GPU-{:016X}", *g.kfd_unique_id);
}

std::string AgentUuid(const detect::Gpu& g) {  // GpuAgent::GetInfo(HSA_AMD_AGENT_INFO_UUID)
  if (!g.kfd_unique_id || *g.kfd_unique_id == 0) return "GPU-XX";
  return fmt::format("GPU-{:016x}", *g.kfd_unique_id);
}

std::string Trim(std::string s) {  // ROCr's trim(): isspace on both ends
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

void ApplyRocr(const std::string& value, const std::vector<const detect::Gpu*>& gpus, Visibility& v) {
  if (value.empty()) {
    v.evidence.push_back("ROCR_VISIBLE_DEVICES is set but empty: ROCr shows no GPU");
    return;
  }
  std::vector<std::string> tokens;  // std::getline(stream, token, ','): no empty last token
  size_t pos = 0;
  while (pos < value.size()) {
    size_t comma = value.find(',', pos);
    if (comma == std::string::npos) comma = value.size();
    std::string token = value.substr(pos, comma - pos);
    std::transform(token.begin(), token.end(), token.begin(), [](unsigned char c) { return std::toupper(c); });
    tokens.push_back(Trim(token));
    pos = comma + 1;
  }
  std::set<int> chosen;
  const size_t count = std::min(gpus.size(), tokens.size());
  for (size_t i = 0; i < count; ++i) {
    const std::string& token = tokens[i];
    const std::string shown = fmt::format("ROCR_VISIBLE_DEVICES entry {} (\"{}\")", i + 1, token);
    if (token.empty()) {  // token.at(0) throws std::out_of_range in RvdFilter::BuildUsrDeviceList
      v.problems.push_back(shown + " is empty: ROCr's parser throws on it (the program may abort)");
      return;
    }
    int index = -1;
    if (token.front() == 'G') {
      int matches = 0;
      if (token.size() >= 5 && token.size() <= 20)
        for (size_t g = 0; g < gpus.size(); ++g) {
          std::string uuid = RocrUuid(*gpus[g]);
          if (token.size() <= uuid.size() && uuid.compare(0, token.size(), token) == 0) {
            ++matches;
            index = static_cast<int>(g);
          }
        }
      if (matches != 1) {
        v.problems.push_back(fmt::format("{} matches {} GPU{}: ROCr stops reading the list there", shown,
                                         matches == 0 ? "no" : "more than one", matches == 0 ? "" : "s"));
        return;
      }
    } else {
      char* end = nullptr;
      errno = 0;
      long parsed = std::strtol(token.c_str(), &end, 0);
      if (*end != '\0') {
        v.problems.push_back(shown + " is no number: ROCr stops reading the list there");
        return;
      }
      index = parsed < 0 || parsed >= static_cast<long>(gpus.size()) ? -1 : static_cast<int>(parsed);
      if (index < 0) {
        v.problems.push_back(fmt::format("{} is no GPU index (ROCr numbers {} GPU{} from 0): the list ends there",
                                         shown, gpus.size(), gpus.size() == 1 ? "" : "s"));
        return;
      }
    }
    if (!chosen.insert(index).second) {
      v.problems.push_back(shown + " names a GPU already chosen: ROCr stops reading the list there");
      return;
    }
    v.rocr_order.push_back(gpus[index]->id);
    v.evidence.push_back(fmt::format("{} keeps {}", shown, gpus[index]->id));
  }
  if (tokens.size() > gpus.size())
    v.problems.push_back(fmt::format("ROCR_VISIBLE_DEVICES has {} entries for {} GPU{}: ROCr reads only the first {}",
                                     tokens.size(), gpus.size(), gpus.size() == 1 ? "" : "s", gpus.size()));
}

void ApplyHip(const std::string& variable, const std::string& value, const std::vector<const detect::Gpu*>& agents,
              Visibility& v) {
  std::set<size_t> chosen;
  size_t pos = 0;
  do {
    size_t end = value.find(',', pos);
    if (end == std::string::npos) end = value.size();
    std::string id = value.substr(pos, end - pos);
    const std::string shown = fmt::format("{} entry \"{}\"", variable, id);
    if (id.find("GPU-") != std::string::npos)
      for (size_t i = 0; i < agents.size(); ++i)
        if (AgentUuid(*agents[i]).find(id) != std::string::npos) {
          id = std::to_string(i);
          break;
        }
    int index = -1;
    if (std::from_chars(id.data(), id.data() + id.size(), index).ec != std::errc{}) index = -1;
    if (index < 0 || static_cast<size_t>(index) >= agents.size() || id != std::to_string(index)) {
      v.problems.push_back(
          fmt::format("{} is not one of ROCr's {} GPU{} (0..{}, or a GPU- UUID as rocminfo prints "
                      "it): HIP ignores it and every entry after it",
                      shown, agents.size(), agents.size() == 1 ? "" : "s", agents.empty() ? 0 : agents.size() - 1));
      return;
    }
    if (chosen.insert(index).second) {
      v.hip_order.push_back(agents[index]->id);
      v.evidence.push_back(fmt::format("{} keeps {}", shown, agents[index]->id));
    }
    pos = end + 1;
  } while (pos < value.size());
}

// sscanf's %u: leading white space, an optional sign, decimal digits; a '-' negates modulo 2^32.
bool ScanUnsigned(std::string_view& s, uint64_t& out) {
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  size_t digits = i;
  uint64_t v = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    v = std::min<uint64_t>(v * 10 + static_cast<uint64_t>(s[i] - '0'), uint64_t{1} << 40);
    ++i;
  }
  if (i == digits) return false;
  out = negative && v != 0 ? (uint64_t{1} << 32) - (v & 0xffffffff) : v;
  s.remove_prefix(i);
  return true;
}

std::optional<std::string> OverrideGfx(std::string_view value) {
  uint64_t major = 0, minor = 0, step = 0;
  if (!ScanUnsigned(value, major) || !value.starts_with('.')) return std::nullopt;
  value.remove_prefix(1);
  if (!ScanUnsigned(value, minor) || !value.starts_with('.')) return std::nullopt;
  value.remove_prefix(1);
  if (!ScanUnsigned(value, step) || !value.empty()) return std::nullopt;  // "%c" matched: 4 conversions
  if (major > 63 || minor > 255 || step > 255) return std::nullopt;
  return fmt::format("gfx{}{:x}{:x}", major, minor, step);
}

}  // namespace

bool Visibility::Sees(std::string_view gpu_id) const {
  return std::find(hip_order.begin(), hip_order.end(), gpu_id) != hip_order.end();
}

std::optional<int> Visibility::HipIndex(std::string_view gpu_id) const {
  auto it = std::find(hip_order.begin(), hip_order.end(), gpu_id);
  if (it == hip_order.end()) return std::nullopt;
  return static_cast<int>(it - hip_order.begin());
}

Visibility VisibleGpus(const detect::Inventory& inventory, const std::map<std::string, std::string>& env) {
  Visibility v;
  const std::vector<const detect::Gpu*> gpus = KfdOrder(inventory);
  for (const detect::Gpu& g : inventory.gpus)
    if (!g.kfd_node) v.evidence.push_back(fmt::format("{} has no KFD node: no ROCm program sees it", g.id));
  if (auto rvd = env.find("ROCR_VISIBLE_DEVICES"); rvd != env.end()) {
    ApplyRocr(rvd->second, gpus, v);
  } else {
    for (const detect::Gpu* g : gpus) v.rocr_order.push_back(g->id);
  }
  std::vector<const detect::Gpu*> agents;
  for (const std::string& id : v.rocr_order)
    for (const detect::Gpu* g : gpus)
      if (g->id == id) agents.push_back(g);
  auto hip = env.find("HIP_VISIBLE_DEVICES");
  auto cuda = env.find("CUDA_VISIBLE_DEVICES");
  if (hip != env.end() && !hip->second.empty()) {
    if (cuda != env.end() && !cuda->second.empty())
      v.evidence.push_back("HIP_VISIBLE_DEVICES is set, so HIP ignores CUDA_VISIBLE_DEVICES");
    ApplyHip("HIP_VISIBLE_DEVICES", hip->second, agents, v);
  } else if (cuda != env.end() && !cuda->second.empty()) {
    ApplyHip("CUDA_VISIBLE_DEVICES", cuda->second, agents, v);
  } else {
    v.hip_order = v.rocr_order;
  }
  return v;
}

std::optional<Override> OverrideFor(const detect::Inventory& inventory, const detect::Gpu& gpu,
                                    const std::map<std::string, std::string>& env) {
  // The thunk numbers the nodes it can use; with every render node openable (what detection
  // assumes of the GPUs it lists) that is KFD's sysfs node number.
  static_cast<void>(inventory);
  if (!gpu.kfd_node) return std::nullopt;  // ROCm never sees it
  const std::string per_node = fmt::format("HSA_OVERRIDE_GFX_VERSION_{}", *gpu.kfd_node);
  for (const std::string& variable : {per_node, std::string("HSA_OVERRIDE_GFX_VERSION")}) {
    auto it = env.find(variable);
    if (it == env.end()) continue;  // getenv() of an empty variable is "" and fails the parse: still an override
    return Override{variable, it->second, OverrideGfx(it->second)};
  }
  return std::nullopt;
}

}  // namespace rocmtune::program
