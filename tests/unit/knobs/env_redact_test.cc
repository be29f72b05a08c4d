// The environment files a snapshot holds: ROCm variables with their values at their line,
// every other value gone (knobs/env_redact.h).
#include "knobs/env_redact.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "knobs/env_sources.h"
#include "test_tree.h"

namespace rocmtune::knobs {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Seen {
  int line;
  std::string name;
  std::optional<std::string> value;
  bool operator==(const Seen&) const = default;
};

std::vector<Seen> Rocm(std::string_view content, bool shell) {
  std::vector<Seen> out;
  for (const EnvSetting& s : ParseEnvSource(content, shell))
    if (IsRocmEnvName(s.name)) out.push_back({s.line, s.name, s.value});
  return out;
}

TEST(EnvRedactTest, ListFilesKeepRocmValuesAtTheirLines) {
  const std::string original =
      "# proxy for the lab\nhttp_proxy=http://user:secret@proxy:3128\nHSA_OVERRIDE_GFX_VERSION=10.3.0\n\n"
      "LANG=C\nPYTORCH_HIP_ALLOC_CONF=\"garbage_collection_threshold:1.5\"\nMIOPEN_USER_DB_PATH='/x y'\n";
  std::string copy = RedactEnvSource(original, false);
  EXPECT_EQ(Rocm(copy, false), Rocm(original, false)) << copy;
  EXPECT_EQ(Rocm(copy, false).size(), 3u);
  EXPECT_THAT(copy, Not(HasSubstr("secret")));
  EXPECT_THAT(copy, Not(HasSubstr("=C")));
  EXPECT_THAT(copy, HasSubstr("# LANG=<redacted>"));
  EXPECT_THAT(copy, Not(HasSubstr("proxy for the lab")));
  EXPECT_EQ(ParseEnvSource(copy, false).size(), 3u) << "redacted names are comments, not assignments";
}

TEST(EnvRedactTest, ShellFilesKeepValuesQuotesAndLineNumbers) {
  const std::string original =
      "# set up ROCm\nif [ -d /opt/rocm ]; then\n  export PATH=$PATH:/opt/rocm/bin\nfi\n"
      "export HSA_ENABLE_SDMA=\"0\nx\"\nexport AMD_SERIALIZE_KERNEL=3 TOKEN=abc123\n"
      "export HIP_PATH=$(cat /etc/hip-path)\nexport MIOPEN_X='it'\\''s'\nexport \\\n  AMD_LOG_LEVEL=4\n";
  std::string copy = RedactEnvSource(original, true);
  std::vector<Seen> before = Rocm(original, true);
  ASSERT_EQ(before.size(), 5u);
  EXPECT_EQ(Rocm(copy, true), before) << copy;
  for (const char* gone : {"abc123", "/opt/rocm", "cat /etc/hip-path", "set up ROCm"})
    EXPECT_THAT(copy, Not(HasSubstr(gone))) << copy;
  EXPECT_THAT(copy, HasSubstr("TOKEN=<redacted>"));
}

TEST(EnvRedactTest, EveryReadableSourceAndTheDropIns) {
  testing::TestTree t;
  t.Write("etc/environment", "LANG=C\nPYTORCH_MAX_SPLIT_SIZE_MB=512\n");
  t.Write("etc/profile.d/x.sh", "export AMD_SERIALIZE_KERNEL=3\n");
  t.Write("etc/profile.d/notes.txt", "HSA_X=1\n");
  t.Write("etc/environment.d/90-rocmtune.conf", "HIP_VISIBLE_DEVICES=0\n");
  auto root = sys::Root::Open(t.path());
  ASSERT_TRUE(root);
  std::vector<std::string> paths;
  for (const RedactedFile& f : RedactedEnvFiles(*root)) paths.push_back(f.path);
  EXPECT_EQ(paths,
            (std::vector<std::string>{"etc/environment", "etc/profile.d/x.sh", "etc/environment.d/90-rocmtune.conf"}));
}

TEST(EnvRedactTest, WhichNamesAreRocms) {
  for (const char* yes : {"HSA_OVERRIDE_GFX_VERSION", "PYTORCH_MAX_SPLIT_SIZE_MB", "MIOPEN_DEBUG_CONV_GEMM", "ROCR_X"})
    EXPECT_TRUE(IsRocmEnvName(yes)) << yes;
  for (const char* no : {"LANG", "PATH", "http_proxy", "LD_LIBRARY_PATH", "HSAX"})
    EXPECT_FALSE(IsRocmEnvName(no)) << no;
}

}  // namespace
}  // namespace rocmtune::knobs
