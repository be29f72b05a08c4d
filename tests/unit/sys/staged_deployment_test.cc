// sys/staged_deployment.h on files made with GLib the way ostree writes them
// (tests/support/staged_deployment_writer.h), and on files ostree never writes: cut short,
// wrongly typed, with a NUL inside a string, too large, not a deployment name.
#include "sys/staged_deployment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "staged_deployment_writer.h"
#include "test_tree.h"

namespace rocmtune::sys {
namespace {

using ::testing::HasSubstr;
using testing::StagedDeploymentBytes;
using testing::StagedSpec;

constexpr std::string_view kPath = "/run/ostree/staged-deployment";

StagedSpec FullSpec() {
  StagedSpec spec;
  spec.kargs = std::vector<std::string>{"root=UUID=4398", "rw", "iommu=pt", "quiet"};
  spec.merge_name = "0123abcd.1";
  spec.bootconfig_extra = {{"x-options-source-rocmtune", "iommu=pt"}, {"x-options-source-tuned", "nohz=on"}};
  return spec;
}

TEST(StagedDeploymentTest, ReadsEveryKeyOstreeWrites) {
  auto staged = ParseStagedDeployment(StagedDeploymentBytes(FullSpec()), kPath);
  ASSERT_TRUE(staged) << staged.error().message;
  EXPECT_EQ(staged->name, "0123abcd.0");
  EXPECT_EQ(staged->osname, "fedora");
  EXPECT_EQ(staged->DeployDir(), "ostree/deploy/fedora/deploy/0123abcd.0");
  EXPECT_EQ(staged->merge_name, "0123abcd.1");
  EXPECT_EQ(staged->merge_osname, "fedora");
  ASSERT_TRUE(staged->kargs);
  EXPECT_EQ(*staged->kargs, (std::vector<std::string>{"root=UUID=4398", "rw", "iommu=pt", "quiet"}));
  EXPECT_EQ(staged->bootconfig_extra.size(), 2u);
  EXPECT_EQ(staged->bootconfig_extra.at("x-options-source-rocmtune"), "iommu=pt");
  EXPECT_FALSE(staged->locked);
}

// Without "kargs" the merge deployment's arguments boot; an empty list is a list (no arguments).
TEST(StagedDeploymentTest, AbsentKargsAreNotAnEmptyList) {
  StagedSpec spec;
  auto none = ParseStagedDeployment(StagedDeploymentBytes(spec), kPath);
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_FALSE(none->kargs.has_value());
  EXPECT_TRUE(none->merge_name.empty());
  spec.kargs = std::vector<std::string>{};
  spec.locked = true;
  auto empty = ParseStagedDeployment(StagedDeploymentBytes(spec), kPath);
  ASSERT_TRUE(empty) << empty.error().message;
  ASSERT_TRUE(empty->kargs.has_value());
  EXPECT_TRUE(empty->kargs->empty());
  EXPECT_TRUE(empty->locked);
}

TEST(StagedDeploymentTest, TheLockFileLocksItToo) {
  testing::TestTree tree;
  tree.Write(std::string(kStagedDeployment), StagedDeploymentBytes(FullSpec()));
  auto root = Root::Open(tree.path());
  ASSERT_TRUE(root);
  auto open = ReadStagedDeployment(*root);
  ASSERT_TRUE(open) << open.error().message;
  EXPECT_FALSE(open->locked);
  tree.Write(std::string(kStagedDeploymentLocked), "");
  auto locked = ReadStagedDeployment(*root);
  ASSERT_TRUE(locked);
  EXPECT_TRUE(locked->locked);
  tree.Write(std::string(kStagedDeployment), std::string(kMaxStagedBytes + 1, 'x'));
  auto huge = ReadStagedDeployment(*root);
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().code, ErrorCode::kTooLarge);
}

// Every prefix of a real file is refused with a reason (GLib would read a cut GVariant as
// default values: rocmtune takes only normal form).
TEST(StagedDeploymentTest, EveryCutShortFileIsAnErrorWithAReason) {
  const std::string bytes = StagedDeploymentBytes(FullSpec());
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto staged = ParseStagedDeployment(std::string_view(bytes).substr(0, n), kPath);
    ASSERT_FALSE(staged) << "cut at " << n << " of " << bytes.size();
    EXPECT_EQ(staged.error().code, ErrorCode::kInvalidData);
    EXPECT_THAT(staged.error().message, HasSubstr(std::string(kPath)));
  }
}

TEST(StagedDeploymentTest, WrongTypesNulsAndNamesAreRefused) {
  // "kargs" as one string rather than a list; "locked" as a string.
  StagedSpec wrong;
  wrong.string_keys = {{"kargs", "iommu=pt"}};
  auto one_string = ParseStagedDeployment(StagedDeploymentBytes(wrong), kPath);
  ASSERT_FALSE(one_string);
  EXPECT_THAT(one_string.error().message, HasSubstr("\"kargs\" is s, not as"));
  wrong.string_keys = {{"locked", "true"}};
  EXPECT_FALSE(ParseStagedDeployment(StagedDeploymentBytes(wrong), kPath));
  std::string bytes = StagedDeploymentBytes(FullSpec());
  // A NUL inside an argument: no longer a GVariant string in normal form.
  size_t at = bytes.find("iommu=pt");
  ASSERT_NE(at, std::string::npos);
  std::string nul = bytes;
  nul[at + 5] = '\0';
  auto with_nul = ParseStagedDeployment(nul, kPath);
  ASSERT_FALSE(with_nul);
  EXPECT_THAT(with_nul.error().message, HasSubstr("normal form"));
  // Not UTF-8.
  std::string latin = bytes;
  latin[at] = '\xe9';
  EXPECT_FALSE(ParseStagedDeployment(latin, kPath));
  // A deployment name that is a path.
  StagedSpec path_name = FullSpec();
  path_name.name = "../../../etc";
  auto escaped = ParseStagedDeployment(StagedDeploymentBytes(path_name), kPath);
  ASSERT_FALSE(escaped);
  EXPECT_THAT(escaped.error().message, HasSubstr("not a directory name"));
  // Random bytes and the empty file.
  EXPECT_FALSE(ParseStagedDeployment(std::string("\x01\x02not read\0", 12), kPath));
  auto empty = ParseStagedDeployment("", kPath);
  ASSERT_FALSE(empty);
  EXPECT_THAT(empty.error().message, HasSubstr("no \"target\""));
}

}  // namespace
}  // namespace rocmtune::sys
