// Image-based systems on worlds made by Debian's real ostree tool (tests/support/ostree_world.h):
// rpm-ostree's deployments take kernel arguments through `rpm-ostree kargs` (never GRUB's
// defaults, grubby or dracut), CONFIGURED is the default deployment's entry and RUNNING
// /proc/cmdline, a change and its revert leave every file as it was, --trial is refused with
// what to do instead; bootc's systems are read and their changes refused with the command to run.
#include "ostree_world.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"
#include "staged_deployment_writer.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

namespace rocmtune::client::ostree_worlds {
namespace {

using json = nlohmann::ordered_json;
using testing::MakeOstreeWorld;
using testing::OstreeWorldSpec;
using testing::WorldCopy;

// Fedora 41 with an RX 6600 (GRUB with BLS, dracut, grubby): what Silverblue's /usr and /etc
// look like besides the deployments.
constexpr const char* kBase = "rx6600";
constexpr const char* kRoot = "root=UUID=439868dc-c5d4-4754-8106-ac392fe377cd";

#define SKIP_WITHOUT_OSTREE()                                          \
  do {                                                                 \
    if (auto why = testing::OstreeUnavailable()) GTEST_SKIP() << *why; \
  } while (0)

struct OstreeWorld {
  explicit OstreeWorld(const OstreeWorldSpec& spec) : w(kBase) { MakeOstreeWorld(w.root(), spec); }
  WorldCopy w;
};

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

std::vector<std::vector<std::string>> Commands(const json& result) {
  std::vector<std::vector<std::string>> out;
  for (const json& c : result["changes"])
    if (c.contains("argv")) out.push_back(c["argv"].get<std::vector<std::string>>());
  return out;
}

std::vector<std::string> Paths(const json& result) {
  std::vector<std::string> out;
  for (const json& c : result["changes"])
    if (!c.contains("argv")) out.push_back(c["path"]);
  return out;
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(OstreeWorldTest, SilverblueIsRpmOstreeInStatusTextAndJson) {
  SKIP_WITHOUT_OSTREE();
  OstreeWorld o({});
  json s = Status(o.w);
  EXPECT_EQ(s["system"]["boot"], "rpm-ostree") << s["system"].dump();
  EXPECT_EQ(s["system"]["initramfs"], "rpm-ostree-initramfs-etc");
  EXPECT_THAT(s["system"]["boot_evidence"].dump(), HasSubstr("run/ostree-booted"));
  auto text = o.w.Ctl({"status"});
  EXPECT_THAT(text.out, HasSubstr("Boot:    rpm-ostree (initramfs: rpm-ostree-initramfs-etc)"));
  // The same tree without the flag ostree-prepare-root leaves is what it was before: grub-bls.
  fs::remove(o.w.Path("run/ostree-booted"));
  EXPECT_EQ(Status(o.w)["system"]["boot"], "grub-bls");
}

// Two deployments; the machine booted the older (rollback) one. ostree names the default's entry
// ostree-2-fedora.conf (version 2, index 0): CONFIGURED is read there, RUNNING from /proc/cmdline.
TEST(OstreeWorldTest, ConfiguredIsTheDefaultDeploymentsEntryRunningIsProcCmdline) {
  SKIP_WITHOUT_OSTREE();
  OstreeWorldSpec spec;
  spec.kargs = {{kRoot, "rw", "iommu=off"}, {kRoot, "rw", "iommu=pt", "amdgpu.noretry=0"}};
  spec.booted_index = 0;
  OstreeWorld o(spec);
  ASSERT_TRUE(o.w.Exists("boot/loader/entries/ostree-2-fedora.conf"));
  ASSERT_THAT(o.w.Read("boot/loader/entries/ostree-2-fedora.conf"), HasSubstr("iommu=pt"));
  ASSERT_THAT(o.w.Read("proc/cmdline"), HasSubstr("iommu=off"));
  json s = Status(o.w);
  const json* iommu = Knob(s, "cmdline.iommu");
  ASSERT_NE(iommu, nullptr) << s["knobs"].dump();
  EXPECT_EQ((*iommu)["configured"], "pt");
  EXPECT_EQ((*iommu)["running"], "off");
  EXPECT_EQ((*iommu)["configured_in"], "boot/loader/entries/ostree-2-fedora.conf");
  EXPECT_EQ((*iommu)["pending_reboot"], true);
  const json* noretry = Knob(s, "amdgpu.noretry");
  ASSERT_NE(noretry, nullptr);
  EXPECT_EQ((*noretry)["configured"], "0");

  // A staged deployment rocmtune cannot read: the next boot is unknown, with why.
  o.w.Write("run/ostree/staged-deployment", std::string("\x01\x02not read\0", 12));
  json staged = Status(o.w);
  const json* unknown = Knob(staged, "cmdline.iommu");
  ASSERT_NE(unknown, nullptr);
  EXPECT_TRUE((*unknown)["configured"].is_null()) << unknown->dump();
  auto set = o.w.Ctl({"set", "cmdline.iommu=nopt", "--check", "--json"});
  EXPECT_EQ(set.exit_code, kExitRefused) << set.out;
  EXPECT_THAT(set.out, HasSubstr("a deployment is staged and rocmtune cannot read it"));
  EXPECT_THAT(set.out, HasSubstr("normal form"));
}

// What `rpm-ostree kargs` leaves until shutdown: a staged deployment whose "kargs" boot next.
// CONFIGURED is read there, and a change is planned against it (rpm-ostree kargs changes the
// pending deployment); locked, ostree leaves it at shutdown and the default entry boots.
TEST(OstreeWorldTest, ConfiguredIsTheStagedDeploymentsArguments) {
  SKIP_WITHOUT_OSTREE();
  OstreeWorldSpec spec;
  spec.kargs = {{kRoot, "rw", "iommu=off"}, {kRoot, "rw", "iommu=pt"}};
  OstreeWorld o(spec);
  testing::StagedSpec staged;
  std::vector<std::string> names = testing::DeploymentNames(o.w.root());
  ASSERT_EQ(names.size(), 2u);
  staged.name = names.back() + "0";  // a new serial of the same commit
  staged.merge_name = names.back();
  staged.kargs = std::vector<std::string>{kRoot, "rw", "iommu=soft", "amdgpu.noretry=0"};
  testing::WriteStagedDeployment(o.w.root(), staged);
  json s = Status(o.w);
  const json* iommu = Knob(s, "cmdline.iommu");
  ASSERT_NE(iommu, nullptr) << s["knobs"].dump();
  EXPECT_EQ((*iommu)["configured"], "soft") << iommu->dump();
  EXPECT_EQ((*iommu)["running"], "pt");
  EXPECT_EQ((*iommu)["configured_in"], "run/ostree/staged-deployment");
  const json* noretry = Knob(s, "amdgpu.noretry");
  ASSERT_NE(noretry, nullptr);
  EXPECT_EQ((*noretry)["configured"], "0");
  auto set = o.w.Ctl({"set", "cmdline.iommu=nopt", "amdgpu.runpm=0", "--check", "--json"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  EXPECT_EQ(Commands(set.Json()), (std::vector<std::vector<std::string>>{
                                      {"rpm-ostree", "initramfs-etc", "--track=/etc/modprobe.d/rocmtune.conf"},
                                      {"rpm-ostree", "kargs", "--replace=iommu=soft=nopt"}}))
      << set.out;

  // No "kargs": the merge deployment's entry (the older one here, iommu=off).
  staged.kargs.reset();
  staged.merge_name = names.front();
  testing::WriteStagedDeployment(o.w.root(), staged);
  json merged_status = Status(o.w);
  const json* merged = Knob(merged_status, "cmdline.iommu");
  ASSERT_NE(merged, nullptr);
  EXPECT_EQ((*merged)["configured"], "off") << merged->dump();

  // Locked (the lock file, or "locked" in the variant): the default entry boots next.
  staged.kargs = std::vector<std::string>{kRoot, "iommu=soft"};
  testing::WriteStagedDeployment(o.w.root(), staged);
  o.w.Write("run/ostree/staged-deployment-locked", "");
  json locked_status = Status(o.w);
  const json* locked = Knob(locked_status, "cmdline.iommu");
  ASSERT_NE(locked, nullptr);
  EXPECT_EQ((*locked)["configured"], "pt") << locked->dump();
}

TEST(OstreeWorldTest, SetPlansRpmOstreeKargsAndNoGrubOrDracut) {
  SKIP_WITHOUT_OSTREE();
  OstreeWorld o({});
  auto r = o.w.Ctl({"set", "cmdline.iommu=pt", "amdgpu.noretry=0", "--check", "--json"});
  ASSERT_EQ(r.exit_code, kExitOk) << r.out << r.err;
  json doc = r.Json();
  EXPECT_EQ(Commands(doc), (std::vector<std::vector<std::string>>{
                               {"rpm-ostree", "initramfs-etc", "--track=/etc/modprobe.d/rocmtune.conf"},
                               {"rpm-ostree", "kargs", "--append=iommu=pt"}}))
      << doc["changes"].dump();
  EXPECT_EQ(Paths(doc), (std::vector<std::string>{"etc/modprobe.d/rocmtune.conf", "var/lib/rocmtune/cmdline-tokens"}));
  EXPECT_THAT(r.out, Not(HasSubstr("grubby")));
  EXPECT_THAT(r.out, Not(HasSubstr("dracut")));
  EXPECT_THAT(r.out, Not(HasSubstr("etc/default/grub")));
}

// The --check --diff text of `set cmdline.iommu=pt`, reviewed: tests/golden/ostree/.
TEST(OstreeWorldTest, SetIommuCheckDiffIsTheReviewedPlan) {
  SKIP_WITHOUT_OSTREE();
  for (const bool bootc : {false, true}) {
    OstreeWorldSpec spec;
    spec.bootc = bootc;
    OstreeWorld o(spec);
    auto r = o.w.Ctl({"set", "cmdline.iommu=pt", "--check", "--diff"});
    EXPECT_EQ(r.exit_code, kExitOk) << r.out << r.err;
    const fs::path golden =
        fs::path(ROCMTUNE_GOLDEN_DIR) / "ostree" / (bootc ? "bootc-set-iommu.txt" : "silverblue-set-iommu.txt");
    const std::string actual = r.out + r.err;
    if (std::getenv("ROCMTUNE_UPDATE_GOLDEN")) {
      fs::create_directories(golden.parent_path());
      std::ofstream(golden, std::ios::binary) << actual;
      continue;
    }
    ASSERT_TRUE(fs::exists(golden)) << golden << " missing; run with ROCMTUNE_UPDATE_GOLDEN=1 and review";
    EXPECT_EQ(actual, ReadAll(golden));
  }
}

// Through the real helper: the files rocmtune writes on apply (its drop-in, its record) and
// the commands its revert plans are the exact opposites; the tree ends byte for byte as it began.
TEST(OstreeWorldTest, SetAndRevertThroughTheHelperLeaveTheTreeAsItWas) {
  SKIP_WITHOUT_OSTREE();
  OstreeWorldSpec spec;
  spec.kargs = {{kRoot, "rw", "iommu=off"}};
  OstreeWorld o(spec);
  auto original = o.w.Snapshot();
  auto set = o.w.Ctl({"set", "cmdline.iommu=pt", "amdgpu.noretry=0", "--json"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  json doc = set.Json();
  EXPECT_EQ(doc["regenerated"]["bootloader"], "pending") << "a world is not the running system";
  EXPECT_EQ(doc["regenerated"]["initramfs"], "pending");
  // The admin's iommu=off is replaced, and remembered to be put back.
  EXPECT_EQ(Commands(doc), (std::vector<std::vector<std::string>>{
                               {"rpm-ostree", "initramfs-etc", "--track=/etc/modprobe.d/rocmtune.conf"},
                               {"rpm-ostree", "kargs", "--replace=iommu=off=pt"}}));
  EXPECT_THAT(o.w.Read("var/lib/rocmtune/cmdline-tokens"), HasSubstr("\niommu=pt replaced iommu=off\n"));
  EXPECT_TRUE(o.w.Exists("etc/modprobe.d/rocmtune.conf"));

  auto revert = o.w.Ctl({"revert", "last", "--json"});
  ASSERT_EQ(revert.exit_code, kExitOk) << revert.out << revert.err;
  json r = revert.Json();
  EXPECT_EQ(Commands(r), (std::vector<std::vector<std::string>>{
                             {"rpm-ostree", "initramfs-etc", "--untrack=/etc/modprobe.d/rocmtune.conf"},
                             {"rpm-ostree", "kargs", "--replace=iommu=pt=off"}}))
      << r["changes"].dump();
  EXPECT_EQ(testing::ChangedPaths(original, o.w.Snapshot(), false, {"var/lib/rocmtune"}),
            (std::vector<std::string>{"var", "var/lib"}));

  // rpm-ostree changes by its arguments: the set's run and the revert's both wait (a --root tree
  // runs neither), each its own row, though the files are back as they were.
  auto verify = o.w.Ctl({"verify", "--json"});
  json v = verify.Json();
  std::vector<std::string> pending;
  for (const json& d : v["differences"])
    if (d["kind"] == "pending-regeneration") pending.push_back(d["subject"].get<std::string>());
  EXPECT_EQ(std::count(pending.begin(), pending.end(), "rpm-ostree-kargs"), 2) << verify.out;
  EXPECT_EQ(std::count(pending.begin(), pending.end(), "rpm-ostree-initramfs-etc"), 2) << verify.out;
}

// unset of rocmtune's own token deletes exactly it, once rpm-ostree has made it the default
// deployment's; while the default deployment lacks it, nothing is deleted and the record goes.
TEST(OstreeWorldTest, UnsetDeletesOnlyRocmtunesArgument) {
  SKIP_WITHOUT_OSTREE();
  OstreeWorld o({});
  ASSERT_EQ(o.w.Ctl({"set", "cmdline.iommu=pt"}).exit_code, kExitOk);
  auto stale = o.w.Ctl({"unset", "cmdline.iommu", "--check", "--json"});
  ASSERT_EQ(stale.exit_code, kExitOk) << stale.out;
  EXPECT_EQ(Commands(stale.Json()), (std::vector<std::vector<std::string>>{}));
  EXPECT_THAT(stale.out, HasSubstr("instead of rocmtune's iommu=pt"));
  // What `rpm-ostree kargs --append=iommu=pt` leaves: the default entry with it last.
  const std::string entry = "boot/loader/entries/ostree-1-fedora.conf";
  std::string text = o.w.Read(entry);
  text.insert(text.find('\n', text.find("\noptions ") + 1), " iommu=pt");
  o.w.Write(entry, text);
  auto unset = o.w.Ctl({"unset", "cmdline.iommu", "--check", "--json"});
  ASSERT_EQ(unset.exit_code, kExitOk) << unset.out;
  EXPECT_EQ(Commands(unset.Json()),
            (std::vector<std::vector<std::string>>{{"rpm-ostree", "kargs", "--delete=iommu=pt"}}));
  EXPECT_EQ(Paths(unset.Json()), (std::vector<std::string>{"var/lib/rocmtune/cmdline-tokens"}));
}

TEST(OstreeWorldTest, TrialIsRefusedWithWhatToDoInstead) {
  SKIP_WITHOUT_OSTREE();
  OstreeWorld o({});
  auto r = o.w.Ctl({"set", "cmdline.iommu=pt", "--trial", "--check"});
  EXPECT_EQ(r.exit_code, kExitRefused) << r.out << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr("rpm-ostree rollback"));
  EXPECT_THAT(r.out + r.err, HasSubstr("previous deployment"));
}

std::vector<std::string> Bootc(std::vector<std::string> options) {
  std::vector<std::string> argv = {"bootc", "loader-entries", "set-options-for-source", "--source", "rocmtune"};
  argv.insert(argv.end(), options.begin(), options.end());
  return argv;
}

TEST(OstreeWorldTest, BootcIsReadAndAnOldBootcsChangesRefusedWithTheCommand) {
  SKIP_WITHOUT_OSTREE();
  OstreeWorldSpec spec;
  spec.bootc = true;
  spec.bootc_version = "1.15.1";
  spec.kargs = {{kRoot, "rw", "iommu=pt"}};
  OstreeWorld o(spec);
  json s = Status(o.w);
  EXPECT_EQ(s["system"]["boot"], "bootc");
  const json* iommu = Knob(s, "cmdline.iommu");
  ASSERT_NE(iommu, nullptr);
  EXPECT_EQ((*iommu)["configured"], "pt");
  EXPECT_EQ((*iommu)["owner"], "admin");
  // bootc's source key in the default entry: rocmtune's own.
  const std::string entry = "boot/loader/entries/ostree-1-fedora.conf";
  o.w.Write(entry, o.w.Read(entry) + "x-options-source-rocmtune iommu=pt\n");
  json owned = Status(o.w);
  const json* mine = Knob(owned, "cmdline.iommu");
  ASSERT_NE(mine, nullptr);
  EXPECT_EQ((*mine)["owner"], "rocmtune");
  auto r = o.w.Ctl({"set", "cmdline.amd_iommu=off", "--check"});
  EXPECT_EQ(r.exit_code, kExitRefused);
  EXPECT_THAT(r.out + r.err, HasSubstr("bootc loader-entries set-options-for-source --source rocmtune --options "
                                       "\"iommu=pt amd_iommu=off\""));
  EXPECT_THAT(r.out + r.err, HasSubstr("/usr/lib/bootc/kargs.d/90-rocmtune.toml"));
  EXPECT_THAT(r.out + r.err, HasSubstr("the installed bootc is 1.15.1 (1.15.1-1.fc41)"));
}

// bootc new enough but ostree too old (bootc refuses set-options-for-source below 2026.1), or
// versions rocmtune cannot read: refused with the command and kargs.d, one step either side.
TEST(OstreeWorldTest, BootcsSourceNeedsOstree2026AndKnownVersions) {
  SKIP_WITHOUT_OSTREE();
  struct Case {
    std::optional<std::string> bootc, ostree;
    std::string says;  // empty: planned
  };
  const Case cases[] = {
      {"1.15.2", "2026.1", ""},
      {"1.15.2", "2025.7", "the installed ostree is 2025.7 (ostree-libs)"},
      {"1.16.0", "2026.1~rc1", "the installed ostree is 2026.1~rc1"},
      {"1.16.0", std::nullopt, "the installed ostree's version is unknown"},
      {std::nullopt, "2026.4", "the installed bootc's version is unknown"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.bootc.value_or("-") + " " + c.ostree.value_or("-"));
    OstreeWorldSpec spec;
    spec.bootc = true;
    spec.bootc_version = c.bootc;
    spec.ostree_version = c.ostree;
    OstreeWorld o(spec);
    auto r = o.w.Ctl({"set", "cmdline.iommu=pt", "--check", "--json"});
    if (c.says.empty()) {
      EXPECT_EQ(r.exit_code, kExitOk) << r.out << r.err;
      EXPECT_EQ(Commands(r.Json()), (std::vector<std::vector<std::string>>{Bootc({"--options", "iommu=pt"})}));
    } else {
      EXPECT_EQ(r.exit_code, kExitRefused) << r.out;
      EXPECT_THAT(r.out, HasSubstr(c.says));
      EXPECT_THAT(r.out, HasSubstr("kargs.d/90-rocmtune.toml"));
    }
  }
  // No rpm database at all.
  OstreeWorldSpec none;
  none.bootc = true;
  none.bootc_version.reset();
  none.ostree_version.reset();
  OstreeWorld o(none);
  auto r = o.w.Ctl({"set", "cmdline.iommu=pt", "--check"});
  EXPECT_EQ(r.exit_code, kExitRefused);
  EXPECT_THAT(r.out + r.err, HasSubstr("no rpm database"));
}

// bootc 1.15.2+: rocmtune's arguments are its own source; the command sets the whole list, and
// the revert sets the list it replaced (none: the source removed), through the real helper.
TEST(OstreeWorldTest, BootcSetsItsSourceAndRevertSetsTheOneBefore) {
  SKIP_WITHOUT_OSTREE();
  OstreeWorldSpec spec;
  spec.bootc = true;
  OstreeWorld o(spec);
  auto original = o.w.Snapshot();
  auto set = o.w.Ctl({"set", "cmdline.iommu=pt", "--json"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  EXPECT_EQ(Commands(set.Json()), (std::vector<std::vector<std::string>>{Bootc({"--options", "iommu=pt"})}));
  EXPECT_EQ(Paths(set.Json()), std::vector<std::string>{}) << "bootc keeps the source in the BLS entry";
  EXPECT_EQ(set.Json()["regenerated"]["bootloader"], "pending");
  auto revert = o.w.Ctl({"revert", "last", "--json"});
  ASSERT_EQ(revert.exit_code, kExitOk) << revert.out << revert.err;
  EXPECT_EQ(Commands(revert.Json()), (std::vector<std::vector<std::string>>{Bootc({})}));
  EXPECT_EQ(testing::ChangedPaths(original, o.w.Snapshot(), false, {"var/lib/rocmtune"}),
            (std::vector<std::string>{"var", "var/lib"}));
  json v = o.w.Ctl({"verify", "--json"}).Json();
  int bootc_pending = 0;
  for (const json& d : v["differences"])
    bootc_pending += d["kind"] == "pending-regeneration" && d["subject"] == "bootc";
  EXPECT_EQ(bootc_pending, 2) << v.dump();

  // A source already there (bootc wrote it at an earlier change): the new list has it and more,
  // and the revert puts that list back.
  const std::string entry = "boot/loader/entries/ostree-1-fedora.conf";
  o.w.Write(entry, o.w.Read(entry) + "x-options-source-rocmtune amd_iommu=off\n");
  auto more = o.w.Ctl({"set", "cmdline.iommu=pt", "--json"});
  ASSERT_EQ(more.exit_code, kExitOk) << more.out << more.err;
  EXPECT_EQ(Commands(more.Json()),
            (std::vector<std::vector<std::string>>{Bootc({"--options", "amd_iommu=off iommu=pt"})}));
  auto back = o.w.Ctl({"revert", "last", "--json"});
  ASSERT_EQ(back.exit_code, kExitOk) << back.out << back.err;
  EXPECT_EQ(Commands(back.Json()), (std::vector<std::vector<std::string>>{Bootc({"--options", "amd_iommu=off"})}));

  // A staged deployment rocmtune cannot read holds the source's list: nothing is planned.
  o.w.Write("run/ostree/staged-deployment", "staged");
  auto staged = o.w.Ctl({"set", "cmdline.iommu=nopt", "--check"});
  EXPECT_EQ(staged.exit_code, kExitRefused) << staged.out;
  EXPECT_THAT(staged.out + staged.err, HasSubstr("boot the pending deployment first"));
  // One ostree wrote (bootc's set-options-for-source before a reboot): its bootconfig-extra
  // holds the source, which the new list replaces and the undo puts back.
  testing::StagedSpec spec2;
  spec2.name = testing::DeploymentNames(o.w.root()).back();
  spec2.kargs = std::vector<std::string>{kRoot, "rw", "amd_iommu=off", "iommu=pt"};
  spec2.bootconfig_extra = {{"x-options-source-rocmtune", "amd_iommu=off iommu=pt"}};
  testing::WriteStagedDeployment(o.w.root(), spec2);
  json owned_status = Status(o.w);
  const json* owned = Knob(owned_status, "cmdline.iommu");
  ASSERT_NE(owned, nullptr);
  EXPECT_EQ((*owned)["configured"], "pt");
  EXPECT_EQ((*owned)["owner"], "rocmtune") << owned->dump();
  auto again = o.w.Ctl({"set", "cmdline.iommu=nopt", "--check", "--json"});
  ASSERT_EQ(again.exit_code, kExitOk) << again.out << again.err;
  EXPECT_EQ(Commands(again.Json()),
            (std::vector<std::vector<std::string>>{Bootc({"--options", "amd_iommu=off iommu=nopt"})}));
}

}  // namespace
}  // namespace rocmtune::client::ostree_worlds
