// A module that is not loaded uses no value: its settings are never EFFECTIVE (knobs/effective.h
// ModuleLoaded), whether configured in modprobe.d or on the kernel command line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "detect/inventory.h"
#include "knobs/effective.h"
#include "knobs/registry.h"
#include "test_tree.h"

namespace rocmtune::knobs {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using testing::TestTree;

KnobState ReadNotLoadedKnob(const TestTree& t, std::string_view key_text) {
  sys::Root root = *sys::Root::Open(t.path());
  detect::Inventory inventory = detect::Detect(root, {.use_libdrm = false});
  KnobContext ctx{root, inventory, knowledge::Catalog::Builtin()};
  auto key = ParseKnobKey(key_text);
  if (!key) throw std::runtime_error(key.error().message);
  return Registry::Builtin().For(*key)->Read(ctx, *key);
}

TEST(ModuleNotLoadedTest, AConfiguredOptionOfAnUnloadedModuleIsNotEffective) {
  TestTree t;
  t.Write("etc/modprobe.d/local.conf", "options amdgpu noretry=1\noptions ttm pages_limit=4194304\n");
  t.Write("proc/cmdline", "ro quiet amdgpu.gttsize=8192\n");
  KnobState noretry = ReadNotLoadedKnob(t, "amdgpu.noretry");
  EXPECT_EQ(noretry.configured, "1");
  EXPECT_FALSE(noretry.running);
  EXPECT_EQ(noretry.effective, "not loaded");
  EXPECT_THAT(noretry.notes, Contains(HasSubstr("amdgpu module is not loaded")));
  EXPECT_EQ(ReadNotLoadedKnob(t, "ttm.pages_limit").effective, "not loaded");
  EXPECT_EQ(ReadNotLoadedKnob(t, "amdttm.pages_limit").effective, "not loaded");
  // The running command line's token of an unloaded module: nothing reads it either.
  KnobState token = ReadNotLoadedKnob(t, "cmdline.amdgpu.gttsize");
  EXPECT_EQ(token.running, "8192");
  EXPECT_EQ(token.effective, "not loaded");
}

TEST(ModuleNotLoadedTest, ALoadedModuleShowsItsValue) {
  TestTree t;
  t.Write("etc/modprobe.d/local.conf", "options amdgpu noretry=1\noptions ttm pages_limit=4194304\n");
  t.Write("proc/cmdline", "ro quiet amdgpu.gttsize=8192\n");
  t.Write("sys/module/amdgpu/parameters/noretry", "1\n");
  KnobState noretry = ReadNotLoadedKnob(t, "amdgpu.noretry");
  EXPECT_EQ(noretry.running, "1");
  EXPECT_EQ(noretry.effective, "1");
  EXPECT_EQ(ReadNotLoadedKnob(t, "cmdline.amdgpu.gttsize").effective, "8192");
  // ttm is amdgpu's dependency: loaded with it though the capture has no /sys/module/ttm.
  EXPECT_NE(ReadNotLoadedKnob(t, "ttm.pages_limit").effective, "not loaded");
  // Under amdgpu-dkms amdgpu links amdttm instead; then ttm counts as loaded only when it is.
  t.Mkdir("sys/module/amdttm/parameters");
  EXPECT_EQ(ReadNotLoadedKnob(t, "ttm.pages_limit").effective, "not loaded");
  EXPECT_NE(ReadNotLoadedKnob(t, "amdttm.pages_limit").effective, "not loaded");
}

}  // namespace
}  // namespace rocmtune::knobs
