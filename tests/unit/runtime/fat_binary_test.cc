// FatBinaryTargets on ELF files hipcc built (tests/fixtures/fatbin) and on broken ones, and hipcc
// run live when it is installed.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "runtime/runtime.h"
#include "runtime_layouts.h"
#include "test_tree.h"

namespace rocmtune::runtime {
namespace {

using Targets = std::vector<std::string>;

std::string FixtureBytes(std::string_view name) {
  std::ifstream in(testing::FatbinFixture(name), std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

Result<Targets> TargetsOf(const testing::TestTree& tree, std::string_view rel) {
  auto root = sys::Root::Open(tree.path());
  EXPECT_TRUE(root) << root.error().message;
  return FatBinaryTargets(*root, rel);
}

TEST(RuntimeFatBinary, HipccSharedLibraries) {
  const std::vector<std::pair<std::string, Targets>> cases = {
      {"libtorch_hip.so", {"gfx1030", "gfx900", "gfx906"}}, {"libgfx1010_gfx1031.so", {"gfx1010", "gfx1031"}},
      {"libtwo_units.so", {"gfx1030", "gfx900"}},    // two bundles, at 0 and 12288
      {"libgfx90a_xnack.so", {"gfx906", "gfx90a"}},  // "gfx90a:xnack-", "gfx906:sramecc+:xnack-"
      {"libccob_zstd.o", {"gfx1010", "gfx1031"}},    // a compressed bundle
  };
  testing::TestTree tree;
  for (const auto& [name, expected] : cases) {
    tree.Write("lib/" + name, FixtureBytes(name));
    auto targets = TargetsOf(tree, "lib/" + name);
    ASSERT_TRUE(targets) << name << ": " << targets.error().message;
    EXPECT_EQ(*targets, expected) << name;
  }
}

void ExpectElfFails(const testing::TestTree& tree, std::string_view rel, ErrorCode code, std::string_view says) {
  auto targets = TargetsOf(tree, rel);
  ASSERT_FALSE(targets) << rel << " accepted";
  EXPECT_EQ(targets.error().code, code) << targets.error().message;
  EXPECT_NE(targets.error().message.find(says), std::string::npos) << targets.error().message;
  EXPECT_NE(targets.error().message.find(std::string(rel)), std::string::npos)
      << "names the file: " << targets.error().message;
}

TEST(RuntimeFatBinary, BrokenFiles) {
  testing::TestTree tree;
  tree.Write("not-elf.so", "#!/bin/sh\necho this is a script\n");
  ExpectElfFails(tree, "not-elf.so", ErrorCode::kInvalidData, "is not an ELF file");
  tree.Write("empty.so", "");
  ExpectElfFails(tree, "empty.so", ErrorCode::kInvalidData, "is not an ELF file");
  ExpectElfFails(tree, "missing.so", ErrorCode::kNotFound, "missing.so");
  tree.Mkdir("dir.so");
  ExpectElfFails(tree, "dir.so", ErrorCode::kInvalidData, "dir.so");

  // A real shared library without device code: this test binary's libgtest, or any host .so.
  std::string host = FixtureBytes("libtorch_hip.so");
  // Rename the section: ".hip_fatbin" -> ".hip_fatbix" in the section name table.
  std::string renamed = host;
  size_t name = renamed.rfind(".hip_fatbin");
  ASSERT_NE(name, std::string::npos);
  renamed[name + 10] = 'x';
  tree.Write("no-section.so", renamed);
  ExpectElfFails(tree, "no-section.so", ErrorCode::kNotFound, "no .hip_fatbin section");

  // Cut anywhere: within the section headers (at the end of the file), within the fat binary.
  tree.Write("cut-headers.so", host.substr(0, host.size() - 100));
  ExpectElfFails(tree, "cut-headers.so", ErrorCode::kInvalidData, "truncated");
  size_t bundle = host.find("__CLANG_OFFLOAD_BUNDLE__");
  ASSERT_NE(bundle, std::string::npos);
  std::string bogus = host;
  bogus[bundle + 24] = '\x7f';  // the entry count's low byte: 127 entries claimed, 4 there
  bogus[bundle + 30] = '\x01';  // and a high byte: 2^48 + 127
  tree.Write("bogus-count.so", bogus);
  ExpectElfFails(tree, "bogus-count.so", ErrorCode::kInvalidData, "entries");
  std::string huge = host;
  huge[bundle + 32 + 8 + 7] = '\x40';  // the host entry's size: 2^62 bytes
  tree.Write("huge-entry.so", huge);
  ExpectElfFails(tree, "huge-entry.so", ErrorCode::kInvalidData, "past");
  std::string not_bundle = host;
  not_bundle[bundle] = 'X';
  tree.Write("not-bundle.so", not_bundle);
  ExpectElfFails(tree, "not-bundle.so", ErrorCode::kInvalidData, "no offload bundle");
}

// hipcc run for real: the targets it was asked for are the targets read back.
TEST(RuntimeHipcc, BuildsAndReadsBackItsTargets) {
  if (std::system("command -v hipcc >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "hipcc is not installed (scripts/install-deps.sh installs it)";
  }
  testing::TestTree tree;
  std::string source = testing::FatbinFixture("kernel.hip");
  std::string out = tree.Path("libk.so");
  std::string command =
      "hipcc --offload-arch=gfx906 --offload-arch=gfx1032 --offload-arch=gfx90a:xnack+ -shared -fPIC -g0 -o '" + out +
      "' '" + source + "' 2>'" + tree.Path("hipcc.log") + "'";
  int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command;
  auto targets = TargetsOf(tree, "libk.so");
  ASSERT_TRUE(targets) << targets.error().message;
  EXPECT_EQ(*targets, (Targets{"gfx1032", "gfx906", "gfx90a"}));
}

}  // namespace
}  // namespace rocmtune::runtime
