#include "profiles/match.h"

#include <algorithm>

#include <fmt/format.h>

namespace rocmtune::profiles {
namespace {

bool GpuMatches(const Match& m, const detect::Gpu& gpu) {
  if (!m.gfx.empty() && (!gpu.gfx_target || std::find(m.gfx.begin(), m.gfx.end(), *gpu.gfx_target) == m.gfx.end()))
    return false;
  if (!m.family.empty() && (!gpu.family || std::find(m.family.begin(), m.family.end(), *gpu.family) == m.family.end()))
    return false;
  // An unknown APU flag matches neither value: guessing could put dGPU advice on an APU.
  if (m.apu && gpu.apu != m.apu) return false;
  return true;
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : std::string(sep)) + p;
  return out;
}

// What the match asks for: "gfx1010, gfx1011", "RDNA2 and a dGPU".
std::string Wanted(const Match& m) {
  std::vector<std::string> parts;
  if (!m.gfx.empty()) parts.push_back(Join(m.gfx, ", "));
  if (!m.family.empty()) {
    std::vector<std::string> names;
    for (knowledge::Family f : m.family) names.emplace_back(knowledge::FamilyName(f));
    parts.push_back(Join(names, ", "));
  }
  if (m.apu) parts.push_back(*m.apu ? "an APU" : "a dGPU");
  return Join(parts, " and ");
}

// One GPU in the terms the match uses, so the reason compares like with like.
std::string Describe(const Match& m, const detect::Gpu& gpu) {
  std::vector<std::string> parts{gpu.gfx_target.value_or("unknown gfx target")};
  if (!m.family.empty()) parts.emplace_back(gpu.family ? knowledge::FamilyName(*gpu.family) : "unknown family");
  if (m.apu) parts.emplace_back(!gpu.apu ? "APU or dGPU unknown" : *gpu.apu ? "APU" : "dGPU");
  return Join(parts, " ");
}

// Distinct descriptions, in inventory order ("gfx90a" once for eight MI210s).
std::string Summary(const Match& m, const std::vector<const detect::Gpu*>& gpus) {
  std::vector<std::string> seen;
  for (const detect::Gpu* g : gpus) {
    std::string d = Describe(m, *g);
    if (std::find(seen.begin(), seen.end(), d) == seen.end()) seen.push_back(std::move(d));
  }
  return Join(seen, ", ");
}

// "0000:03:00.0", "0000:03:00.0, 0000:26:00.0 and 6 more"
std::string Ids(const std::vector<const detect::Gpu*>& gpus) {
  constexpr size_t kShown = 2;
  std::vector<std::string> ids;
  for (size_t i = 0; i < gpus.size() && i < kShown; ++i) ids.push_back(gpus[i]->id);
  std::string out = Join(ids, ", ");
  if (gpus.size() > kShown) out += fmt::format(" and {} more", gpus.size() - kShown);
  return out;
}

}  // namespace

std::string MatchText(const Match& match) {
  return match.all ? fmt::format("{} (every GPU)", Wanted(match)) : Wanted(match);
}

MatchResult MatchInventory(const Match& match, const detect::Inventory& inventory) {
  if (inventory.gpus.empty()) return {false, "no AMD GPU (amdgpu) was found on this machine"};
  std::vector<const detect::Gpu*> hits, misses, all;
  for (const detect::Gpu& gpu : inventory.gpus) {
    (GpuMatches(match, gpu) ? hits : misses).push_back(&gpu);
    all.push_back(&gpu);
  }
  if (match.all) {
    if (misses.empty())
      return {true, fmt::format("every GPU is {}: {} on {}", Wanted(match), Summary(match, all), Ids(all))};
    return {false, fmt::format("not every GPU is {} ({} on {})", Wanted(match), Summary(match, misses), Ids(misses))};
  }
  if (!hits.empty()) return {true, fmt::format("matches {} on {}", Summary(match, hits), Ids(hits))};
  return {false, fmt::format("no GPU is {} (this machine: {})", Wanted(match), Summary(match, all))};
}

MatchResult MatchProfile(const Profile& profile, const detect::Inventory& inventory) {
  if (profile.reset) return {true, "fits every machine: it only removes what rocmtune configured"};
  if (profile.match) return MatchInventory(*profile.match, inventory);
  if (inventory.gpus.empty()) return {false, "no AMD GPU (amdgpu) was found on this machine"};
  return {true, "fits any machine with an AMD GPU"};
}

MatchResult MatchItem(const Item& item, const detect::Inventory& inventory) {
  if (!item.match) return {true, "applies wherever the profile does"};
  return MatchInventory(*item.match, inventory);
}

}  // namespace rocmtune::profiles
