// What the journal means: reverted, revertible, last written, drift, created dirs, active profile.
#include "journal/history.h"

#include <gtest/gtest.h>

namespace rocmtune::journal {
namespace {

constexpr const char* kConf = "etc/modprobe.d/rocmtune.conf";

plan::Op Write(std::string path, std::optional<std::string> before, std::optional<std::string> after) {
  plan::Op op;
  op.kind = after ? plan::OpKind::kWriteFile : plan::OpKind::kRemoveFile;
  op.backend = plan::BackendId::kModprobe;
  op.path = std::move(path);
  op.before = std::move(before);
  op.after = std::move(after);
  return op;
}

// A journal built in order: each call appends transaction N+1.
class Journal {
 public:
  Transaction& Add(std::string verb, State state = State::kCommitted) {
    Transaction t;
    t.number = txns_.size() + 1;
    t.id = std::to_string(t.number);
    t.intent.verb = std::move(verb);
    t.state = state;
    txns_.push_back(std::move(t));
    return txns_.back();
  }
  Transaction& Set(std::vector<plan::Op> ops = {}, State state = State::kCommitted) {
    Transaction& t = Add("set", state);
    t.ops = std::move(ops);
    return t;
  }
  Transaction& Apply(std::string profile, State state = State::kCommitted) {
    Transaction& t = Add("apply", state);
    t.intent.profile = std::move(profile);
    return t;
  }
  Transaction& Revert(const std::string& id, std::vector<plan::Op> ops = {}, State state = State::kCommitted) {
    Transaction& t = Add("revert", state);
    t.intent.reverts = id;
    t.ops = std::move(ops);
    return t;
  }
  const Transaction& operator[](size_t number) const { return txns_.at(number - 1); }
  const std::vector<Transaction>& all() const { return txns_; }

 private:
  std::vector<Transaction> txns_;
};

TEST(HistoryTest, FindById) {
  Journal j;
  j.Set();
  j.Set();
  ASSERT_NE(Find(j.all(), "2"), nullptr);
  EXPECT_EQ(Find(j.all(), "2")->number, 2u);
  EXPECT_EQ(Find(j.all(), "3"), nullptr);
  EXPECT_EQ(Find(j.all(), ""), nullptr);
}

TEST(HistoryTest, ACommittedRevertRevertsAndARevertOfItUndoesThat) {
  Journal j;
  j.Set();        // 1
  j.Revert("1");  // 2
  EXPECT_TRUE(IsReverted(j.all(), j[1]));
  EXPECT_FALSE(IsReverted(j.all(), j[2]));
  j.Revert("2");  // 3: revert of the revert puts 1 back in effect
  EXPECT_FALSE(IsReverted(j.all(), j[1]));
  EXPECT_TRUE(IsReverted(j.all(), j[2]));
  j.Revert("3");  // 4: and once more
  EXPECT_TRUE(IsReverted(j.all(), j[1]));
  EXPECT_TRUE(IsReverted(j.all(), j[3]));
  EXPECT_FALSE(IsReverted(j.all(), j[2]));
}

TEST(HistoryTest, OnlyCommittedRevertsCount) {
  Journal j;
  j.Set();
  j.Revert("1", {}, State::kRolledBack);
  j.Revert("1", {}, State::kIncomplete);
  EXPECT_FALSE(IsReverted(j.all(), j[1]));
  j.Add("set");  // a set that happens to name no transaction
  EXPECT_FALSE(IsReverted(j.all(), j[1]));
}

TEST(HistoryTest, LastRevertibleSkipsRevertsRevertedAndUncommitted) {
  Journal j;
  EXPECT_EQ(LastRevertible(j.all()), nullptr);
  j.Set();                        // 1
  j.Set();                        // 2
  j.Revert("2");                  // 3
  j.Set({}, State::kRolledBack);  // 4
  j.Set({}, State::kIncomplete);  // 5
  const Transaction* last = LastRevertible(j.all());
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->id, "1");
  j.Revert("1");  // 6
  EXPECT_EQ(LastRevertible(j.all()), nullptr) << "everything is reverted";
  j.Revert("6");  // 7: 1 is in effect again
  last = LastRevertible(j.all());
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->id, "1");
  j.Add("reset");  // 8
  ASSERT_NE(LastRevertible(j.all()), nullptr);
  EXPECT_EQ(LastRevertible(j.all())->id, "8") << "a reset is undone like any change";
}

