#include "knobs/effective.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "knobs/kernel_rules.h"
#include "knowledge/gfx_targets.h"
#include "util/text.h"

namespace rocmtune::knobs {

std::optional<GcVersion> ParseGc(std::string_view text) {
  GcVersion v;
  int* parts[] = {&v.major, &v.minor, &v.rev};
  size_t start = 0;
  for (int k = 0; k < 3; ++k) {
    size_t dot = text.find('.', start);
    std::string_view part = text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    auto n = text::ParseU64(part);
    if (!n || *n > 255) return std::nullopt;
    *parts[k] = static_cast<int>(*n);
    if (dot == std::string_view::npos) return k == 2 ? std::optional(v) : std::nullopt;
    start = dot + 1;
  }
  return std::nullopt;
}

std::optional<GcVersion> GpuGc(const detect::Gpu& gpu) {
  if (gpu.gc_ip) return ParseGc(*gpu.gc_ip);
  if (gpu.gfx_target)
    if (const auto* t = knowledge::GfxTargetTable::Builtin().ByName(*gpu.gfx_target); t && t->gc_ips.size() == 1)
      return ParseGc(t->gc_ips.front());
  return std::nullopt;
}

bool ModuleLoaded(const sys::Root& root, const detect::Inventory& inventory, std::string_view module) {
  const bool amdttm = root.IsDirectory("sys/module/amdttm");
  if (module == "amdgpu") return inventory.system.amdgpu.loaded;
  if (module == "ttm") return inventory.system.ttm.loaded || (inventory.system.amdgpu.loaded && !amdttm);
  if (module == "amdttm") return amdttm;
  return root.IsDirectory(fmt::format("sys/module/{}", module));
}

std::vector<GcVersion> CandidateGcs(const detect::Gpu& gpu) {
  std::vector<GcVersion> out;
  if (auto gc = GpuGc(gpu)) {
    out.push_back(*gc);
  } else if (gpu.gfx_target) {
    if (const auto* t = knowledge::GfxTargetTable::Builtin().ByName(*gpu.gfx_target))
      for (const std::string& ip : t->gc_ips)
        if (auto v = ParseGc(ip)) out.push_back(*v);
  }
  return out;
}

std::optional<std::pair<int, int>> KernelVersion(const std::optional<std::string>& release) {
  if (!release) return std::nullopt;
  std::string_view r = *release;
  size_t dot = r.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  size_t end = dot + 1;
  while (end < r.size() && std::isdigit(static_cast<unsigned char>(r[end]))) ++end;
  auto major = text::ParseU64(r.substr(0, dot));
  auto minor = text::ParseU64(r.substr(dot + 1, end - dot - 1));
  if (!major || !minor) return std::nullopt;
  return std::pair{static_cast<int>(*major), static_cast<int>(*minor)};
}

namespace {

std::optional<uint64_t> ReadU64(const std::optional<std::string>& s) { return s ? text::ParseU64(*s) : std::nullopt; }

// Per GPU results joined: "1" when all agree, "1 on 0000:03:00.0, 0 on 0000:0c:00.0" otherwise.
std::optional<std::string> Join(const std::vector<std::pair<std::string, std::optional<std::string>>>& per_gpu) {
  if (per_gpu.empty()) return std::nullopt;
  bool all_same =
      std::all_of(per_gpu.begin(), per_gpu.end(), [&](const auto& p) { return p.second == per_gpu[0].second; });
  if (all_same) return per_gpu[0].second;
  std::string out;
  for (const auto& [id, v] : per_gpu) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} on {}", v.value_or("unknown"), id);
  }
  return out;
}

}  // namespace

std::vector<const detect::Gpu*> AffectedGpus(const knowledge::ModuleParam& param, const detect::Inventory& inv) {
  std::vector<const detect::Gpu*> out;
  for (const detect::Gpu& gpu : inv.gpus) {
    if (param.affects_apu_only && gpu.apu != true) continue;
    if (!param.affects_gc.empty()) {
      std::vector<GcVersion> candidates = CandidateGcs(gpu);
      bool hit = false;
      for (const std::string& s : param.affects_gc)
        for (const GcVersion& c : candidates)
          if (ParseGc(s) == c) hit = true;
      if (!hit) continue;
    }
    out.push_back(&gpu);
  }
  return out;
}

std::optional<std::string> EffectiveValue(const knowledge::ModuleParam& param, const std::string& value,
                                          const detect::Inventory& inv) {
  if (!param.effective_rule) return value;
  const std::string& rule = *param.effective_rule;
  auto number = text::ParseI64(value);
  if (rule == "noretry-by-gc") {
    if (number != -1) return value;
    // The default per GC changed across kernels (kernel_rules.cc): outside the verified
    // ranges it is unknown for this kernel, said so rather than guessed.
    const auto kernel = KernelVersion(inv.system.kernel);
    const std::string unknown =
        kernel ? fmt::format("unknown for kernel {}.{}", kernel->first, kernel->second) : "unknown for this kernel";
    std::vector<std::pair<std::string, std::optional<std::string>>> per_gpu;
    for (const detect::Gpu& gpu : inv.gpus) {
      // Known when every GC the GPU can be gives the same default (gfx942: 9.4.3 or 9.4.4).
      std::optional<int> v;
      bool agree = true, known = true;
      std::vector<GcVersion> gcs = CandidateGcs(gpu);
      for (const GcVersion& gc : gcs) {
        std::optional<int> d = NoretryAutoDefault(gc, kernel);
        if (!d) known = false;
        else if (v && *v != *d) agree = false;
        if (d) v = d;
      }
      std::optional<std::string> text;
      if (!gcs.empty() && !known) text = unknown;
      else if (v && agree) text = fmt::format("{}", *v);
      per_gpu.emplace_back(gpu.id, text);
    }
    return Join(per_gpu);
  }
  if (rule == "vm-update-mode-by-large-bar") {
    // amdgpu_vm.c amdgpu_vm_manager_init(): x86_64 with all VRAM CPU-visible -> 2 (compute), else 0.
    if (number != -1) return value;
    std::vector<std::pair<std::string, std::optional<std::string>>> per_gpu;
    for (const detect::Gpu& gpu : inv.gpus) {
      if (gpu.apu == true) {  // no BAR limit on an APU: "full visible" holds
        per_gpu.emplace_back(gpu.id, "2");
        continue;
      }
      std::optional<std::string> result;
      if (gpu.vram_bytes && gpu.visible_vram_bytes) result = *gpu.visible_vram_bytes >= *gpu.vram_bytes ? "2" : "0";
      per_gpu.emplace_back(gpu.id, result);
    }
    return Join(per_gpu);
  }
  if (rule == "gttsize-follows-ttm") {
    // amdgpu_ttm.c: since 6.5 GTT = ttm_tt_pages_limit() when gttsize is -1.
    if (number != -1) return value;
    auto pages = ReadU64(inv.system.ttm.parameters.count("pages_limit") ? inv.system.ttm.parameters.at("pages_limit")
                                                                        : std::nullopt);
    auto kernel = KernelVersion(inv.system.kernel);
    if (!pages || !kernel || *kernel < std::pair{6, 5}) return std::nullopt;
    // A plain count of MiB like the parameter itself, so it reads (and sizes) like one.
    return fmt::format("{}", *pages * 4096 / (1024 * 1024));
  }
  return value;  // rules that only matter for explain (mtype-local-by-gc, ttm-half-of-ram)
}

}  // namespace rocmtune::knobs
