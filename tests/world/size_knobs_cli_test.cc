// Size knobs through the built rocmtunectl on a copy of a world whose /proc/meminfo the test
// writes: page-count knobs are shown with their size (text) and in bytes (JSON), `set` refuses a
// size above the RAM unless --force, warns below the kernel's default of half the RAM, and only
// notes what it cannot check when the RAM is unknown.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"

namespace rocmtune::client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::WorldCopy;

// Strix Point (kernel 6.14): TTM's running pages_limit there is 4013917, half of this MemTotal.
constexpr const char* kSizeKnobsCliWorld = "strixpoint";
constexpr const char* kMeminfo = "MemTotal:       32111336 kB\nMemFree:         1000000 kB\n";

std::string Messages(const nlohmann::ordered_json& doc, const char* list) {
  std::string out;
  for (const auto& m : doc[list]) out += m["message"].get<std::string>() + "\n";
  return out;
}

TEST(SizeKnobsCliTest, AHugePageCountIsRefusedUnlessForced) {
  WorldCopy w(kSizeKnobsCliWorld);
  w.Write("proc/meminfo", kMeminfo);
  const auto before = w.Snapshot();
  for (const char* key : {"ttm.pages_limit", "cmdline.ttm.pages_limit"}) {
    const std::string set = std::string(key) + "=99999999999999";
    auto r = w.Ctl({"set", "--check", set});
    EXPECT_EQ(r.exit_code, kExitRefused) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr("refused: " + set +
                                 " is 363.7 PiB (99999999999999 pages of 4 KiB), more than "
                                 "this machine's RAM of 30.6 GiB"))
        << r.out;
    EXPECT_THAT(r.out, HasSubstr("The unit is pages of 4 KiB: 8 GiB is 2097152")) << r.out;

    auto j = w.Ctl({"set", "--check", "--json", set});
    EXPECT_EQ(j.exit_code, kExitRefused);
    auto doc = j.Json();
    ASSERT_EQ(doc["refused"].size(), 1u) << j.out;
    EXPECT_EQ(doc["refused"][0]["key"], key);
    EXPECT_THAT(Messages(doc, "refused"), HasSubstr("more than this machine's RAM"));

    auto forced = w.Ctl({"set", "--check", "--force", "--json", set});
    EXPECT_EQ(forced.exit_code, kExitOk) << forced.out << forced.err;
    EXPECT_TRUE(forced.Json()["refused"].empty()) << forced.out;
    EXPECT_THAT(Messages(forced.Json(), "warnings"), HasSubstr("more than this machine's RAM")) << forced.out;
  }
  EXPECT_EQ(testing::ChangedPaths(before, w.Snapshot(), true), std::vector<std::string>{}) << "--check wrote";
}

// One page (or anything under 1 GiB) is a unit mistake: refused like a size above the RAM, with
// the unit said, and --force writes it anyway; 1 GiB and more below half the RAM is a warning.
TEST(SizeKnobsCliTest, OnePageIsRefusedUnlessForcedAndASmallSizeWarns) {
  WorldCopy w(kSizeKnobsCliWorld);
  w.Write("proc/meminfo", kMeminfo);
  auto r = w.Ctl({"set", "--check", "ttm.pages_limit=1"});
  EXPECT_EQ(r.exit_code, kExitRefused) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("refused: ttm.pages_limit=1 limits what TTM lets GPUs take from system memory "
                               "(amdgpu's GTT follows pages_limit since 6.5) to 4 KiB (1 page of 4 KiB), under 1 GiB"))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("source: drivers/gpu/drm/ttm/ttm_device.c ttm_global_init()")) << r.out;
  auto forced = w.Ctl({"set", "--check", "--force", "--json", "ttm.pages_limit=1"});
  EXPECT_EQ(forced.exit_code, kExitOk) << forced.out << forced.err;
  EXPECT_THAT(Messages(forced.Json(), "warnings"), HasSubstr("under 1 GiB")) << forced.out;
  auto small = w.Ctl({"set", "--check", "ttm.pages_limit=262144"});
  EXPECT_EQ(small.exit_code, kExitOk) << small.out << small.err;
  EXPECT_THAT(small.out, HasSubstr("warning: ttm.pages_limit=262144 limits what TTM lets GPUs take from system memory "
                                   "(amdgpu's GTT follows pages_limit since 6.5) to 1 GiB (262144 pages of 4 KiB), "
                                   "below the kernel's default of half the RAM: 15.3 GiB of 30.6 GiB"))
      << small.out;
  auto doc = w.Ctl({"set", "--check", "--json", "amdgpu.gttsize=0"}).Json();
  EXPECT_THAT(Messages(doc, "refused"), HasSubstr("amdgpu.gttsize=0 limits amdgpu's GTT (the system memory a GPU "
                                                  "can map) to 0 bytes (0 MiB)"))
      << doc.dump();
}

