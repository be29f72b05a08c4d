// Reading the journal: one transaction per file, one record per line, torn tails ignored.
#include "journal/journal.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_tree.h"

namespace rocmtune::journal {
namespace {

using json = nlohmann::ordered_json;

Transaction Begun(uint64_t number, std::string verb = "set") {
  Transaction t;
  t.number = number;
  t.id = std::to_string(number);
  t.time = "2025-01-02T03:04:05Z";
  t.intent = {verb, "", {"amdgpu.noretry=0"}, "", {}};
  plan::Op write;
  write.kind = plan::OpKind::kWriteFile;
  write.backend = plan::BackendId::kModprobe;
  write.path = "etc/modprobe.d/rocmtune.conf";
  write.after = "options amdgpu noretry=0\n";
  plan::Op regen;
  regen.kind = plan::OpKind::kRegenerate;
  regen.backend = plan::BackendId::kInitramfs;
  regen.path = "initramfs-tools";
  regen.argv = {"update-initramfs", "-u"};
  t.ops = {write, regen};
  return t;
}

std::string Lines(std::initializer_list<json> records) {
  std::string out;
  for (const json& r : records) out += r.dump() + "\n";
  return out;
}

TEST(JournalTest, ParsesEveryRecordKind) {
  Transaction b = Begun(7);
  b.force = true;
  std::string text = Lines({BeginRecord(b), MkdirRecord("etc/modprobe.d"), DoneRecord(0), RmdirRecord("etc/old"),
                            RegenRecord({1, "pending", "not the running system"}), CommitRecord()});
  auto t = ParseTransaction(text, "var/lib/rocmtune/journal/000007.jsonl");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->number, 7u);
  EXPECT_EQ(t->id, "7");
  EXPECT_EQ(t->time, "2025-01-02T03:04:05Z");
  EXPECT_EQ(t->file, "var/lib/rocmtune/journal/000007.jsonl");
  EXPECT_EQ(t->intent.verb, "set");
  EXPECT_EQ(t->intent.args, std::vector<std::string>{"amdgpu.noretry=0"});
  ASSERT_EQ(t->ops.size(), 2u);
  EXPECT_EQ(t->ops[0].after, "options amdgpu noretry=0\n");
  EXPECT_FALSE(t->ops[0].before);
  EXPECT_EQ(t->ops[1].argv, (std::vector<std::string>{"update-initramfs", "-u"}));
  EXPECT_TRUE(t->force);
  EXPECT_EQ(t->created_dirs, std::vector<std::string>{"etc/modprobe.d"});
  EXPECT_EQ(t->removed_dirs, std::vector<std::string>{"etc/old"});
  EXPECT_EQ(t->done, std::vector<size_t>{0});
  ASSERT_EQ(t->regen.size(), 1u);
  EXPECT_EQ(t->regen[0].op, 1u);
  EXPECT_EQ(t->regen[0].status, "pending");
  EXPECT_EQ(t->regen[0].message, "not the running system");
  EXPECT_EQ(t->state, State::kCommitted);
  EXPECT_FALSE(t->torn_tail);
}

TEST(JournalTest, RollbackRecordEndsWithItsReason) {
  auto t = ParseTransaction(Lines({BeginRecord(Begun(3)), DoneRecord(0), RollbackRecord("disk full")}), "f");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->state, State::kRolledBack);
  EXPECT_EQ(t->rollback_reason, "disk full");
  EXPECT_EQ(StateName(t->state), "rolled-back");
}

TEST(JournalTest, WithoutCommitOrRollbackItIsIncomplete) {
  auto t = ParseTransaction(Lines({BeginRecord(Begun(3)), DoneRecord(0)}), "f");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->state, State::kIncomplete);
  EXPECT_FALSE(t->torn_tail);
}

TEST(JournalTest, TornLastLineWithoutNewlineIsIgnored) {
  std::string commit = CommitRecord().dump();
  std::string text = Lines({BeginRecord(Begun(3)), DoneRecord(0)}) + commit.substr(0, commit.size() / 2);
  auto t = ParseTransaction(text, "f");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_TRUE(t->torn_tail);
  EXPECT_EQ(t->state, State::kIncomplete) << "a torn commit is no commit";
  EXPECT_EQ(t->done, std::vector<size_t>{0});
}

TEST(JournalTest, CompleteRecordWithoutItsNewlineIsStillTorn) {
  // The newline is part of the append: without it the record was not known to be durable.
  std::string text = Lines({BeginRecord(Begun(3))}) + CommitRecord().dump();
  auto t = ParseTransaction(text, "f");
  ASSERT_TRUE(t);
  EXPECT_TRUE(t->torn_tail);
  EXPECT_EQ(t->state, State::kIncomplete);
}

