// RevertPlan: put back what one transaction changed, and refuse to clobber later edits.
#include "journal/revert.h"

#include <cstdio>

#include <gtest/gtest.h>

#include "test_tree.h"

namespace rocmtune::journal {
namespace {

constexpr const char* kNew = "etc/modprobe.d/rocmtune.conf";   // created by the transaction
constexpr const char* kEdited = "etc/default/grub";            // changed by it
constexpr const char* kRemoved = "etc/profile.d/rocmtune.sh";  // removed by it
constexpr const char* kAttr = "sys/class/drm/card0/device/power_dpm_force_performance_level";

plan::Op FileOp(std::string path, std::optional<std::string> before, std::optional<std::string> after) {
  plan::Op op;
  op.kind = after ? plan::OpKind::kWriteFile : plan::OpKind::kRemoveFile;
  op.backend = plan::BackendId::kCmdline;
  op.path = std::move(path);
  op.before = std::move(before);
  op.after = std::move(after);
  return op;
}

class RevertPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Transaction t;
    t.number = 4;
    t.id = "4";
    t.intent = {"set", "", {"cmdline.iommu=pt"}, "", {}};
    t.state = State::kCommitted;
    t.ops.push_back(FileOp(kNew, std::nullopt, "options amdgpu noretry=0\n"));
    t.ops.push_back(FileOp(kEdited, "GRUB_CMDLINE_LINUX=\"\"\n", "GRUB_CMDLINE_LINUX=\"iommu=pt\"\n"));
    t.ops.push_back(FileOp(kRemoved, "export HSA_X=1\n", std::nullopt));
    plan::Op attr;
    attr.kind = plan::OpKind::kWriteSysfs;
    attr.backend = plan::BackendId::kSysfs;
    attr.path = kAttr;
    attr.before = "auto";
    attr.after = "high";
    t.ops.push_back(attr);
    plan::Op regen;
    regen.kind = plan::OpKind::kRegenerate;
    regen.backend = plan::BackendId::kBootloader;
    regen.path = "grubby";
    regen.argv = {"grubby", "--update-kernel=ALL", "--args=iommu=pt"};
    t.ops.push_back(regen);
    txns_.push_back(t);
    // The tree as the transaction left it.
    tree_.Write(kNew, "options amdgpu noretry=0\n");
    tree_.Write(kEdited, "GRUB_CMDLINE_LINUX=\"iommu=pt\"\n");
    tree_.Write(kAttr, "high\n");
  }
  sys::Root Root() { return *sys::Root::Open(tree_.path()); }
  const plan::Op* OpFor(const plan::Plan& p, std::string_view path) {
    for (const plan::Op& op : p.ops)
      if (op.path == path) return &op;
    return nullptr;
  }

  testing::TestTree tree_;
  std::vector<Transaction> txns_;
};

TEST_F(RevertPlanTest, RestoresEveryBeforeInReverseOrder) {
  plan::Plan p = RevertPlan(Root(), txns_, txns_[0], false);
  EXPECT_EQ(p.intent.verb, "revert");
  EXPECT_EQ(p.intent.reverts, "4");
  EXPECT_TRUE(p.conflicts.empty());
  EXPECT_TRUE(p.refused.empty());
  ASSERT_EQ(p.ops.size(), 5u);
  // Files and attributes in reverse order, then the regenerator.
  EXPECT_EQ(p.ops[0].path, kAttr);
  EXPECT_EQ(p.ops[1].path, kRemoved);
  EXPECT_EQ(p.ops[2].path, kEdited);
  EXPECT_EQ(p.ops[3].path, kNew);
  EXPECT_EQ(p.ops[4].path, "grubby");

  EXPECT_EQ(p.ops[0].kind, plan::OpKind::kWriteSysfs);
  EXPECT_EQ(p.ops[0].after, "auto");
  EXPECT_EQ(p.ops[1].kind, plan::OpKind::kWriteFile) << "a removed file comes back";
  EXPECT_FALSE(p.ops[1].before);
  EXPECT_EQ(p.ops[1].after, "export HSA_X=1\n");
  EXPECT_EQ(p.ops[2].kind, plan::OpKind::kWriteFile);
  EXPECT_EQ(p.ops[2].before, "GRUB_CMDLINE_LINUX=\"iommu=pt\"\n");
  EXPECT_EQ(p.ops[2].after, "GRUB_CMDLINE_LINUX=\"\"\n");
  EXPECT_EQ(p.ops[3].kind, plan::OpKind::kRemoveFile) << "a created file goes";
  EXPECT_EQ(p.ops[3].before, "options amdgpu noretry=0\n");
  EXPECT_FALSE(p.ops[3].after);
  for (const plan::Op& op : p.ops)
    EXPECT_EQ(op.backend, op.path == kAttr      ? plan::BackendId::kSysfs
                          : op.path == "grubby" ? plan::BackendId::kBootloader
                                                : plan::BackendId::kCmdline);
}

