// rocmtune-helper's `read-log` query and reply (sys/system_log_json.h): what the helper prints
// the daemon reads back equal; the reply stays within its bound with the newest entries; every
// malformed query or reply is refused with a reason.
#include "sys/system_log_json.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace rocmtune::sys {
namespace {

using ::testing::HasSubstr;

LogEntry Entry(uint64_t usec, std::string message) {
  LogEntry e;
  e.realtime_usec = usec;
  e.boot_id = "7a1c9e0d2b3f4a5c6d7e8f9012345678";
  e.message = std::move(message);
  e.cursor = "s=abc;i=" + std::to_string(usec);
  return e;
}

TEST(SystemLogJson, AReadPrintsAndReadsBackEqual) {
  LogRead read;
  read.source = LogSource::kJournal;
  read.entries.push_back(Entry(1, "amdgpu 0000:28:00.0: amdgpu: GPU reset begin!"));
  LogEntry service = Entry(2, "Memory access fault by GPU node-1");
  service.transport = LogTransport::kService;
  service.unit = "ollama.service";
  service.comm = "ollama";
  service.pid = 900;
  service.uid = 64331;
  service.written_by_process = true;
  read.entries.push_back(service);
  read.boots.push_back({"7a1c9e0d2b3f4a5c6d7e8f9012345678", 0, 1, 2});
  read.boots.push_back({"0a1c9e0d2b3f4a5c6d7e8f9012345678", -1, 0, 0});
  read.last_cursor = "s=abc;i=2";
  read.files_not_permitted = 3;
  auto back = LogReadFromJson(LogReadJson(read));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->source, LogSource::kJournal);
  ASSERT_EQ(back->entries.size(), 2u);
  EXPECT_EQ(back->entries[0].transport, LogTransport::kKernel);
  EXPECT_FALSE(back->entries[0].pid);
  EXPECT_FALSE(back->entries[0].uid);
  EXPECT_EQ(back->entries[1].transport, LogTransport::kService);
  EXPECT_EQ(back->entries[1].unit, "ollama.service");
  EXPECT_EQ(back->entries[1].comm, "ollama");
  EXPECT_EQ(back->entries[1].pid, 900);
  EXPECT_EQ(back->entries[1].uid, 64331u);
  EXPECT_TRUE(back->entries[1].written_by_process);
  EXPECT_EQ(back->entries[1].message, "Memory access fault by GPU node-1");
  EXPECT_EQ(back->entries[1].cursor, "s=abc;i=2");
  ASSERT_EQ(back->boots.size(), 2u);
  EXPECT_EQ(back->boots[1].offset, -1);
  EXPECT_EQ(back->last_cursor, "s=abc;i=2");
  EXPECT_FALSE(back->truncated);
  EXPECT_EQ(back->files_not_permitted, 3u);
}

TEST(SystemLogJson, NoSourceSaysWhy) {
  LogRead read;
  read.why_none = "no journal; /dev/kmsg: Operation not permitted";
  auto back = LogReadFromJson(LogReadJson(read));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->source, LogSource::kNone);
  EXPECT_EQ(back->why_none, read.why_none);
}

TEST(SystemLogJson, InvalidUtf8InAMessageIsReplacedNotThrown) {
  LogRead read;
  read.source = LogSource::kKmsg;
  read.entries.push_back(Entry(1, std::string("amdgpu \xff\xfe fault", 16)));
  auto back = LogReadFromJson(LogReadJson(read));
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->entries.size(), 1u);
  EXPECT_THAT(back->entries[0].message, HasSubstr("amdgpu "));
  EXPECT_THAT(back->entries[0].message, HasSubstr(" fault"));
}

TEST(SystemLogJson, TheReplyIsBoundedAndKeepsTheNewest) {
  LogRead read;
  read.source = LogSource::kJournal;
  // 3000 messages of 4096 bytes of control bytes (6 bytes each as JSON): far beyond the bound.
  for (uint64_t i = 0; i < 3000; ++i) read.entries.push_back(Entry(i, std::string(kMaxMessageBytes, '\x01')));
  std::string text = LogReadJson(read);
  EXPECT_LE(text.size(), kMaxLogReplyBytes);
  auto back = LogReadFromJson(text);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(back->truncated);
  ASSERT_FALSE(back->entries.empty());
  EXPECT_LT(back->entries.size(), 3000u);
  EXPECT_EQ(back->entries.back().realtime_usec, 2999u) << "the newest entry is kept";
  EXPECT_EQ(back->entries.front().realtime_usec, 3000u - back->entries.size()) << "and the ones before it";
}

