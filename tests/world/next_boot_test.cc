// CONFIGURED is the next boot's configuration: modprobe.d plus the command line
// the boot setup gives the next boot (GRUB defaults and drop-ins, BLS entries,
// /etc/kernel/cmdline), with WHERE as file:line; RUNNING is /proc/cmdline and /sys/module. A value
// only on /proc/cmdline is running and gone after a reboot, a value the kernel rejects is
// ineffective (never "reboot pending"), and status text, status JSON and verify say the same.
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"
#include "world_names.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace rocmtune::client {
namespace {

using json = nlohmann::ordered_json;
using testing::WorldCopy;

json Status(const WorldCopy& w) {
  auto r = w.Ctl({"status", "--json"});
  EXPECT_EQ(r.exit_code, kExitOk) << r.err;
  return r.Json();
}

const json* Knob(const json& status, const std::string& key) {
  for (const json& k : status["knobs"])
    if (k["key"] == key) return &k;
  return nullptr;
}

std::string Trimmed(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// The knob table of `status`'s text, key -> {CONFIGURED, RUNNING, EFFECTIVE, OWNER, WHERE}, cut at
// the header's column starts (the table pads every column to its widest cell).
std::map<std::string, std::vector<std::string>> KnobRows(const std::string& text) {
  std::map<std::string, std::vector<std::string>> rows;
  size_t at = text.find("\nKNOB ");
  if (at == std::string::npos) return rows;
  std::istringstream in(text.substr(at + 1));
  std::string header;
  std::getline(in, header);
  std::vector<size_t> starts;
  for (const char* column : {"KNOB", "CONFIGURED", "RUNNING", "EFFECTIVE", "OWNER", "WHERE"})
    starts.push_back(header.find(column));
  for (std::string line; std::getline(in, line) && !line.empty();) {
    std::vector<std::string> cells;
    for (size_t i = 0; i < starts.size(); ++i)
      cells.push_back(
          starts[i] >= line.size()
              ? ""
              : Trimmed(line.substr(starts[i], i + 1 < starts.size() ? starts[i + 1] - starts[i] : std::string::npos)));
    std::string key = cells.front();
    cells.erase(cells.begin());
    rows[key] = cells;
  }
  return rows;
}

// A member, null when the document lacks it (an older document has no `file`, `line`, ...).
json Get(const json& doc, const char* key) { return doc.contains(key) ? doc[key] : json(nullptr); }

std::string ExpectedWhere(const json& k) {
  const json file = Get(k, "file"), line = Get(k, "line");
  if (!file.is_string()) return "-";
  return line.is_number() ? fmt::format("/{}:{}", file.get<std::string>(), line.get<int>())
                          : "/" + file.get<std::string>();
}

bool IsKnobKind(const json& d) {
  const std::string kind = d["kind"];
  return kind == "overridden" || kind == "pending-reboot" || kind == "not-running" || kind == "profile";
}

// status's text and JSON and verify agree on every knob; verify has one row per knob.
void ExpectAgreement(const WorldCopy& w, const std::string& label) {
  SCOPED_TRACE(label);
  json status = Status(w);
  auto text = w.Ctl({"status"});
  ASSERT_EQ(text.exit_code, kExitOk) << text.err;
  auto rows = KnobRows(text.out);
  ASSERT_EQ(rows.size(), status["knobs"].size()) << text.out;
  for (const json& k : status["knobs"]) {
    const std::string key = k["key"];
    ASSERT_TRUE(rows.count(key)) << key << "\n" << text.out;
    const std::vector<std::string>& row = rows[key];
    // Other verbs may add to a value (a size), never change it.
    EXPECT_TRUE(row[0].starts_with(k["configured"].is_string() ? k["configured"].get<std::string>() : "-"))
        << key << ": " << row[0] << " vs " << k;
    EXPECT_EQ(row[4], ExpectedWhere(k)) << key << ": " << k;
    EXPECT_EQ(Get(k, "file"), Get(k, "configured_in")) << k;
    const bool pending = Get(k, "pending_reboot") == true, gone = Get(k, "gone_after_reboot") == true,
               ineffective = Get(k, "ineffective") == true;
    EXPECT_EQ(row[3].find("(reboot pending)") != std::string::npos, pending) << k;
    EXPECT_EQ(row[3].find("(gone after reboot)") != std::string::npos, gone && !pending && !ineffective) << k;
    EXPECT_EQ(row[3].find("(ineffective)") != std::string::npos, ineffective) << k;
    EXPECT_FALSE(ineffective && pending) << k;
    // CONFIGURED is never what only the running kernel has.
    EXPECT_NE(Get(k, "configured_in"), "proc/cmdline") << k;
  }
  auto verify = w.Ctl({"verify", "--json"});
  ASSERT_TRUE(verify.exit_code == kExitOk || verify.exit_code == kExitVerifyDiffers) << verify.err;
  std::map<std::string, int> seen;
  // Kept in a variable: a range-for over a member of a temporary reads freed memory (ASan).
  const json verify_doc = verify.Json();
  for (const json& d : verify_doc["differences"]) {
    if (!IsKnobKind(d)) continue;
    const std::string subject = d["subject"];
    EXPECT_EQ(++seen[subject], 1) << "two verify rows for " << subject << ": " << verify.out;
    const json* k = Knob(status, subject);
    if (!k || subject.starts_with("sysfs.")) continue;
    EXPECT_EQ(d["configured"], (*k)["configured"]) << subject << ": verify " << d << " status " << *k;
  }
}

// A boot configuration carrying a module option on the next boot's command line, per boot setup.
struct NextBootCase {
  const char* name;
  const char* world;
  const char* file;  // root-relative
  int line;
  std::string (*edit)(const std::string& content);  // nullptr: the world has it already
  const char* key;
  const char* value;
};

std::string AddToQuotedLine(const std::string& content, const std::string& prefix, const std::string& token) {
  size_t at = content.find(prefix);
  if (at == std::string::npos) return content;
  size_t close = content.find('"', at + prefix.size());
  std::string out = content;
  out.insert(close, " " + token);
  return out;
}

const NextBootCase kCases[] = {
    {"grub_debian_defaults", "rx5700xt", "etc/default/grub", 10,
     [](const std::string& c) {
       return AddToQuotedLine(c, "GRUB_CMDLINE_LINUX_DEFAULT=\"", "ttm.pages_limit=4194304");
     },
     "ttm.pages_limit", "4194304"},
    {"grub_debian_dropin", "rx5700xt", "etc/default/grub.d/50-x.cfg", 2,
     [](const std::string&) {
       return std::string(
           "# the admin's\nGRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT amdgpu.noretry=0\"\n");
     },
     "amdgpu.noretry", "0"},
    {"grub_upstream", "rx6900xt", "etc/default/grub", 6,
     [](const std::string& c) { return AddToQuotedLine(c, "GRUB_CMDLINE_LINUX_DEFAULT=\"", "amdgpu.noretry=0"); },
     "amdgpu.noretry", "0"},
    {"grub_upstream_in_world", "vangogh", "etc/default/grub", 6, nullptr, "amdgpu.gttsize", "8128"},
    {"grub_bls", "rx6600", "boot/loader/entries/8466ea9e024ef5b4c9f22e0eee9a30a8-6.11.4-301.fc41.x86_64.conf", 5,
     [](const std::string& c) {
       std::string out = c;
       out.insert(out.find("rhgb quiet") + 10, " amdgpu.noretry=0");
       return out;
     },
     "amdgpu.noretry", "0"},
    // systemd-boot boots the default entry (loader.conf has none: the first in order, the only one).
    {"systemd_boot", "strixpoint", "efi/loader/entries/90b4b26cc181bfaf7bb427bd2a63714e-6.14.5-300.fc42.x86_64.conf", 7,
     [](const std::string& c) {
       std::string out = c;
       out.insert(out.find("rhgb quiet") + 10, " ttm.pages_limit=8388608");
       return out;
     },
     "ttm.pages_limit", "8388608"},
};

void Prepare(const WorldCopy& w, const NextBootCase& c) {
  if (!c.edit) return;
  w.Write(c.file, c.edit(w.Exists(c.file) ? w.Read(c.file) : ""));
}

class NextBootTest : public ::testing::TestWithParam<NextBootCase> {};

TEST_P(NextBootTest, AModuleOptionOnTheNextBootsCommandLineIsConfiguredWithFileAndLine) {
  const NextBootCase& c = GetParam();
  WorldCopy w(c.world);
  Prepare(w, c);
  json status = Status(w);
  const json* k = Knob(status, c.key);
  ASSERT_NE(k, nullptr) << status["knobs"];
  EXPECT_EQ((*k)["configured"], c.value) << *k;
  EXPECT_EQ((*k)["file"], c.file) << *k;
  EXPECT_EQ((*k)["line"], c.line) << *k;
  EXPECT_EQ((*k)["owner"], "admin") << *k;
  EXPECT_EQ((*k)["pending_reboot"], (*k)["running"] != c.value) << *k;
  auto text = w.Ctl({"status"});
  EXPECT_EQ(KnobRows(text.out)[c.key].at(4), fmt::format("/{}:{}", c.file, c.line)) << text.out;
  auto explain = w.Ctl({"explain", c.key});
  EXPECT_THAT(explain.out, HasSubstr(fmt::format("in /{}:{}", c.file, c.line))) << explain.out;
  ExpectAgreement(w, c.name);
}

INSTANTIATE_TEST_SUITE_P(BootSetups, NextBootTest, ::testing::ValuesIn(kCases),
                         [](const auto& p) { return std::string(p.param.name); });

// modprobe(8) gets the command line's `module.option=` after modprobe.d's: the command line wins,
// and the row names the file it overrides.
TEST(NextBootPrecedenceTest, TheNextBootsCommandLineWinsOverModprobeD) {
  WorldCopy w("rx5700xt");
  w.Write("etc/modprobe.d/amd.conf", "options amdgpu noretry=1\n");
  w.Write("etc/default/grub",
          AddToQuotedLine(w.Read("etc/default/grub"), "GRUB_CMDLINE_LINUX_DEFAULT=\"", "amdgpu.noretry=0"));
  json status = Status(w);
  const json* k = Knob(status, "amdgpu.noretry");
  ASSERT_NE(k, nullptr) << status["knobs"];
  EXPECT_EQ((*k)["configured"], "0") << *k;
  EXPECT_EQ((*k)["file"], "etc/default/grub") << *k;
  EXPECT_EQ((*k)["line"], 10) << *k;
  EXPECT_THAT((*k)["notes"].dump(), HasSubstr("also set to 1 in /etc/modprobe.d/amd.conf:1")) << *k;
  EXPECT_THAT((*k)["notes"].dump(), HasSubstr("the kernel command line wins over modprobe.d")) << *k;
  ExpectAgreement(w, "precedence");
}

// What only the running kernel's command line has is RUNNING, not configured, and goes at reboot.
TEST(NextBootRunningOnlyTest, AValueOnlyOnProcCmdlineIsRunningAndGoneAfterReboot) {
  WorldCopy w("rx6900xt");
  w.Write("proc/cmdline",
          w.Read("proc/cmdline").substr(0, w.Read("proc/cmdline").find('\n')) + " amdgpu.vm_update_mode=3 iommu=pt\n");
  w.Write("sys/module/amdgpu/parameters/vm_update_mode", "3\n");
  json status = Status(w);
  for (const char* key : {"amdgpu.vm_update_mode", "cmdline.iommu"}) {
    const json* k = Knob(status, key);
    ASSERT_NE(k, nullptr) << key << status["knobs"];
    EXPECT_EQ((*k)["configured"], nullptr) << *k;
    EXPECT_EQ((*k)["file"], nullptr) << *k;
    EXPECT_NE((*k)["running"], nullptr) << *k;
    EXPECT_EQ((*k)["pending_reboot"], false) << *k;
    EXPECT_EQ((*k)["gone_after_reboot"], true) << *k;
    EXPECT_THAT((*k)["notes"].dump(), HasSubstr("gone after a reboot")) << *k;
  }
  auto rows = KnobRows(w.Ctl({"status"}).out);
  EXPECT_THAT(rows["amdgpu.vm_update_mode"].at(3), HasSubstr("(gone after reboot)"));
  EXPECT_THAT(rows["cmdline.iommu"].at(3), Not(HasSubstr("reboot pending")));
  ExpectAgreement(w, "running only");
}

// amd_iommu has no "on" (drivers/iommu/amd/init.c parse_amd_iommu_options(): "Unknown option"):
// in GRUB it is ineffective with a warning, never a reboot that would make it work.
TEST(NextBootIneffectiveTest, AmdIommuOnInGrubIsIneffectiveNotPendingReboot) {
  WorldCopy w("rx6900xt");
  w.Write("etc/default/grub",
          AddToQuotedLine(w.Read("etc/default/grub"), "GRUB_CMDLINE_LINUX_DEFAULT=\"", "amd_iommu=on"));
  json status = Status(w);
  const json* k = Knob(status, "cmdline.amd_iommu");
  ASSERT_NE(k, nullptr) << status["knobs"];
  EXPECT_EQ((*k)["configured"], "on") << *k;
  EXPECT_EQ((*k)["file"], "etc/default/grub") << *k;
  EXPECT_EQ((*k)["line"], 6) << *k;
  EXPECT_EQ((*k)["pending_reboot"], false) << *k;
  EXPECT_EQ(status["pending_reboot"], false) << status;
  EXPECT_EQ((*k)["ineffective"], true) << *k;
  bool warned = false;
  for (const json& f : status["findings"])
    warned |= f["subject"] == "cmdline.amd_iommu" && f["severity"] == "warning" && f["file"] == "etc/default/grub" &&
              f["line"] == 6 && f["message"].get<std::string>().find("ineffective") != std::string::npos;
  EXPECT_TRUE(warned) << status["findings"];
  auto rows = KnobRows(w.Ctl({"status"}).out);
  EXPECT_EQ(rows["cmdline.amd_iommu"].at(3), "admin (ineffective)");
  ExpectAgreement(w, "amd_iommu=on");
}

// rocmtune's modprobe.d value under the boot configuration's: one verify row, status's CONFIGURED.
TEST(NextBootVerifyTest, VerifyHasOneRowPerKnobWithStatusesConfigured) {
  WorldCopy w("rx5700xt");
  w.Write("etc/default/grub",
          AddToQuotedLine(w.Read("etc/default/grub"), "GRUB_CMDLINE_LINUX_DEFAULT=\"", "amdgpu.vm_update_mode=3"));
  auto set = w.Ctl({"set", "amdgpu.vm_update_mode=0", "--json"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  json v = w.Ctl({"verify", "--json"}).Json();
  int rows = 0;
  for (const json& d : v["differences"])
    if (d["subject"] == "amdgpu.vm_update_mode") {
      ++rows;
      EXPECT_EQ(d["kind"], "overridden") << d;
      EXPECT_EQ(d["configured"], "3") << d;
      EXPECT_THAT(d["message"].get<std::string>(), HasSubstr("/etc/default/grub:10")) << d;
    }
  EXPECT_EQ(rows, 1) << v.dump();
  ExpectAgreement(w, "verify");
}

// Right after a profile's apply whose boot-loader regeneration waits (grubby on a Fedora world,
// left pending as on every --root tree), the command line's BLS entries still hold the old
// tokens: verify says the regeneration is pending, never that the profile's setting changed.
TEST(NextBootVerifyTest, AnApplyWaitingForItsRegenerationIsPendingNotChanged) {
  WorldCopy w("rx6600");
  w.Write("proc/meminfo", "MemTotal:       65536000 kB\n");
  auto apply = w.Ctl({"apply", "strix-halo", "--force", "--with", "sh-ttm-cmdline", "--with", "sh-amd-iommu-off"});
  ASSERT_EQ(apply.exit_code, kExitOk) << apply.out << apply.err;
  json v = w.Ctl({"verify", "--json"}).Json();
  std::set<std::string> kinds;
  for (const json& d : v["differences"]) {
    kinds.insert(d["kind"].get<std::string>());
    EXPECT_NE(d["kind"], "profile") << d;
    if (d["kind"] == "pending-regeneration" && d["subject"] == "grubby") {
      EXPECT_THAT(d["message"].get<std::string>(), HasSubstr("amd_iommu=off")) << d;
    }
  }
  EXPECT_TRUE(kinds.contains("pending-regeneration")) << v.dump();
  // Once someone else changes the profile's modprobe.d value, verify says so (the neighbour case).
  ASSERT_THAT(w.Read("etc/modprobe.d/rocmtune.conf"), HasSubstr("pages_limit="));
  ASSERT_EQ(w.Ctl({"set", "ttm.pages_limit=4000000", "--force"}).exit_code, kExitOk);
  bool changed = false;
  const json after = w.Ctl({"verify", "--json"}).Json();
  for (const json& d : after["differences"]) changed |= d["kind"] == "profile" && d["subject"] == "ttm.pages_limit";
  EXPECT_TRUE(changed);
}

// Every bundled world, as it is and with a module option of rocmtune's set: status's text and
// JSON and verify never disagree on a knob.
class NextBootAgreementTest : public ::testing::TestWithParam<std::string> {};

TEST_P(NextBootAgreementTest, StatusTextJsonAndVerifyAgree) {
  WorldCopy w(GetParam());
  ExpectAgreement(w, "as bundled");
  if (w.Ctl({"set", "amdgpu.vm_update_mode=0"}).exit_code == kExitOk) ExpectAgreement(w, "after set");
}

INSTANTIATE_TEST_SUITE_P(Worlds, NextBootAgreementTest, ::testing::ValuesIn(testing::WorldNames()), [](const auto& p) {
  std::string n = p.param;
  for (char& ch : n)
    if (ch == '-') ch = '_';
  return n;
});

}  // namespace
}  // namespace rocmtune::client
