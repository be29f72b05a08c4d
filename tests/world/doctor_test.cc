// `rocmtunectl doctor` on the seeds' machines: each known issue shows on
// a world that has it and stays silent on one that does not; doctor names the real cause and the
// fix that works, and never recommends the seeds' ineffective or invalid fixes (amd_iommu=on,
// amdgpu.mtype_local on RDNA, PYTORCH_MAX_SPLIT_SIZE_MB, HSA_OVERRIDE_GFX_VERSION=10.3.0 on gfx1010).
//
// The seeds' machines are copies of captured worlds with the seeds' settings written in:
// RX 5600 XT = rx5700xt (Navi10 1002:731f, gfx1010), RX 6000 = rx6900xt (gfx1030), and Strix Halo =
// strixpoint with KFD's gfx_target_version made 110501 (gfx1151; no Strix Halo capture exists) and a
// /proc/meminfo twice the captured GTT size, as the TTM default leaves it.
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"

namespace rocmtune::client {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::ordered_json;
using testing::WorldCopy;

constexpr std::string_view kFaultLog =
    "Memory access fault by GPU node-1 (Agent handle: 0x55a4c0b0e0f0) on address 0x7f1c2a400000. Reason: Page not "
    "present or supervisor privilege.\nAborted (core dumped)\n";
constexpr std::string_view kWinogradLog =
    "MIOpen(HIP): Info [Conv_Winograd_v30_3_1] ...\nMemory access fault by GPU node-1 (Agent handle: 0x5) on address "
    "0x7e. Reason: Page not present or supervisor privilege.\n";

struct Doctor {
  int exit_code;
  json doc;
};

Doctor RunDoctor(const WorldCopy& w, std::optional<std::string_view> log = std::nullopt) {
  std::vector<std::string> args = {"doctor", "--json"};
  if (log) {
    w.Write("tmp/crash.log", *log);
    args.insert(args.end(), {"--log", w.Path("tmp/crash.log")});
  }
  auto r = w.Ctl(args);
  json doc = r.Json();
  EXPECT_EQ(doc["schema"], "rocmtune.doctor.v1") << r.out << r.err;
  return {r.exit_code, doc};
}

std::set<std::string> Ids(const json& findings) {
  std::set<std::string> ids;
  for (const json& f : findings) ids.insert(f["id"].get<std::string>());
  return ids;
}

const json& FindingById(const json& findings, std::string_view id) {
  static const json kNone;
  for (const json& f : findings)
    if (f["id"] == id) return f;
  ADD_FAILURE() << id << " not among " << findings.dump();
  return kNone;
}

// The rocmtune.profile.v1 items of a profile doctor recommends, as this world would apply them.
json ProfileItems(const WorldCopy& w, const std::string& profile) {
  auto r = w.Ctl({"show", profile, "--json"});
  EXPECT_EQ(r.exit_code, kExitOk) << r.err;
  return r.Json()["items"];
}

// Nothing doctor tells the user to set (a knob, or a profile's items applied without --with) is
// one of the seeds' fixes.
void ExpectNoSeedFolklore(const WorldCopy& w, const json& doc) {
  std::vector<std::string> sets;
  std::set<std::string> profiles;
  json all = doc["findings"];
  if (doc["log"].is_object())
    for (const json& m : doc["log"]["matches"]) all.push_back(m);
  for (const json& f : all) {
    for (const json& s : f["fix"]["set"]) sets.push_back(s);
    if (f["fix"]["profile"].is_string()) profiles.insert(f["fix"]["profile"]);
  }
  for (const std::string& p : profiles)
    for (const json& item : ProfileItems(w, p))
      if (item["action"] == "set" && item["optional"] != true)
        sets.push_back(item["key"].get<std::string>() + "=" + item["value"].get<std::string>());
  for (const std::string& s : sets) {
    EXPECT_THAT(s, Not(HasSubstr("amd_iommu=on"))) << s;
    EXPECT_THAT(s, Not(HasSubstr("mtype_local"))) << s;
    EXPECT_THAT(s, Not(HasSubstr("PYTORCH_MAX_SPLIT_SIZE_MB"))) << s;
    EXPECT_THAT(s, Not(HasSubstr("HSA_OVERRIDE_GFX_VERSION"))) << s;
  }
}

// RX 5600 XT (gfx1010) with everything the seeds tried: the override in /etc/environment,
// amd_iommu=on, mtype_local in modprobe.d, PYTORCH_MAX_SPLIT_SIZE_MB.
void Rdna1Seed(const WorldCopy& w, std::string_view rocm, bool with_override = true) {
  w.Write("opt/rocm/.info/version", std::string(rocm) + "\n");
  w.Write("etc/environment",
          std::string(with_override ? "HSA_OVERRIDE_GFX_VERSION=10.3.0\n" : "") + "PYTORCH_MAX_SPLIT_SIZE_MB=512\n");
  w.Write("etc/modprobe.d/amdgpu-mtype.conf", "options amdgpu mtype_local=1\n");
  std::string grub = w.Read("etc/default/grub");
  grub.replace(grub.find("GRUB_CMDLINE_LINUX_DEFAULT=\"") + 28, 0, "amd_iommu=on ");
  w.Write("etc/default/grub", grub);
}

// Before: "Rdna1OnRocm6WithTheOverrideNamesTheOverrideAndUnsupportedHardware", which also
// expected issue.rdna1-not-supported (no-gpu, "use the CPU or another GPU"). Changed: that issue
// is log_only (it explains a log; the code the runtime carries decides support), and under a
// cross-ISA override the code check says nothing: the override's crash is the answer.
TEST(DoctorTest, Rdna1OnRocm6WithTheOverrideNamesTheOverrideAsTheCrash) {
  WorldCopy w("rx5700xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  Rdna1Seed(w, "6.2.0");
  Doctor d = RunDoctor(w);
  EXPECT_EQ(d.exit_code, kExitFailed);
  EXPECT_EQ(d.doc["problems"], true);
  std::set<std::string> ids = Ids(d.doc["findings"]);
  for (const char* id : {"issue.rdna1-override-gfx1030", "env.not-read", "module.no-effect", "cmdline.invalid-value"})
    EXPECT_THAT(ids, Contains(id));
  // One finding per fact: the known issue says what env.override-other-isa would (the line, the
  // crash) and more, so the generic finding is not said beside it.
  for (const char* id : {"issue.rdna1-not-supported", "runtime.no-code", "runtime.code", "env.override-other-isa"})
    EXPECT_THAT(ids, Not(Contains(id)));
  const json& override_issue = FindingById(d.doc["findings"], "issue.rdna1-override-gfx1030");
  EXPECT_EQ(override_issue["effect"], "crash");
  EXPECT_EQ(override_issue["file"], "etc/environment");
  EXPECT_EQ(override_issue["line"], 1);
  // The override is the admin's line, which `unset` alone would not remove: the
  // fix names the line and rocmtune's opt-in way to comment it out instead.
  EXPECT_EQ(override_issue["fix"]["unset"], json::array());
  EXPECT_THAT(override_issue["fix"]["text"].get<std::string>(), HasSubstr("/etc/environment:1"));
  EXPECT_THAT(override_issue["fix"]["text"].get<std::string>(),
              HasSubstr("rocmtunectl unset env.HSA_OVERRIDE_GFX_VERSION --admin-lines"));
  EXPECT_EQ(override_issue["fix"]["profile"], "rdna1-safe");
  EXPECT_EQ(override_issue["severity"], "error");
  EXPECT_FALSE(override_issue["sources"].empty());
  // The folklore's module option is the admin's modprobe.d line: named, with the opt-in edit.
  const json& mtype = FindingById(d.doc["findings"], "module.no-effect");
  EXPECT_THAT(mtype["fix"]["text"].get<std::string>(),
              HasSubstr("is set by /etc/modprobe.d/amdgpu-mtype.conf:1, a file rocmtune does not manage"));
  EXPECT_THAT(mtype["fix"]["text"].get<std::string>(),
              HasSubstr("sudo rocmtunectl unset amdgpu.mtype_local --admin-lines"));
  // AMD's table still says gfx1010 is not a target of ROCm 6.2, a fact that decides nothing.
  const json& table = FindingById(d.doc["findings"], "rocm.gpu-not-supported");
  EXPECT_EQ(table["effect"], "none");
  EXPECT_TRUE(table["fix"]["none"].is_null()) << table.dump();
  ExpectNoSeedFolklore(w, d.doc);
}

TEST(DoctorTest, Rdna1CrashLogIsBlamedOnTheOverride) {
  WorldCopy w("rx5700xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  Rdna1Seed(w, "6.2.0");
  Doctor d = RunDoctor(w, kFaultLog);
  ASSERT_TRUE(d.doc["log"].is_object()) << d.doc.dump();
  EXPECT_EQ(d.doc["log"]["likely_cause"], "issue.rdna1-override-gfx1030");
  EXPECT_THAT(d.doc["log"]["matches"][0]["symptoms"], Contains("Page not present or supervisor privilege"));
  // The RDNA2 MIOpen issue has the same fault line but not this GPU.
  EXPECT_THAT(Ids(d.doc["log"]["matches"]), Not(Contains("issue.rdna2-miopen-conv-fault")));
  ExpectNoSeedFolklore(w, d.doc);
}

// Before: "Rdna1OnRocm52OrWithoutTheOverrideIsOnlyUnsupported": both cases expected
// issue.rdna1-not-supported (no-gpu). Changed: that issue is log_only; support is judged from the
// code the runtime carries. On ROCm 6.2 without the override AMD's rocBLAS has gfx1010 code and
// MIOpen has none, so the one problem about the GPU is runtime.no-code for convolutions (a
// warning: doctor exits 1), and AMD's table entry it covers is dropped.
TEST(DoctorTest, Rdna1OnRocm52HasNoOverrideIssueAndWithoutTheOverrideLacksOnlyConvCode) {
  // ROCm 5.2 is the release the override still worked with (ROCm#2527).
  for (auto [rocm, with_override] : {std::pair{"5.2.0", true}, std::pair{"6.2.0", false}}) {
    SCOPED_TRACE(rocm);
    WorldCopy w("rx5700xt");
    testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
    Rdna1Seed(w, rocm, with_override);
    Doctor d = RunDoctor(w);
    std::set<std::string> ids = Ids(d.doc["findings"]);
    EXPECT_THAT(ids, Not(Contains("issue.rdna1-override-gfx1030")));
    EXPECT_THAT(ids, Not(Contains("issue.rdna1-not-supported")));
    EXPECT_EQ(d.exit_code, kExitFailed);
    if (with_override) {
      EXPECT_THAT(ids, Contains("env.override-other-isa"));  // still another ISA's code
    } else {
      EXPECT_THAT(ids, Not(Contains("env.override-other-isa")));
      EXPECT_THAT(ids, Not(Contains("rocm.gpu-not-supported")));  // runtime.no-code says it for this GPU
      const json& code = FindingById(d.doc["findings"], "runtime.no-code");
      EXPECT_EQ(code["severity"], "warning");
      EXPECT_EQ(code["effect"], "unsupported");
      EXPECT_THAT(code["what"].get<std::string>(), HasSubstr("no code for gfx1010"));
      EXPECT_THAT(code["what"].get<std::string>(), HasSubstr("their conv kernels"));
      EXPECT_THAT(code["why"].get<std::string>(), HasSubstr("miopen has code for"));
      EXPECT_THAT(code["why"].get<std::string>(), Not(HasSubstr("rocblas has code for")));
    }
    ExpectNoSeedFolklore(w, d.doc);
  }
}

TEST(DoctorTest, Rdna2MiopenFaultBeforeRocm7NamesTheUpgradeAndTheWinogradFilter) {
  WorldCopy w("rx6900xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  w.Write("opt/rocm/.info/version", "6.4.1\n");
  // Without a log it is a note, "if a program's log shows X, the likely cause is ...": the issue
  // is log_only (reported, not reproduced by AMD), so it decides no verdict and doctor, whose
  // verdict is check-compute's, finds nothing wrong. Before, it was a warning with effect crash
  // and doctor exited 1.
  Doctor quiet = RunDoctor(w);
  const json& note = FindingById(quiet.doc["findings"], "issue.rdna2-miopen-conv-fault");
  EXPECT_EQ(note["severity"], "info");
  EXPECT_EQ(note["effect"], "none");
  EXPECT_THAT(note["what"].get<std::string>(), HasSubstr("If a program's log shows"));
  EXPECT_EQ(note["fix"]["rocm"], ">= 7.0");
  EXPECT_EQ(quiet.doc["problems"], false) << quiet.doc.dump();
  EXPECT_EQ(quiet.exit_code, kExitOk) << quiet.doc.dump();
  w.Write("opt/rocm/.info/version", "7.0.2\n");
  EXPECT_THAT(Ids(RunDoctor(w).doc["findings"]), Not(Contains("issue.rdna2-miopen-conv-fault")));
  w.Write("opt/rocm/.info/version", "6.4.1\n");
  Doctor d = RunDoctor(w, kWinogradLog);
  EXPECT_EQ(d.exit_code, kExitFailed);
  EXPECT_EQ(d.doc["log"]["likely_cause"], "issue.rdna2-miopen-conv-fault");
  const json& m = d.doc["log"]["matches"][0];
  EXPECT_EQ(m["fix"]["rocm"], ">= 7.0");
  EXPECT_THAT(m["fix"]["text"].get<std::string>(), HasSubstr("MIOPEN_DEBUG_CONV_WINOGRAD=0"));
  EXPECT_THAT(m["symptoms"], Contains("Conv_Winograd"));
  ExpectNoSeedFolklore(w, d.doc);
  // On ROCm 7 the same log is not blamed on it.
  w.Write("opt/rocm/.info/version", "7.0.2\n");
  EXPECT_THAT(Ids(RunDoctor(w, kWinogradLog).doc["log"]["matches"]), Not(Contains("issue.rdna2-miopen-conv-fault")));
}

void StrixHalo(const WorldCopy& w, uint64_t ram_kib) {
  std::string node = "sys/devices/virtual/kfd/kfd/topology/nodes/1/properties";
  std::string props = w.Read(node);
  props.replace(props.find("gfx_target_version 110500"), 25, "gfx_target_version 110501");
  w.Write(node, props);
  w.Write("proc/meminfo", "MemTotal:       " + std::to_string(ram_kib) + " kB\nMemFree:         1000000 kB\n");
}

TEST(DoctorTest, StrixHaloAtTheTtmDefaultGetsTheStrixHaloProfile) {
  WorldCopy w("strixpoint");
  testing::GiveKfd(w);     // the capture has no KFD: give the GPU the node ROCm needs
  StrixHalo(w, 32110204);  // the captured GTT (16441004032 bytes) is half of it
  Doctor d = RunDoctor(w);
  EXPECT_EQ(d.exit_code, kExitFailed);
  ASSERT_EQ(d.doc["gpus"][0]["gfx_target"], "gfx1151");
  const json& f = FindingById(d.doc["findings"], "issue.strix-halo-gtt-limit");
  EXPECT_EQ(f["fix"]["profile"], "strix-halo");
  EXPECT_THAT(f["evidence"], Contains(HasSubstr("GTT is 15.3 GiB")));
  bool raises_ttm = false;
  for (const json& item : ProfileItems(w, "strix-halo"))
    raises_ttm |= item["action"] == "set" && item["key"].get<std::string>().ends_with("pages_limit");
  EXPECT_TRUE(raises_ttm);
  ExpectNoSeedFolklore(w, d.doc);
}

// The captured Strix Point runs MES firmware 0x83, which is a known issue of its own
// (issue.strix-mes-firmware-0x83, tests/world/doctor_log_test.cc): these worlds get the reverted 0x80.
void RevertedMesFirmware(const WorldCopy& w) {
  w.Write("sys/devices/pci0000:00/0000:c1:00.0/fw_version/mes_fw_version", "0x00000080\n");
}

// The capture has no ROCm: without a runtime whether it has code for the GPU is unknown
// (runtime.unknown, a warning), so these worlds get ROCm 7.0.2, whose GPU table lists gfx1150 and
// gfx1151 (added when the verdict learnt the runtime's code; before, "quiet" needed no ROCm).
TEST(DoctorTest, StrixHaloWithARaisedLimitAndStrixPointStayQuiet) {
  WorldCopy raised("strixpoint");
  testing::GiveKfd(raised);  // the capture has no KFD: give the GPU the node ROCm needs
  raised.Write("opt/rocm/.info/version", "7.0.2\n");
  RevertedMesFirmware(raised);
  StrixHalo(raised, 17000000);  // GTT ~ 94% of RAM
  EXPECT_THAT(Ids(RunDoctor(raised).doc["findings"]), Not(Contains("issue.strix-halo-gtt-limit")));
  WorldCopy point("strixpoint");
  testing::GiveKfd(
      point);  // the capture has no KFD: give the GPU the node ROCm needs  // gfx1150: not the Strix Halo issue
  RevertedMesFirmware(point);
  point.Write("proc/meminfo", "MemTotal:       32110204 kB\n");
  point.Write("opt/rocm/.info/version", "7.0.2\n");
  Doctor d = RunDoctor(point);
  EXPECT_THAT(Ids(d.doc["findings"]), Not(Contains("issue.strix-halo-gtt-limit")));
  EXPECT_THAT(Ids(d.doc["findings"]), Contains("runtime.code"));
  EXPECT_EQ(d.exit_code, kExitOk) << d.doc.dump();
  // Without ROCm it is not quiet: what the program would load is unknown.
  WorldCopy bare("strixpoint");
  testing::GiveKfd(bare);  // the capture has no KFD: give the GPU the node ROCm needs
  RevertedMesFirmware(bare);
  bare.Write("proc/meminfo", "MemTotal:       32110204 kB\n");
  Doctor unknown = RunDoctor(bare);
  EXPECT_THAT(Ids(unknown.doc["findings"]), Contains("runtime.unknown"));
  EXPECT_EQ(unknown.exit_code, kExitFailed) << unknown.doc.dump();
}

TEST(DoctorTest, ADgpuKfdSkippedIsBlamedOnPcieAtomics) {
  WorldCopy w("rx6900xt");
  // No KFD at all: not this issue, but the GPU is not usable (gpu.no-kfd, an error).
  EXPECT_THAT(Ids(RunDoctor(w).doc["findings"]), Not(Contains("issue.kfd-skipped-gpu")));
  EXPECT_THAT(Ids(RunDoctor(w).doc["findings"]), Contains("gpu.no-kfd"));
  w.Write("sys/devices/virtual/kfd/kfd/topology/nodes/0/properties", "cpu_cores_count 16\nsimd_count 0\n");
  w.Write("sys/class/kfd/kfd", "");  // replaced below by the real layout's link
  std::filesystem::remove(w.Path("sys/class/kfd/kfd"));
  std::filesystem::create_directory_symlink("../../devices/virtual/kfd/kfd", w.Path("sys/class/kfd/kfd"));
  Doctor d = RunDoctor(w);
  const json& f = FindingById(d.doc["findings"], "issue.kfd-skipped-gpu");
  EXPECT_EQ(f["severity"], "error");
  EXPECT_EQ(d.exit_code, kExitFailed);
}

TEST(DoctorTest, AnApertureViolationAnywhereIsExplainedAsAKernelFault) {
  WorldCopy w("no-amd");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  Doctor d = RunDoctor(w,
                       "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the "
                       "largest legal address. code: 0x29\n");
  EXPECT_EQ(d.doc["log"]["likely_cause"], "issue.aperture-violation-kernel-fault");
  // The explanation says what the error is, not what caused it here: the crash stays unexplained,
  // a warning (a crash never ends in "Nothing wrong found").
  EXPECT_THAT(Ids(d.doc["log"]["matches"]), Contains("log.unexplained-crash"));
  EXPECT_EQ(d.exit_code, kExitFailed);
  Doctor none = RunDoctor(w, "everything fine\n");
  EXPECT_TRUE(none.doc["log"]["matches"].empty());
  EXPECT_TRUE(none.doc["log"]["likely_cause"].is_null());
}

}  // namespace
}  // namespace rocmtune::client

namespace rocmtune::client {
namespace {

// In a world, access to /dev/kfd is judged from the world's /etc/group for the user doctor runs
// as; without the files it is unknown, not fine.
TEST(DoctorTest, DeviceAccessFollowsTheWorldsGroups) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to run rocmtunectl as nobody";
  WorldCopy w("rx6900xt");
  testing::GiveKfd(w);  // the capture has no KFD: give the GPU the node ROCm needs
  auto access = [&](std::string_view group) {
    if (!group.empty()) {
      w.Write("dev/kfd", "");
      w.Write("etc/passwd", "root:x:0:0::/root:/bin/sh\nnobody:x:65534:65534::/:/usr/sbin/nologin\n");
      w.Write("etc/group", group);
    }
    auto r = w.Ctl({"doctor", "--json"}, /*as_nobody=*/true);
    EXPECT_NE(r.exit_code, testing::kCannotDropPrivileges) << r.err;
    json doc = r.Json();
    EXPECT_TRUE(doc.is_object()) << r.out << r.err;
    return Ids(doc["findings"]);
  };
  EXPECT_THAT(access(""), Contains("access.unknown"));
  std::set<std::string> denied = access("render:x:105:\nvideo:x:44:alice\n");
  EXPECT_THAT(denied, Contains("access.kfd"));
  EXPECT_THAT(denied, Not(Contains("access.unknown")));
  std::set<std::string> allowed = access("render:x:105:alice,nobody\nvideo:x:44:\n");
  EXPECT_THAT(allowed, Not(Contains("access.kfd")));
  EXPECT_THAT(allowed, Not(Contains("access.unknown")));
}

}  // namespace
}  // namespace rocmtune::client

namespace rocmtune::client {
namespace {

// Advice that works: once the profile a fix names is applied (the TTM limit
// waits for a reboot), doctor says so instead of telling the user to apply it again.
TEST(DoctorAdviceTest, AnAppliedProfileIsNotAdvisedAgainButAReboot) {
  WorldCopy w("strixpoint");
  StrixHalo(w, 32110204);
  RevertedMesFirmware(w);
  ASSERT_EQ(FindingById(RunDoctor(w).doc["findings"], "issue.strix-halo-gtt-limit")["fix"]["profile"], "strix-halo");
  auto apply = w.Ctl({"apply", "strix-halo"});
  ASSERT_EQ(apply.exit_code, kExitOk) << apply.out << apply.err;
  Doctor d = RunDoctor(w);
  const json& f = FindingById(d.doc["findings"], "issue.strix-halo-gtt-limit");
  EXPECT_TRUE(f["fix"]["profile"].is_null()) << f.dump();
  EXPECT_THAT(f["fix"]["text"].get<std::string>(), HasSubstr("profile is applied; reboot to take effect"));
  auto text = w.Ctl({"doctor"});
  EXPECT_THAT(text.out, Not(HasSubstr("sudo rocmtunectl apply strix-halo")));
}

// The caller's own environment: a variable of this process and a line of its
// user's ~/.bashrc are checked like the system's files, and decide check-compute's verdict.
TEST(DoctorAdviceTest, TheCallersEnvironmentAndShellFilesAreChecked) {
  if (::getuid() != 0)
    GTEST_SKIP() << "the world's etc/passwd names uid 0's home; this test runs as uid " << ::getuid();
  WorldCopy w("rx7900xtx");
  testing::GiveKfd(w);
  ASSERT_EQ(w.Ctl({"check-compute"}).exit_code, kExitOk);
  ::setenv("HSA_OVERRIDE_GFX_VERSION", "10.3.0", 1);
  auto cc = w.Ctl({"check-compute", "--json"});
  Doctor d = RunDoctor(w);
  ::unsetenv("HSA_OVERRIDE_GFX_VERSION");
  EXPECT_EQ(cc.exit_code, kExitFailed) << cc.out;
  const json& f = FindingById(d.doc["findings"], "env.override-other-isa");
  EXPECT_EQ(f["kind"], "caller");
  EXPECT_THAT(f["evidence"], Contains(HasSubstr("environment of this process")));
  // status answers for the system's environment only: the process's variable is not its finding.
  EXPECT_THAT(w.Ctl({"status", "--json"}).out, Not(HasSubstr("env.override-other-isa")));

  w.Write("etc/passwd", "root:x:0:0:root:/root:/bin/bash\n");
  w.Write("root/.bashrc", "# mine\nexport HSA_OVERRIDE_GFX_VERSION=10.3.0\n");
  Doctor home = RunDoctor(w);
  bool found = false;
  for (const json& g : home.doc["findings"])
    if (g["id"] == "env.override-other-isa" && g["kind"] == "caller") {
      found = true;
      EXPECT_EQ(g["file"], "root/.bashrc");
      EXPECT_EQ(g["line"], 2);
    }
  EXPECT_TRUE(found) << home.doc.dump();
  EXPECT_EQ(w.Ctl({"check-compute"}).exit_code, kExitFailed);
}

// On a machine where some GPUs can run ROCm work and others cannot, doctor says how to keep
// programs on the working ones (ROCR_VISIBLE_DEVICES, by KFD's order).
TEST(DoctorAdviceTest, AMixedMachineGetsTheVisibleDevicesThatWork) {
  WorldCopy w("mi210x8");
  Doctor all_good = RunDoctor(w);
  EXPECT_THAT(Ids(all_good.doc["findings"]), Not(Contains("compute.hide-gpus")));
  // The first GPU node (2: nodes 0 and 1 are the CPUs) becomes an RDNA1 die, which ROCm does not
  // support (issue.rdna1-not-supported: no-gpu): it is not usable, the seven others are.
  const std::string props = "sys/devices/virtual/kfd/kfd/topology/nodes/2/properties";
  std::string text = w.Read(props);
  text.replace(text.find("gfx_target_version 90010"), 24, "gfx_target_version 100100");
  w.Write(props, text);
  Doctor d = RunDoctor(w);
  const json& f = FindingById(d.doc["findings"], "compute.hide-gpus");
  EXPECT_THAT(f["fix"]["text"].get<std::string>(), HasSubstr("ROCR_VISIBLE_DEVICES=1,2,3,4,5,6,7"));
}

}  // namespace
}  // namespace rocmtune::client