TEST(HistoryTest, LastWrittenIsTheNewestCommittedFileOp) {
  Journal j;
  EXPECT_FALSE(LastWritten(j.all(), kConf).has_value());
  j.Set({Write(kConf, std::nullopt, "a\n")});
  j.Set({Write(kConf, "a\n", "b\n"), Write("etc/other", std::nullopt, "o\n")});
  j.Set({Write(kConf, "b\n", "c\n")}, State::kRolledBack);
  j.Set({Write(kConf, "b\n", "d\n")}, State::kIncomplete);
  auto written = LastWritten(j.all(), kConf);
  ASSERT_TRUE(written.has_value());
  EXPECT_EQ(*written, "b\n");
  // The last op of a transaction wins when it names the path twice.
  j.Set({Write(kConf, "b\n", "e\n"), Write(kConf, "e\n", "f\n")});
  EXPECT_EQ(LastWritten(j.all(), kConf).value(), "f\n");
  // A removal: rocmtune last left nothing there.
  j.Revert("1", {Write(kConf, "f\n", std::nullopt)});
  written = LastWritten(j.all(), kConf);
  ASSERT_TRUE(written.has_value());
  EXPECT_FALSE(written->has_value());
}

TEST(HistoryTest, SysfsAndRegeneratorOpsAreNotFileWrites) {
  Journal j;
  plan::Op sysfs;
  sysfs.kind = plan::OpKind::kWriteSysfs;
  sysfs.path = kConf;  // the same string, but an attribute write
  sysfs.after = "high";
  plan::Op regen;
  regen.kind = plan::OpKind::kRegenerate;
  regen.path = kConf;
  j.Set({sysfs, regen});
  EXPECT_FALSE(LastWritten(j.all(), kConf).has_value());
}

TEST(HistoryTest, DriftIsAnythingButWhatRocmtuneLastLeft) {
  Journal j;
  // Never written by rocmtune: present is drift (someone else's file at our path), absent is not.
  EXPECT_TRUE(IsDrift(j.all(), kConf, std::string("options amdgpu noretry=1\n")));
  EXPECT_TRUE(IsDrift(j.all(), kConf, std::string()));
  EXPECT_FALSE(IsDrift(j.all(), kConf, std::nullopt));
  j.Set({Write(kConf, std::nullopt, "a\n")});
  EXPECT_FALSE(IsDrift(j.all(), kConf, std::string("a\n")));
  EXPECT_TRUE(IsDrift(j.all(), kConf, std::string("a\n# admin\n")));
  EXPECT_TRUE(IsDrift(j.all(), kConf, std::nullopt)) << "removed by someone else";
  j.Revert("1", {Write(kConf, "a\n", std::nullopt)});
  EXPECT_FALSE(IsDrift(j.all(), kConf, std::nullopt));
  EXPECT_TRUE(IsDrift(j.all(), kConf, std::string("a\n")));
}

TEST(HistoryTest, CreatedDirsLeaveWithTheirRmdir) {
  Journal j;
  j.Set().created_dirs = {"etc/environment.d", "etc/profile.d"};
  j.Set().created_dirs = {"etc/profile.d", "var/lib/rocmtune/x"};  // a duplicate is listed once
  Transaction& failed = j.Set({}, State::kRolledBack);
  failed.created_dirs = {"etc/never"};
  Transaction& crashed = j.Set({}, State::kIncomplete);
  crashed.created_dirs = {"etc/crashed"};
  EXPECT_EQ(CreatedDirs(j.all()),
            (std::vector<std::string>{"etc/environment.d", "etc/profile.d", "var/lib/rocmtune/x"}));
  j.Set().removed_dirs = {"etc/profile.d"};
  EXPECT_EQ(CreatedDirs(j.all()), (std::vector<std::string>{"etc/environment.d", "var/lib/rocmtune/x"}));
  j.Set().created_dirs = {"etc/profile.d"};  // made again later
  EXPECT_EQ(CreatedDirs(j.all()),
            (std::vector<std::string>{"etc/environment.d", "var/lib/rocmtune/x", "etc/profile.d"}));
  // An uncommitted rmdir does not count.
  j.Set({}, State::kRolledBack).removed_dirs = {"etc/environment.d"};
  EXPECT_EQ(CreatedDirs(j.all()).front(), "etc/environment.d");
}

