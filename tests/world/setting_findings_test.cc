// Settings already on the machine, whoever wrote them: module options in
// modprobe.d and kernel command-line tokens in the boot configuration and /proc/cmdline are checked
// by the rules `set` applies; each problem is a finding with its file and line, what to do and a
// public source. The knob table shows what they really do ("ignored", "no effect").
#include <string>

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

constexpr const char* kFolk = "options amdgpu gtt_size=8192 gttsize=4096 mtype_local=1\n";

json SettingStatus(const WorldCopy& w) {
  auto r = w.Ctl({"status", "--json"});
  EXPECT_EQ(r.exit_code, kExitOk) << r.err;
  return r.Json();
}

const json* Find(const json& status, const std::string& id, const std::string& subject, const std::string& file) {
  for (const json& f : status["findings"])
    if (f["id"] == id && f["subject"] == subject && f["file"] == file) return &f;
  return nullptr;
}

const json* Knob(const json& status, const std::string& key) {
  for (const json& k : status["knobs"])
    if (k["key"] == key) return &k;
  return nullptr;
}

// Every finding of these kinds names a line, says what to do and cites something a user can open.
void ExpectComplete(const json& f) {
  EXPECT_TRUE(f["line"].is_number()) << f;
  EXPECT_TRUE(f["hint"].is_string() && !f["hint"].get<std::string>().empty()) << f;
  ASSERT_TRUE(f["source"].is_string()) << f;
  EXPECT_FALSE(f["source"].get<std::string>().empty()) << f;
  EXPECT_THAT(f["source"].get<std::string>(), Not(HasSubstr("shared/"))) << f;
  // A deprecation the running kernel does not have yet is the one info among them.
  if (f["id"] != "module.deprecated") {
    EXPECT_NE(f["severity"], "info") << f;
  }
}

bool IsSettingFinding(const json& f) {
  std::string id = f["id"];
  return id.starts_with("module.") || id.starts_with("cmdline.");
}

TEST(SettingFindingsTest, ModuleOptionsInModprobeD) {
  WorldCopy w("rx6900xt");
  w.Write("etc/modprobe.d/folk.conf", kFolk);
  w.Write("etc/modprobe.d/zz-other.conf", "# tuning from a forum\n\noptions amdgpu noretry=7\n");
  json status = SettingStatus(w);

  const json* unknown = Find(status, "module.unknown-parameter", "amdgpu.gtt_size", "etc/modprobe.d/folk.conf");
  ASSERT_NE(unknown, nullptr) << status["findings"];
  EXPECT_EQ((*unknown)["line"], 1);
  EXPECT_THAT((*unknown)["message"].get<std::string>(), HasSubstr("amdgpu.gttsize"));            // what was meant
  EXPECT_THAT((*unknown)["hint"].get<std::string>(), HasSubstr("set ttm.pages_limit instead"));  // and what to set
  ExpectComplete(*unknown);

  const json* deprecated = Find(status, "module.deprecated", "amdgpu.gttsize", "etc/modprobe.d/folk.conf");
  ASSERT_NE(deprecated, nullptr) << status["findings"];
  // The world's kernel (6.11) predates the deprecation: an info; on 6.15 a warning.
  EXPECT_EQ((*deprecated)["severity"], "info");
  w.Write("proc/sys/kernel/osrelease", "6.15.2-arch1-1\n");
  const json on_615 = SettingStatus(w);
  const json* warned = Find(on_615, "module.deprecated", "amdgpu.gttsize", "etc/modprobe.d/folk.conf");
  ASSERT_NE(warned, nullptr) << on_615["findings"];
  EXPECT_EQ((*warned)["severity"], "warning");
  EXPECT_THAT((*warned)["message"].get<std::string>(), Not(HasSubstr("from kernel")));
  EXPECT_THAT((*deprecated)["hint"].get<std::string>(), HasSubstr("ttm.pages_limit"));
  ExpectComplete(*deprecated);

  const json* no_effect = Find(status, "module.no-effect", "amdgpu.mtype_local", "etc/modprobe.d/folk.conf");
  ASSERT_NE(no_effect, nullptr) << status["findings"];
  EXPECT_THAT((*no_effect)["message"].get<std::string>(), HasSubstr("GC 9.4.3"));
  ExpectComplete(*no_effect);

  const json* invalid = Find(status, "module.invalid-value", "amdgpu.noretry", "etc/modprobe.d/zz-other.conf");
  ASSERT_NE(invalid, nullptr) << status["findings"];
  EXPECT_EQ((*invalid)["line"], 3);
  ExpectComplete(*invalid);

  // One finding per file, line, id and key.
  std::set<std::string> seen;
  for (const json& f : status["findings"]) {
    if (!IsSettingFinding(f)) continue;
    std::string where = f["id"].get<std::string>() + f["subject"].get<std::string>() + f["file"].get<std::string>() +
                        std::to_string(f["line"].get<int>());
    EXPECT_TRUE(seen.insert(where).second) << "twice: " << f;
  }

  // The knob table says what the driver makes of them.
  const json* mtype = Knob(status, "amdgpu.mtype_local");
  ASSERT_NE(mtype, nullptr);
  EXPECT_EQ((*mtype)["effective"], "no effect");
  const json* gtt_size = Knob(status, "amdgpu.gtt_size");
  ASSERT_NE(gtt_size, nullptr);
  EXPECT_EQ((*gtt_size)["effective"], "ignored");

  // The text output shows file:line and the hint.
  auto human = w.Ctl({"status"});
  EXPECT_THAT(human.out, HasSubstr("etc/modprobe.d/zz-other.conf:3"));
}