TEST(SystemLogJson, MoreEntriesThanTheCountAreCutToTheNewest) {
  LogRead read;
  read.source = LogSource::kJournal;
  for (uint64_t i = 0; i < kMaxLogReplyEntries + 5; ++i) read.entries.push_back(Entry(i, "amdgpu: x"));
  auto back = LogReadFromJson(LogReadJson(read));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(back->truncated);
  ASSERT_EQ(back->entries.size(), kMaxLogReplyEntries);
  EXPECT_EQ(back->entries.front().realtime_usec, 5u);
}

TEST(SystemLogJson, AMalformedReplyIsRefused) {
  LogRead read;
  read.source = LogSource::kJournal;
  read.entries.push_back(Entry(1, "amdgpu: x"));
  auto good = nlohmann::json::parse(LogReadJson(read));
  auto refused = [](const nlohmann::json& j) { return !LogReadFromJson(j.dump()).has_value(); };
  EXPECT_FALSE(refused(good));
  for (const char* member : {"source", "entries", "boots", "last_cursor", "truncated"}) {
    auto j = good;
    j.erase(member);
    EXPECT_TRUE(refused(j)) << "without " << member;
  }
  auto extra = good;
  extra["more"] = 1;
  EXPECT_TRUE(refused(extra));
  auto source = good;
  source["source"] = "files";
  EXPECT_TRUE(refused(source));
  auto uid = good;
  uid["entries"][0]["uid"] = -1;
  EXPECT_TRUE(refused(uid));
  auto big_uid = good;
  big_uid["entries"][0]["uid"] = 1ULL << 40;
  EXPECT_TRUE(refused(big_uid));
  auto message = good;
  message["entries"][0]["message"] = std::string(kMaxMessageBytes + 100, 'a');
  EXPECT_TRUE(refused(message));
  auto transport = good;
  transport["entries"][0]["transport"] = "audit";
  EXPECT_TRUE(refused(transport));
  auto boot = good;
  boot["boots"] = nlohmann::json::array({{{"boot_id", "x"}, {"offset", 1}, {"first_usec", 0}, {"last_usec", 0}}});
  EXPECT_TRUE(refused(boot));
  EXPECT_FALSE(LogReadFromJson(""));
  EXPECT_FALSE(LogReadFromJson(std::string("{\0}", 3)));
  EXPECT_FALSE(LogReadFromJson("[]"));
}

TEST(SystemLogJson, AQueryPrintsAndReadsBack) {
  LogQuery query;
  query.boot = -2;
  query.since_usec = 1795960980000000;
  query.after_cursor = "s=abc;i=2";
  auto back = LogQueryFromJson(LogQueryJson(query));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->boot, -2);
  EXPECT_EQ(back->since_usec, 1795960980000000u);
  EXPECT_EQ(back->after_cursor, "s=abc;i=2");
  EXPECT_EQ(back->max_entries, kMaxLogReplyEntries);
  auto every = LogQueryFromJson(LogQueryJson(LogQuery{}));
  ASSERT_TRUE(every) << every.error().message;
  EXPECT_FALSE(every->boot);
  EXPECT_FALSE(every->since_usec);
}

TEST(SystemLogJson, AQueryIsParsedStrictly) {
  for (const char* text :
       {R"({"boot":1,"since_usec":null,"after_cursor":""})", R"({"boot":"0","since_usec":null,"after_cursor":""})",
        R"({"boot":0,"since_usec":-1,"after_cursor":""})", R"({"boot":0,"since_usec":null})",
        R"({"boot":0,"since_usec":null,"after_cursor":"","max_entries":100000000})",
        R"({"boot":0,"since_usec":null,"after_cursor":"a\nb"})",
        R"({"boot":0,"since_usec":null,"after_cursor":"a\u0000b"})", "[]", "", "read-log"}) {
    auto query = LogQueryFromJson(text);
    EXPECT_FALSE(query) << text;
  }
  std::string long_cursor =
      R"({"boot":0,"since_usec":null,"after_cursor":")" + std::string(kMaxCursorBytes + 1, 'a') + "\"}";
  EXPECT_FALSE(LogQueryFromJson(long_cursor));
}

}  // namespace
}  // namespace rocmtune::sys