TEST(HistoryTest, ActiveProfileFollowsApplyRevertAndReset) {
  Journal j;
  EXPECT_EQ(ActiveProfile(j.all()), "");
  j.Apply("rdna1-safe");  // 1
  EXPECT_EQ(ActiveProfile(j.all()), "rdna1-safe");
  j.Set();  // 2: a set on top keeps the profile
  EXPECT_EQ(ActiveProfile(j.all()), "rdna1-safe");
  j.Apply("mi300-compute");  // 3
  EXPECT_EQ(ActiveProfile(j.all()), "mi300-compute");
  j.Apply("broken", State::kRolledBack);  // 4
  EXPECT_EQ(ActiveProfile(j.all()), "mi300-compute");
  j.Revert("3");  // 5
  EXPECT_EQ(ActiveProfile(j.all()), "rdna1-safe");
  j.Add("reset");  // 6
  EXPECT_EQ(ActiveProfile(j.all()), "");
  j.Revert("6");  // 7: undoing the reset brings the profile back
  EXPECT_EQ(ActiveProfile(j.all()), "rdna1-safe");
  j.Add("reset");          // 8
  j.Apply("apu-compute");  // 9
  EXPECT_EQ(ActiveProfile(j.all()), "apu-compute");
  j.Revert("9");  // 10: the reset before it still holds
  EXPECT_EQ(ActiveProfile(j.all()), "");
}

// In effect or why not: reverted by the revert that undid it, superseded by a later reset (all
// before it) or by a later apply (the apply before it); undoing those puts them back in effect.
TEST(HistoryTest, EffectsSayWhichTransactionsAreInEffectAndWhyNot) {
  Journal j;
  auto shown = [&] {
    std::vector<std::string> out;
    std::vector<Effect> effects = Effects(j.all());
    for (size_t i = 0; i < effects.size(); ++i) {
      const Effect& e = effects[i];
      out.push_back(e.in_effect                ? "in effect"
                    : !e.reverted_by.empty()   ? "reverted by " + e.reverted_by
                    : !e.superseded_by.empty() ? "superseded by " + e.superseded_by
                                               : std::string(StateName(j.all()[i].state)));
    }
    return out;
  };
  j.Apply("a");                   // 1
  j.Set();                        // 2
  j.Apply("b");                   // 3: replaces a
  j.Set({}, State::kRolledBack);  // 4
  EXPECT_EQ(shown(), (std::vector<std::string>{"superseded by 3", "in effect", "in effect", "rolled-back"}));
  EXPECT_EQ(LastRevertible(j.all())->id, "3");
  j.Revert("3");  // 5
  EXPECT_EQ(shown(), (std::vector<std::string>{"in effect", "in effect", "reverted by 5", "rolled-back", "in effect"}));
  EXPECT_EQ(LastRevertible(j.all())->id, "2") << "not the revert";
  j.Add("reset");  // 6
  EXPECT_EQ(shown(), (std::vector<std::string>{"superseded by 6", "superseded by 6", "reverted by 5", "rolled-back",
                                               "superseded by 6", "in effect"}));
  EXPECT_EQ(LastRevertible(j.all())->id, "6");
  j.Revert("6");  // 7
  EXPECT_EQ(shown(), (std::vector<std::string>{"in effect", "in effect", "reverted by 5", "rolled-back", "in effect",
                                               "reverted by 7", "in effect"}));
}

}  // namespace
}  // namespace rocmtune::journal