TEST(SettingFindingsTest, KernelCommandLineTokens) {
  WorldCopy w("rx6900xt");
  w.Write("proc/cmdline",
          w.Read("proc/cmdline").substr(0, w.Read("proc/cmdline").find('\n')) + " amd_iommu=on amdgpu.gtt_size=2048\n");
  std::string grub = w.Read("etc/default/grub");
  size_t at = grub.find("GRUB_CMDLINE_LINUX_DEFAULT=\"loglevel=3 quiet");
  ASSERT_NE(at, std::string::npos);
  grub.insert(at + std::string("GRUB_CMDLINE_LINUX_DEFAULT=\"loglevel=3 quiet").size(), " amd_iommu=on");
  w.Write("etc/default/grub", grub);
  json status = SettingStatus(w);

  // The token in the running command line and in the next boot's: one finding, the file that
  // boots it next first (its fix edits that file), /proc/cmdline beside it.
  const json* boot = Find(status, "cmdline.invalid-value", "cmdline.amd_iommu", "etc/default/grub");
  ASSERT_NE(boot, nullptr) << status["findings"];
  EXPECT_EQ((*boot)["line"], 6);
  EXPECT_THAT((*boot)["message"].get<std::string>(), HasSubstr("iommu=pt"));
  EXPECT_THAT((*boot)["hint"].get<std::string>(), HasSubstr("/etc/default/grub"));
  EXPECT_EQ((*boot)["places"],
            json::parse(R"([{"file":"etc/default/grub","line":6},{"file":"proc/cmdline","line":1}])"));
  ExpectComplete(*boot);
  EXPECT_EQ(Find(status, "cmdline.invalid-value", "cmdline.amd_iommu", "proc/cmdline"), nullptr) << status["findings"];
  const json* module = Find(status, "module.unknown-parameter", "amdgpu.gtt_size", "proc/cmdline");
  ASSERT_NE(module, nullptr) << status["findings"];
  EXPECT_EQ((*module)["line"], 1);

  const json* knob = Knob(status, "cmdline.amd_iommu");
  ASSERT_NE(knob, nullptr) << status["knobs"];
  EXPECT_EQ((*knob)["effective"], "ignored");
  EXPECT_NE((*knob)["running"], nullptr);
}

