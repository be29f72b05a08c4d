// Fleet scripts trust `--check`: on every world, for every built-in profile
// that fits it, in every state a fleet meets (nothing applied, the profile already active,
// another profile active, its transaction reverted, a file of rocmtune's edited by someone else),
// `apply --check` reports `changed` (and its exit code) exactly as the `apply` run right after it.
// Ansible's check mode and tuned-adm's semantics: a state change that will be journaled (a profile
// becoming the active one) is a change; nothing to write with the same active profile is none.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"
#include "world_names.h"

namespace rocmtune::client {
namespace {

using json = nlohmann::ordered_json;
using testing::WorldCopy;

// `args --check --json`, then `args --json` on the same tree (a check writes nothing): the same
// `changed`, the same exit code. Returns the real run's document.
json CheckAgrees(const WorldCopy& w, std::vector<std::string> args, const std::string& state) {
  SCOPED_TRACE(fmt::format("{} ({})", fmt::join(args, " "), state));
  std::vector<std::string> check_args = args;
  check_args.insert(check_args.end(), {"--check", "--json"});
  args.emplace_back("--json");
  auto check = w.Ctl(check_args);
  auto run = w.Ctl(args);
  json check_doc = check.Json();
  json run_doc = run.Json();
  EXPECT_EQ(check.exit_code, run.exit_code) << check.out << run.out << run.err;
  EXPECT_EQ(check_doc["check"], true);
  EXPECT_EQ(check_doc["changed"], run_doc["changed"])
      << "--check said changed=" << check_doc["changed"] << ", the run then " << run_doc["changed"]
      << "\ncheck: " << check.out << "\nrun: " << run.out;
  EXPECT_EQ(check_doc["reboot_required"], run_doc["reboot_required"]) << check.out << run.out;
  return run_doc;
}

// An owned file with content in it: the first one the apply wrote.
std::string FirstWrittenFile(const json& result) {
  for (const auto& c : result["changes"])
    if (c.value("action", "") == "write" && c.contains("path") && c["path"].is_string()) return c["path"];
  return "";
}

class CheckModeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CheckModeTest, CheckReportsChangedAsTheRunThen) {
  std::vector<std::string> profiles;
  {
    WorldCopy probe(GetParam());
    profiles = testing::MatchingBuiltinProfiles(probe);
  }
  for (const std::string& p : profiles) {
    SCOPED_TRACE("profile " + p);
    WorldCopy w(GetParam());
    // Nothing applied yet: the stock machine may already satisfy the profile (nothing to write),
    // and the apply still makes it the active profile, a journaled change.
    json first = CheckAgrees(w, {"apply", p}, "nothing applied");
    CheckAgrees(w, {"apply", p}, "the profile is active");
    CheckAgrees(w, {"apply", "stock"}, "after the profile");
    CheckAgrees(w, {"apply", p}, "stock active");
    CheckAgrees(w, {"revert", "last"}, "the profile's apply in effect");
    CheckAgrees(w, {"apply", p}, "its apply reverted");
    // Someone edits a file rocmtune wrote: refused as drift without --force, written with it.
    std::string owned = FirstWrittenFile(first);
    if (owned.empty()) continue;
    CheckAgrees(w, {"apply", "stock"}, "before drift");
    CheckAgrees(w, {"apply", p}, "before drift");
    if (!w.Exists(owned)) continue;
    w.Write(owned, w.Read(owned) + "# edited by hand\n");
    CheckAgrees(w, {"apply", "stock"}, "drift");
    CheckAgrees(w, {"apply", "stock", "--force"}, "drift, forced");
  }
}

INSTANTIATE_TEST_SUITE_P(AllWorlds, CheckModeTest, ::testing::ValuesIn(testing::WorldNames()), [](const auto& world) {
  std::string name = world.param;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
});

}  // namespace
}  // namespace rocmtune::client
