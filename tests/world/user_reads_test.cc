// A user's reads after rocmtune changed something, with no daemon to ask: the
// helper leaves its journal 0640 in a 0750 directory (root:rocmtune), which an ordinary user
// (uid 65534 here) cannot read. `profiles`, `show`, `doctor`, `status` and `snapshot` still
// work for that user: the active profile is unknown (null, with a note), doctor and status say
// so as info, never as an error, and the snapshot lists the journal as left out. (With the
// daemon, the same user gets the journal's answers: tests/daemon/suite/test_reads.py.)
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"

namespace rocmtune::client {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using ::testing::HasSubstr;
using testing::WorldCopy;

constexpr const char* kProfile = "rdna2-consumer-compat";

class UserReadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to apply and then read as uid 65534";
    ASSERT_EQ(w_.Ctl({"apply", kProfile}).exit_code, kExitOk);
    // As the helper leaves it on a machine: the directory 0750, its records 0640, not the user's.
    ASSERT_EQ(::chmod(w_.Path("var/lib/rocmtune/journal").c_str(), 0750), 0);
    auto probe = w_.Ctl({"keys", "--json"}, true);
    if (probe.exit_code == testing::kCannotDropPrivileges) GTEST_SKIP() << "cannot drop privileges to uid 65534";
  }
  WorldCopy w_{"rx6600"};
};

TEST_F(UserReadsTest, ProfilesAndShowSayTheActiveProfileIsUnknown) {
  auto profiles = w_.Ctl({"profiles", "--json"}, true);
  ASSERT_EQ(profiles.exit_code, kExitOk) << profiles.out << profiles.err;
  json doc = profiles.Json();
  EXPECT_TRUE(doc["active_profile"].is_null()) << profiles.out;
  for (const auto& p : doc["profiles"]) EXPECT_TRUE(p["active"].is_null()) << p.dump();
  ASSERT_EQ(doc["notes"].size(), 1u) << profiles.out;
  EXPECT_THAT(doc["notes"][0].get<std::string>(), HasSubstr("unknown to this user"));

  auto text = w_.Ctl({"profiles"}, true);
  EXPECT_EQ(text.exit_code, kExitOk) << text.err;
  EXPECT_THAT(text.out, HasSubstr("\nActive profile: unknown\n"));

  auto show = w_.Ctl({"show", kProfile, "--json"}, true);
  ASSERT_EQ(show.exit_code, kExitOk) << show.out << show.err;
  EXPECT_TRUE(show.Json()["active"].is_null()) << show.out;
  auto show_text = w_.Ctl({"show", kProfile}, true);
  EXPECT_EQ(show_text.exit_code, kExitOk) << show_text.err;
  EXPECT_THAT(show_text.out, HasSubstr("\n  active:   unknown\n"));

  // Root reads the journal: the same documents say which profile is active.
  json root_doc = w_.Ctl({"profiles", "--json"}).Json();
  EXPECT_EQ(root_doc["active_profile"], kProfile);
  EXPECT_EQ(w_.Ctl({"show", kProfile, "--json"}).Json()["active"], true);
  EXPECT_EQ(w_.Ctl({"show", "stock", "--json"}).Json()["active"], false);
}

TEST_F(UserReadsTest, DoctorAndStatusSayItAsInfoNotAsAnError) {
  auto root_doctor = w_.Ctl({"doctor", "--json"});
  auto doctor = w_.Ctl({"doctor", "--json"}, true);
  json doc = doctor.Json();
  ASSERT_TRUE(doc.is_object()) << doctor.out << doctor.err;
  std::vector<std::string> journal;
  for (const auto& f : doc["findings"])
    if (f["id"].get<std::string>().starts_with("journal."))
      journal.push_back(f["id"].get<std::string>() + " " + f["severity"].get<std::string>());
  EXPECT_EQ(journal, std::vector<std::string>{"journal.not-permitted info"}) << doctor.out;
  // What the user is told apart from the journal is what root is told (the caller's access
  // check aside), so the exit code does not come from the journal's permissions.
  bool root_problems = root_doctor.Json()["problems"].get<bool>();
  bool user_problems = false;
  for (const auto& f : doc["findings"])
    if (f["severity"] != "info" && !f["id"].get<std::string>().starts_with("access.")) user_problems = true;
  bool root_pending = false;
  // Each document kept in a variable: a range-for over a member of a temporary reads freed memory.
  const auto root_doctor_doc = root_doctor.Json();
  for (const auto& f : root_doctor_doc["findings"])
    if (f["id"].get<std::string>().starts_with("journal.")) root_pending = true;
  if (!root_pending) {
    EXPECT_EQ(user_problems, root_problems) << doctor.out << root_doctor.out;
  }

  auto status = w_.Ctl({"status", "--json"}, true);
  ASSERT_EQ(status.exit_code, kExitOk) << status.err;
  const auto status_doc = status.Json();
  for (const auto& f : status_doc["findings"]) {
    EXPECT_NE(f["id"], "journal.unreadable") << status.out;
    if (f["id"] == "journal.not-permitted") {
      EXPECT_EQ(f["severity"], "info");
    }
  }
}

TEST_F(UserReadsTest, SnapshotLeavesOutTheJournalAndSaysSo) {
  char tmpl[] = "/tmp/rocmtune-user-snapshot-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string parent = tmpl;
  ASSERT_EQ(::chown(parent.c_str(), 65534, 65534), 0);
  auto snap = w_.Ctl({"snapshot", "--json", parent + "/world"}, true);
  EXPECT_EQ(snap.exit_code, kExitOk) << snap.out << snap.err;
  json doc = snap.Json();
  EXPECT_THAT(doc["left_out"].dump(), HasSubstr("\"var/lib/rocmtune/journal\"")) << snap.out;
  EXPECT_FALSE(fs::exists(parent + "/world/var/lib/rocmtune/journal/000001.jsonl"));
  auto text = w_.Ctl({"snapshot", parent + "/world2"}, true);
  EXPECT_EQ(text.exit_code, kExitOk) << text.err;
  EXPECT_THAT(text.out, HasSubstr("Left out, not readable by this user"));
  EXPECT_THAT(text.out, HasSubstr("\n  /var/lib/rocmtune/journal\n"));
  fs::remove_all(parent);
}

}  // namespace
}  // namespace rocmtune::client
