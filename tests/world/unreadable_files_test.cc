// A file rocmtune must read but cannot (no permission, over the size limit, not a regular file)
// is a finding in `status` and a difference in `verify`, never silently "unset" or
// "removed by someone else": both would be false, and verify would pass or blame someone.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace fs = std::filesystem;

namespace rocmtune::client {
namespace {

using json = nlohmann::ordered_json;
using testing::WorldCopy;

constexpr const char* kModprobeDropIn = "etc/modprobe.d/rocmtune.conf";
constexpr const char* kEnvDropIn = "etc/environment.d/90-rocmtune.conf";

const json* FindingFor(const json& status, const std::string& subject) {
  for (const json& f : status["findings"])
    if (f["id"] == "file.unreadable" && f["subject"] == subject) return &f;
  return nullptr;
}

const json* DifferenceFor(const json& verify, const std::string& subject) {
  for (const json& d : verify["differences"])
    if (d["subject"] == subject) return &d;
  return nullptr;
}

// rocmtune's own modprobe.d and environment.d files, written through the real helper.
void SetBoth(const WorldCopy& w) {
  auto r = w.Ctl({"set", "amdgpu.noretry=0", "env.HIP_VISIBLE_DEVICES=0"});
  ASSERT_EQ(r.exit_code, kExitOk) << r.out << r.err;
  ASSERT_TRUE(w.Exists(kModprobeDropIn));
  ASSERT_TRUE(w.Exists(kEnvDropIn));
}

void ExpectReportedEverywhere(const WorldCopy& w, const std::string& rel, bool as_nobody, const std::string& reason) {
  std::string subject = "/" + rel;
  auto status = w.Ctl({"status", "--json"}, as_nobody);
  ASSERT_EQ(status.exit_code, kExitOk) << status.err;
  json status_doc = status.Json();
  const json* finding = FindingFor(status_doc, subject);
  ASSERT_NE(finding, nullptr) << subject << " in " << status.out;
  EXPECT_THAT((*finding)["message"].get<std::string>(), HasSubstr(reason));
  EXPECT_NE((*finding)["severity"], "info");

  auto human = w.Ctl({"status"}, as_nobody);
  EXPECT_THAT(human.out, HasSubstr(rel));
  EXPECT_THAT(human.out, HasSubstr(reason));

  auto verify = w.Ctl({"verify", "--json"}, as_nobody);
  EXPECT_EQ(verify.exit_code, kExitVerifyDiffers) << verify.out << verify.err;
  EXPECT_THAT(verify.out, Not(HasSubstr("removed by someone else")));
  json verify_doc = verify.Json();
  const json* diff = DifferenceFor(verify_doc, subject);
  ASSERT_NE(diff, nullptr) << subject << " in " << verify.out;
  EXPECT_EQ((*diff)["kind"], "unreadable");
  EXPECT_THAT((*diff)["message"].get<std::string>(), HasSubstr(reason));
  auto verify_text = w.Ctl({"verify"}, as_nobody);
  EXPECT_THAT(verify_text.out, Not(HasSubstr("removed by someone else")));
}

TEST(UnreadableFilesTest, OwnFilesWithoutReadPermission) {
  WorldCopy w("rx5700xt");
  SetBoth(w);
  if (::geteuid() == 0) {
    // The unprivileged reader owns the world (the journal is its to read) except what it may not read.
    for (const auto& e : fs::recursive_directory_iterator(w.root()))
      ASSERT_EQ(::lchown(e.path().c_str(), 65534, 65534), 0) << e.path();
    ASSERT_EQ(::lchown(w.root().c_str(), 65534, 65534), 0);
  }
  ASSERT_EQ(::chmod(w.Path(kModprobeDropIn).c_str(), 0), 0);
  ASSERT_EQ(::chmod(w.Path(kEnvDropIn).c_str(), 0), 0);
  auto probe = w.Ctl({"status", "--json"}, true);
  if (probe.exit_code == testing::kCannotDropPrivileges) GTEST_SKIP() << "cannot drop privileges to uid 65534 here";
  ExpectReportedEverywhere(w, kModprobeDropIn, true, "Permission denied");
  ExpectReportedEverywhere(w, kEnvDropIn, true, "Permission denied");
}

TEST(UnreadableFilesTest, OwnFileOverTheSizeLimit) {
  WorldCopy w("rx5700xt");
  SetBoth(w);
  std::string big = w.Read(kModprobeDropIn) + std::string(5 << 20, '#') + "\n";
  w.Write(kModprobeDropIn, big);
  ExpectReportedEverywhere(w, kModprobeDropIn, false, "larger than");
}

TEST(UnreadableFilesTest, OwnFileThatIsNotARegularFile) {
  WorldCopy w("rx5700xt");
  SetBoth(w);
  ASSERT_EQ(::unlink(w.Path(kEnvDropIn).c_str()), 0);
  ASSERT_EQ(::mkfifo(w.Path(kEnvDropIn).c_str(), 0644), 0);
  ExpectReportedEverywhere(w, kEnvDropIn, false, "not a regular file");
}

// Files of others that decide a value rocmtune reports: unreadable, the value shown would be a guess.
TEST(UnreadableFilesTest, OtherConfigFilesAreFindingsToo) {
  WorldCopy w("rx5700xt");
  w.Write("etc/modprobe.d/zz-local.conf", "options amdgpu noretry=1\n" + std::string(5 << 20, '#') + "\n");
  w.Write("etc/environment.d/50-local.conf", "");
  ASSERT_EQ(::unlink(w.Path("etc/environment.d/50-local.conf").c_str()), 0);
  ASSERT_EQ(::mkfifo(w.Path("etc/environment.d/50-local.conf").c_str(), 0644), 0);
  auto status = w.Ctl({"status", "--json"});
  ASSERT_EQ(status.exit_code, kExitOk) << status.err;
  json doc = status.Json();
  EXPECT_NE(FindingFor(doc, "/etc/modprobe.d/zz-local.conf"), nullptr) << status.out;
  EXPECT_NE(FindingFor(doc, "/etc/environment.d/50-local.conf"), nullptr) << status.out;
}

}  // namespace
}  // namespace rocmtune::client