// The folklore amdgpu.gtt_size, wherever a guide put it: the kernel ignores it ("unknown parameter
// 'gtt_size' ignored", ROCm/ROCm#5595), and the parameter it resembles is deprecated: each place
// gets one finding that names the spelling meant and what sets the GTT limit now.
TEST(SettingFindingsTest, GttSizeFolkloreNamesThePagesLimit) {
  WorldCopy w("rx6900xt");
  w.Write("etc/modprobe.d/gtt.conf", "options amdgpu gtt_size=122880\n");
  std::string cmdline = w.Read("proc/cmdline");
  cmdline.insert(cmdline.find('\n'), " amdgpu.gtt_size=122880");
  w.Write("proc/cmdline", cmdline);
  std::string grub = w.Read("etc/default/grub");
  const std::string key = "GRUB_CMDLINE_LINUX_DEFAULT=\"";
  const size_t at = grub.find(key);
  ASSERT_NE(at, std::string::npos) << grub;
  grub.insert(at + key.size(), "amdgpu.gtt_size=122880 ");
  w.Write("etc/default/grub", grub);
  const json status = SettingStatus(w);
  int found = 0;
  // One finding per setting, every place as its evidence: modprobe.d's line first.
  for (const char* file : {"etc/modprobe.d/gtt.conf"}) {
    const json* f = Find(status, "module.unknown-parameter", "amdgpu.gtt_size", file);
    ASSERT_NE(f, nullptr) << file << ": " << status["findings"];
    ++found;
    const std::string message = (*f)["message"];
    EXPECT_THAT(message, HasSubstr("unknown parameter 'gtt_size' ignored")) << file;
    EXPECT_THAT(message, HasSubstr("amdgpu.gttsize, which is deprecated from kernel 6.15 on")) << file;
    EXPECT_THAT(message, HasSubstr("ttm.pages_limit is the setting that does this now")) << file;
    EXPECT_THAT((*f)["hint"].get<std::string>(), HasSubstr("set ttm.pages_limit instead")) << file;
    EXPECT_THAT((*f)["source"].get<std::string>(), HasSubstr("unknown_module_param_cb")) << file;
    EXPECT_THAT((*f)["source"].get<std::string>(), HasSubstr("MODULE_PARM_DESC(gttsize)")) << file;
    ExpectComplete(*f);
  }
  EXPECT_EQ(found, 1);
  const json* one = Find(status, "module.unknown-parameter", "amdgpu.gtt_size", "etc/modprobe.d/gtt.conf");
  ASSERT_NE(one, nullptr);
  EXPECT_EQ((*one)["places"], json::parse(R"([{"file":"etc/modprobe.d/gtt.conf","line":1},
      {"file":"etc/default/grub","line":6},{"file":"proc/cmdline","line":1}])"));
  // Not a second finding for the same setting.
  int unknown = 0;
  for (const json& f : status["findings"]) unknown += f["id"] == "module.unknown-parameter" ? 1 : 0;
  EXPECT_EQ(unknown, 1) << status["findings"];
  // Under amdgpu-dkms the limit that counts is amdttm's.
  w.Write("sys/module/amdttm/parameters/pages_limit", "1000000\n");
  const json dkms = SettingStatus(w);
  const json* f = Find(dkms, "module.unknown-parameter", "amdgpu.gtt_size", "etc/modprobe.d/gtt.conf");
  ASSERT_NE(f, nullptr) << dkms["findings"];
  EXPECT_THAT((*f)["hint"].get<std::string>(), HasSubstr("set amdttm.pages_limit instead"));
  // A misspelling of a parameter that is not deprecated keeps the plain suggestion.
  w.Write("etc/modprobe.d/gtt.conf", "options amdgpu no_retry=1\n");
  const json plain = SettingStatus(w);
  const json* typo = Find(plain, "module.unknown-parameter", "amdgpu.no_retry", "etc/modprobe.d/gtt.conf");
  ASSERT_NE(typo, nullptr) << plain["findings"];
  EXPECT_THAT((*typo)["message"].get<std::string>(), HasSubstr("Did you mean amdgpu.noretry?"));
}

