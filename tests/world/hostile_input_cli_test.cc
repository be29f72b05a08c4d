// Hostile files where rocmtunectl reads them, end to
// end on a copy of a world: a journal record of the wrong type or nested 10,000 deep, a profile
// with the bytes toml++ 3.3.0 mishandles, includes that fan out. Each ends in a message and an
// exit code; before, the journal made every later run abort (134) and the includes hung.
#include <unistd.h>

#include <string>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "client/exit_codes.h"

using ::testing::HasSubstr;

namespace rocmtune::client {
namespace {

using testing::WorldCopy;

constexpr const char* kHostileInputCliWorld = "rx5500xt";
constexpr const char* kJournal = "var/lib/rocmtune/journal/000001.jsonl";

// A begin record as the helper writes it, with one field replaced by `field`: `value`.
std::string Begin(std::string_view field, std::string_view value) {
  std::string fields = R"("record":"begin","id":"1","time":"2025-01-02T03:04:05Z",)"
                       R"("intent":{"verb":"set","profile":"","args":[],"reverts":""},"force":false,"ops":[])";
  size_t at = fields.find(fmt::format("\"{}\":", field));
  if (at != std::string::npos) {
    size_t start = at + field.size() + 3;
    size_t end = fields.find_first_of(",}", start);
    if (fields[start] == '{') end = fields.find('}', start) + 1;
    fields.replace(start, end - start, value);
  }
  return "{" + fields + "}\n";
}

TEST(HostileInputCliTest, ABadJournalIsAMessageNotAnAbort) {
  const std::string deep = std::string(10000, '[') + std::string(10000, ']');
  struct Case {
    std::string name, journal, says;
  } cases[] = {
      {"force a string", Begin("force", R"("yes")") + "{\"record\":\"commit\"}\n", "\"force\" must be true or false"},
      {"ops a number", Begin("ops", "5") + "{\"record\":\"commit\"}\n", "\"ops\" must be an array"},
      {"rollback reason an array", Begin("force", "false") + "{\"record\":\"rollback\",\"reason\":[]}\n",
       "\"reason\" must be a string"},
      {"a record that is an array", Begin("force", "false") + "[\"commit\"]\n{\"record\":\"commit\"}\n",
       "line 2: not a journal record"},
      {"10,000 levels", Begin("intent", deep) + "{\"record\":\"commit\"}\n", "line 1: nests deeper than 32 levels"},
  };
  for (const Case& c : cases) {
    WorldCopy w(kHostileInputCliWorld);
    w.Write(kJournal, c.journal);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"history"}, {"verify"}, {"set", "amdgpu.noretry=0", "--check"}}) {
      auto r = w.Ctl(args);
      EXPECT_EQ(r.exit_code, kExitFailed) << c.name << ": " << args[0] << "\n" << r.out << r.err;
      EXPECT_THAT(r.err, HasSubstr(fmt::format("the journal cannot be read: {}", kJournal))) << c.name;
      EXPECT_THAT(r.err, HasSubstr(c.says)) << c.name << ": " << args[0];
    }
    auto status = w.Ctl({"status"});
    EXPECT_EQ(status.exit_code, kExitOk) << c.name << "\n" << status.err;
  }
}

// amdgpu_device_check_arguments() takes -1 and 4..9 and turns anything else into -1.
TEST(HostileInputCliTest, VmFragmentSizeOutsideTheKernelsRangeIsRefused) {
  WorldCopy w(kHostileInputCliWorld);
  for (const auto& [value, code] : {std::pair{"99", kExitRefused}, std::pair{"3", kExitRefused},
                                    std::pair{"9", kExitOk}, std::pair{"4", kExitOk}, std::pair{"-1", kExitOk}}) {
    auto r = w.Ctl({"set", fmt::format("amdgpu.vm_fragment_size={}", value), "--check"});
    EXPECT_EQ(r.exit_code, code) << value << "\n" << r.out << r.err;
  }
}

TEST(HostileInputCliTest, AProfileWithTheTomlReproducerIsListedAsBroken) {
  WorldCopy w(kHostileInputCliWorld);
  w.Write("etc/rocmtune/profiles/odd.toml", "schema_version = 1\ndescription = \"odd\"\n\xcf\xbb\n");
  auto list = w.Ctl({"profiles"});
  EXPECT_EQ(list.exit_code, kExitOk) << list.out << list.err;
  EXPECT_THAT(list.out + list.err, HasSubstr("line 3: a non-ASCII character outside a string or comment"));
  auto show = w.Ctl({"show", "odd"});
  EXPECT_NE(show.exit_code, kExitOk);
  EXPECT_LT(show.exit_code, 128) << "killed by a signal";
  EXPECT_THAT(show.out + show.err, HasSubstr("a non-ASCII character outside a string or comment"));
}

// 16 profiles each including the next 8 times: 8^15 include paths. Resolved once per profile,
// `profiles` and `show` answer at once; the alarm makes a hang a failure rather than a stuck run.
TEST(HostileInputCliTest, IncludesThatFanOutFinish) {
  WorldCopy w(kHostileInputCliWorld);
  for (int i = 0; i < 16; ++i) {
    std::string includes;
    for (int k = 0; i < 15 && k < 8; ++k) includes += fmt::format("{}\"f{}\"", k ? ", " : "", i + 1);
    w.Write(fmt::format("etc/rocmtune/profiles/f{}.toml", i),
            fmt::format("schema_version = 1\ndescription = \"f{}\"\n{}", i,
                        includes.empty() ? "" : fmt::format("include = [{}]\n", includes)));
  }
  alarm(120);
  auto list = w.Ctl({"profiles"});
  auto show = w.Ctl({"show", "f0"});
  alarm(0);
  EXPECT_EQ(list.exit_code, kExitOk) << list.err;
  EXPECT_THAT(list.out, HasSubstr("f0"));
  EXPECT_EQ(show.exit_code, kExitOk) << show.err;
  EXPECT_THAT(show.out, HasSubstr("f0"));
}

}  // namespace
}  // namespace rocmtune::client
