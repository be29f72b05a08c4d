// What the helper really writes, in order, for every world and every built-in profile that fits
// it: rocmtunectl applies the profile on a fresh copy of the world through the fault build of the
// helper (no fault set: it only logs each step it takes, ROCMTUNE_FAULT_LOG), and the effects
// are compared with a reviewed list, tests/golden/<world>/writes-<profile>.txt, one line each:
//
//   write  PATH sha256:<16 hex>   a file replaced (temporary, fsync, rename) with these bytes
//   remove PATH                   a file unlinked
//   mkdir  PATH / rmdir PATH      a directory created or removed
//   sysfs  PATH sha256:<16 hex>   a sysfs attribute written in place with these bytes
//   regen  WHAT                   a regeneration (initramfs, bootloader) run
//   regen-pending WHAT            one planned but left for the live system (a world is not it)
//
// Left out as bookkeeping, checked by the crash tests instead: the journal and the lock under
// var/lib/rocmtune, the directories on the way to the journal (made before anything else),
// temporaries, fsyncs. rocmtune's other state (var/lib/rocmtune/cmdline-tokens) is listed. A
// digest is of the path's bytes once the apply is done. ROCMTUNE_UPDATE_GOLDEN=1 rewrites the
// lists (review them).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"
#include "sha256.h"
#include "test_tree.h"
#include "world_names.h"

namespace fs = std::filesystem;

namespace rocmtune::testing {
namespace {

// An environment variable set for the commands this test runs (they inherit it), then unset.
class ScopedEnv {
 public:
  ScopedEnv(const char* key, const std::string& value) : key_(key) { ::setenv(key, value.c_str(), 1); }
  ~ScopedEnv() { ::unsetenv(key_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* key_;
};

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::string Digest(const WorldCopy& w, const std::string& rel) {
  if (!w.Exists(rel)) return "sha256:(gone)";
  return "sha256:" + Sha256Hex(w.Read(rel)).substr(0, 16);
}

constexpr std::string_view kJournalDir = "var/lib/rocmtune/journal";

bool Bookkeeping(const std::string& path) {
  return path.starts_with(std::string(kJournalDir) + "/") || path == "var/lib/rocmtune/lock" ||
         path.ends_with(".rocmtune-new") || path == kJournalDir || kJournalDir.starts_with(path + "/");
}

// The step log turned into the golden lines (see the top of the file), then the regenerations
// the result says were left pending.
std::string WriteList(const WorldCopy& w, const std::string& step_log, const nlohmann::ordered_json& result) {
  std::string out;
  std::istringstream log(ReadAll(step_log));
  for (std::string line; std::getline(log, line);) {
    std::istringstream fields(line);
    std::string number, step, path;
    fields >> number >> step;
    std::getline(fields >> std::ws, path);
    if (path.starts_with(w.root() + "/")) path.erase(0, w.root().size() + 1);
    if (Bookkeeping(path)) continue;
    if (step == "rename") out += "write " + path + " " + Digest(w, path) + "\n";
    else if (step == "unlink") out += "remove " + path + "\n";
    else if (step == "mkdir" || step == "rmdir") out += step + " " + path + "\n";
    else if (step == "sysfs-write") out += "sysfs " + path + " " + Digest(w, path) + "\n";
    else if (step == "regenerate") out += "regen " + path + "\n";
    else if (step.starts_with("journal-") || step.starts_with("temp-") || step == "dir-sync") continue;
    else ADD_FAILURE() << "a step this test does not know: " << line;
  }
  for (const auto& c : result["changes"])
    if (c.value("action", "") == "regenerate" && out.find("regen " + c.value("path", "") + "\n") == std::string::npos)
      out += "regen-pending " + c.value("path", "") + "\n";
  return out;
}

// The writes of `apply PROFILE` on a fresh copy of `world`.
std::string ObservedWrites(const std::string& world, const std::string& profile) {
  WorldCopy w(world);
  TestTree scratch;
  std::string log = scratch.Path("steps.log");
  ScopedEnv helper("ROCMTUNE_HELPER", ROCMTUNE_FAULT_HELPER);
  ScopedEnv step_log("ROCMTUNE_FAULT_LOG", log);
  auto apply = w.Ctl({"apply", profile, "--json"});
  EXPECT_EQ(apply.exit_code, client::kExitOk) << apply.out << apply.err;
  EXPECT_EQ(apply.Json()["changed"], fs::exists(log)) << "a change is made by steps, and only a change";
  return fs::exists(log) ? WriteList(w, log, apply.Json()) : "";
}

class GoldenWritesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenWritesTest, EveryMatchingProfileWritesTheReviewedList) {
  const std::string world = GetParam();
  std::vector<std::string> profiles = MatchingBuiltinProfiles(WorldCopy(world));
  ASSERT_FALSE(profiles.empty());
  const fs::path dir = fs::path(ROCMTUNE_GOLDEN_DIR) / world;
  for (const std::string& profile : profiles) {
    SCOPED_TRACE("profile " + profile);
    std::string actual = ObservedWrites(world, profile);
    fs::path golden = dir / ("writes-" + profile + ".txt");
    if (std::getenv("ROCMTUNE_UPDATE_GOLDEN")) {
      fs::create_directories(dir);
      std::ofstream(golden, std::ios::binary) << actual;
      continue;
    }
    ASSERT_TRUE(fs::exists(golden)) << golden << " missing; run with ROCMTUNE_UPDATE_GOLDEN=1 and review";
    EXPECT_EQ(actual, ReadAll(golden)) << "the writes of " << profile << " on " << world << " differ from " << golden;
  }
  // A list for a profile that no longer fits (or no longer exists) is stale: it must go.
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string name = e.path().filename();
    if (!name.starts_with("writes-")) continue;
    std::string profile = name.substr(7, name.size() - 7 - 4);
    EXPECT_NE(std::find(profiles.begin(), profiles.end(), profile), profiles.end()) << "stale " << e.path();
  }
  if (std::getenv("ROCMTUNE_UPDATE_GOLDEN")) GTEST_SKIP() << "rewrote " << dir << "/writes-*.txt (review the diff)";
}

INSTANTIATE_TEST_SUITE_P(AllWorlds, GoldenWritesTest, ::testing::ValuesIn(WorldNames()), [](const auto& world) {
  std::string name = world.param;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
});

// The digest helper itself, against FIPS 180-2's examples: the lists are only as good as it.
TEST(Sha256Test, KnownAnswers) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

}  // namespace
}  // namespace rocmtune::testing