TEST(SettingFindingsTest, BundledWorldsAndOwnSettingsGiveNone) {
  for (const char* world : {"rx6900xt", "rx5700xt", "mi300x-cpx", "mi210x8", "strixpoint", "rx9070xt"}) {
    WorldCopy w(world);
    json status = SettingStatus(w);
    for (const json& f : status["findings"]) EXPECT_FALSE(IsSettingFinding(f)) << world << ": " << f;
  }
  // rocmtune's own drop-in with a fine value.
  WorldCopy w("rx6900xt");
  auto set = w.Ctl({"set", "amdgpu.noretry=1"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  // Named: a range-for over SettingStatus(w)["findings"] would walk a temporary destroyed before the
  // loop (heap-use-after-free under make asan).
  const json after = SettingStatus(w);
  for (const json& f : after.at("findings")) EXPECT_FALSE(IsSettingFinding(f)) << f;
}

// A unit mistake already in an admin's file: the finding says what is wrong and where, without the
// set verb's "--force sets it anyway" (nothing is being set).
TEST(SettingFindingsTest, AnAdminsSizeMistakeIsNotAnsweredWithForce) {
  WorldCopy w("rx6900xt");
  w.Write("proc/meminfo", "MemTotal:       32110204 kB\n");
  w.Write("etc/modprobe.d/ttm.conf", "options ttm pages_limit=1\noptions ttm page_pool_size=99999999999\n");
  json status = SettingStatus(w);
  const json* small = Find(status, "module.size-below-default", "ttm.pages_limit", "etc/modprobe.d/ttm.conf");
  const json* huge = Find(status, "module.size-above-ram", "ttm.page_pool_size", "etc/modprobe.d/ttm.conf");
  ASSERT_NE(small, nullptr) << status["findings"];
  ASSERT_NE(huge, nullptr) << status["findings"];
  for (const json* f : {small, huge}) {
    EXPECT_THAT((*f)["message"].get<std::string>(), Not(HasSubstr("--force"))) << *f;
    EXPECT_TRUE((*f)["message"].get<std::string>().ends_with(".")) << *f;
  }
  // The set verb still offers --force for the same value.
  EXPECT_THAT(w.Ctl({"set", "--check", "ttm.pages_limit=1"}).out, HasSubstr("--force sets it anyway"));
}

// Folklore that is really there: vangogh boots with the deprecated amdgpu.gttsize.
TEST(SettingFindingsTest, VangoghBootsWithDeprecatedGttsize) {
  WorldCopy w("vangogh");
  json status = SettingStatus(w);
  const json* f = Find(status, "module.deprecated", "amdgpu.gttsize", "etc/default/grub");
  ASSERT_NE(f, nullptr) << status["findings"];
  // Its kernel (6.5) predates the deprecation (6.15): the message says so, and it is an info (the
  // setting works on this kernel).
  EXPECT_THAT((*f)["message"].get<std::string>(), HasSubstr("deprecated from kernel 6.15 on"));
  EXPECT_EQ((*f)["severity"], "info");
  // One finding per fact: the boot configuration that gives it to the next boot is the place
  // named first (where the fix is made), the running command line the second.
  const json* boot = Find(status, "module.deprecated", "amdgpu.gttsize", "etc/default/grub");
  ASSERT_NE(boot, nullptr) << status["findings"];
  EXPECT_EQ((*boot)["line"], 6);
  EXPECT_EQ((*boot)["places"],
            json::parse(R"([{"file":"etc/default/grub","line":6},{"file":"proc/cmdline","line":1}])"));
  size_t said = 0;
  for (const json& g : status["findings"]) said += g["id"] == "module.deprecated" ? 1 : 0;
  EXPECT_EQ(said, 1u) << status["findings"];
  EXPECT_THAT(w.Ctl({"status"}).out, HasSubstr("in /etc/default/grub:6, /proc/cmdline:1"));
}

// mtype_local does nothing on RDNA and, since 6.14, taints the kernel: refused unless --force.
TEST(SettingFindingsTest, TaintingSettingWithoutEffectNeedsForce) {
  WorldCopy w("rx9070xt");  // RDNA4 (GC 12.0.1), kernel 6.14
  auto refused = w.Ctl({"set", "amdgpu.mtype_local=1", "--json"});
  EXPECT_EQ(refused.exit_code, kExitRefused) << refused.out << refused.err;
  EXPECT_FALSE(w.Exists("etc/modprobe.d/rocmtune.conf"));
  json doc = refused.Json();
  ASSERT_EQ(doc["refused"].size(), 1u) << doc;
  EXPECT_THAT(doc["refused"][0]["message"].get<std::string>(), HasSubstr("--force"));
  EXPECT_THAT(doc["refused"][0]["message"].get<std::string>(), HasSubstr("taints"));

  auto forced = w.Ctl({"set", "amdgpu.mtype_local=1", "--force", "--json"});
  EXPECT_EQ(forced.exit_code, kExitOk) << forced.out << forced.err;
  EXPECT_TRUE(w.Exists("etc/modprobe.d/rocmtune.conf"));
  json fdoc = forced.Json();
  EXPECT_TRUE(fdoc["refused"].empty()) << fdoc;
  EXPECT_THAT(fdoc["warnings"].dump(), HasSubstr("does nothing"));

  // Before 6.14 mtype_local was a plain parameter (no taint): a warning, not a refusal.
  WorldCopy old("rx6900xt");  // RDNA2, kernel 6.11
  auto warned = old.Ctl({"set", "amdgpu.mtype_local=1", "--json"});
  EXPECT_EQ(warned.exit_code, kExitOk) << warned.out << warned.err;
  EXPECT_THAT(warned.Json()["warnings"].dump(), HasSubstr("does nothing"));
}

// A profile's --check names the files that still hold such settings.
TEST(SettingFindingsTest, ApplyCheckNamesTheFolkloreFiles) {
  WorldCopy w("rx6900xt");
  w.Write("etc/modprobe.d/folk.conf", kFolk);
  auto r = w.Ctl({"apply", "stock", "--check", "--json"});
  EXPECT_EQ(r.exit_code, kExitOk) << r.out << r.err;
  std::string notes = r.Json()["notes"].dump();
  EXPECT_THAT(notes, HasSubstr("/etc/modprobe.d/folk.conf:1 still sets"));
  EXPECT_THAT(notes, HasSubstr("amdgpu.gtt_size"));
  EXPECT_THAT(notes, HasSubstr("rocmtune does not edit it"));
  auto text = w.Ctl({"apply", "stock", "--check"});
  EXPECT_THAT(text.out + text.err, HasSubstr("etc/modprobe.d/folk.conf:1"));
}

}  // namespace
}  // namespace rocmtune::client
