// Worlds for the profile tests: the committed ones, and a Strix Halo (gfx1151) made from the
// Strix Point capture, since no gfx1151 capture exists.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "detect/inventory.h"
#include "knobs/backend.h"
#include "knowledge/catalog.h"
#include "sys/root.h"
#include "test_tree.h"

namespace rocmtune::profiles::testworlds {

struct LoadedWorld {
  explicit LoadedWorld(const std::string& path) : root(*sys::Root::Open(path)), inventory(detect::Detect(root)) {}
  knobs::KnobContext Context() const { return {root, inventory, knowledge::Catalog::Builtin()}; }
  sys::Root root;
  detect::Inventory inventory;
};

inline std::string WorldPath(const std::string& name) {
  return (std::filesystem::path(ROCMTUNE_WORLDS_DIR) / name).string();
}

// 128 GiB machine as /proc/meminfo shows it: 125 whole GiB after the kernel's reservations.
inline constexpr std::string_view kMeminfo128 =
    "MemTotal:       131072000 kB\nMemFree:        120000000 kB\nMemAvailable:   125000000 kB\n";

// The strixpoint world with KFD reporting gfx1151 (110501), plus the given /proc/meminfo and,
// when `amdttm`, amdgpu-dkms's module directory. Returns the root path inside `tree`.
inline std::string MakeStrixHalo(const testing::TestTree& tree, std::optional<std::string_view> meminfo, bool amdttm) {
  std::string path = tree.Path("world");
  testing::CopyTree(WorldPath("strixpoint"), path);
  const std::string props = "sys/devices/virtual/kfd/kfd/topology/nodes/1/properties";
  std::ifstream in(std::filesystem::path(path) / props, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t at = text.find("gfx_target_version 110500");
  EXPECT_NE(at, std::string::npos);
  if (at != std::string::npos) text.replace(at, 25, "gfx_target_version 110501");
  tree.Write("world/" + props, text);
  if (meminfo) tree.Write("world/proc/meminfo", *meminfo);
  if (amdttm) tree.Write("world/sys/module/amdttm/parameters/pages_limit", "0\n");
  return path;
}

}  // namespace rocmtune::profiles::testworlds