TEST(JournalTest, TornLastLineEndingInNewlineIsIgnored) {
  std::string done = DoneRecord(0).dump();
  std::string text = Lines({BeginRecord(Begun(3))}) + done.substr(0, 7) + "\n";
  auto t = ParseTransaction(text, "f");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_TRUE(t->torn_tail);
  EXPECT_TRUE(t->done.empty());
}

TEST(JournalTest, GarbageBeforeTheLastLineIsAnErrorNamingFileAndLine) {
  std::string text = Lines({BeginRecord(Begun(3))}) + "{garbage\n" + Lines({CommitRecord()});
  auto t = ParseTransaction(text, "var/lib/rocmtune/journal/000003.jsonl");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("000003.jsonl line 2"), std::string::npos) << t.error().message;
}

TEST(JournalTest, RecordsAfterCommitOrRollbackAreRefused) {
  for (const json& end : {CommitRecord(), RollbackRecord("x")}) {
    for (const json& after : {DoneRecord(0), CommitRecord(), RollbackRecord("y"), MkdirRecord("a")}) {
      auto t = ParseTransaction(Lines({BeginRecord(Begun(3)), end, after}), "f");
      ASSERT_FALSE(t) << end.dump() << " then " << after.dump();
      EXPECT_NE(t.error().message.find("after the transaction ended"), std::string::npos) << t.error().message;
      EXPECT_NE(t.error().message.find("line 3"), std::string::npos) << t.error().message;
    }
  }
}

TEST(JournalTest, ATransactionStartsWithExactlyOneBegin) {
  auto none = ParseTransaction("", "f");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("no begin record"), std::string::npos);
  auto done_first = ParseTransaction(Lines({DoneRecord(0), CommitRecord()}), "f");
  ASSERT_FALSE(done_first);
  EXPECT_NE(done_first.error().message.find("starts with one begin"), std::string::npos);
  auto two = ParseTransaction(Lines({BeginRecord(Begun(3)), BeginRecord(Begun(3))}), "f");
  ASSERT_FALSE(two);
  EXPECT_NE(two.error().message.find("line 2"), std::string::npos);
  EXPECT_EQ(none.error().code, ErrorCode::kInvalidData);
  // Only a torn begin: no transaction is there (kNotFound, which Load skips).
  std::string begin = BeginRecord(Begun(3)).dump();
  auto torn = ParseTransaction(begin.substr(0, 20), "f");
  ASSERT_FALSE(torn);
  EXPECT_EQ(torn.error().code, ErrorCode::kNotFound);
}

TEST(JournalTest, OpIndexMustBeAnOpOfTheTransaction) {
  const std::vector<json> bad = {
      {{"record", "done"}, {"op", 2}},  // two ops: 0 and 1
      {{"record", "done"}, {"op", -1}},
      {{"record", "done"}, {"op", "0"}},
      {{"record", "done"}, {"op", 0.5}},
      {{"record", "done"}},
      {{"record", "regen"}, {"op", 9}, {"status", "done"}},
      {{"record", "regen"}, {"op", 1}},  // no status
  };
  for (const json& r : bad) {
    auto t = ParseTransaction(Lines({BeginRecord(Begun(3)), r}), "f");
    EXPECT_FALSE(t) << r.dump();
  }
}

TEST(JournalTest, MalformedRecordsAreRefused) {
  Transaction zero = Begun(0);
  json no_ops = BeginRecord(Begun(3));
  no_ops.erase("ops");
  json bad_op = BeginRecord(Begun(3));
  bad_op["ops"][0]["kind"] = "chmod";
  json no_intent = BeginRecord(Begun(3));
  no_intent.erase("intent");
  json text_id = BeginRecord(Begun(3));
  text_id["id"] = "three";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"id 0", Lines({BeginRecord(zero)})},
      {"id not a number", Lines({text_id})},
      {"begin without ops", Lines({no_ops})},
      {"begin with an unknown op kind", Lines({bad_op})},
      {"begin without intent", Lines({no_intent})},
      {"unknown record", Lines({BeginRecord(Begun(3)), {{"record", "chmod"}}})},
      {"record not a string", Lines({BeginRecord(Begun(3)), {{"record", 1}}})},
      {"not an object", Lines({BeginRecord(Begun(3)), json::array({1})})},
      {"mkdir without path", Lines({BeginRecord(Begun(3)), {{"record", "mkdir"}}})},
  };
  for (const auto& [name, text] : cases) EXPECT_FALSE(ParseTransaction(text, "f")) << name;
}

// Backends and regenerators are read into enums: a name no table has is an error that says so.
TEST(JournalTest, UnknownBackendOrRegeneratorNamesAreErrorsThatNameThem) {
  json backend = BeginRecord(Begun(3));
  backend["ops"][0]["backend"] = "systemd";
  json regenerator = BeginRecord(Begun(3));
  regenerator["ops"][1]["path"] = "mkinitramfs";
  for (const auto& [record, name] : {std::pair{backend, "systemd"}, std::pair{regenerator, "mkinitramfs"}}) {
    auto t = ParseTransaction(Lines({record}), "f");
    ASSERT_FALSE(t) << name;
    EXPECT_THAT(t.error().message, ::testing::HasSubstr(name));
  }
}

