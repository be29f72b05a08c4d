// Detection benchmarks (Google Benchmark). Performance is measured here and reported in
// BENCHMARKS.md; it is never asserted by a test.
//
//   BM_DetectWorld/<world>   Detect() + StatusJson().dump() on a committed world.
//   BM_DetectGenerated/N     the same on a generated world with N GPUs (N DRM cards matched to
//                            N KFD nodes), N = 1..256, with a fitted O(N) complexity.
//
// The Root is opened once, outside the timed loop (the daemon keeps one); everything
// Detect reads is read again in every iteration (sysfs is never cached by rocmtune).
#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/status_json.h"
#include "detect/inventory.h"
#include "sys/root.h"

namespace fs = std::filesystem;

namespace {

const fs::path kWorlds = ROCMTUNE_WORLDS_DIR;

// The DRM card and the KFD node every generated GPU is copied from.
constexpr std::string_view kCardWorld = "rx6900xt";
constexpr std::string_view kCardSlot = "0000:0c:00.0";
constexpr std::string_view kKfdWorld = "phoenix";
constexpr std::string_view kKfdTopology = "sys/devices/virtual/kfd/kfd/topology";

// Temp worlds, removed at exit (normal return from main or exit()); ROCMTUNE_BENCH_KEEP=1 keeps them.
struct TempWorlds {
  std::map<int64_t, fs::path> by_gpus;
  ~TempWorlds() { RemoveAll(); }
  void RemoveAll() {
    if (const char* keep = getenv("ROCMTUNE_BENCH_KEEP"); keep && *keep) {  // for inspecting a world
      for (const auto& [n, dir] : by_gpus)
        std::fprintf(stderr, "rocmtune_bench: kept %s (%lld GPUs)\n", dir.c_str(), static_cast<long long>(n));
      by_gpus.clear();
      return;
    }
    for (const auto& [n, dir] : by_gpus) {
      std::error_code ec;
      fs::remove_all(dir, ec);
      if (ec) std::fprintf(stderr, "rocmtune_bench: cannot remove %s: %s\n", dir.c_str(), ec.message().c_str());
    }
    by_gpus.clear();
  }
};
TempWorlds& Generated() {
  static TempWorlds worlds;
  return worlds;
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteAll(const fs::path& p, std::string_view content) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

void ReplaceAll(std::string& s, std::string_view from, std::string_view to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
}

void CopyTree(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
}

// Copies the card's PCI device directory to `slot`, renaming card0/renderD128 and
// rewriting every mention of the original slot (same length, so NUL padding is kept).
void MakeCard(const fs::path& world, int index, const std::string& slot) {
  const fs::path src = kWorlds / kCardWorld / "sys/devices/pci0000:00" / kCardSlot;
  const fs::path dev = world / "sys/devices/pci0000:00" / slot;
  CopyTree(src, dev);
  const std::string card = fmt::format("card{}", index);
  const int render_minor = 128 + index;
  const std::string render = fmt::format("renderD{}", render_minor);
  fs::rename(dev / "drm/card0", dev / "drm" / card);
  fs::rename(dev / "drm/renderD128", dev / "drm" / render);
  WriteAll(dev / "drm" / card / "uevent",
           fmt::format("MAJOR=226\nMINOR={}\nDEVNAME=dri/{}\nDEVTYPE=drm_minor\n", index, card));
  WriteAll(dev / "drm" / card / "dev", fmt::format("226:{}\n", index));
  WriteAll(dev / "drm" / render / "uevent",
           fmt::format("MAJOR=226\nMINOR={}\nDEVNAME=dri/{}\nDEVTYPE=drm_minor\n", render_minor, render));
  WriteAll(dev / "drm" / render / "dev", fmt::format("226:{}\n", render_minor));

  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dev)) {
    if (e.is_symlink()) {
      std::string target = fs::read_symlink(e.path()).string();
      if (target.find(kCardSlot) == std::string::npos) continue;
      ReplaceAll(target, kCardSlot, slot);
      fs::remove(e.path());
      fs::create_symlink(target, e.path());
    } else if (e.is_regular_file()) {
      std::string content = ReadAll(e.path());
      if (content.find(kCardSlot) == std::string::npos) continue;
      ReplaceAll(content, kCardSlot, slot);
      WriteAll(e.path(), content);
    }
  }