TEST_F(RevertPlanTest, GrubbyIsInvertedAndTheBootloaderPending) {
  plan::Plan p = RevertPlan(Root(), txns_, txns_[0], false);
  const plan::Op* regen = OpFor(p, "grubby");
  ASSERT_NE(regen, nullptr);
  EXPECT_EQ(regen->kind, plan::OpKind::kRegenerate);
  EXPECT_EQ(regen->argv, (std::vector<std::string>{"grubby", "--update-kernel=ALL", "--remove-args=iommu=pt"}));
  EXPECT_EQ(p.bootloader, plan::Regen::kPending);
  EXPECT_EQ(p.initramfs, plan::Regen::kNo);
  EXPECT_TRUE(p.reboot_required);
}

TEST_F(RevertPlanTest, NothingToDoWhenEverythingIsAlreadyAsBefore) {
  tree_.Write(kEdited, "GRUB_CMDLINE_LINUX=\"\"\n");
  tree_.Write(kRemoved, "export HSA_X=1\n");
  std::remove(tree_.Path(kNew).c_str());
  txns_[0].ops.erase(txns_[0].ops.begin() + 3);  // no attribute
  plan::Plan p = RevertPlan(Root(), txns_, txns_[0], false);
  EXPECT_TRUE(p.ops.empty()) << "no file changed back, so no regenerator either";
  EXPECT_TRUE(p.conflicts.empty());
  EXPECT_FALSE(p.reboot_required);
  EXPECT_EQ(p.bootloader, plan::Regen::kNo);
}

TEST_F(RevertPlanTest, AnEditSinceIsAConflictAndNothingIsPlanned) {
  tree_.Write(kEdited, "GRUB_CMDLINE_LINUX=\"iommu=pt quiet\"\n");
  plan::Plan p = RevertPlan(Root(), txns_, txns_[0], false);
  ASSERT_EQ(p.conflicts.size(), 1u);
  EXPECT_NE(p.conflicts[0].message.find("/etc/default/grub"), std::string::npos) << p.conflicts[0].message;
  EXPECT_NE(p.conflicts[0].message.find("edited since rocmtune wrote it"), std::string::npos) << p.conflicts[0].message;
  EXPECT_TRUE(p.ops.empty()) << "a conflict blocks the whole revert";
}

TEST_F(RevertPlanTest, ARemovedFileThatReappearsIsAConflict) {
  tree_.Write(kRemoved, "export SOMETHING_ELSE=1\n");
  plan::Plan p = RevertPlan(Root(), txns_, txns_[0], false);
  ASSERT_EQ(p.conflicts.size(), 1u);
  EXPECT_NE(p.conflicts[0].message.find(kRemoved), std::string::npos);
  EXPECT_TRUE(p.ops.empty());
}

TEST_F(RevertPlanTest, ACreatedFileAlreadyGoneNeedsNoUndo) {
  std::remove(tree_.Path(kNew).c_str());
  plan::Plan p = RevertPlan(Root(), txns_, txns_[0], false);
  EXPECT_TRUE(p.conflicts.empty()) << "absent is what was there before: nothing to undo";
  EXPECT_EQ(p.ops.size(), 4u);
  EXPECT_EQ(OpFor(p, kNew), nullptr);
}

// "Cannot read" is not "absent": a created file that is now a directory (or too big to be
// ours) must not pass for already reverted.
TEST_F(RevertPlanTest, AFileThatCannotBeReadIsAConflictNotAbsent) {
  std::remove(tree_.Path(kNew).c_str());
  tree_.Mkdir(kNew);
  tree_.Write(kEdited, std::string((1 << 20) + 1, '#'));
  plan::Plan p = RevertPlan(Root(), txns_, txns_[0], false);
  ASSERT_EQ(p.conflicts.size(), 2u);
  EXPECT_NE(p.conflicts[0].message.find(kEdited), std::string::npos) << p.conflicts[0].message;
  EXPECT_NE(p.conflicts[1].message.find(kNew), std::string::npos) << p.conflicts[1].message;
  EXPECT_TRUE(p.ops.empty());
  plan::Plan forced = RevertPlan(Root(), txns_, txns_[0], true);
  EXPECT_EQ(forced.conflicts.size(), 2u);
  EXPECT_EQ(OpFor(forced, kNew), nullptr) << "no `before` to give the helper: never planned";
  EXPECT_EQ(OpFor(forced, kEdited), nullptr);
}

