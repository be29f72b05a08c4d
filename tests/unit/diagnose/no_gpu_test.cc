// gpu.none and gpu.not-amdgpu agree (core/diagnose/assess.cc NoGpuFinding): one finding per fact,
// and never "check the GPU is seated" when the bus shows the GPU and why amdgpu does not drive it.
#include <algorithm>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "detect/inventory.h"
#include "diagnose/assess.h"
#include "driver_layouts.h"
#include "test_tree.h"

namespace rocmtune::diagnose {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::TestTree;

std::vector<Finding> AssessNoGpuTree(const TestTree& t) {
  auto root = sys::Root::Open(t.path());
  if (!root) throw std::runtime_error(root.error().message);
  AssessOptions options;
  options.live_facts = false;
  options.caller = false;
  auto a = Assess(*root, detect::Detect(*root, {.use_libdrm = false}), options);
  if (!a) throw std::runtime_error(a.error().message);
  return a->findings;
}

const Finding* NoGpuFind(const std::vector<Finding>& findings, std::string_view id) {
  auto it = std::find_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.id == id; });
  return it == findings.end() ? nullptr : &*it;
}

TEST(NoGpuTest, AnUnboundGpuSupersedesGpuNone) {
  TestTree t;
  testing::AddPciFunction(t.path(), "0000:03:00.0", "0x1002", "0x73bf", "0x030000", "");
  auto findings = AssessNoGpuTree(t);
  EXPECT_FALSE(NoGpuFind(findings, "gpu.none"));
  const Finding* f = NoGpuFind(findings, "gpu.not-amdgpu");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(f->effect, Effect::kNoGpu);
  EXPECT_EQ(f->gpu, "0000:03:00.0");
}

TEST(NoGpuTest, OnlyPassthroughGpusKeepGpuNoneAndNameThem) {
  TestTree t;
  testing::AddPciFunction(t.path(), "0000:03:00.0", "0x1002", "0x73bf", "0x030000", "vfio-pci");
  auto findings = AssessNoGpuTree(t);
  const Finding* none = NoGpuFind(findings, "gpu.none");
  ASSERT_TRUE(none);
  EXPECT_THAT(none->fix.text, HasSubstr("0000:03:00.0: vfio-pci"));
  EXPECT_THAT(none->fix.text, Not(HasSubstr("seated")));
  const Finding* vfio = NoGpuFind(findings, "gpu.not-amdgpu");
  ASSERT_TRUE(vfio);
  EXPECT_EQ(vfio->effect, Effect::kNone);
}

TEST(NoGpuTest, NoGpuAnywhereStillSaysSeated) {
  TestTree t;
  testing::AddPciFunction(t.path(), "0000:00:02.0", "0x8086", "0x46a6", "0x030000", "i915");
  auto findings = AssessNoGpuTree(t);
  const Finding* none = NoGpuFind(findings, "gpu.none");
  ASSERT_TRUE(none);
  EXPECT_THAT(none->fix.text, HasSubstr("seated"));
  EXPECT_FALSE(NoGpuFind(findings, "gpu.not-amdgpu"));
}

// A tree without sys/bus/pci: the GPU cannot be seen, but what keeps amdgpu out can.
TEST(NoGpuTest, WithoutThePciBusGpuNoneNamesTheDkmsKey) {
  TestTree t;
  t.Mkdir("sys/module/ttm");
  testing::SetSecureBoot(t.path(), true);
  testing::InstallAmdgpuDkms(t.path());
  const auto findings = AssessNoGpuTree(t);  // kept: NoGpuFind points into it
  const Finding* none = NoGpuFind(findings, "gpu.none");
  ASSERT_TRUE(none);
  EXPECT_THAT(none->fix.text, HasSubstr("mokutil --import /var/lib/dkms/mok.pub"));
  EXPECT_THAT(none->why, HasSubstr("no signing key"));
  testing::SetSecureBoot(t.path(), false);
  const auto after = AssessNoGpuTree(t);
  const Finding* off = NoGpuFind(after, "gpu.none");
  ASSERT_TRUE(off);
  EXPECT_THAT(off->fix.text, HasSubstr("seated"));
}

}  // namespace
}  // namespace rocmtune::diagnose
