// The unified diffs rocmtune shows are real diffs: patch(1) applied to the file as it was gives
// the file as the apply left it, for every change of every matching built-in profile on every
// world, and for the edge cases of the diff writer (no trailing newline, removal, creation,
// several hunks).
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"
#include "patch_check.h"
#include "plan/unified_diff.h"
#include "world_names.h"

namespace rocmtune::testing {
namespace {

using json = nlohmann::ordered_json;

std::optional<std::string> FileOrNothing(const WorldCopy& w, const std::string& rel) {
  if (!w.Exists(rel)) return std::nullopt;
  return w.Read(rel);
}

// Every file change of `apply ARGS` on `w`, its diff checked by patch against what it wrote.
// Returns how many diffs were checked.
size_t CheckDiffsOfApply(const WorldCopy& w, const std::vector<std::string>& args) {
  std::vector<std::string> check_args = args, apply_args = args;
  check_args.insert(check_args.end(), {"--check", "--json"});
  apply_args.push_back("--json");
  auto check = w.Ctl(check_args);
  EXPECT_EQ(check.exit_code, client::kExitOk) << check.out << check.err;
  const json doc = check.Json();
  struct Change {
    std::string path, diff;
    std::optional<std::string> before;
  };
  std::vector<Change> changes;
  for (const auto& c : doc["changes"]) {
    std::string action = c.value("action", "");
    if (action != "write" && action != "remove") continue;
    std::string path = c["path"];
    changes.push_back({path, c["diff"], FileOrNothing(w, path)});
  }
  auto apply = w.Ctl(apply_args);
  EXPECT_EQ(apply.exit_code, client::kExitOk) << apply.out << apply.err;
  for (const Change& c : changes) {
    SCOPED_TRACE(c.path + "\n" + c.diff);
    try {
      EXPECT_EQ(ApplyWithPatch(c.before, c.diff), FileOrNothing(w, c.path));
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  }
  return changes.size();
}

class DiffPatchTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DiffPatchTest, EveryMatchingProfileDiffPatchesBeforeIntoAfter) {
  if (!HavePatch()) GTEST_SKIP() << "patch(1) is not installed (scripts/install-deps.sh installs it)";
  std::vector<std::string> profiles = MatchingBuiltinProfiles(WorldCopy(GetParam()));
  ASSERT_FALSE(profiles.empty());
  for (const std::string& p : profiles) {
    SCOPED_TRACE("profile " + p);
    WorldCopy w(GetParam());
    CheckDiffsOfApply(w, {"apply", p});
  }
}

INSTANTIATE_TEST_SUITE_P(AllWorlds, DiffPatchTest, ::testing::ValuesIn(WorldNames()), [](const auto& world) {
  std::string name = world.param;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
});

// set (a new file, then an edit of it) and unset (its removal) through the CLI.
TEST(DiffPatchCliTest, SetEditAndUnsetDiffsPatch) {
  if (!HavePatch()) GTEST_SKIP() << "patch(1) is not installed (scripts/install-deps.sh installs it)";
  WorldCopy w("rx6600");
  EXPECT_EQ(CheckDiffsOfApply(w, {"set", "amdgpu.noretry=1"}), 1u) << "creates the modprobe drop-in";
  EXPECT_EQ(CheckDiffsOfApply(w, {"set", "amdgpu.ppfeaturemask=0xffffffff"}), 1u) << "edits it";
  EXPECT_EQ(CheckDiffsOfApply(w, {"set", "env.HSA_ENABLE_SDMA=0"}), 2u) << "creates environment.d's and profile.d's";
  EXPECT_EQ(CheckDiffsOfApply(w, {"unset", "env.HSA_ENABLE_SDMA"}), 2u) << "removes both";
}

// The diff writer's edge cases, straight through plan::UnifiedDiff.
TEST(DiffPatchCliTest, UnifiedDiffEdgeCasesPatch) {
  if (!HavePatch()) GTEST_SKIP() << "patch(1) is not installed (scripts/install-deps.sh installs it)";
  std::string many;
  for (int i = 1; i <= 40; ++i) many += "line " + std::to_string(i) + "\n";
  std::string many_changed = many;
  many_changed.replace(many_changed.find("line 3\n"), 7, "line three\n");
  many_changed.replace(many_changed.find("line 35\n"), 8, "");
  struct Case {
    const char* name;
    std::optional<std::string> before, after;
  };
  const Case cases[] = {
      {"no trailing newline before", std::string("a\nb"), std::string("a\nb\nc\n")},
      {"no trailing newline after", std::string("a\nb\n"), std::string("a\nc")},
      {"no trailing newline on either", std::string("x=1\ny=2"), std::string("x=1\ny=3")},
      {"creation", std::nullopt, std::string("options amdgpu noretry=1\n")},
      {"removal", std::string("options amdgpu noretry=1\n"), std::nullopt},
      {"removal without trailing newline", std::string("A=1"), std::nullopt},
      {"two hunks", many, many_changed},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string diff = plan::UnifiedDiff("etc/x.conf", c.before, c.after);
    ASSERT_FALSE(diff.empty());
    try {
      EXPECT_EQ(ApplyWithPatch(c.before, diff), c.after) << diff;
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what() << "\n" << diff;
    }
  }
}

}  // namespace
}  // namespace rocmtune::testing
