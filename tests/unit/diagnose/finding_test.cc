// One finding per fact (diagnose/finding.h MergeSameFacts): the same finding about a setting
// written in several places becomes one finding naming every place.
#include "diagnose/finding.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace rocmtune::diagnose {
namespace {

using ::testing::ElementsAre;

Finding At(std::string file, int line, std::string fix = "remove it") {
  Finding f = MakeFinding("cmdline.invalid-value", Severity::kWarning, "cmdline.amd_iommu",
                          "amd_iommu=on is not an option", "", std::move(fix));
  f.kind = Kind::kSetting;
  f.file = std::move(file);
  f.line = line;
  return f;
}

TEST(MergeSameFactsTest, TheBootFileAndTheRunningCommandLineAreOneFinding) {
  std::vector<Finding> found = {At("proc/cmdline", 1, "remove it from the boot configuration it comes from"),
                                At("etc/default/grub", 6, "remove amd_iommu=on from /etc/default/grub")};
  found[0].evidence = {"running"};
  found[1].evidence = {"next boot", "running"};
  MergeSameFacts(found);
  ASSERT_EQ(found.size(), 1u);
  // The file the fix edits comes first, whichever was found first; its fix is the one given.
  EXPECT_EQ(found[0].file, "etc/default/grub");
  EXPECT_EQ(found[0].line, 6);
  EXPECT_EQ(found[0].fix.text, "remove amd_iommu=on from /etc/default/grub");
  EXPECT_THAT(found[0].places, ElementsAre(Place{"etc/default/grub", 6}, Place{"proc/cmdline", 1}));
  EXPECT_THAT(found[0].evidence, ElementsAre("running", "next boot"));
}

TEST(MergeSameFactsTest, DifferentFactsStaySeparate) {
  std::vector<Finding> found = {At("etc/default/grub", 6), At("etc/default/grub", 6), At("proc/cmdline", 1)};
  found[1].what = "amdgpu.noretry: '7' is out of range";  // another fact on the same line
  found[2].gpu = "0000:03:00.0";                          // about one GPU, not the machine
  Finding no_file = MakeFinding("rocm.not-installed", Severity::kInfo, "", "No ROCm", "");
  found.push_back(no_file);
  found.push_back(no_file);  // findings not about a file are never merged
  MergeSameFacts(found);
  ASSERT_EQ(found.size(), 5u);
  EXPECT_THAT(found[0].places, ElementsAre(Place{"etc/default/grub", 6}));
  EXPECT_TRUE(found[3].places.empty());
}

TEST(MergeSameFactsTest, ThePlaceSeenTwiceIsNamedOnce) {
  std::vector<Finding> found = {At("etc/modprobe.d/a.conf", 2), At("etc/modprobe.d/a.conf", 2),
                                At("etc/modprobe.d/b.conf", 1)};
  MergeSameFacts(found);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].file, "etc/modprobe.d/a.conf");
  EXPECT_THAT(found[0].places, ElementsAre(Place{"etc/modprobe.d/a.conf", 2}, Place{"etc/modprobe.d/b.conf", 1}));
}

}  // namespace
}  // namespace rocmtune::diagnose
