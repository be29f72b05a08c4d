// Kernel command-line tokens the admin already had stay the admin's (rocmtunectl(1) "KERNEL COMMAND
// LINE"): on every boot setup, through rocmtunectl and the real helper on a world copy.
//  - the same value already there: nothing written, owner `admin`, unset/reset leave it;
//  - another value: rocmtune's token takes its place, remembered, and unset, reset and revert
//    put the admin's back byte for byte (grub-debian: the drop-in comes after it instead);
//  - the key twice, values with '=' (pci=realloc=off).
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"

namespace rocmtune::client {
namespace {

using json = nlohmann::ordered_json;
using testing::WorldCopy;

// Where a boot setup keeps the admin's command line: each file gets the admin's tokens put in
// at `anchor` ("{}" is replaced with the tokens).
struct Place {
  const char* file;
  const char* anchor;
  const char* with;
  // Written by the setup's regenerator (kernel-install's entries), which runs only on the live
  // system: prepared with the admin's tokens, never edited by rocmtune itself.
  bool regenerated = false;
};
struct BootCase {
  const char* name;
  const char* world;
  std::vector<const char*> remove;  // files taken out of the copy (grubby, for file edits)
  std::vector<Place> places;
  bool replaces = true;  // edits in place (false: grub-debian's drop-in)
  bool grubby = false;
  // The next boot is read from what a regenerator writes (grubby's and kernel-install's entries):
  // in a copy, where it does not run, the next boot lacks rocmtune's token until it does.
  bool next_boot_regenerated = false;
};

void PrintTo(const BootCase& s, std::ostream* os) { *os << s.name; }

std::vector<BootCase> BootCases() {
  return {
      {"grub_debian",
       "rx580",
       {},
       {{"etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet {}\""}},
       false},
      {"grub_upstream", "rx6900xt", {}, {{"etc/default/grub", "\"loglevel=3 quiet\"", "\"loglevel=3 {} quiet\""}}},
      {"grub_bls_files",
       "rx6600",
       {"usr/sbin/grubby"},
       {{"boot/loader/entries/8466ea9e024ef5b4c9f22e0eee9a30a8-6.11.4-301.fc41.x86_64.conf", " ro rhgb quiet",
         " ro {} rhgb quiet"},
        {"etc/default/grub", "GRUB_CMDLINE_LINUX=\"rhgb quiet\"", "GRUB_CMDLINE_LINUX=\"{} rhgb quiet\""}}},
      {"grub_bls_grubby",
       "rx6600",
       {},
       {{"boot/loader/entries/8466ea9e024ef5b4c9f22e0eee9a30a8-6.11.4-301.fc41.x86_64.conf", " ro rhgb quiet",
         " ro {} rhgb quiet"},
        {"etc/default/grub", "GRUB_CMDLINE_LINUX=\"rhgb quiet\"", "GRUB_CMDLINE_LINUX=\"{} rhgb quiet\""}},
       true,
       true,
       true},
      // The next boot is the default entry's options; /etc/kernel/cmdline is what kernel-install
      // (the regenerator rocmtune runs) writes into the entries again: both carry the tokens.
      {"kernel_install",
       "strixpoint",
       {},
       {{"etc/kernel/cmdline", " ro rhgb quiet", " ro {} rhgb quiet"},
        {"efi/loader/entries/90b4b26cc181bfaf7bb427bd2a63714e-6.14.5-300.fc42.x86_64.conf", " ro rhgb quiet",
         " ro {} rhgb quiet", true}},
       true,
       false,
       true},
  };
}

// `status`'s owner of a knob.
std::string Owner(const WorldCopy& w, std::string_view key) {
  json doc = w.Ctl({"status", "--json"}).Json();
  for (const json& k : doc["knobs"])
    if (k["key"] == key) return k["owner"];
  return "(not listed)";
}

class AdminTokens : public ::testing::TestWithParam<BootCase> {
 protected:
  // A copy of the world whose command line(s) carry `tokens`; returns each place's content.
  std::map<std::string, std::string> Prepare(WorldCopy& w, const std::string& tokens) {
    for (const char* f : GetParam().remove) std::filesystem::remove(w.Path(f));
    std::map<std::string, std::string> files;
    for (const Place& p : GetParam().places) {
      std::string content = w.Read(p.file);
      size_t at = content.find(p.anchor);
      EXPECT_NE(at, std::string::npos) << p.file << " has no " << p.anchor;
      if (at == std::string::npos) continue;
      content.replace(at, std::string_view(p.anchor).size(), fmt::format(fmt::runtime(p.with), tokens));
      w.Write(p.file, content);
      if (!p.regenerated) files[p.file] = content;
    }
    return files;
  }
  static std::map<std::string, std::string> Current(const WorldCopy& w, const std::map<std::string, std::string>& f) {
    std::map<std::string, std::string> out;
    for (const auto& [path, content] : f) out[path] = w.Read(path);
    return out;
  }
  static void ExpectNothingOfOurs(const WorldCopy& w) {
    EXPECT_FALSE(w.Exists("etc/default/grub.d/zz-rocmtune.cfg"));
    EXPECT_FALSE(w.Exists("var/lib/rocmtune/cmdline-tokens")) << w.Read("var/lib/rocmtune/cmdline-tokens");
  }
};

TEST_P(AdminTokens, SameValueIsTheAdminsAndNothingIsWritten) {
  WorldCopy w(GetParam().world);
  auto files = Prepare(w, "iommu=pt pci=realloc=off");
  auto set = w.Ctl({"set", "cmdline.iommu=pt", "cmdline.pci=realloc=off", "--json"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  json doc = set.Json();
  EXPECT_EQ(doc["changed"], false) << set.out;
  EXPECT_EQ(doc["changes"], json::array()) << set.out;
  EXPECT_EQ(Current(w, files), files);
  ExpectNothingOfOurs(w);
  EXPECT_EQ(Owner(w, "cmdline.iommu"), "admin");
  EXPECT_EQ(w.Ctl({"unset", "cmdline.iommu", "cmdline.pci"}).exit_code, kExitOk);
  auto reset = w.Ctl({"reset"});
  EXPECT_EQ(reset.exit_code, kExitOk) << reset.out << reset.err;
  EXPECT_EQ(Current(w, files), files);
  EXPECT_EQ(Owner(w, "cmdline.iommu"), "admin");
}

TEST_P(AdminTokens, SameValueTwiceIsTheAdmins) {
  WorldCopy w(GetParam().world);
  auto files = Prepare(w, "iommu=pt pci=realloc=on iommu=pt pci=realloc=off");
  auto set = w.Ctl({"set", "cmdline.iommu=pt", "cmdline.pci=realloc=off", "--json"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  json doc = set.Json();
  EXPECT_EQ(doc["changed"], false) << set.out;
  EXPECT_EQ(doc["changes"], json::array()) << set.out;
  EXPECT_EQ(w.Ctl({"reset"}).exit_code, kExitOk);
  EXPECT_EQ(Current(w, files), files);
  ExpectNothingOfOurs(w);
}

// Another value, then each way back: unset, reset, revert.
TEST_P(AdminTokens, OtherValueIsPutBackByteForByte) {
  const BootCase& s = GetParam();
  for (const char* undo : {"unset", "reset", "revert"}) {
    SCOPED_TRACE(undo);
    WorldCopy w(s.world);
    // The key twice, the last one wins: rocmtune's token takes the last one's place.
    auto files = Prepare(w, "pci=realloc=off iommu=nopt pci=realloc=on");
    auto set = w.Ctl({"set", "cmdline.iommu=pt", "cmdline.pci=realloc=off", "--json"});
    if (s.grubby) {
      // grubby's inverse removes the option: rocmtune cannot put the admin's back, so it refuses.
      EXPECT_EQ(set.exit_code, kExitRefused) << set.out << set.err;
      EXPECT_NE(set.out.find("grubby"), std::string::npos) << set.out;
      EXPECT_EQ(Current(w, files), files);
      return;
    }
    ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
    if (s.replaces) {
      for (const auto& [path, content] : files) {
        std::string expected = content;
        expected.replace(expected.find("iommu=nopt"), 10, "iommu=pt");
        expected.replace(expected.rfind("pci=realloc=on"), 14, "pci=realloc=off");
        EXPECT_EQ(w.Read(path), expected) << path << ": each in the admin's token's place";
      }
      std::string state = w.Read("var/lib/rocmtune/cmdline-tokens");
      EXPECT_NE(state.find("\niommu=pt replaced iommu=nopt\n"), std::string::npos) << state;
      EXPECT_NE(state.find("\npci=realloc=off replaced pci=realloc=on\n"), std::string::npos) << state;
    } else {
      EXPECT_EQ(Current(w, files), files) << "the drop-in comes after the admin's tokens";
      EXPECT_TRUE(w.Exists("etc/default/grub.d/zz-rocmtune.cfg"));
    }
    if (!s.next_boot_regenerated) {
      EXPECT_EQ(Owner(w, "cmdline.iommu"), "rocmtune");
    }
    std::vector<std::string> args = std::string(undo) == "unset"
                                        ? std::vector<std::string>{"unset", "cmdline.iommu", "cmdline.pci"}
                                    : std::string(undo) == "reset" ? std::vector<std::string>{"reset"}
                                                                   : std::vector<std::string>{"revert", "last"};
    auto back = w.Ctl(args);
    ASSERT_EQ(back.exit_code, kExitOk) << back.out << back.err;
    EXPECT_EQ(Current(w, files), files);
    ExpectNothingOfOurs(w);
    EXPECT_EQ(Owner(w, "cmdline.iommu"), "admin");
  }
}

// Setting the admin's own value again after a replace: the admin's token is back, nothing is ours.
// Only where rocmtune replaces the admin's token itself (ReplacingCases): Debian's drop-in appends
// instead, and grubby removes the admin's token, so rocmtune refuses there (OtherValueIsPutBackByteForByte).
class ReplacingAdminTokens : public AdminTokens {};
TEST_P(ReplacingAdminTokens, SettingTheAdminsValueAgainGivesItBack) {
  WorldCopy w(GetParam().world);
  auto files = Prepare(w, "iommu=nopt");
  ASSERT_EQ(w.Ctl({"set", "cmdline.iommu=pt"}).exit_code, kExitOk);
  ASSERT_NE(Current(w, files), files);
  auto back = w.Ctl({"set", "cmdline.iommu=nopt"});
  ASSERT_EQ(back.exit_code, kExitOk) << back.out << back.err;
  EXPECT_EQ(Current(w, files), files);
  ExpectNothingOfOurs(w);
  EXPECT_EQ(Owner(w, "cmdline.iommu"), "admin");
}

// One token rocmtune adds next to the admin's: the admin's stays after unset.
TEST_P(AdminTokens, AddedTokenLeavesTheAdminsAlone) {
  WorldCopy w(GetParam().world);
  auto files = Prepare(w, "pci=realloc=off");
  ASSERT_EQ(w.Ctl({"set", "cmdline.iommu=pt", "cmdline.pci=realloc=off"}).exit_code, kExitOk);
  // grubby and kernel-install run only on the live system, so in a copy the entries (the next
  // boot) lack the token.
  if (!GetParam().next_boot_regenerated) {
    EXPECT_EQ(Owner(w, "cmdline.iommu"), "rocmtune");
  }
  auto reset = w.Ctl({"reset"});
  ASSERT_EQ(reset.exit_code, kExitOk) << reset.out << reset.err;
  EXPECT_EQ(Current(w, files), files);
  ExpectNothingOfOurs(w);
}

std::string CaseName(const ::testing::TestParamInfo<BootCase>& param) { return param.param.name; }
INSTANTIATE_TEST_SUITE_P(BootSetups, AdminTokens, ::testing::ValuesIn(BootCases()), CaseName);

std::vector<BootCase> ReplacingCases() {
  std::vector<BootCase> cases = BootCases();
  std::erase_if(cases, [](const BootCase& c) { return !c.replaces || c.grubby; });
  return cases;
}
INSTANTIATE_TEST_SUITE_P(BootSetups, ReplacingAdminTokens, ::testing::ValuesIn(ReplacingCases()), CaseName);

// rocmtunectl --root COPY apply instinct, then reset: the admin's pci=realloc=off iommu=pt and
// the whole boot configuration are byte for byte what they were.
TEST(AdminTokensEndToEnd, ApplyInstinctThenResetOnMi300x) {
  WorldCopy w("mi300x-cpx");
  const std::vector<std::string> boot = {
      "etc/default/grub", "boot/loader/entries/e93421442d6d2fa04ad280a5d0057d32-5.14.0-427.13.1.el9_4.x86_64.conf"};
  std::map<std::string, std::string> before;
  for (const auto& f : boot) before[f] = w.Read(f);
  auto apply = w.Ctl({"apply", "instinct"});
  ASSERT_EQ(apply.exit_code, kExitOk) << apply.out << apply.err;
  EXPECT_EQ(Owner(w, "cmdline.iommu"), "admin");
  auto check = w.Ctl({"reset", "--check", "--diff"});
  EXPECT_EQ(check.out.find("-GRUB_CMDLINE_LINUX"), std::string::npos) << check.out;
  EXPECT_EQ(check.out.find("grubby"), std::string::npos) << check.out;
  auto reset = w.Ctl({"reset"});
  ASSERT_EQ(reset.exit_code, kExitOk) << reset.out << reset.err;
  for (const auto& f : boot) EXPECT_EQ(w.Read(f), before[f]) << f;
  EXPECT_FALSE(w.Exists("var/lib/rocmtune/cmdline-tokens"));
  EXPECT_EQ(Owner(w, "cmdline.iommu"), "admin");
}

}  // namespace
}  // namespace rocmtune::client
