// The smaller holes of the CLI, each through the built rocmtunectl:
// reapply takes a dash-led or empty instance as CARD and refuses it (rocmtune-apply@.service
// passes `-- %I`); `doctor --log` refuses what is not a regular file or stdin at once (a FIFO
// used to block it forever); a user who may not write a --root tree gets exit 4 and the way out
// for every change, not the first write's "Permission denied".
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"

namespace fs = std::filesystem;

namespace rocmtune::client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::WorldCopy;

constexpr const char* kSmallHolesCliWorld = "rx6900xt";
constexpr const char* kProfileAttr = "sys/devices/pci0000:00/0000:0c:00.0/pp_power_profile_mode";

TEST(SmallHolesCliTest, ReapplyRefusesADashLedOrEmptyCardEvenAfterDoubleDash) {
  WorldCopy w(kSmallHolesCliWorld);
  const std::string untouched = w.Read(kProfileAttr);
  ASSERT_EQ(w.Ctl({"set", "sysfs.card0.pp_power_profile_mode=COMPUTE"}).exit_code, kExitOk);
  w.Write(kProfileAttr, untouched);  // a GPU reset: reapply has something to write
  const size_t journals = w.JournalFiles();
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"reapply", "--", "--force"},
                                             {"reapply", "--", "-x"},
                                             {"reapply", ""},
                                             {"reapply", "--", ""},
                                             {"reapply", "-x"},
                                             {"reapply", "--json", "--", "--check"}}) {
    auto r = w.Ctl(args);
    std::string shown = fmt::format("{}", fmt::join(args, " "));
    EXPECT_EQ(r.exit_code, kExitUsage) << shown << ": " << r.out << r.err;
    EXPECT_THAT(r.err, Not(HasSubstr("Transaction"))) << shown;
    EXPECT_EQ(w.JournalFiles(), journals) << shown << " wrote a transaction";
    EXPECT_EQ(w.Read(kProfileAttr), untouched) << shown << " wrote the attribute";
  }
  auto message = w.Ctl({"reapply", "--", "--force"});
  EXPECT_THAT(message.err, HasSubstr("'--force' is not a card")) << message.err;
  auto json = w.Ctl({"reapply", "--json", "--", "--force"});
  EXPECT_EQ(json.Json()["schema"], "rocmtune.error.v1") << json.out;
  // What the unit runs for a real card still works.
  auto card = w.Ctl({"reapply", "--", "card0"});
  EXPECT_EQ(card.exit_code, kExitOk) << card.out << card.err;
  EXPECT_NE(w.Read(kProfileAttr), untouched);
}

// `timeout 5 rocmtunectl --root ROOT ARGS` through the shell: its exit code (124: still
// running after 5 s) and how long it took.
struct Timed {
  int exit_code = -1;
  std::chrono::steady_clock::duration took{};
};
Timed RunWithTimeout(const WorldCopy& w, const std::string& args, const std::string& stdin_text = "") {
  std::string input = fs::path(w.root()).parent_path() / "stdin";
  FILE* f = std::fopen(input.c_str(), "w");
  if (f) {
    std::fputs(stdin_text.c_str(), f);
    std::fclose(f);
  }
  std::string cmd =
      fmt::format("timeout 5 '{}' --root '{}' {} <'{}' >/dev/null 2>&1", ROCMTUNECTL, w.root(), args, input);
  auto start = std::chrono::steady_clock::now();
  int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, std::chrono::steady_clock::now() - start};
}

