// `unset KEY --admin-lines` through rocmtunectl and the real helper on a copy of the RDNA1 world
//: the admin's HSA_OVERRIDE_GFX_VERSION=10.3.0 line is shown as a diff in the
// plan, commented out, journaled, and `revert` and `reset` put the file back byte for byte —
// also a file without a final newline, with CRLF line ends or with a NUL byte elsewhere.
// A line that sets more than the key is refused, naming file:line, and nothing is written.
// The same for an admin's `options amdgpu|ttm` line in /etc/modprobe.d (AdminModprobeLines).
#include <cstdlib>
#include <string>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"

namespace rocmtune::client {
namespace {

using ::testing::HasSubstr;
using testing::WorldCopy;

constexpr const char* kAdminLinesCliWorld = "rx5700xt";  // gfx1010 (RDNA1): the 10.3.0 override crashes it
constexpr const char* kKey = "env.HSA_OVERRIDE_GFX_VERSION";

struct FileCase {
  const char* name;
  const char* path;
  std::string content;
  std::string commented;  // the content after --admin-lines
};

void PrintTo(const FileCase& c, std::ostream* os) { *os << c.name; }

std::vector<FileCase> Cases() {
  using std::string_literals::operator""s;
  return {
      {"environment", "etc/environment", "LANG=C.UTF-8\nHSA_OVERRIDE_GFX_VERSION=10.3.0\nPATH=/usr/bin\n",
       "LANG=C.UTF-8\n# rocmtune unset: HSA_OVERRIDE_GFX_VERSION=10.3.0\nPATH=/usr/bin\n"},
      {"no_final_newline", "etc/environment", "LANG=C.UTF-8\nHSA_OVERRIDE_GFX_VERSION=10.3.0",
       "LANG=C.UTF-8\n# rocmtune unset: HSA_OVERRIDE_GFX_VERSION=10.3.0"},
      {"crlf", "etc/environment.d/10-rdna1.conf", "LANG=C.UTF-8\r\nHSA_OVERRIDE_GFX_VERSION=\"10.3.0\"\r\n",
       "LANG=C.UTF-8\r\n# rocmtune unset: HSA_OVERRIDE_GFX_VERSION=\"10.3.0\"\r\n"},
      {"nul_elsewhere", "etc/environment", "LANG=C.UTF-8\0\nHSA_OVERRIDE_GFX_VERSION=10.3.0\n\xff\n"s,
       "LANG=C.UTF-8\0\n# rocmtune unset: HSA_OVERRIDE_GFX_VERSION=10.3.0\n\xff\n"s},
      {"profile_d_in_if", "etc/profile.d/rdna1.sh",
       "if [ -d /opt/rocm ]; then\n  export HSA_OVERRIDE_GFX_VERSION=10.3.0\nfi\n",
       "if [ -d /opt/rocm ]; then\n: # rocmtune unset:   export HSA_OVERRIDE_GFX_VERSION=10.3.0\nfi\n"},
  };
}

// `status`'s owner of the override.
std::string Owner(const WorldCopy& w) {
  nlohmann::ordered_json doc = w.Ctl({"status", "--json"}).Json();
  for (const auto& k : doc["knobs"])
    if (k["key"] == kKey) return k["owner"];
  return "(not listed)";
}

class AdminLines : public ::testing::TestWithParam<FileCase> {};

TEST_P(AdminLines, PlannedAsADiffCommentedOutAndPutBackByteForByte) {
  const FileCase& c = GetParam();
  WorldCopy w(kAdminLinesCliWorld);
  w.Write(c.path, c.content);
  ASSERT_EQ(Owner(w), "admin");

  auto check = w.Ctl({"unset", kKey, "--admin-lines", "--check"});
  ASSERT_EQ(check.exit_code, kExitOk) << check.out << check.err;
  EXPECT_THAT(check.out, HasSubstr(fmt::format("write /{}", c.path)));
  // The diff's + line is the commented line (without a '\r': the diff shows text lines).
  size_t mark = c.commented.rfind('\n', c.commented.find("rocmtune unset: ")) + 1;
  std::string line = c.commented.substr(mark, c.commented.find_first_of("\r\n", mark) - mark);
  EXPECT_THAT(check.out, HasSubstr("\n+" + line)) << "the plan shows the edit as a diff:\n" << check.out;
  EXPECT_EQ(w.Read(c.path), c.content) << "a check writes nothing";

  auto unset = w.Ctl({"unset", kKey, "--admin-lines", "--json"});
  ASSERT_EQ(unset.exit_code, kExitOk) << unset.out << unset.err;
  EXPECT_EQ(unset.Json()["changes"][0]["path"], c.path);
  EXPECT_EQ(w.Read(c.path), c.commented);
  if (std::string(c.path).ends_with(".sh")) {
    // The commented script still parses: `:` keeps the then-branch a command.
    std::string sh = fmt::format("sh -n '{}'", w.Path(c.path));
    EXPECT_EQ(std::system(sh.c_str()), 0) << w.Read(c.path);
  }
  // status no longer sees the admin's override (it did before).
  EXPECT_EQ(Owner(w), "(not listed)");

  auto revert = w.Ctl({"revert"});
  ASSERT_EQ(revert.exit_code, kExitOk) << revert.out << revert.err;
  EXPECT_EQ(w.Read(c.path), c.content) << "revert restores every byte";

  ASSERT_EQ(w.Ctl({"unset", kKey, "--admin-lines"}).exit_code, kExitOk);
  EXPECT_EQ(w.Read(c.path), c.commented);
  auto reset = w.Ctl({"reset"});
  ASSERT_EQ(reset.exit_code, kExitOk) << reset.out << reset.err;
  EXPECT_EQ(w.Read(c.path), c.content) << "reset restores every byte";
}

std::string CaseName(const ::testing::TestParamInfo<FileCase>& info) { return info.param.name; }
INSTANTIATE_TEST_SUITE_P(Files, AdminLines, ::testing::ValuesIn(Cases()), CaseName);

TEST(AdminLinesRefused, ALineThatSetsMoreThanTheKeyIsNamedAndLeft) {
  WorldCopy w(kAdminLinesCliWorld);
  const std::string script = "export HSA_OVERRIDE_GFX_VERSION=10.3.0 ROCR_VISIBLE_DEVICES=0\n";
  w.Write("etc/profile.d/rdna1.sh", script);
  auto r = w.Ctl({"unset", kKey, "--admin-lines"});
  EXPECT_EQ(r.exit_code, kExitRefused) << r.out << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr("/etc/profile.d/rdna1.sh:1"));
  EXPECT_THAT(r.out + r.err, HasSubstr("more than one variable"));
  EXPECT_EQ(w.Read("etc/profile.d/rdna1.sh"), script);
  EXPECT_EQ(w.JournalFiles(), 0u);
}

TEST(AdminLinesRefused, AFileOutsideTheAdminLineFilesIsNamedAndLeft) {
  WorldCopy w(kAdminLinesCliWorld);
  const std::string bashrc = "# System-wide .bashrc\nexport HSA_OVERRIDE_GFX_VERSION=10.3.0\n";
  w.Write("etc/bash.bashrc", bashrc);
  auto r = w.Ctl({"unset", kKey, "--admin-lines"});
  EXPECT_EQ(r.exit_code, kExitRefused) << r.out << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr("/etc/bash.bashrc:"));
  EXPECT_EQ(w.Read("etc/bash.bashrc"), bashrc);
}

