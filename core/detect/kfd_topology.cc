#include "detect/kfd_topology.h"

#include <algorithm>

#include <fmt/format.h>

#include "detect/finding_ids.h"
#include "util/text.h"

namespace rocmtune::detect {
namespace {

constexpr std::string_view kNodes = "sys/class/kfd/kfd/topology/nodes";

using Props = std::map<std::string, std::string, std::less<>>;

std::optional<uint64_t> Number(const Props& props, std::string_view key) {
  auto it = props.find(key);
  if (it == props.end()) return std::nullopt;
  return text::ParseU64(it->second);
}

template <typename T>
std::optional<T> Narrow(std::optional<uint64_t> v) {
  if (!v || *v > std::numeric_limits<T>::max()) return std::nullopt;
  return static_cast<T>(*v);
}

// mem_banks/N/properties: heap_type 1 = FB public, 2 = FB private (kfd_crat.h).
std::optional<uint64_t> LocalMemory(const sys::Root& root, const std::string& node_dir) {
  auto banks = root.ListDir(node_dir + "/mem_banks");
  if (!banks) return std::nullopt;
  std::optional<uint64_t> total;
  for (const std::string& bank : *banks) {
    auto content = root.ReadFile(fmt::format("{}/mem_banks/{}/properties", node_dir, bank), 65536);
    if (!content) continue;
    Props props = text::ParseKeySpaceValue(text::Clean(*content));
    auto heap = Number(props, "heap_type");
    auto size = Number(props, "size_in_bytes");
    if (heap && size && (*heap == 1 || *heap == 2)) total = total.value_or(0) + *size;
  }
  return total;
}

std::optional<KfdNode> ReadNode(const sys::Root& root, int index, std::vector<Finding>& findings) {
  std::string dir = fmt::format("{}/{}", kNodes, index);
  auto content = root.ReadFile(dir + "/properties", 65536);
  if (!content) {
    findings.push_back({.id = FindingName(FindingId::kDetectReadError),
                        .severity = Severity::kWarning,
                        .what = fmt::format("KFD node {}: {}", index, content.error().message)});
    return std::nullopt;
  }
  Props props = text::ParseKeySpaceValue(text::Clean(*content));
  auto simd = Number(props, "simd_count");
  std::optional<uint64_t> gpu_id;
  if (auto id = root.ReadFile(dir + "/gpu_id", 64)) gpu_id = text::ParseU64(text::Clean(*id));
  bool is_gpu = (simd && *simd > 0) || (gpu_id && *gpu_id > 0);
  if (!is_gpu) return std::nullopt;

  KfdNode node;
  node.node = index;
  node.gfx_target_version = Narrow<uint32_t>(Number(props, "gfx_target_version"));
  node.vendor_id = Narrow<uint16_t>(Number(props, "vendor_id"));
  node.device_id = Narrow<uint16_t>(Number(props, "device_id"));
  auto location = Narrow<uint32_t>(Number(props, "location_id"));
  auto domain = Narrow<uint32_t>(Number(props, "domain"));
  node.domain_reported = domain.has_value();
  if (location) node.address = FromKfdLocation(domain.value_or(0), *location);
  node.drm_render_minor = Narrow<uint32_t>(Number(props, "drm_render_minor"));
  node.unique_id = Number(props, "unique_id");
  node.num_xcc = Narrow<uint32_t>(Number(props, "num_xcc"));
  node.local_memory_bytes = LocalMemory(root, dir);
  if (!node.local_memory_bytes) {
    auto local = Number(props, "local_mem_size");  // printed as 0 by modern kernels
    if (local && *local > 0) node.local_memory_bytes = local;
  }
  return node;
}

}  // namespace

std::vector<KfdNode> ScanKfdGpuNodes(const sys::Root& root, std::vector<Finding>& findings) {
  std::vector<KfdNode> nodes;
  auto names = root.ListDir(kNodes);
  if (!names) {
    if (names.error().code != ErrorCode::kNotFound)
      findings.push_back({.id = FindingName(FindingId::kDetectReadError),
                          .severity = Severity::kWarning,
                          .what = names.error().message});
    return nodes;
  }
  std::vector<int> indices;
  for (const std::string& name : *names)
    // The kernel names nodes "%d": "01" or "1 " would alias node 1, so only canonical names count.
    if (auto n = text::ParseU64(name); n && *n < 100000 && fmt::format("{}", *n) == name)
      indices.push_back(static_cast<int>(*n));
  std::sort(indices.begin(), indices.end());
  for (int index : indices)
    if (auto node = ReadNode(root, index, findings)) nodes.push_back(std::move(*node));
  return nodes;
}

}  // namespace rocmtune::detect