TEST(SizeKnobsCliTest, PlanStatusAndExplainShowTheSize) {
  WorldCopy w(kSizeKnobsCliWorld);
  w.Write("proc/meminfo", kMeminfo);
  auto plan = w.Ctl({"set", "--check", "ttm.pages_limit=5242880"});
  EXPECT_EQ(plan.exit_code, kExitOk) << plan.out << plan.err;
  EXPECT_THAT(plan.out, HasSubstr("note: ttm.pages_limit=5242880 is 20 GiB (5242880 pages of 4 KiB)")) << plan.out;
  EXPECT_THAT(Messages(w.Ctl({"set", "--check", "--json", "ttm.pages_limit=5242880"}).Json(), "notes"),
              HasSubstr("is 20 GiB"));

  w.Write("etc/modprobe.d/gtt.conf", "options ttm pages_limit=3047936\n");
  auto status = w.Ctl({"status"});
  EXPECT_EQ(status.exit_code, kExitOk) << status.err;
  EXPECT_THAT(status.out, HasSubstr("3047936 (11.6 GiB)")) << status.out;
  EXPECT_THAT(status.out, HasSubstr("4013917 (15.3 GiB)")) << status.out;  // running
  // The admin's 11.6 GiB is below half of this RAM: a finding with the file and line.
  EXPECT_THAT(status.out, HasSubstr("ttm.pages_limit=3047936 limits what TTM lets GPUs take")) << status.out;
  EXPECT_THAT(status.out, HasSubstr("/etc/modprobe.d/gtt.conf:1")) << status.out;

  auto doc = w.Ctl({"status", "--json"}).Json();
  bool seen = false;
  for (const auto& k : doc["knobs"]) {
    if (k["key"] == "ttm.pages_limit") {
      seen = true;
      EXPECT_EQ(k["unit"], "page");
      EXPECT_EQ(k["configured_bytes"], 3047936ULL * 4096) << k.dump();
      EXPECT_EQ(k["running_bytes"], 4013917ULL * 4096) << k.dump();
      EXPECT_EQ(k["effective_bytes"], 4013917ULL * 4096) << k.dump();
    } else {
      EXPECT_FALSE(k.contains("configured_bytes")) << k.dump();  // only size knobs have sizes
    }
  }
  EXPECT_TRUE(seen) << doc.dump();

  auto explain = w.Ctl({"explain", "ttm.pages_limit"});
  EXPECT_THAT(explain.out, HasSubstr("configured: 3047936 (11.6 GiB) in /etc/modprobe.d/gtt.conf")) << explain.out;
  EXPECT_THAT(explain.out, HasSubstr("a size in pages of 4 KiB: 8 GiB is 2097152")) << explain.out;
  auto ej = w.Ctl({"explain", "--json", "ttm.pages_limit"}).Json();
  EXPECT_EQ(ej["configured_bytes"], 3047936ULL * 4096) << ej.dump();
  EXPECT_EQ(ej["unit"], "page");

  // GTT follows pages_limit on 6.14: amdgpu.gttsize's effective value is that size in MiB.
  auto gtt = w.Ctl({"explain", "--json", "amdgpu.gttsize"}).Json();
  EXPECT_EQ(gtt["unit"], "MiB");
  EXPECT_EQ(gtt["running_bytes"], nullptr) << "-1 is auto, not a size: " << gtt.dump();
  EXPECT_EQ(gtt["effective_bytes"], 4013917ULL * 4096 / (1 << 20) * (1 << 20)) << gtt.dump();
}

TEST(SizeKnobsCliTest, UnknownRamIsANoteNotARefusal) {
  WorldCopy w(kSizeKnobsCliWorld);  // the world has no proc/meminfo
  auto r = w.Ctl({"set", "--check", "ttm.pages_limit=99999999999999"});
  EXPECT_EQ(r.exit_code, kExitOk) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("note: ttm.pages_limit=99999999999999 is 363.7 PiB (99999999999999 pages of 4 KiB); "
                               "it cannot be checked against the RAM: no usable MemTotal line in " +
                               w.root() + "/proc/meminfo"))
      << r.out;
  EXPECT_THAT(r.out, Not(HasSubstr("refused"))) << r.out;
}

}  // namespace
}  // namespace rocmtune::client

namespace rocmtune::client {
namespace {

TEST(SizeKnobsCliTest, VerifyGivesTheBytesOfBothSides) {
  WorldCopy w(kSizeKnobsCliWorld);
  w.Write("proc/meminfo", kMeminfo);
  auto set = w.Ctl({"set", "ttm.pages_limit=5242880"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  auto doc = w.Ctl({"verify", "--json"}).Json();
  bool seen = false;
  for (const auto& d : doc["differences"]) {
    if (d["subject"] != "ttm.pages_limit") continue;
    seen = true;
    EXPECT_EQ(d["kind"], "pending-reboot");
    EXPECT_EQ(d["unit"], "page");
    EXPECT_EQ(d["configured_bytes"], 20ULL << 30) << d.dump();
    EXPECT_EQ(d["running_bytes"], 4013917ULL * 4096) << d.dump();
  }
  EXPECT_TRUE(seen) << doc.dump();
}

}  // namespace
}  // namespace rocmtune::client
