// Pop!_OS's kernelstub (knobs/kernelstub_config.h, knobs/kernelstub_setup.h): its configuration
// read as kernelstub reads it (pop-os/kernelstub kernelstub/config.py), the next boot from the
// `user` options, and changes planned only as `kernelstub -d "OLD"` / `kernelstub -a "NEW"`
// (bin/kernelstub --delete-options/--add-options); /etc/kernel/cmdline never written there.
#include <algorithm>

#include <gtest/gtest.h>

#include "boot/kernelstub_config.h"
#include "boot/next_boot.h"
#include "boot/setup.h"
#include "cli_runner.h"
#include "detect/inventory.h"
#include "esp_worlds.h"
#include "journal/revert.h"
#include "knowledge/catalog.h"
#include "plan/owned_paths.h"

namespace rocmtune::boot {
namespace {

std::vector<std::string> Tokens(const KernelstubConfig& c) {
  std::vector<std::string> out;
  for (const auto& o : c.options) out.push_back(o.token);
  return out;
}

TEST(KernelstubConfigTest, UserOptionsWithTheirLines) {
  auto c = ParseKernelstubConfig(
      "{\n  \"default\": {\n    \"kernel_options\": [\n      \"quiet\",\n      \"splash\"\n    ]\n  },\n"
      "  \"user\": {\n    \"kernel_options\": [\n      \"quiet\",\n      \"splash\",\n      \"iommu=pt\"\n    ],\n"
      "    \"esp_path\": \"/boot/efi\",\n    \"config_rev\": 3\n  }\n}");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->user_section);
  EXPECT_EQ(Tokens(*c), (std::vector<std::string>{"quiet", "splash", "iommu=pt"}));
  EXPECT_EQ(c->options[0].line, 10) << "the user section's, not the default's";
  EXPECT_EQ(c->options[2].line, 12);
  EXPECT_EQ(c->esp_path, "/boot/efi");
}

// config.py: without `user` kernelstub runs with a copy of `default`; config_rev < 3 may hold a
// string, split on whitespace with quoted words joined (parse_options).
TEST(KernelstubConfigTest, DefaultCopyAndOldStrings) {
  auto c = ParseKernelstubConfig(R"({"default": {"kernel_options": "quiet loglevel=0", "config_rev": 2}})");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_FALSE(c->user_section);
  EXPECT_EQ(Tokens(*c), (std::vector<std::string>{"quiet", "loglevel=0"}));
  c = ParseKernelstubConfig(R"({"user": {"kernel_options": "a \"b c\" d"}})");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(Tokens(*c), (std::vector<std::string>{"a", "\"b c\"", "d"}));
}

TEST(KernelstubConfigTest, BadInputIsAnErrorNeverAGuess) {
  for (std::string_view bad : {
           std::string_view("not json"),
           std::string_view("[]"),
           std::string_view(R"({"user": []})"),
           std::string_view(R"({"user": {"esp_path": "/boot/efi"}})"),
           std::string_view(R"({"user": {"kernel_options": [1]}})"),
           std::string_view(R"({"user": {"kernel_options": {}}})"),
           std::string_view(R"({"user": {"kernel_options": ["quiet"], "config_rev": 4}})"),
           std::string_view(R"({"user": {"kernel_options": ["a\u0000b"]}})"),
           std::string_view(R"({"user": {"kernel_options": ["a\nb"]}})"),
           std::string_view(R"({"user": {"kernel_options": ["quiet"], "esp_path": 5}})"),
           std::string_view("{\"user\": {\"kernel_options\": [\"quiet\"]}}\0trailing", 42),
       }) {
    auto c = ParseKernelstubConfig(bad);
    EXPECT_FALSE(c) << bad;
    if (!c) {
      EXPECT_EQ(c.error().code, ErrorCode::kInvalidData) << bad;
    }
  }
  std::string deep(5000, '[');
  EXPECT_FALSE(ParseKernelstubConfig(deep));
}

class KernelstubPlan : public ::testing::Test {
 protected:
  KernelstubPlan() : w_(testing::kPopOsBase) { testing::MakePopOs(w_.root()); }

  plan::Plan Plan(std::vector<std::string> add, std::vector<std::string> remove, std::vector<std::string> tokens,
                  std::optional<std::string> state) {
    sys::Root root = *sys::Root::Open(w_.root());
    detect::Inventory inventory = detect::Detect(root);
    EXPECT_EQ(inventory.system.boot.kind, detect::BootKind::kKernelstub);
    BootContext ctx{root, inventory, knowledge::Catalog::Builtin()};
    plan::Plan plan;
    SetupFor(inventory.system.boot.kind)->PlanChange(ctx, CmdlineChange{add, remove, tokens, state}, plan);
    return plan;
  }
  static std::vector<std::vector<std::string>> Runs(const plan::Plan& p) {
    std::vector<std::vector<std::string>> out;
    for (const plan::Op& op : p.ops)
      if (op.kind == plan::OpKind::kRegenerate) out.push_back(op.argv);
    return out;
  }
  testing::WorldCopy w_;
};

