#include "detect/kfd_io_links.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>

#include "util/text.h"

namespace rocmtune::detect {
namespace {

constexpr uint64_t kNoAtomicsFlags = 0xC;  // CRAT_IOLINK_FLAGS_NO_ATOMICS_32_BIT | _64_BIT

// true: the walk met a link with the flags before or at the CPU link; false: the CPU link
// without them; nullopt: no link to the CPU was found.
std::optional<bool> CpuLinkNoAtomics(const sys::Root& root, int node, const std::set<int>& gpu_nodes) {
  const std::string links = fmt::format("sys/class/kfd/kfd/topology/nodes/{}/io_links", node);
  // A node has at most one link to each other node: more than this many is not KFD's tree.
  constexpr uint64_t kMaxLinks = 4096;
  for (uint64_t n = 0; n < kMaxLinks; ++n) {
    auto props = root.ReadFile(fmt::format("{}/{}/properties", links, n));
    if (!props) {
      if (!root.Exists(fmt::format("{}/{}", links, n))) return std::nullopt;
      continue;
    }
    auto kv = text::ParseKeySpaceValue(*props);
    auto it = kv.find("flags");
    auto flags = it == kv.end() ? std::nullopt : text::ParseU64(it->second);
    if (flags && (*flags & kNoAtomicsFlags)) return true;
    auto to_it = kv.find("node_to");
    auto to = to_it == kv.end() ? std::nullopt : text::ParseU64(to_it->second);
    if (to && *to <= static_cast<uint64_t>(std::numeric_limits<int>::max()) &&
        !gpu_nodes.contains(static_cast<int>(*to)))
      return false;  // the link to the CPU, without the flags
  }
  return std::nullopt;
}

}  // namespace

void ReadCpuLinkAtomics(const sys::Root& root, std::vector<Gpu>& gpus) {
  std::set<int> gpu_nodes;
  for (const Gpu& g : gpus)
    if (g.kfd_node) gpu_nodes.insert(*g.kfd_node);
  for (Gpu& g : gpus)
    if (g.kfd_node && g.apu == false) g.cpu_link_no_atomics = CpuLinkNoAtomics(root, *g.kfd_node, gpu_nodes);
}

}  // namespace rocmtune::detect
