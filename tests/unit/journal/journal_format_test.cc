// The journal's format version: every format from the oldest is read, a newer one is refused by
// name. format1/ beside this file is a journal written before the version was recorded (see its README).
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "journal/history.h"
#include "journal/journal.h"
#include "test_tree.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace rocmtune::journal {
namespace {

const std::string kFormat1 = std::string(ROCMTUNE_TESTDATA_DIR) + "/journal/format1";

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(JournalFormatTest, AFormat1JournalIsReadWhole) {
  testing::TestTree tree;
  for (const auto& e : fs::directory_iterator(kFormat1))
    if (e.path().extension() == ".jsonl")
      tree.Write(std::string(kJournalDir) + "/" + e.path().filename().string(), Slurp(e.path()));
  auto txns = Load(*sys::Root::Open(tree.path()));
  ASSERT_TRUE(txns) << txns.error().message;
  ASSERT_EQ(txns->size(), 5u);
  const std::vector<State> states = {State::kCommitted, State::kCommitted, State::kRolledBack, State::kCommitted,
                                     State::kIncomplete};
  for (size_t i = 0; i < txns->size(); ++i) {
    const Transaction& t = (*txns)[i];
    SCOPED_TRACE(t.id);
    EXPECT_EQ(t.number, i + 1);
    EXPECT_EQ(t.format, 1) << "no \"format\" field: format 1";
    EXPECT_EQ(t.state, states[i]);
  }
  const Transaction& first = (*txns)[0];
  EXPECT_EQ(first.intent.verb, "set");
  EXPECT_EQ(first.intent.args,
            (std::vector<std::string>{"amdgpu.noretry=0", "cmdline.iommu=pt", "env.HIP_VISIBLE_DEVICES=0"}));
  EXPECT_EQ(first.ops.size(), 6u);
  EXPECT_EQ(first.created_dirs, (std::vector<std::string>{"etc/modprobe.d", "etc/environment.d", "etc/profile.d"}));
  EXPECT_EQ((*txns)[1].intent.reverts, "1");
  EXPECT_EQ((*txns)[1].removed_dirs.size(), 3u);
  EXPECT_EQ((*txns)[2].rollback_reason, "interrupted; rolled back on the next start");
  EXPECT_TRUE(IsReverted(*txns, first));
  EXPECT_FALSE(IsReverted(*txns, (*txns)[3]));
}

// The oldest format that reads the record: 1 without private ops (an earlier rocmtune still
// reads and rolls back the transaction), 2 with them.
TEST(JournalFormatTest, BeginRecordsCarryTheOldestFormatThatReadsThem) {
  Transaction t;
  t.number = 7;
  t.id = "7";
  t.time = "2026-11-23T00:00:00Z";
  t.intent = {"set", "", {"amdgpu.noretry=0"}, "", {}};
  auto begin = BeginRecord(t);
  EXPECT_EQ(begin["format"], kOldestJournalFormat);
  auto parsed = ParseTransaction(begin.dump() + "\n", "x.jsonl");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->format, kOldestJournalFormat);

  t.ops.push_back({plan::OpKind::kWriteFile,
                   plan::BackendId::kEnv,
                   "etc/environment",
                   "A=secret\n",
                   "A=secret\n# rocmtune unset: HSA_X=1\n",
                   {},
                   "why"});
  t.private_ops = {0};
  begin = BeginRecord(t);
  EXPECT_EQ(begin["format"], kJournalFormat);
  EXPECT_EQ(begin.dump().find("secret"), std::string::npos) << begin.dump();
  parsed = ParseTransaction(begin.dump() + "\n", "x.jsonl");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->format, kJournalFormat);
  EXPECT_EQ(parsed->private_ops, std::vector<size_t>{0});
  auto filled = ApplyContents(ContentsRecord(t).dump(), *parsed, "x.contents");
  ASSERT_TRUE(filled) << filled.error().message;
  EXPECT_EQ(parsed->ops[0].before, t.ops[0].before);
  EXPECT_EQ(parsed->ops[0].after, t.ops[0].after);
  // Contents that are not this op's are refused, not mixed in.
  Transaction other = t;
  other.ops[0].path = "etc/profile.d/x.sh";
  EXPECT_FALSE(ApplyContents(ContentsRecord(other).dump(), *parsed, "x.contents"));
  // A format-1 record cannot name private ops.
  std::string old = begin.dump();
  old.replace(old.find("\"format\":2"), 10, "\"format\":1");
  EXPECT_FALSE(ParseTransaction(old + "\n", "x.jsonl"));
}

TEST(JournalFormatTest, ANewerFormatIsRefusedByNameAndBadOnesAreErrors) {
  std::string text = Slurp(fs::path(kFormat1) / "000004.jsonl");
  const std::string begin = R"({"record":"begin",)";
  ASSERT_EQ(text.rfind(begin, 0), 0u);
  auto with = [&](std::string_view format) {
    return ParseTransaction(std::string(text).insert(begin.size(), fmt::format(R"("format":{},)", format)),
                            "000004.jsonl");
  };
  auto newer = with(std::to_string(kJournalFormat + 1));
  ASSERT_FALSE(newer);
  EXPECT_EQ(newer.error().code, ErrorCode::kUnsupported);
  EXPECT_THAT(newer.error().message, HasSubstr("newer rocmtune"));
  EXPECT_THAT(newer.error().message, HasSubstr(fmt::format("format {}", kJournalFormat + 1)));
  EXPECT_THAT(newer.error().message, HasSubstr("000004.jsonl"));
  for (std::string_view bad : {"0", "-1", "\"1\"", "1.5", "null"}) {
    SCOPED_TRACE(bad);
    auto parsed = with(bad);
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().code, ErrorCode::kInvalidData);
  }
  auto same = with(std::to_string(kJournalFormat));
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_EQ(same->state, State::kCommitted);

  testing::TestTree tree;
  tree.Write(std::string(kJournalDir) + "/000001.jsonl", std::string(text).insert(begin.size(), R"("format":99,)"));
  auto loaded = Load(*sys::Root::Open(tree.path()));
  ASSERT_FALSE(loaded) << "a journal this version cannot read stops every reader, never half-read";
  EXPECT_THAT(loaded.error().message, HasSubstr("newer rocmtune"));
}

}  // namespace
}  // namespace rocmtune::journal