TEST_F(KernelstubPlan, NextBootIsTheUserOptions) {
  sys::Root root = *sys::Root::Open(w_.root());
  detect::Inventory inventory = detect::Detect(root);
  BootContext ctx{root, inventory, knowledge::Catalog::Builtin()};
  const NextBoot& next = ReadNextBoot(ctx);
  ASSERT_TRUE(next.cmdline) << next.why_unknown;
  EXPECT_EQ(*next.cmdline, "quiet loglevel=0 systemd.show_status=false splash");
  const CmdlineTokenAt* t = DecidingToken(next, "loglevel");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->file, "etc/kernelstub/configuration");
  EXPECT_EQ(t->line, 19) << "the user section's line";
  EXPECT_EQ(next.later_file, "boot/efi/loader/entries/Pop_OS-current.conf") << "the entry kernelstub wrote";
}

TEST_F(KernelstubPlan, AddsWithKernelstubAndNeverCreatesKernelCmdline) {
  std::vector<std::string> add = {"iommu=pt"};
  plan::Plan p = Plan(add, {}, add, "iommu=pt\n");
  EXPECT_TRUE(p.refused.empty());
  EXPECT_EQ(Runs(p), (std::vector<std::vector<std::string>>{{"kernelstub", "-a", "iommu=pt"}}));
  EXPECT_EQ(p.bootloader, plan::Regen::kPending);
  for (const plan::Op& op : p.ops) EXPECT_NE(op.path, "etc/kernel/cmdline");
  ASSERT_FALSE(p.ops.empty());
  EXPECT_EQ(p.ops.back().path, plan::kCmdlineTokensState);
  // One already in kernelstub's options is not added again: undoing the run (-d) would take it.
  add = {"iommu=pt", "quiet"};
  p = Plan(add, {}, add, "iommu=pt\n");
  EXPECT_EQ(Runs(p), (std::vector<std::vector<std::string>>{{"kernelstub", "-a", "iommu=pt"}}));
}

TEST_F(KernelstubPlan, RemovesAndReplacesOnlyRocmtunesTokens) {
  w_.Write("var/lib/rocmtune/cmdline-tokens", "iommu=pt\n");
  // kernelstub's configuration as `kernelstub -a iommu=pt` left it.
  std::string config = w_.Read("etc/kernelstub/configuration");
  size_t user = config.find("\"user\"");
  config.insert(config.find("\"splash\"", user) + 8, ",\n      \"iommu=pt\"");
  w_.Write("etc/kernelstub/configuration", config);
  std::vector<std::string> none;
  std::vector<std::string> keys = {"iommu"};
  plan::Plan p = Plan(none, keys, none, std::nullopt);
  EXPECT_EQ(Runs(p), (std::vector<std::vector<std::string>>{{"kernelstub", "-d", "iommu=pt"}}));
  std::vector<std::string> soft = {"iommu=soft"};
  p = Plan(soft, none, soft, "iommu=soft\n");
  EXPECT_EQ(Runs(p), (std::vector<std::vector<std::string>>{{"kernelstub", "-d", "iommu=pt"},
                                                            {"kernelstub", "-a", "iommu=soft"}}));
  // The -a that added it still pending (kernelstub runs only on the live system): -d all the same.
  w_.Write("etc/kernelstub/configuration", config.replace(config.find(",\n      \"iommu=pt\""), 18, ""));
  EXPECT_EQ(w_.Read("etc/kernelstub/configuration").find("iommu=pt"), std::string::npos);
  p = Plan(none, keys, none, std::nullopt);
  EXPECT_EQ(Runs(p), (std::vector<std::vector<std::string>>{{"kernelstub", "-d", "iommu=pt"}}));
}

TEST_F(KernelstubPlan, RefusedWithoutKernelstubOrWithABrokenConfiguration) {
  std::vector<std::string> add = {"iommu=pt"};
  std::filesystem::remove(w_.Path("usr/bin/kernelstub"));
  w_.Write("etc/kernelstub/configuration", w_.Read("etc/kernelstub/configuration"));
  plan::Plan p = Plan(add, {}, add, "iommu=pt\n");
  ASSERT_FALSE(p.refused.empty());
  EXPECT_NE(p.refused.front().message.find("kernelstub is not installed"), std::string::npos);
  w_.Write("usr/bin/kernelstub", "");
  w_.Write("etc/kernelstub/configuration", "{\"user\": {\"kernel_options\": 7}}");
  p = Plan(add, {}, add, "iommu=pt\n");
  ASSERT_FALSE(p.refused.empty());
  EXPECT_NE(p.refused.front().message.find("kernel_options is neither"), std::string::npos)
      << p.refused.front().message;
}

// Revert and rollback run the inverse: -a X <-> -d X, the same X.
TEST(KernelstubRevertTest, TheInverseOfARunIsTheOtherFlag) {
  EXPECT_EQ(journal::InverseRegenerator({"kernelstub", "-a", "iommu=pt amdgpu.noretry=0"}),
            (std::vector<std::string>{"kernelstub", "-d", "iommu=pt amdgpu.noretry=0"}));
  EXPECT_EQ(journal::InverseRegenerator({"kernelstub", "-d", "iommu=pt"}),
            (std::vector<std::string>{"kernelstub", "-a", "iommu=pt"}));
  EXPECT_EQ(journal::InverseRegenerator({"kernelstub", "-o", "x"}), (std::vector<std::string>{"kernelstub", "-o", "x"}))
      << "no other form is inverted (and the helper refuses it)";
}

}  // namespace
}  // namespace rocmtune::boot
