// Errors a script can read: one rocmtune.error.v1 document on stdout under --json whenever a
// request fails before it has its own document; an unknown verb names the verbs; a tree that
// cannot be read is an error, never "No AMD GPU".
#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"
#include "client/verbs.h"

namespace rocmtune {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace client;

TEST(ErrorsCliTest, AnUnknownVerbNamesEveryVerb) {
  testing::WorldCopy w("rx5700xt");
  for (const std::vector<std::string>& args : {std::vector<std::string>{"frobnicate"}, std::vector<std::string>{}}) {
    auto r = w.Ctl(args);
    EXPECT_EQ(r.exit_code, kExitUsage);
    EXPECT_THAT(r.err, HasSubstr(args.empty() ? "a verb is needed" : "unknown verb 'frobnicate'"));
    for (const Verb& verb : Verbs()) EXPECT_THAT(r.err, HasSubstr(std::string(verb.name))) << verb.name;
    EXPECT_EQ(r.out, "");
  }
}

struct Failure {
  std::vector<std::string> args;
  int exit_code;
  const char* code;
};

TEST(ErrorsCliTest, UnderJsonEveryFailurePrintsOneErrorDocument) {
  testing::WorldCopy w("rx5700xt");
  const Failure failures[] = {
      {{"--json", "frobnicate"}, kExitUsage, "invalid-argument"},
      {{"status", "--bogus", "--json"}, kExitUsage, "invalid-argument"},
      {{"show", "no-such-profile", "--json"}, kExitUsage, "not-found"},
      {{"apply", "no-such-profile", "--json"}, kExitUsage, "not-found"},
      {{"revert", "99", "--json"}, kExitUsage, "not-found"},
      {{"set", "amdgpu.noretry", "--json"}, kExitUsage, "invalid-argument"},
      // Unknown names are usage errors with "did you mean", as for set.
      {{"explain", "amdgpu.no_such_parameter", "--json"}, kExitUsage, "invalid-argument"},
  };
  for (const Failure& f : failures) {
    auto r = w.Ctl(f.args);
    std::string what = ::testing::PrintToString(f.args);
    EXPECT_EQ(r.exit_code, f.exit_code) << what << r.err;
    auto doc = r.Json();
    ASSERT_TRUE(doc.is_object()) << what << ": stdout is not one JSON document: " << r.out;
    EXPECT_EQ(doc["schema"], "rocmtune.error.v1") << what;
    EXPECT_EQ(doc["code"], f.code) << what;
    ASSERT_TRUE(doc["message"].is_string()) << what;
    EXPECT_FALSE(doc["message"].get<std::string>().empty()) << what;
    EXPECT_TRUE(doc.contains("hint")) << what;
    // The same message reaches people on stderr.
    EXPECT_THAT(r.err, HasSubstr(doc["message"].get<std::string>())) << what;
  }
}

TEST(ErrorsCliTest, WithoutJsonAFailurePrintsNothingOnStdout) {
  testing::WorldCopy w("rx5700xt");
  auto r = w.Ctl({"show", "no-such-profile"});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("no-such-profile"));
}

// One convention for names a person mistypes: a key, a profile or a verb
// rocmtune does not know is a usage error (exit 2) that says which known name is nearest.
TEST(ErrorsCliTest, AMistypedNameIsAUsageErrorWithDidYouMean) {
  testing::WorldCopy w("rx5700xt");
  struct Case {
    std::vector<std::string> args;
    std::string nearest;
  };
  const Case cases[] = {
      {{"explain", "amdgpu.noretri"}, "amdgpu.noretry"},
      {{"explain", "env.HSA_OVERIDE_GFX_VERSION"}, "env.HSA_OVERRIDE_GFX_VERSION"},
      {{"show", "rdna1-saf"}, "rdna1-safe"},
      {{"apply", "rdna1-saf", "--check"}, "rdna1-safe"},
      {{"stauts"}, "status"},
  };
  for (const Case& c : cases) {
    auto r = w.Ctl(c.args);
    std::string what = ::testing::PrintToString(c.args);
    EXPECT_EQ(r.exit_code, kExitUsage) << what << r.err;
    EXPECT_THAT(r.err, HasSubstr("id you mean " + c.nearest)) << what;
  }
  auto far = w.Ctl({"show", "zzzzzzzzzz"});
  EXPECT_EQ(far.exit_code, kExitUsage);
  EXPECT_THAT(far.err, Not(HasSubstr("id you mean"))) << far.err;
}

// As uid 65534 (or any non-root user), sys/ or the root itself closed to the reader.
TEST(ErrorsCliTest, StatusOnATreeItCannotReadFailsInsteadOfFindingNoGpu) {
  for (const char* closed : {"sys", ""}) {
    testing::WorldCopy w("rx5700xt");
    auto probe = w.Ctl({"status", "--json"}, true);
    if (probe.exit_code == testing::kCannotDropPrivileges) GTEST_SKIP() << "cannot drop privileges to uid 65534 here";
    ASSERT_EQ(probe.exit_code, kExitOk) << probe.err;
    std::string dir = *closed ? w.Path(closed) : w.root();
    ASSERT_EQ(::chmod(dir.c_str(), 0), 0);
    auto human = w.Ctl({"status"}, true);
    auto json = w.Ctl({"status", "--json"}, true);
    ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
    EXPECT_EQ(human.exit_code, kExitFailed) << closed << ": " << human.out;
    EXPECT_THAT(human.err, HasSubstr("cannot read")) << closed;
    EXPECT_THAT(human.out, Not(HasSubstr("No AMD GPU"))) << closed;
    EXPECT_EQ(json.exit_code, kExitFailed) << closed;
    EXPECT_EQ(json.Json()["schema"], "rocmtune.error.v1") << closed << ": " << json.out;
  }
}

}  // namespace
}  // namespace rocmtune