TEST(JournalTest, FileNamesAreZeroPaddedNumbers) {
  EXPECT_EQ(JournalFileName(1), "000001.jsonl");
  EXPECT_EQ(JournalFileName(123456), "123456.jsonl");
  EXPECT_EQ(JournalFileName(1234567), "1234567.jsonl");
}

class JournalLoadTest : public ::testing::Test {
 protected:
  void WriteJournal(uint64_t number, const std::string& text) {
    tree_.Write(std::string(kJournalDir) + "/" + JournalFileName(number), text);
  }
  sys::Root Root() { return *sys::Root::Open(tree_.path()); }
  testing::TestTree tree_;
};

TEST_F(JournalLoadTest, AbsentJournalIsEmptyAndNumbersStartAtOne) {
  auto txns = Load(Root());
  ASSERT_TRUE(txns);
  EXPECT_TRUE(txns->empty());
  EXPECT_EQ(NextNumber(Root()).value(), 1u);
}

TEST_F(JournalLoadTest, LoadsSeveralFilesOldestFirstSkippingAnEmptyOne) {
  WriteJournal(10, Lines({BeginRecord(Begun(10)), CommitRecord()}));
  WriteJournal(2, Lines({BeginRecord(Begun(2)), RollbackRecord("failed")}));
  WriteJournal(1, Lines({BeginRecord(Begun(1)), DoneRecord(0), CommitRecord()}));
  WriteJournal(3, "");  // created, then a crash before the begin record
  WriteJournal(4, Lines({BeginRecord(Begun(4)), DoneRecord(0)}));
  tree_.Write(std::string(kJournalDir) + "/README", "not a journal file");
  tree_.Write(std::string(kJournalDir) + "/.000005.jsonl.swp", "junk");
  auto txns = Load(Root());
  ASSERT_TRUE(txns) << txns.error().message;
  ASSERT_EQ(txns->size(), 4u);
  EXPECT_EQ((*txns)[0].id, "1");
  EXPECT_EQ((*txns)[1].id, "2");
  EXPECT_EQ((*txns)[2].id, "4");
  EXPECT_EQ((*txns)[3].id, "10");
  EXPECT_EQ((*txns)[0].state, State::kCommitted);
  EXPECT_EQ((*txns)[1].state, State::kRolledBack);
  EXPECT_EQ((*txns)[2].state, State::kIncomplete);
  EXPECT_EQ((*txns)[3].file, "var/lib/rocmtune/journal/000010.jsonl");
  EXPECT_EQ(NextNumber(Root()).value(), 11u);
}

TEST_F(JournalLoadTest, NextNumberGoesPastAnEmptyLastFile) {
  WriteJournal(1, Lines({BeginRecord(Begun(1)), CommitRecord()}));
  WriteJournal(2, "");
  EXPECT_EQ(NextNumber(Root()).value(), 3u);
  ASSERT_EQ(Load(Root()).value().size(), 1u);
}

TEST_F(JournalLoadTest, AFileHoldingAnotherTransactionIsAnError) {
  WriteJournal(4, Lines({BeginRecord(Begun(5)), CommitRecord()}));
  auto txns = Load(Root());
  ASSERT_FALSE(txns);
  EXPECT_NE(txns.error().message.find("000004.jsonl"), std::string::npos) << txns.error().message;
}

TEST_F(JournalLoadTest, ACorruptFileIsAnErrorNotSilentlySkipped) {
  WriteJournal(1, Lines({BeginRecord(Begun(1)), CommitRecord()}));
  WriteJournal(2, "{garbage\n" + Lines({CommitRecord()}));
  EXPECT_FALSE(Load(Root()));
}

// A power cut while the begin record was appended leaves a torn first line: like an empty
// file, nothing was begun (the begin record precedes every change), so the rest of the
// journal must still load and the next number go past it.
TEST_F(JournalLoadTest, ATornBeginIsLikeAnEmptyFile) {
  std::string begin = BeginRecord(Begun(2)).dump();
  WriteJournal(1, Lines({BeginRecord(Begun(1)), CommitRecord()}));
  WriteJournal(2, begin.substr(0, begin.size() / 2));
  WriteJournal(3, begin.substr(0, 9) + "\n");
  auto txns = Load(Root());
  ASSERT_TRUE(txns) << txns.error().message;
  ASSERT_EQ(txns->size(), 1u);
  EXPECT_EQ((*txns)[0].id, "1");
  EXPECT_EQ(NextNumber(Root()).value(), 4u);
}

}  // namespace
}  // namespace rocmtune::journal