TEST(AdminLinesRefused, ACommandLineKeyIsNotEditedAndTheCallerIsTold) {
  WorldCopy w(kAdminLinesCliWorld);
  auto r = w.Ctl({"unset", "cmdline.iommu", "--admin-lines", "--check"});
  EXPECT_EQ(r.exit_code, kExitOk) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("--admin-lines comments out env.* and modprobe.d lines only"));
}

// An admin's modprobe.d `options` line (module options): `unset amdgpu.P
// --admin-lines` comments out the line that sets P alone; revert and reset put it back.
constexpr const char* kModprobeFile = "etc/modprobe.d/amdgpu-folk.conf";
constexpr const char* kModprobe = "# from a forum\noptions amdgpu mtype_local=1\r\noptions amdgpu noretry=0";
constexpr const char* kModprobeCommented =
    "# from a forum\n# rocmtune unset: options amdgpu mtype_local=1\r\noptions amdgpu noretry=0";

std::string ModuleOwner(const WorldCopy& w, std::string_view key) {
  nlohmann::ordered_json doc = w.Ctl({"status", "--json"}).Json();
  for (const auto& k : doc["knobs"])
    if (k["key"] == key) return k["owner"];
  return "(not listed)";
}

TEST(AdminModprobeLines, CommentedOutJournaledAndPutBackByteForByte) {
  WorldCopy w(kAdminLinesCliWorld);
  w.Write(kModprobeFile, kModprobe);
  ASSERT_EQ(ModuleOwner(w, "amdgpu.mtype_local"), "admin");

  auto check = w.Ctl({"unset", "amdgpu.mtype_local", "--admin-lines", "--check"});
  ASSERT_EQ(check.exit_code, kExitOk) << check.out << check.err;
  EXPECT_THAT(check.out, HasSubstr(fmt::format("write /{}", kModprobeFile)));
  EXPECT_THAT(check.out, HasSubstr("\n+# rocmtune unset: options amdgpu mtype_local=1")) << check.out;
  EXPECT_EQ(w.Read(kModprobeFile), kModprobe) << "a check writes nothing";

  auto unset = w.Ctl({"unset", "amdgpu.mtype_local", "--admin-lines", "--json"});
  ASSERT_EQ(unset.exit_code, kExitOk) << unset.out << unset.err;
  EXPECT_EQ(unset.Json()["changes"][0]["path"], kModprobeFile);
  EXPECT_EQ(w.Read(kModprobeFile), kModprobeCommented);
  EXPECT_EQ(ModuleOwner(w, "amdgpu.mtype_local"), "(not listed)") << "modprobe no longer reads it";
  EXPECT_EQ(ModuleOwner(w, "amdgpu.noretry"), "admin") << "the other line stays";

  auto revert = w.Ctl({"revert"});
  ASSERT_EQ(revert.exit_code, kExitOk) << revert.out << revert.err;
  EXPECT_EQ(w.Read(kModprobeFile), kModprobe) << "revert restores every byte";

  ASSERT_EQ(w.Ctl({"unset", "amdgpu.mtype_local", "--admin-lines"}).exit_code, kExitOk);
  EXPECT_EQ(w.Read(kModprobeFile), kModprobeCommented);
  auto reset = w.Ctl({"reset"});
  ASSERT_EQ(reset.exit_code, kExitOk) << reset.out << reset.err;
  EXPECT_EQ(w.Read(kModprobeFile), kModprobe) << "reset restores every byte";
}