TEST(SmallHolesCliTest, DoctorLogTakesOnlyARegularFileOrStdinAndRefusesAFifoAtOnce) {
  if (std::system("timeout --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "timeout (coreutils) is not installed";
  WorldCopy w(kSmallHolesCliWorld);
  const fs::path scratch = fs::path(w.root()).parent_path();
  const std::string fifo = scratch / "log.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The old code blocked in fopen() on the FIFO until a writer came: timeout's 124.
  Timed on_fifo = RunWithTimeout(w, fmt::format("doctor --log '{}'", fifo));
  EXPECT_EQ(on_fifo.exit_code, kExitUsage);
  EXPECT_LT(on_fifo.took, std::chrono::seconds(4));
  for (const std::string& other : {std::string("/dev/null"), scratch.string()}) {
    auto r = w.Ctl({"doctor", "--log", other});
    EXPECT_EQ(r.exit_code, kExitUsage) << other << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("not a regular file")) << other;
  }
  // Larger than 16 MiB: refused, not cut.
  const std::string big = scratch / "big.log";
  std::ofstream(big).put('x');
  fs::resize_file(big, (16u << 20) + 1);
  auto too_big = w.Ctl({"doctor", "--log", big});
  EXPECT_EQ(too_big.exit_code, kExitUsage) << too_big.err;
  EXPECT_THAT(too_big.err, HasSubstr("larger than 16 MiB")) << too_big.err;
  // A regular file (also through a symlink) and stdin are read as before.
  std::ofstream(scratch / "crash.log") << "amdgpu: GPU reset begin!\n";
  fs::create_symlink(scratch / "crash.log", scratch / "crash-link.log");
  for (const std::string& log : {(scratch / "crash.log").string(), (scratch / "crash-link.log").string()}) {
    auto r = w.Ctl({"doctor", "--json", "--log", log});
    EXPECT_TRUE(r.exit_code == kExitOk || r.exit_code == kExitFailed) << log << ": " << r.err;
    EXPECT_EQ(r.Json()["schema"], "rocmtune.doctor.v1") << log << ": " << r.out << r.err;
  }
  Timed on_stdin = RunWithTimeout(w, "doctor --log -", "amdgpu: GPU reset begin!\n");
  EXPECT_TRUE(on_stdin.exit_code == kExitOk || on_stdin.exit_code == kExitFailed) << on_stdin.exit_code;
}

// A copy of a world owned by root, changed by uid 65534: every change stops at exit 4 with the
// way out, and nothing in the tree changes. The helper is a copy that user can run.
TEST(SmallHolesCliTest, AChangeToATreeTheUserMayNotWriteIsNotAuthorized) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run rocmtunectl as uid 65534";
  WorldCopy w(kSmallHolesCliWorld);
  const std::string untouched = w.Read(kProfileAttr);
  // As root: something set, so that unset, revert, reset and reapply have work to do.
  ASSERT_EQ(w.Ctl({"set", "cmdline.iommu=pt", "sysfs.card0.pp_power_profile_mode=COMPUTE"}).exit_code, kExitOk);
  w.Write(kProfileAttr, untouched);
  auto profiles = testing::MatchingBuiltinProfiles(w);
  ASSERT_FALSE(profiles.empty());
  const fs::path scratch = fs::path(w.root()).parent_path();
  const std::string helper = testing::ReachableCopy(ROCMTUNE_HELPER_BINARY, (scratch / "bin").string());
  ::setenv("ROCMTUNE_HELPER", helper.c_str(), 1);
  const auto before = w.Snapshot();
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"set", "sysfs.card0.power_dpm_force_performance_level=high"},
                                             {"unset", "cmdline.iommu"},
                                             {"apply", profiles.front()},
                                             {"revert", "last"},
                                             {"reset"},
                                             {"reapply"},
                                             {"reapply", "card0"}}) {
    std::string shown = fmt::format("{}", fmt::join(args, " "));
    auto r = w.Ctl(args, /*as_nobody=*/true);
    if (r.exit_code == testing::kCannotDropPrivileges) GTEST_SKIP() << "cannot drop privileges to uid 65534 here";
    EXPECT_EQ(r.exit_code, kExitNotAuthorized) << shown << ": " << r.out << r.err;
    EXPECT_THAT(r.out + r.err, HasSubstr("run it as the tree's owner or with sudo")) << shown;
    EXPECT_THAT(r.out + r.err, Not(HasSubstr("Permission denied"))) << shown;
    std::vector<std::string> json_args = args;
    json_args.push_back("--json");
    auto j = w.Ctl(json_args, true);
    EXPECT_EQ(j.exit_code, kExitNotAuthorized) << shown << " --json: " << j.out << j.err;
  }
  ::unsetenv("ROCMTUNE_HELPER");
  EXPECT_EQ(testing::ChangedPaths(before, w.Snapshot(), true), std::vector<std::string>{});
}

// Security review 3, item 7: `sudo -E rocmtunectl ...` kept the caller's ROCMTUNE_HELPER, and the
// installed client ran that program as root. Now an installed client (here: a copy outside the
// build tree) run as root ignores it and says so; the build tree's client still honours it.
TEST(SmallHolesCliTest, AnInstalledClientRunAsRootIgnoresRocmtuneHelper) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root: the variable is ignored only by a client running as root";
  testing::WorldCopy w("rx5700xt");
  const fs::path scratch = fs::path(w.root()).parent_path();
  const std::string installed = testing::ReachableCopy(ROCMTUNECTL, (scratch / "installed").string());
  const fs::path marker = scratch / "ran-as-root", helper = scratch / "not-the-helper";
  {
    std::ofstream script(helper);
    script << "#!/bin/sh\ntouch '" << marker.string() << "'\nexit 1\n";
  }
  fs::permissions(helper, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  const fs::path err = scratch / "err";
  auto run = [&](const std::string& ctl) {
    std::string command =
        fmt::format("ROCMTUNE_HELPER='{}' '{}' --root '{}' set amdgpu.noretry=1 </dev/null >/dev/null 2>'{}'",
                    helper.string(), ctl, w.root(), err.string());
    return std::system(command.c_str());
  };
  (void)run(installed);
  EXPECT_FALSE(fs::exists(marker)) << "the installed client ran $ROCMTUNE_HELPER as root";
  std::ifstream in(err);
  std::string said((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(said, ::testing::HasSubstr("ROCMTUNE_HELPER is ignored")) << said;

  EXPECT_NE(run(ROCMTUNECTL), 0);
  EXPECT_TRUE(fs::exists(marker)) << "the build tree's client no longer honours ROCMTUNE_HELPER (tests rely on it)";
}

}  // namespace
}  // namespace rocmtune::client