TEST_F(RevertPlanTest, NamesTheLaterTransactionThatChangedTheFile) {
  Transaction later;
  later.number = 9;
  later.id = "9";
  later.intent = {"unset", "", {"cmdline.iommu"}, "", {}};
  later.state = State::kCommitted;
  later.ops.push_back(FileOp(kEdited, "GRUB_CMDLINE_LINUX=\"iommu=pt\"\n", "GRUB_CMDLINE_LINUX=\"quiet\"\n"));
  txns_.push_back(later);
  tree_.Write(kEdited, "GRUB_CMDLINE_LINUX=\"quiet\"\n");
  plan::Plan p = RevertPlan(Root(), txns_, txns_[0], false);
  ASSERT_EQ(p.conflicts.size(), 1u);
  EXPECT_NE(p.conflicts[0].message.find("transaction 9 (unset)"), std::string::npos) << p.conflicts[0].message;
  EXPECT_TRUE(p.ops.empty());

  // Once 9 is itself reverted it is not the one to blame (the file then holds 4's `after`).
  Transaction undo9;
  undo9.number = 10;
  undo9.id = "10";
  undo9.intent = {"revert", "", {}, "9", {}};
  undo9.state = State::kCommitted;
  txns_.push_back(undo9);
  tree_.Write(kEdited, "GRUB_CMDLINE_LINUX=\"iommu=pt\" # by hand\n");
  p = RevertPlan(Root(), txns_, txns_[0], false);
  ASSERT_EQ(p.conflicts.size(), 1u);
  EXPECT_EQ(p.conflicts[0].message.find("transaction 9"), std::string::npos) << p.conflicts[0].message;
  EXPECT_NE(p.conflicts[0].message.find("edited since"), std::string::npos);
}

TEST_F(RevertPlanTest, ForceOverwritesTheConflictFromWhatIsThereNow) {
  tree_.Write(kEdited, "GRUB_CMDLINE_LINUX=\"iommu=pt quiet\"\n");
  plan::Plan p = RevertPlan(Root(), txns_, txns_[0], true);
  ASSERT_EQ(p.conflicts.size(), 1u) << "still reported";
  ASSERT_EQ(p.ops.size(), 5u);
  const plan::Op* op = OpFor(p, kEdited);
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->before, "GRUB_CMDLINE_LINUX=\"iommu=pt quiet\"\n") << "the helper checks `before` against the disk";
  EXPECT_EQ(op->after, "GRUB_CMDLINE_LINUX=\"\"\n");
}

TEST_F(RevertPlanTest, AnAttributeWithoutABeforeIsNotWritten) {
  txns_[0].ops[3].before = std::nullopt;
  plan::Plan p = RevertPlan(Root(), txns_, txns_[0], false);
  EXPECT_EQ(OpFor(p, kAttr), nullptr);
  EXPECT_EQ(p.ops.size(), 4u);
}

TEST(InverseRegeneratorTest, SwapsGrubbyArgumentsOnly) {
  EXPECT_EQ(InverseRegenerator({"grubby", "--update-kernel=ALL", "--args=iommu=pt amdgpu.noretry=0"}),
            (std::vector<std::string>{"grubby", "--update-kernel=ALL", "--remove-args=iommu=pt amdgpu.noretry=0"}));
  EXPECT_EQ(InverseRegenerator({"grubby", "--update-kernel=ALL", "--remove-args=iommu=pt", "--args=quiet"}),
            (std::vector<std::string>{"grubby", "--update-kernel=ALL", "--args=iommu=pt", "--remove-args=quiet"}));
  std::vector<std::string> twice = InverseRegenerator(InverseRegenerator({"grubby", "--args=a"}));
  EXPECT_EQ(twice, (std::vector<std::string>{"grubby", "--args=a"}));
}

TEST(InverseRegeneratorTest, OtherRegeneratorsRunAgainUnchanged) {
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{"update-initramfs", "-u", "-k", "all"}, std::vector<std::string>{"update-grub"},
        std::vector<std::string>{"dracut", "--force", "--args=x"}, std::vector<std::string>{}})
    EXPECT_EQ(InverseRegenerator(argv), argv);
}

// An attribute that already reads its value before (a GPU reset put the driver's back) is left
// alone when the caller compares through the attribute's codec: here a word that reads back with
// the newline sysfs adds, where a byte compare would see a difference and write it again.
TEST_F(RevertPlanTest, AnAttributeAlreadyBackIsLeftAloneWhenComparedByItsCodec) {
  tree_.Write(kAttr, "auto\n");
  EXPECT_NE(OpFor(RevertPlan(Root(), txns_, txns_[0], false), kAttr), nullptr) << "bytes differ: written again";
  std::vector<std::string> asked;
  AttributeHolds holds = [&](std::string_view path, std::string_view raw, std::string_view written) {
    asked.emplace_back(path);
    return raw.substr(0, raw.find('\n')) == written;
  };
  EXPECT_EQ(OpFor(RevertPlan(Root(), txns_, txns_[0], false, holds), kAttr), nullptr);
  EXPECT_EQ(asked, std::vector<std::string>{kAttr});
  tree_.Write(kAttr, "high\n");
  EXPECT_NE(OpFor(RevertPlan(Root(), txns_, txns_[0], false, holds), kAttr), nullptr) << "not back: written";
}

}  // namespace
}  // namespace rocmtune::journal