TEST(AdminModprobeLines, ALineThatSetsSeveralOptionsIsNamedWithTheOthersAndLeft) {
  WorldCopy w(kAdminLinesCliWorld);
  const std::string several = "options amdgpu noretry=0 mtype_local=1\n";
  w.Write(kModprobeFile, several);
  auto r = w.Ctl({"unset", "amdgpu.noretry", "--admin-lines"});
  EXPECT_EQ(r.exit_code, kExitRefused) << r.out << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr(fmt::format("/{}:1", kModprobeFile)));
  EXPECT_THAT(r.out + r.err, HasSubstr("more than one option (amdgpu.noretry, amdgpu.mtype_local)"));
  EXPECT_EQ(w.Read(kModprobeFile), several);
  EXPECT_EQ(w.JournalFiles(), 0u);
}

TEST(AdminModprobeLines, APackagesModprobeDIsRefusedWithTheWayOut) {
  WorldCopy w(kAdminLinesCliWorld);
  const std::string package = "options amdgpu mtype_local=1\n";
  w.Write("usr/lib/modprobe.d/amdgpu-vendor.conf", package);
  auto r = w.Ctl({"unset", "amdgpu.mtype_local", "--admin-lines"});
  EXPECT_EQ(r.exit_code, kExitRefused) << r.out << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr("/usr/lib/modprobe.d/amdgpu-vendor.conf:1"));
  EXPECT_THAT(r.out + r.err, HasSubstr("belongs to a package"));
  EXPECT_THAT(r.out + r.err, HasSubstr("a file of the same name in /etc/modprobe.d overrides it"));
  EXPECT_EQ(w.Read("usr/lib/modprobe.d/amdgpu-vendor.conf"), package);
  EXPECT_EQ(w.JournalFiles(), 0u);
}

TEST(AdminLinesRefused, WithoutTheOptionTheAdminsLineStays) {
  WorldCopy w(kAdminLinesCliWorld);
  const std::string env = "HSA_OVERRIDE_GFX_VERSION=10.3.0\n";
  w.Write("etc/environment", env);
  auto r = w.Ctl({"unset", kKey});
  EXPECT_EQ(r.exit_code, kExitOk) << r.out << r.err;
  // One warning for the line: what it does to this RDNA1 GPU, and the two ways out.
  EXPECT_THAT(r.out, HasSubstr("which rocmtune does not edit; it runs gfx1030 code on"));
  EXPECT_THAT(r.out, HasSubstr(". Remove it there, or run `rocmtunectl unset env.HSA_OVERRIDE_GFX_VERSION "
                               "--admin-lines` to comment it out"));
  EXPECT_EQ(r.out.find("warning:"), r.out.rfind("warning:")) << r.out;
  EXPECT_EQ(w.Read("etc/environment"), env);
}

}  // namespace
}  // namespace rocmtune::client
