// Journal files that rocmtune did not write: wrong types, arrays for records, deep nesting.
// Each is an error naming the file and line (what `history` and `status` print), never an
// exception or a crash: before, a wrong-typed optional field threw nlohmann's type_error and
// every later run aborted (exit 134).
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "journal/journal.h"
#include "test_tree.h"

namespace rocmtune::journal {
namespace {

using json = nlohmann::ordered_json;

Transaction HostileBegun(uint64_t number) {
  Transaction t;
  t.number = number;
  t.id = std::to_string(number);
  t.time = "2025-01-02T03:04:05Z";
  t.intent = {"set", "", {"amdgpu.noretry=0"}, "", {}};
  plan::Op write;
  write.kind = plan::OpKind::kWriteFile;
  write.backend = plan::BackendId::kModprobe;
  write.path = "etc/modprobe.d/rocmtune.conf";
  write.after = "options amdgpu noretry=0\n";
  t.ops = {write};
  return t;
}

std::string JoinLines(std::initializer_list<std::string> lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

template <typename F>
std::string Begin(F edit) {
  json r = BeginRecord(HostileBegun(1));
  edit(r);
  return r.dump();
}

std::string Deep(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

struct Case {
  std::string name;
  std::string text;
  std::string line;  // the line the error must name
  std::string says;
};

const std::string kBegin = BeginRecord(HostileBegun(1)).dump();
const std::string kDone = DoneRecord(0).dump();

std::vector<Case> HostileCases() {
  return {
      {"ops a number", JoinLines({Begin([](json& r) { r["ops"] = 5; })}), "line 1", "\"ops\" must be an array"},
      {"id a number", JoinLines({Begin([](json& r) { r["id"] = 7; })}), "line 1", "\"id\" must be a string"},
      {"force a string", JoinLines({Begin([](json& r) { r["force"] = "yes"; })}), "line 1",
       "\"force\" must be true or false"},
      {"intent args a string", JoinLines({Begin([](json& r) { r["intent"]["args"] = "x"; })}), "line 1",
       "must be an array"},
      {"op path an array", JoinLines({Begin([](json& r) { r["ops"][0]["path"] = json::array(); })}), "line 1",
       "\"path\" must be a string"},
      {"op after a number", JoinLines({Begin([](json& r) { r["ops"][0]["after"] = 5; })}), "line 1", "op 0 after"},
      {"mkdir path an array", JoinLines({kBegin, R"({"record":"mkdir","path":[]})"}), "line 2",
       "\"path\" must be a string"},
      {"done op a string", JoinLines({kBegin, R"({"record":"done","op":"x"})"}), "line 2", "\"op\""},
      {"regen message a number", JoinLines({kBegin, R"({"record":"regen","op":0,"status":"done","message":5})"}),
       "line 2", "\"message\" must be a string"},
      {"rollback reason an array", JoinLines({kBegin, R"({"record":"rollback","reason":[]})"}), "line 2",
       "\"reason\" must be a string"},
      {"a record that is an array", JoinLines({kBegin, R"(["record","commit"])", kDone}), "line 2",
       "not a journal record"},
      {"a record that is a number", JoinLines({kBegin, "5", kDone}), "line 2", "not a journal record"},
  };
}

TEST(JournalHostileTest, WrongTypesAreErrorsNamingFileAndLine) {
  for (const Case& c : HostileCases()) {
    Result<Transaction> t = tl::unexpected(Error{});
    ASSERT_NO_THROW(t = ParseTransaction(c.text, "journal/000001.jsonl")) << c.name;
    ASSERT_FALSE(t) << c.name;
    EXPECT_EQ(t.error().code, ErrorCode::kInvalidData) << c.name;
    EXPECT_NE(t.error().message.find("journal/000001.jsonl " + c.line), std::string::npos)
        << c.name << ": " << t.error().message;
    EXPECT_NE(t.error().message.find(c.says), std::string::npos) << c.name << ": " << t.error().message;
  }
}

// 10,000 levels: nlohmann parses that without trouble, but copying or comparing the document
// recursed once per level (a crash at 5,000 under ASan). Refused before it is parsed.
TEST(JournalHostileTest, DeepNestingIsRefusedBeforeParsing) {
  json begin = BeginRecord(HostileBegun(1));
  begin["intent"] = "PLACEHOLDER";
  std::string deep_begin = begin.dump();
  deep_begin.replace(deep_begin.find("\"PLACEHOLDER\""), 13, Deep(10000));
  for (const auto& [text, line] :
       {std::pair{JoinLines({deep_begin, kDone}), "line 1"},
        std::pair{JoinLines({kBegin, Deep(10000), kDone}), "line 2"},
        std::pair{JoinLines({kBegin, "{\"record\":\"done\",\"op\":" + Deep(5000) + "}", kDone}), "line 2"}}) {
    Result<Transaction> t = tl::unexpected(Error{});
    ASSERT_NO_THROW(t = ParseTransaction(text, "journal/000001.jsonl"));
    ASSERT_FALSE(t);
    EXPECT_NE(t.error().message.find(std::string("journal/000001.jsonl ") + line), std::string::npos)
        << t.error().message;
    EXPECT_NE(t.error().message.find("nests deeper than"), std::string::npos) << t.error().message;
  }
}

// A deep last line that is valid JSON is not torn: it is refused like any other bad record.
TEST(JournalHostileTest, ADeepLastLineIsNotMistakenForATornOne) {
  std::string text = JoinLines({kBegin, Deep(10000)});
  EXPECT_EQ(IntactLength(text), text.size());
  auto t = ParseTransaction(text, "f");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("f line 2"), std::string::npos) << t.error().message;
}

TEST(JournalHostileTest, LoadReportsTheFileInsteadOfAborting) {
  testing::TestTree tree;
  tree.Write(std::string(kJournalDir) + "/" + JournalFileName(1),
             JoinLines({kBegin, DoneRecord(0).dump(), CommitRecord().dump()}));
  tree.Write(std::string(kJournalDir) + "/" + JournalFileName(2), JoinLines({Begin([](json& r) {
                                                                               r["id"] = "2";
                                                                               r["force"] = "yes";
                                                                             }),
                                                                             CommitRecord().dump()}));
  auto root = sys::Root::Open(tree.path());
  ASSERT_TRUE(root);
  Result<std::vector<Transaction>> txns = tl::unexpected(Error{});
  ASSERT_NO_THROW(txns = Load(*root));
  ASSERT_FALSE(txns);
  EXPECT_NE(txns.error().message.find("var/lib/rocmtune/journal/000002.jsonl line 1"), std::string::npos)
      << txns.error().message;
}

}  // namespace
}  // namespace rocmtune::journal