  // Class and bus links, relative, as on a real system.
  fs::create_symlink(fmt::format("../../devices/pci0000:00/{}/drm/{}", slot, card), world / "sys/class/drm" / card);
  fs::create_symlink(fmt::format("../../devices/pci0000:00/{}/drm/{}", slot, render), world / "sys/class/drm" / render);
  fs::create_symlink(fmt::format("../../../devices/pci0000:00/{}", slot), world / "sys/bus/pci/devices" / slot);
  fs::create_symlink(fmt::format("../../../../devices/pci0000:00/{}", slot),
                     world / "sys/bus/pci/drivers/amdgpu" / slot);
}

// A phoenix-style KFD GPU node (properties, gpu_id, mem_banks, io_links, caches), given the
// card's identity (RX 6900 XT: 1002:73bf, gfx1030) so DRM and KFD describe the same device.
void MakeKfdNode(const fs::path& world, int node, uint32_t domain, uint32_t location_id, int render_minor) {
  const fs::path src = kWorlds / kKfdWorld / kKfdTopology / "nodes/1";
  const fs::path dst = world / kKfdTopology / "nodes" / std::to_string(node);
  CopyTree(src, dst);
  const std::map<std::string, std::string, std::less<>> values = {
      {"location_id", std::to_string(location_id)},
      {"domain", std::to_string(domain)},
      {"drm_render_minor", std::to_string(render_minor)},
      {"device_id", std::to_string(0x73bf)},
      {"gfx_target_version", "100300"},
      {"unique_id", std::to_string(0x5a00'0000'0000'0000ULL + static_cast<uint64_t>(node))},
  };
  std::istringstream in(ReadAll(dst / "properties"));
  std::string out, line;
  while (std::getline(in, line)) {
    std::string_view key = std::string_view(line).substr(0, line.find(' '));
    if (auto it = values.find(key); it != values.end()) line = fmt::format("{} {}", key, it->second);
    out += line;
    out += '\n';
  }
  WriteAll(dst / "properties", out);
  WriteAll(dst / "gpu_id", fmt::format("{}\n", 40000 + node));
}

// A world with `n` GPUs: rx6900xt's system files (etc, proc, boot, opt, sys/module), n DRM
// cards and KFD nodes 1..n (node 0 is phoenix's CPU node). Slot i is dddd:bb:00.0 with
// domain i / 128 and bus 1 + i % 128, so any n up to 2^16 fits.
fs::path GenerateWorld(int64_t n) {
  std::string tmpl = (fs::temp_directory_path() / "rocmtune-bench-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  const fs::path world = tmpl;
  Generated().by_gpus[n] = world;  // registered first, so a failure below is still cleaned up

  const fs::path card_world = kWorlds / kCardWorld;
  for (const char* part : {"boot", "etc", "opt", "proc", "sys/module", "EMPTY_DIRS"})
    if (fs::exists(fs::symlink_status(card_world / part))) CopyTree(card_world / part, world / part);
  for (const char* dir : {"sys/class/drm", "sys/class/kfd", "sys/bus/pci/devices", "sys/bus/pci/drivers/amdgpu",
                          "sys/devices/pci0000:00"})
    fs::create_directories(world / dir);
  CopyTree(card_world / "sys/class/drm/version", world / "sys/class/drm/version");

  const fs::path kfd_src = kWorlds / kKfdWorld / "sys/devices/virtual/kfd/kfd";
  const fs::path kfd_dst = world / "sys/devices/virtual/kfd/kfd";
  fs::create_directories(kfd_dst / "topology/nodes");
  for (const char* f : {"uevent", "dev", "topology/system_properties", "topology/generation_id"})
    if (fs::exists(kfd_src / f)) CopyTree(kfd_src / f, kfd_dst / f);
  CopyTree(kfd_src / "topology/nodes/0", kfd_dst / "topology/nodes/0");
  fs::create_symlink("../../devices/virtual/kfd/kfd", world / "sys/class/kfd/kfd");

  for (int i = 0; i < static_cast<int>(n); ++i) {
    const uint32_t domain = static_cast<uint32_t>(i / 128);
    const uint32_t bus = static_cast<uint32_t>(1 + i % 128);
    const std::string slot = fmt::format("{:04x}:{:02x}:00.0", domain, bus);
    MakeCard(world, i, slot);
    MakeKfdNode(world, i + 1, domain, bus << 8, 128 + i);
  }
  return world;
}

const fs::path& WorldWithGpus(int64_t n) {
  auto& worlds = Generated().by_gpus;
  if (auto it = worlds.find(n); it != worlds.end()) return it->second;
  GenerateWorld(n);
  return worlds.at(n);
}

// The timed work: what `rocmtunectl status --json` does after opening the root.
size_t DetectAndPrint(const rocmtune::sys::Root& root) {
  rocmtune::detect::Inventory inv = rocmtune::detect::Detect(root);
  std::string json = rocmtune::api::StatusJson(inv).dump();
  benchmark::DoNotOptimize(json.data());
  benchmark::ClobberMemory();
  return inv.gpus.size();
}

void RunOn(benchmark::State& state, const fs::path& world, int64_t expect_gpus) {
  auto root = rocmtune::sys::Root::Open(world.string());
  if (!root) {
    state.SkipWithError(fmt::format("cannot open {}: {}", world.string(), root.error().message).c_str());
    return;
  }
  // Untimed sanity check: the world must describe what the benchmark claims.
  auto probe = rocmtune::detect::Detect(*root);
  const int64_t gpus = static_cast<int64_t>(probe.gpus.size());
  if (expect_gpus >= 0) {
    size_t matched = 0;
    for (const auto& gpu : probe.gpus) matched += (gpu.card && gpu.kfd_node) ? 1 : 0;
    if (gpus != expect_gpus || static_cast<int64_t>(matched) != expect_gpus) {
      state.SkipWithError(
          fmt::format("generated world: {} GPUs ({} with card+KFD), expected {}", gpus, matched, expect_gpus).c_str());
      return;
    }
  }
  for (auto _ : state) DetectAndPrint(*root);
  state.SetItemsProcessed(state.iterations() * gpus);  // items_per_second = GPUs/s
  state.counters["gpus"] = static_cast<double>(gpus);
}

void BM_DetectWorld(benchmark::State& state, const std::string& world) { RunOn(state, kWorlds / world, -1); }

void BM_DetectGenerated(benchmark::State& state) {
  const int64_t n = state.range(0);
  fs::path world;
  try {
    world = WorldWithGpus(n);  // once per N; the timer is not running here
  } catch (const std::exception& e) {
    state.SkipWithError(fmt::format("cannot generate a world with {} GPUs: {}", n, e.what()).c_str());
    return;
  }
  RunOn(state, world, n);
  state.SetComplexityN(n);
}
BENCHMARK(BM_DetectGenerated)->RangeMultiplier(2)->Range(1, 256)->Complexity(benchmark::oN);

}  // namespace

int main(int argc, char** argv) {
  for (const char* world : {"mi300x-cpx", "mi210x8", "phoenix", "rx6900xt"})
    benchmark::RegisterBenchmark(fmt::format("BM_DetectWorld/{}", world).c_str(), BM_DetectWorld, std::string(world));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  Generated().RemoveAll();
  return 0;
}
