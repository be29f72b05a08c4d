// The CLI contract scripts and Ansible rely on (rocmtunectl(1), CHANGES and EXIT STATUS): idempotent verbs that
// write nothing when nothing changes, --check that never writes, fixed exit codes, and
// --json that prints exactly one document on stdout.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"

using ::testing::HasSubstr;

namespace rocmtune::client {
namespace {

using json = nlohmann::ordered_json;
using testing::WorldCopy;

constexpr const char* kCliContractWorld = "rx5700xt";

TEST(CliContractTest, TheSameSetTwiceChangesNothingTheSecondTime) {
  WorldCopy w(kCliContractWorld);
  auto first = w.Ctl({"set", "amdgpu.noretry=0", "cmdline.iommu=pt", "--json"});
  ASSERT_EQ(first.exit_code, kExitOk) << first.out << first.err;
  ASSERT_EQ(first.Json()["changed"], true);
  auto before = w.Snapshot();  // with every st_mtim
  size_t files = w.JournalFiles();
  ASSERT_EQ(files, 1u);

  auto second = w.Ctl({"set", "amdgpu.noretry=0", "cmdline.iommu=pt", "--json"});
  EXPECT_EQ(second.exit_code, kExitOk) << second.out << second.err;
  json doc = second.Json();
  EXPECT_EQ(testing::ResultDocumentProblems(doc), "") << second.out;
  EXPECT_EQ(doc["changed"], false);
  EXPECT_EQ(doc["check"], false);
  EXPECT_TRUE(doc["transaction"].is_null());
  EXPECT_EQ(doc["reboot_required"], false) << "nothing changed, so nothing waits for a reboot";
  EXPECT_EQ(doc["regenerated"]["initramfs"], "no");
  EXPECT_EQ(doc["regenerated"]["bootloader"], "no");
  EXPECT_TRUE(doc["changes"].empty());
  // Not a byte, not a timestamp: the lock and the journal directory included.
  EXPECT_EQ(testing::ChangedPaths(before, w.Snapshot(), true), std::vector<std::string>{});
  EXPECT_EQ(w.JournalFiles(), files);
}

TEST(CliContractTest, CheckWritesNothing) {
  WorldCopy w(kCliContractWorld);
  auto before = w.Snapshot();
  auto check = w.Ctl({"set", "amdgpu.noretry=0", "cmdline.iommu=pt", "--check", "--json"});
  EXPECT_EQ(check.exit_code, kExitOk) << check.out << check.err;
  json doc = check.Json();
  EXPECT_EQ(testing::ResultDocumentProblems(doc), "") << check.out;
  EXPECT_EQ(doc["check"], true);
  EXPECT_EQ(doc["changed"], true) << "a check reports what would change";
  EXPECT_TRUE(doc["transaction"].is_null());
  EXPECT_EQ(doc["reboot_required"], true);
  EXPECT_FALSE(doc["changes"].empty());
  EXPECT_EQ(w.Ctl({"set", "amdgpu.noretry=0", "--check"}).exit_code, kExitOk);
  EXPECT_EQ(testing::ChangedPaths(before, w.Snapshot(), true), std::vector<std::string>{});

  // revert/reset --check after a real change write nothing either.
  ASSERT_EQ(w.Ctl({"set", "amdgpu.noretry=0"}).exit_code, kExitOk);
  auto after_set = w.Snapshot();
  for (std::vector<std::string> verb :
       {std::vector<std::string>{"revert", "--check", "--json"}, std::vector<std::string>{"reset", "--check", "--json"},
        std::vector<std::string>{"unset", "amdgpu.noretry", "--check", "--json"}}) {
    auto r = w.Ctl(verb);
    EXPECT_EQ(r.exit_code, kExitOk) << verb[0] << ": " << r.out << r.err;
    EXPECT_EQ(r.Json()["changed"], true) << verb[0];
    EXPECT_EQ(r.Json()["check"], true) << verb[0];
  }
  EXPECT_EQ(testing::ChangedPaths(after_set, w.Snapshot(), true), std::vector<std::string>{});
  EXPECT_EQ(w.JournalFiles(), 1u);
}

TEST(CliContractTest, ARefusedValueExitsThreeAndWritesNothing) {
  WorldCopy w(kCliContractWorld);
  auto before = w.Snapshot();
  // Refused with a valid neighbour: nothing of a refused request is applied.
  auto r = w.Ctl({"set", "amdgpu.noretry=0", "cmdline.amd_iommu=on", "--json"});
  EXPECT_EQ(r.exit_code, kExitRefused) << r.out << r.err;
  json doc = r.Json();
  EXPECT_EQ(testing::ResultDocumentProblems(doc), "") << r.out;
  EXPECT_EQ(doc["changed"], false);
  EXPECT_TRUE(doc["transaction"].is_null());
  ASSERT_FALSE(doc["refused"].empty());
  EXPECT_THAT(doc["refused"].dump(), HasSubstr("amd_iommu"));
  EXPECT_TRUE(doc["changes"].empty());
  EXPECT_EQ(w.Ctl({"set", "amdgpu.noretry=banana"}).exit_code, kExitRefused);
  EXPECT_EQ(w.Ctl({"set", "amdgpu.noretry=0", "cmdline.amd_iommu=on", "--check"}).exit_code, kExitRefused)
      << "--check says up front that it would be refused";
  EXPECT_EQ(testing::ChangedPaths(before, w.Snapshot(), true), std::vector<std::string>{});
}

TEST(CliContractTest, UsageErrorsExitTwo) {
  WorldCopy w(kCliContractWorld);
  EXPECT_EQ(w.Ctl({"set"}).exit_code, kExitUsage);
  EXPECT_EQ(w.Ctl({"set", "amdgpu.noretry"}).exit_code, kExitUsage) << "no '='";
  EXPECT_EQ(w.Ctl({"set", "nosuchbackend.x=1"}).exit_code, kExitUsage);
  EXPECT_EQ(w.Ctl({"frobnicate"}).exit_code, kExitUsage);
  EXPECT_EQ(w.JournalFiles(), 0u);
}

// Every --json verb prints one document, nothing before or after it, and nothing on stderr.
TEST(CliContractTest, JsonIsExactlyOneDocumentWithItsSchema) {
  WorldCopy w(kCliContractWorld);
  const std::vector<std::pair<std::vector<std::string>, std::string>> runs = {
      {{"set", "amdgpu.noretry=0", "--check", "--json"}, "rocmtune.result.v1"},
      {{"set", "amdgpu.noretry=0", "cmdline.iommu=pt", "--json"}, "rocmtune.result.v1"},
      {{"set", "amdgpu.noretry=0", "--json"}, "rocmtune.result.v1"},
      {{"history", "--json"}, "rocmtune.history.v1"},
      {{"--json", "history"}, "rocmtune.history.v1"},
      {{"verify", "--json"}, "rocmtune.verify.v1"},
      {{"unset", "cmdline.iommu", "--json"}, "rocmtune.result.v1"},
      {{"revert", "--json"}, "rocmtune.result.v1"},
      {{"reset", "--json"}, "rocmtune.result.v1"},
      {{"revert", "--json"}, "rocmtune.result.v1"},
  };
  for (const auto& [args, schema] : runs) {
    auto r = w.Ctl(args);
    std::string what = args[0] + (args.size() > 1 ? " " + args[1] : "");
    json doc = r.Json();
    ASSERT_TRUE(doc.is_object()) << what << " printed: " << r.out;
    EXPECT_EQ(doc.value("schema", ""), schema) << what;
    EXPECT_EQ(r.err, "") << what;
    if (schema == "rocmtune.result.v1") {
      EXPECT_EQ(r.exit_code, kExitOk) << what << ": " << r.out;
      EXPECT_EQ(testing::ResultDocumentProblems(doc), "") << what << ": " << r.out;
      std::vector<std::string> keys;
      for (const auto& [key, value] : doc.items()) keys.push_back(key);
      for (const char* key : {"schema", "changed", "check", "transaction", "reboot_required", "regenerated", "changes",
                              "warnings", "refused"})
        EXPECT_THAT(keys, ::testing::Contains(key)) << what;
    }
    if (schema == "rocmtune.history.v1") {
      EXPECT_TRUE(doc["transactions"].is_array()) << what;
      EXPECT_TRUE(doc["active_profile"].is_string() || doc["active_profile"].is_null()) << what;  // null: none
    }
    if (schema == "rocmtune.verify.v1") {
      EXPECT_TRUE(doc["ok"].is_boolean()) << what;
      EXPECT_TRUE(doc["differences"].is_array()) << what;
      EXPECT_EQ(r.exit_code, doc["ok"] == true ? kExitOk : kExitVerifyDiffers) << what;
    }
  }
  // The changes of a real set: the file write with its diff and the regenerator.
  WorldCopy fresh(kCliContractWorld);
  json doc = fresh.Ctl({"set", "amdgpu.noretry=0", "--json"}).Json();
  ASSERT_EQ(doc["changes"].size(), 2u) << doc.dump(2);
  EXPECT_EQ(doc["changes"][0]["backend"], "modprobe");
  EXPECT_EQ(doc["changes"][0]["action"], "write");
  EXPECT_EQ(doc["changes"][0]["path"], "etc/modprobe.d/rocmtune.conf");
  EXPECT_THAT(doc["changes"][0]["diff"].get<std::string>(), HasSubstr("+options amdgpu noretry=0\n"));
  EXPECT_EQ(doc["changes"][1]["action"], "regenerate");
  EXPECT_EQ(doc["changes"][1]["backend"], "initramfs");
}

}  // namespace
}  // namespace rocmtune::client
