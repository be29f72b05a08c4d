// One story about what is in effect (journal::Effects): `history` marks each transaction in
// effect or not and why (reverted by, superseded by a reset or by the apply that replaced its
// profile), `revert last` undoes the last ones still in effect one after the other, `status`
// shows the profile that is active by the same rule, and an apply of a profile whose state the
// machine already has makes it active. The built rocmtunectl and rocmtune-helper on world copies.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"

namespace rocmtune::client {
namespace {

using json = nlohmann::ordered_json;
using ::testing::HasSubstr;
using testing::WorldCopy;

// id -> "in effect" / "reverted by N" / "superseded by N", from `history --json`.
std::vector<std::string> Effects(const WorldCopy& w) {
  const json history = w.Ctl({"history", "--json"}).Json();
  std::vector<std::string> out;
  for (const json& t : history["transactions"]) {
    if (t["in_effect"] == true) out.push_back(fmt::format("{} in effect", t["id"].get<std::string>()));
    else if (t["reverted_by"].is_string())
      out.push_back(fmt::format("{} reverted by {}", t["id"].get<std::string>(), t["reverted_by"].get<std::string>()));
    else if (t["superseded_by"].is_string())
      out.push_back(
          fmt::format("{} superseded by {}", t["id"].get<std::string>(), t["superseded_by"].get<std::string>()));
    else out.push_back(fmt::format("{} {}", t["id"].get<std::string>(), t.dump()));
  }
  return out;
}

json Profile(const WorldCopy& w) { return w.Ctl({"status", "--json"}).Json()["profile"]; }

std::string Warnings(const json& result) {
  std::string out;
  for (const json& m : result["warnings"]) out += m.value("message", "") + "\n";
  return out;
}

TEST(HistoryEffectTest, RevertLastTwiceUndoesTheTwoLastChangesAndThenSaysSo) {
  WorldCopy w("rx5700xt");
  auto original = w.Snapshot();
  ASSERT_EQ(w.Ctl({"set", "amdgpu.noretry=0"}).exit_code, kExitOk);
  ASSERT_EQ(w.Ctl({"set", "ttm.pages_limit=1048576", "cmdline.iommu=pt"}).exit_code, kExitOk);
  for (int i = 0; i < 2; ++i) {
    auto revert = w.Ctl({"revert", "last", "--json"});
    ASSERT_EQ(revert.exit_code, kExitOk) << revert.out << revert.err;
    EXPECT_EQ(revert.Json()["changed"], true) << revert.out;
  }
  EXPECT_EQ(testing::ChangedPaths(original, w.Snapshot(), false, {"var"}), std::vector<std::string>{})
      << "the whole tree as it was";
  EXPECT_EQ(Effects(w), (std::vector<std::string>{"1 reverted by 4", "2 reverted by 3", "3 in effect", "4 in effect"}));

  auto third = w.Ctl({"revert", "last", "--json"});
  EXPECT_EQ(third.exit_code, kExitOk) << third.out;
  EXPECT_EQ(third.Json()["changed"], false);
  EXPECT_THAT(Warnings(third.Json()), HasSubstr("nothing left in effect")) << third.out;
  EXPECT_EQ(w.JournalFiles(), 4u);
}

TEST(HistoryEffectTest, AResetSupersedesEverythingBeforeItUntilItIsReverted) {
  WorldCopy w("rx6600");
  ASSERT_EQ(w.Ctl({"apply", "rdna2-consumer-compat"}).exit_code, kExitOk);
  ASSERT_EQ(w.Ctl({"set", "amdgpu.noretry=0"}).exit_code, kExitOk);
  ASSERT_EQ(w.Ctl({"reset"}).exit_code, kExitOk);
  EXPECT_EQ(Effects(w), (std::vector<std::string>{"1 superseded by 3", "2 superseded by 3", "3 in effect"}));
  EXPECT_TRUE(Profile(w).is_null());
  auto table = w.Ctl({"history"});
  EXPECT_THAT(table.out, HasSubstr("superseded by 3 (reset)")) << table.out;

  auto revert_old = w.Ctl({"revert", "2", "--json"});
  EXPECT_EQ(revert_old.exit_code, kExitRefused) << revert_old.out;
  EXPECT_THAT(revert_old.out, HasSubstr("revert 3 first"));
  EXPECT_THAT(revert_old.out, ::testing::Not(HasSubstr("drift")));

  ASSERT_EQ(w.Ctl({"revert", "last"}).exit_code, kExitOk);  // the reset
  EXPECT_EQ(Effects(w), (std::vector<std::string>{"1 in effect", "2 in effect", "3 reverted by 4", "4 in effect"}));
  EXPECT_EQ(Profile(w), "rdna2-consumer-compat");
}

TEST(HistoryEffectTest, AnApplyReplacesTheProfileBeforeAndRevertingItBringsThatBack) {
  WorldCopy w("rx6600");
  auto original = w.Snapshot();
  ASSERT_EQ(w.Ctl({"apply", "rdna2-consumer-compat"}).exit_code, kExitOk);
  auto p1 = w.Snapshot();
  ASSERT_EQ(w.Ctl({"apply", "stock"}).exit_code, kExitOk);
  EXPECT_EQ(Effects(w), (std::vector<std::string>{"1 superseded by 2", "2 in effect"}));
  EXPECT_EQ(Profile(w), "stock");

  auto revert = w.Ctl({"revert", "last", "--json"});
  ASSERT_EQ(revert.exit_code, kExitOk) << revert.out << revert.err;
  EXPECT_EQ(Effects(w), (std::vector<std::string>{"1 in effect", "2 reverted by 3", "3 in effect"}));
  EXPECT_EQ(Profile(w), "rdna2-consumer-compat");
  EXPECT_THAT(w.Ctl({"status"}).out, HasSubstr("Profile: rdna2-consumer-compat"));
  EXPECT_EQ(testing::ChangedPaths(p1, w.Snapshot(), false, {"var"}), std::vector<std::string>{});

  ASSERT_EQ(w.Ctl({"revert", "last"}).exit_code, kExitOk);
  EXPECT_TRUE(Profile(w).is_null());
  EXPECT_EQ(testing::ChangedPaths(original, w.Snapshot(), false, {"var"}), std::vector<std::string>{});
}

// stock resets: it ends every earlier transaction, sets included, as `reset` does; reverting it
// brings them back into effect.
TEST(HistoryEffectTest, ApplyingStockSupersedesEarlierSetsLikeAReset) {
  WorldCopy w("rx6600");
  ASSERT_EQ(w.Ctl({"set", "amdgpu.noretry=0"}).exit_code, kExitOk);
  ASSERT_EQ(w.Ctl({"apply", "rdna2-consumer-compat"}).exit_code, kExitOk);
  ASSERT_EQ(w.Ctl({"apply", "stock"}).exit_code, kExitOk);
  EXPECT_EQ(Effects(w), (std::vector<std::string>{"1 superseded by 3", "2 superseded by 3", "3 in effect"}));
  auto last = w.Ctl({"revert", "last", "--json"});
  ASSERT_EQ(last.exit_code, kExitOk) << last.out;
  EXPECT_EQ(Effects(w), (std::vector<std::string>{"1 in effect", "2 in effect", "3 reverted by 4", "4 in effect"}));
  EXPECT_EQ(Profile(w), "rdna2-consumer-compat");
}

// The machine already is in the profile's state: applying it writes nothing, and records the
// apply, so the profile is active; the same apply again records nothing.
TEST(HistoryEffectTest, ApplyingAProfileTheMachineAlreadyHasMakesItActive) {
  WorldCopy w("rx6600");
  auto original = w.Snapshot();
  auto apply = w.Ctl({"apply", "stock", "--json"});
  ASSERT_EQ(apply.exit_code, kExitOk) << apply.out << apply.err;
  EXPECT_EQ(testing::ResultDocumentProblems(apply.Json()), "") << apply.out;
  EXPECT_EQ(apply.Json()["transaction"], "1") << apply.out;
  EXPECT_EQ(apply.Json()["changes"], json::array());
  EXPECT_EQ(Profile(w), "stock");
  EXPECT_THAT(w.Ctl({"status"}).out, HasSubstr("Profile: stock"));
  EXPECT_EQ(testing::ChangedPaths(original, w.Snapshot(), false, {"var"}), std::vector<std::string>{});

  auto again = w.Ctl({"apply", "stock", "--json"});
  EXPECT_EQ(again.exit_code, kExitOk);
  EXPECT_EQ(again.Json()["changed"], false) << again.out;
  EXPECT_EQ(w.JournalFiles(), 1u);

  // Its revert has nothing to write either, and is recorded: the profile is no longer active.
  auto revert = w.Ctl({"revert", "last", "--json"});
  ASSERT_EQ(revert.exit_code, kExitOk) << revert.out << revert.err;
  EXPECT_TRUE(Profile(w).is_null());
  EXPECT_EQ(Effects(w), (std::vector<std::string>{"1 reverted by 2", "2 in effect"}));
  EXPECT_THAT(Warnings(w.Ctl({"revert", "last", "--json"}).Json()), HasSubstr("nothing left in effect"));
}

}  // namespace
}  // namespace rocmtune::client
