// The commands a purge plan may run (api::PurgeCommands) are the ones debian/rocmtune.postrm
// accepts, pattern for pattern: the plan writer and the script that runs the plan as root after
// the helper is gone cannot drift apart. The reset's own regenerators fit the list, and a
// command outside it never reaches the plan.
#include "api/purge_plan.h"

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "boot/initramfs.h"
#include "detect/inventory.h"
#include "knowledge/catalog.h"
#include "test_tree.h"

namespace rocmtune::api {
namespace {

using ::testing::HasSubstr;

// The case patterns of the postrm's run_form(), one a line: 'COMMAND') or 'PREFIX'*).
std::set<std::string> PostrmRunForms() {
  std::ifstream in(ROCMTUNE_POSTRM);
  std::stringstream text;
  text << in.rdbuf();
  std::string script = text.str();
  size_t start = script.find("\nrun_form() {\n");
  size_t end = script.find("\n}\n", start);
  EXPECT_NE(start, std::string::npos) << ROCMTUNE_POSTRM << " has no run_form()";
  if (start == std::string::npos || end == std::string::npos) return {};
  std::string body = script.substr(start, end - start);
  static const std::regex kPattern(R"(^\s*'([^']*)'(\*?)\))");
  std::set<std::string> forms;
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, kPattern)) forms.insert(m[1].str() + m[2].str());
  }
  return forms;
}

TEST(PurgePlanTest, PostrmRunsTheSameCommands) {
  std::set<std::string> ours(PurgeCommands().begin(), PurgeCommands().end());
  EXPECT_EQ(PostrmRunForms(), ours);
}

// Every initramfs tool's regeneration, as boot/initramfs.cc makes it, is one the purge runs;
// not rpm-ostree's initramfs-etc, whose argument names the file of each change (an image-based
// system has no Debian package to purge: MakePurgePlan leaves such a command to the admin).
TEST(PurgePlanTest, InitramfsRegenerationsAreBuiltIn) {
  testing::TestTree tree;
  auto root = sys::Root::Open(tree.path());
  ASSERT_TRUE(root);
  for (const detect::InitramfsToolRow& row : detect::InitramfsTools()) {
    if (row.tracks_etc_files) continue;  // rpm-ostree: the ostree setup's own ops
    detect::Inventory inventory;
    inventory.system.boot.initramfs = row.kind;
    knobs::KnobContext ctx{*root, inventory, knowledge::Catalog::Builtin()};
    auto tool = boot::FindInitramfsTool(ctx);
    ASSERT_TRUE(tool) << row.name;
    std::string command;
    for (const std::string& a : tool->argv) command += (command.empty() ? "" : " ") + a;
    EXPECT_TRUE(IsPurgeCommand(command)) << command;
  }
}

ChangeReport ResetRunning(std::vector<std::string> argv) {
  ChangeReport report;
  plan::Op op;
  op.kind = plan::OpKind::kRegenerate;
  op.backend = plan::BackendId::kBootloader;
  op.path = argv.front();
  op.argv = std::move(argv);
  report.plan.ops.push_back(std::move(op));
  return report;
}

TEST(PurgePlanTest, OnlyListedCommandsReachThePlan) {
  testing::TestTree tree;
  auto root = sys::Root::Open(tree.path());
  ASSERT_TRUE(root);
  auto good = MakePurgePlan(*root, ResetRunning({"grubby", "--update-kernel=ALL", "--remove-args=iommu"}));
  ASSERT_TRUE(good) << good.error().message;
  EXPECT_EQ(good->text, "rocmtune-purge-plan 1\nrun grubby --update-kernel=ALL --remove-args=iommu\n");
  for (std::vector<std::string> argv :
       std::vector<std::vector<std::string>>{{"grub-mkconfig", "-o", "/etc/shadow"},
                                             {"update-grub", "--debug"},
                                             {"grubby", "--update-kernel=ALL", "--args=init=/bin/sh"},
                                             {"grubby", "--update-kernel=ALL", "--remove-args="},
                                             {"grub2-mkconfig", "-o", "/boot/grub2/grub.cfg"}}) {
    auto plan = MakePurgePlan(*root, ResetRunning(argv));
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(plan->text, "rocmtune-purge-plan 1\n") << argv[0];
    ASSERT_EQ(plan->left.size(), 1u);
    EXPECT_THAT(plan->left[0], HasSubstr("run it by hand"));
  }
}

}  // namespace
}  // namespace rocmtune::api
