// A power cut in the middle of a journal append leaves a torn last line: part of a record,
// without its newline, or with the rest of the line zeroed. Recovery must cut it off, roll the
// transaction back, and leave a journal that reads back whole. (SIGKILL cannot tear a line: the
// helper writes each record in one write(2), so these tests write the torn line themselves.)
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "crash_scenario.h"
#include "journal/journal.h"
#include "sys/root.h"

namespace rocmtune::crash {
namespace {

const std::vector<std::string> kTornKnobs = {"amdgpu.noretry=1", "cmdline.iommu=pt", "env.HSA_ENABLE_SDMA=0"};

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void AppendText(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  ASSERT_TRUE(out.good()) << path;
}

class TornJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = scratch_.Path("base");
    CopyWorld(WorldDir("mi210x8"), base_);
    plan::Plan plan = PlanSet(base_, kTornKnobs);
    plan_json_ = PlanText(plan);
    in_place_ = InPlacePaths(base_, plan);
    before_ = Snapshot(base_);
    run_ = scratch_.Path("run");
    FreshCopy(base_, run_, in_place_);
    const std::string log = scratch_.Path("steps.log");
    RunResult counted = RunHelper(kFaultHelper, {"--root", run_, "apply"}, PlanFor(plan_json_, run_),
                                  WithEnv("ROCMTUNE_FAULT_LOG", log));
    ASSERT_EQ(counted.status(), "committed") << counted.output;
    after_ = Snapshot(run_);
    for (const LoggedStep& step : ReadStepLog(log))
      if (step.name == "journal-append") appends_.push_back(step.number);
    ASSERT_GE(appends_.size(), 4u);
  }

  // The helper killed just before the record of its `n`th append (0: begin), whose journal
  // file then gets `torn` at its end, as if the power had failed in the middle of that append.
  std::string CrashWithTornRecord(size_t n, std::string_view torn) {
    FreshCopy(base_, run_, in_place_);
    RunResult killed = RunHelper(kFaultHelper, {"--root", run_, "apply"}, PlanFor(plan_json_, run_),
                                 WithEnv("ROCMTUNE_FAULT", "kill:" + std::to_string(appends_.at(n))));
    EXPECT_TRUE(killed.killed_by_sigkill) << killed.output;
    std::string file = run_ + "/" + std::string(journal::kJournalDir) + "/" + journal::JournalFileName(1);
    AppendText(file, torn);
    return file;
  }

  // After recover: the tree as before, every line of `file` a whole JSON record, the journal
  // loading with nothing incomplete; then the plan applies.
  void ExpectRecovered(const std::string& file, bool begun) {
    // --quiet, as rocmtune-recover.service runs it: the reply only when something was rolled back.
    RunResult recovery = RunHelper(kRealHelper, {"--root", run_, "recover", "--quiet"}, "");
    EXPECT_EQ(recovery.exit_code, 0) << recovery.output;
    if (begun) EXPECT_EQ(recovery.doc.value("recovered", nlohmann::json::array()).size(), 1u) << recovery.output;
    else EXPECT_EQ(recovery.output, "") << "nothing was rolled back";
    RunResult again = RunHelper(kRealHelper, {"--root", run_, "recover", "--quiet"}, "");
    EXPECT_EQ(again.exit_code, 0) << again.output;
    EXPECT_EQ(again.output, "") << "nothing left to roll back: nothing for the journal of the boot";
    EXPECT_EQ(Difference(before_, Snapshot(run_)), "");
    std::string text = ReadText(file);
    if (begun) {
      EXPECT_TRUE(text.ends_with("\n")) << text;
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);)
        EXPECT_FALSE(nlohmann::json::parse(line, nullptr, false).is_discarded()) << "torn line left: " << line;
    }
    auto root = sys::Root::Open(run_);
    ASSERT_TRUE(root);
    auto txns = journal::Load(*root);
    ASSERT_TRUE(txns) << txns.error().message;
    EXPECT_EQ(txns->size(), begun ? 1u : 0u);
    for (const journal::Transaction& t : *txns) {
      EXPECT_EQ(t.state, journal::State::kRolledBack) << t.id;
      EXPECT_FALSE(t.torn_tail) << t.id;
    }
    RunResult next = RunHelper(kRealHelper, {"--root", run_, "apply"}, PlanFor(plan_json_, run_));
    EXPECT_EQ(next.status(), "committed") << next.output;
    EXPECT_EQ(next.doc.value("transaction", ""), "2") << next.output;
    EXPECT_EQ(Difference(after_, Snapshot(run_)), "");
  }

  ScratchDir scratch_;
  std::string base_, run_, plan_json_;
  std::vector<std::string> in_place_;
  Tree before_, after_;
  std::vector<size_t> appends_;
};

// Half a record and no newline: the write stopped in the middle.
TEST_F(TornJournalTest, HalfARecordIsCutAndTheTransactionRolledBack) {
  std::string file = CrashWithTornRecord(appends_.size() / 2, R"({"record":"done","o)");
  ExpectRecovered(file, true);
}

// The file grew but the data never reached the disk: zeros where the record should be.
TEST_F(TornJournalTest, ZeroedTailIsCut) {
  std::string file = CrashWithTornRecord(appends_.size() / 2, std::string(24, '\0'));
  ExpectRecovered(file, true);
}

// Part of the record lost but its newline kept (the last line is not JSON, yet ends in '\n').
TEST_F(TornJournalTest, TornLineEndingInNewlineIsCut) {
  std::string file =
      CrashWithTornRecord(appends_.size() / 2, std::string(R"({"record":"do)") + std::string(6, '\0') + "\n");
  ExpectRecovered(file, true);
}

// Torn just before the commit record: everything was done, nothing committed.
TEST_F(TornJournalTest, TornCommitRecordRollsEverythingBack) {
  std::string file = CrashWithTornRecord(appends_.size() - 1, R"({"record":"com)");
  ExpectRecovered(file, true);
}

// The begin record itself torn: nothing had been done, there is nothing to roll back, and the
// journal must stay readable (the next transaction is numbered past the file).
TEST_F(TornJournalTest, TornBeginRecordMeansNothingBegan) {
  std::string file = CrashWithTornRecord(0, R"({"record":"begin","id":"1","time":"2026-)");
  ExpectRecovered(file, false);
}

}  // namespace
}  // namespace rocmtune::crash
