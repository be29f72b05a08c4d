// `status` tells which profile is active (text and JSON), from the journal; a journal it cannot
// read is a finding, and the rest of status still shows.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"

namespace rocmtune {
namespace {

using ::testing::HasSubstr;

TEST(StatusProfileTest, TheActiveProfileIsShownUntilAReset) {
  testing::WorldCopy w("rx6600");  // rdna2-consumer-compat changes something here
  auto before = w.Ctl({"status", "--json"});
  ASSERT_EQ(before.exit_code, 0) << before.err;
  EXPECT_TRUE(before.Json()["profile"].is_null());
  EXPECT_THAT(w.Ctl({"status"}).out, HasSubstr("Profile: none"));

  auto apply = w.Ctl({"apply", "rdna2-consumer-compat"});
  ASSERT_EQ(apply.exit_code, 0) << apply.out << apply.err;
  EXPECT_EQ(w.Ctl({"status", "--json"}).Json()["profile"], "rdna2-consumer-compat");
  EXPECT_THAT(w.Ctl({"status"}).out, HasSubstr("Profile: rdna2-consumer-compat"));

  auto reset = w.Ctl({"reset"});
  ASSERT_EQ(reset.exit_code, 0) << reset.out << reset.err;
  EXPECT_TRUE(w.Ctl({"status", "--json"}).Json()["profile"].is_null());
}

TEST(StatusProfileTest, AnUnreadableJournalIsAFindingNotAnEmptyStatus) {
  testing::WorldCopy w("rx6600");
  ASSERT_EQ(w.Ctl({"apply", "rdna2-consumer-compat"}).exit_code, 0);
  w.Write("var/lib/rocmtune/journal/000001.jsonl", "{\"record\": \"begin\", \"id\": 5}\n");
  auto r = w.Ctl({"status", "--json"});
  EXPECT_EQ(r.exit_code, client::kExitOk) << r.err;
  auto doc = r.Json();
  ASSERT_TRUE(doc.is_object()) << r.out;
  EXPECT_FALSE(doc["gpus"].empty());
  bool found = false;
  for (const auto& f : doc["findings"])
    if (f["id"] == "journal.unreadable") {
      found = true;
      EXPECT_THAT(f["message"].get<std::string>(), HasSubstr("000001.jsonl"));
    }
  EXPECT_TRUE(found) << r.out;
}

}  // namespace
}  // namespace rocmtune
