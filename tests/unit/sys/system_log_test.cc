// ReadSystemLog on journals made by the real systemd-journal-remote (tests/support/journal_world.h)
// inside worlds, read with sd-journal; and /dev/kmsg of this machine.
#include "sys/system_log.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "journal_world.h"
#include "sys/log_readers.h"
#include "test_tree.h"

namespace rocmtune::sys {
namespace {

using ::testing::HasSubstr;
using testing::JournalFields;
using testing::KernelEntry;
using testing::ServiceEntry;
using testing::TestTree;
using testing::WriteJournal;

constexpr char kBootA[] = "0a1b2c3d4e5f60718293a4b5c6d7e8f9";
constexpr char kBootB[] = "fedcba98765432100123456789abcdef";
constexpr uint64_t kT0 = 1767225600000000;  // 2026-01-01 00:00:00 UTC
constexpr uint64_t kSecond = 1000000;

// Kernel and service lines of two boots, as tests/fixtures/faults has them, among others.
std::vector<JournalFields> TwoBoots() {
  return {
      KernelEntry(kBootA, kT0, "Linux version 6.1.0-28-amd64"),
      KernelEntry(kBootA, kT0 + 10 * kSecond,
                  "amdgpu 0000:0b:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32770, for process "
                  "python pid 1796 thread python pid 1796)"),
      KernelEntry(kBootA, kT0 + 11 * kSecond, "usb 1-1: new high-speed USB device number 2 using xhci_hcd"),
      KernelEntry(kBootB, kT0 + 3600 * kSecond, "Linux version 6.1.0-28-amd64"),
      ServiceEntry(kBootB, kT0 + 3700 * kSecond, "ollama.service", "ollama", 8183, 998,
                   "time=2024-03-06T18:00:31.000+01:00 level=INFO source=server.go:1274 msg=\"llama runner started\""),
      ServiceEntry(kBootB, kT0 + 3701 * kSecond, "ollama.service", "ollama", 8183, 998,
                   "Memory access fault by GPU node-1 (Agent handle: 0x7d83e49250e0) on address 0x7d8475a03000. "
                   "Reason: Page not present or supervisor privilege."),
      KernelEntry(kBootB, kT0 + 3702 * kSecond,
                  "amdgpu 0000:c1:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE"),
  };
}

class SystemLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing::JournalRemoteUnavailable()) GTEST_SKIP() << *why;
  }
  Root OpenRoot() const { return *Root::Open(t_.path()); }
  LogRead Read(const LogQuery& query = {}) const {
    auto read = ReadSystemLog(OpenRoot(), query);
    EXPECT_TRUE(read) << read.error().message;
    return read ? *read : LogRead{};
  }

  TestTree t_;
};

LogQuery Boot(int offset) {
  LogQuery q;
  q.boot = offset;
  return q;
}
LogQuery Since(uint64_t usec) {
  LogQuery q;
  q.since_usec = usec;
  return q;
}
LogQuery After(std::string cursor) {
  LogQuery q;
  q.after_cursor = std::move(cursor);
  return q;
}
LogQuery AtMost(size_t max) {
  LogQuery q;
  q.max_entries = max;
  return q;
}

std::vector<std::string> Messages(const LogRead& read) {
  std::vector<std::string> out;
  for (const LogEntry& e : read.entries) out.push_back(e.message);
  return out;
}

TEST_F(SystemLogTest, JournalRemoteKeepsTheExportsTimestampsAndBootIds) {
  WriteJournal(t_.path(), TwoBoots());
  LogRead read = Read();
  EXPECT_EQ(read.source, LogSource::kJournal);
  ASSERT_EQ(read.entries.size(), 3u) << ::testing::PrintToString(Messages(read));
  EXPECT_EQ(read.entries[0].realtime_usec, kT0 + 10 * kSecond);
  EXPECT_EQ(read.entries[0].boot_id, kBootA);
  EXPECT_EQ(read.entries[2].realtime_usec, kT0 + 3702 * kSecond);
  EXPECT_EQ(read.entries[2].boot_id, kBootB);
}

TEST_F(SystemLogTest, KeepsTheKernelsGpuLinesAndTheRuntimesFaultLines) {
  WriteJournal(t_.path(), TwoBoots());
  LogRead read = Read();
  ASSERT_EQ(read.entries.size(), 3u) << ::testing::PrintToString(Messages(read));
  EXPECT_THAT(read.entries[0].message, HasSubstr("[gfxhub] page fault"));
  EXPECT_EQ(read.entries[0].transport, LogTransport::kKernel);
  EXPECT_EQ(read.entries[0].unit, "");
  EXPECT_FALSE(read.entries[0].pid);
  EXPECT_FALSE(read.entries[0].written_by_process);
  const LogEntry& ollama = read.entries[1];
  EXPECT_EQ(ollama.transport, LogTransport::kService);
  EXPECT_THAT(ollama.message, HasSubstr("Memory access fault by GPU node-1"));
  EXPECT_EQ(ollama.unit, "ollama.service");
  EXPECT_EQ(ollama.comm, "ollama");
  EXPECT_EQ(ollama.pid, 8183);
  EXPECT_EQ(ollama.uid, 998u);
  EXPECT_THAT(read.entries[2].message, HasSubstr("MES failed"));
  for (const LogEntry& e : read.entries) EXPECT_FALSE(e.cursor.empty());
  // Not kept: "Linux version", the USB line, ollama's own INFO line.
  EXPECT_THAT(Messages(read), ::testing::Each(::testing::Not(HasSubstr("Linux version"))));
  EXPECT_THAT(Messages(read), ::testing::Each(::testing::Not(HasSubstr("usb 1-1"))));
  EXPECT_THAT(Messages(read), ::testing::Each(::testing::Not(HasSubstr("llama runner started"))));
}

TEST_F(SystemLogTest, BootsAreNumberedLikeJournalctlListBoots) {
  WriteJournal(t_.path(), TwoBoots());
  LogRead read = Read();
  ASSERT_EQ(read.boots.size(), 2u);
  EXPECT_EQ(read.boots[0].boot_id, kBootA);
  EXPECT_EQ(read.boots[0].offset, -1);
  EXPECT_EQ(read.boots[0].first_usec, kT0);
  EXPECT_EQ(read.boots[0].last_usec, kT0 + 11 * kSecond);
  EXPECT_EQ(read.boots[1].boot_id, kBootB);
  EXPECT_EQ(read.boots[1].offset, 0);
  EXPECT_EQ(read.boots[1].last_usec, kT0 + 3702 * kSecond);

  LogRead now = Read(Boot(0));
  ASSERT_EQ(now.entries.size(), 2u);
  for (const LogEntry& e : now.entries) EXPECT_EQ(e.boot_id, kBootB);
  LogRead before = Read(Boot(-1));
  ASSERT_EQ(before.entries.size(), 1u);
  EXPECT_EQ(before.entries[0].boot_id, kBootA);
  // journalctl -b 1: the oldest boot.
  EXPECT_EQ(Messages(Read(Boot(1))), Messages(before));
  LogRead none = Read(Boot(-2));
  EXPECT_EQ(none.source, LogSource::kJournal);
  EXPECT_TRUE(none.entries.empty());
  EXPECT_EQ(none.boots.size(), 2u);
}

TEST_F(SystemLogTest, Since) {
  WriteJournal(t_.path(), TwoBoots());
  LogRead read = Read(Since(kT0 + 3701 * kSecond));
  ASSERT_EQ(read.entries.size(), 2u);
  EXPECT_THAT(read.entries[0].message, HasSubstr("Memory access fault"));
  EXPECT_TRUE(Read(Since(kT0 + 3703 * kSecond)).entries.empty());
}

TEST_F(SystemLogTest, CursorRoundTrip) {
  WriteJournal(t_.path(), TwoBoots());
  LogRead first = Read();
  ASSERT_EQ(first.entries.size(), 3u);
  ASSERT_FALSE(first.last_cursor.empty());
  // Nothing added: nothing new, and the same cursor to pass on.
  LogRead again = Read(After(first.last_cursor));
  EXPECT_TRUE(again.entries.empty()) << ::testing::PrintToString(Messages(again));
  EXPECT_EQ(again.last_cursor, first.last_cursor);
  // From the cursor of a kept entry: what follows it.
  LogRead after_first = Read(After(first.entries[0].cursor));
  EXPECT_EQ(Messages(after_first), (std::vector<std::string>{first.entries[1].message, first.entries[2].message}));

  // A later file (journald's next one after a rotation): only its entries are new.
  WriteJournal(
      t_.path(),
      {KernelEntry(kBootB, kT0 + 3800 * kSecond, "usb 1-1: USB disconnect, device number 2"),
       KernelEntry(kBootB, kT0 + 3801 * kSecond, "amdgpu 0000:c1:00.0: amdgpu: GPU reset succeeded, trying to resume")},
      std::string("var/log/journal/") + std::string(testing::kTestMachineId) + "/system@2.journal");
  LogRead next = Read(After(again.last_cursor));
  ASSERT_EQ(next.entries.size(), 1u) << ::testing::PrintToString(Messages(next));
  EXPECT_THAT(next.entries[0].message, HasSubstr("GPU reset succeeded"));
  EXPECT_NE(next.last_cursor, again.last_cursor);
  EXPECT_TRUE(Read(After(next.last_cursor)).entries.empty());
}

TEST_F(SystemLogTest, LastCursorIsTheLastEntryLookedAtEvenWhenNotKept) {
  auto entries = TwoBoots();
  entries.push_back(KernelEntry(kBootB, kT0 + 3703 * kSecond, "usb 1-1: USB disconnect, device number 2"));
  WriteJournal(t_.path(), entries);
  LogRead read = Read();
  ASSERT_EQ(read.entries.size(), 3u);
  EXPECT_NE(read.last_cursor, read.entries.back().cursor);
  EXPECT_TRUE(Read(After(read.last_cursor)).entries.empty());
}

TEST_F(SystemLogTest, NotACursorIsAnError) {
  WriteJournal(t_.path(), TwoBoots());
  auto read = ReadSystemLog(OpenRoot(), After("not a cursor"));
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, ErrorCode::kInvalidArgument);
}

TEST_F(SystemLogTest, MaxEntriesKeepsTheNewest) {
  std::vector<JournalFields> entries;
  entries.reserve(5);
  for (int i = 0; i < 5; ++i) {
    entries.push_back(
        KernelEntry(kBootA, kT0 + i * kSecond, "amdgpu: Started evicting pasid 0x800" + std::to_string(i)));
  }
  WriteJournal(t_.path(), entries);
  LogRead read = Read(AtMost(2));
  EXPECT_EQ(Messages(read), (std::vector<std::string>{"amdgpu: Started evicting pasid 0x8003",
                                                      "amdgpu: Started evicting pasid 0x8004"}));
  EXPECT_TRUE(read.truncated);
  LogRead all = Read(AtMost(5));
  EXPECT_EQ(all.entries.size(), 5u);
  EXPECT_FALSE(all.truncated);
}

TEST_F(SystemLogTest, BinaryAndHugeMessagesAreBounded) {
  std::string with_nuls("amdgpu 0000:03:00.0: amdgpu: \0RW: 0x0\0", 38);
  std::string huge = "amdgpu 0000:03:00.0: amdgpu: " + std::string(1 << 20, 'x');
  WriteJournal(t_.path(), {KernelEntry(kBootA, kT0, with_nuls), KernelEntry(kBootA, kT0 + 1, huge),
                           ServiceEntry(kBootA, kT0 + 2, "ollama.service", "ollama", 1, 998,
                                        std::string(1 << 20, 'y') + "Memory access fault by GPU node-1")});
  LogRead read = Read();
  ASSERT_EQ(read.entries.size(), 2u) << "the service line's needle lies past the bound, so it is not seen";
  EXPECT_EQ(read.entries[0].message, "amdgpu 0000:03:00.0: amdgpu:  RW: 0x0 ");
  EXPECT_EQ(read.entries[1].message.size(), kMaxMessageBytes);
  EXPECT_EQ(read.entries[1].message, huge.substr(0, kMaxMessageBytes));
}

TEST_F(SystemLogTest, KernelLinesWrittenByAProcessAreMarked) {
  // journald records a /dev/kmsg line whose facility is not LOG_KERN with that facility and no
  // SYSLOG_IDENTIFIER=kernel; the kernel's own with SYSLOG_FACILITY=0 (as the QEMU guest showed,
  // tests/vm/scenarios/faults-kmsg.sh), an older journald's with no facility at all.
  JournalFields written = KernelEntry(kBootA, kT0 + 1, "amdgpu 0000:03:00.0: amdgpu: GPU reset begin!");
  JournalFields older = KernelEntry(kBootA, kT0 + 2, "amdgpu 0000:03:00.0: amdgpu: GPU reset begin!");
  std::erase_if(written, [](const auto& field) { return field.first == "SYSLOG_IDENTIFIER"; });
  for (auto& [name, value] : written) {
    if (name == "SYSLOG_FACILITY") value = "1";
  }
  std::erase_if(older, [](const auto& field) { return field.first == "SYSLOG_FACILITY"; });
  WriteJournal(t_.path(), {KernelEntry(kBootA, kT0, "amdgpu 0000:03:00.0: amdgpu: GPU reset begin!"), written, older});
  LogRead read = Read();
  ASSERT_EQ(read.entries.size(), 3u);
  EXPECT_FALSE(read.entries[0].written_by_process);
  EXPECT_TRUE(read.entries[1].written_by_process);
  EXPECT_FALSE(read.entries[2].written_by_process);
}

TEST_F(SystemLogTest, VolatileAndPersistentJournalsAreInterleaved) {
  WriteJournal(t_.path(), {KernelEntry(kBootA, kT0, "amdgpu: first"), KernelEntry(kBootA, kT0 + 2, "amdgpu: third")});
  WriteJournal(t_.path(), {KernelEntry(kBootA, kT0 + 1, "amdgpu: second")},
               std::string("run/log/journal/") + std::string(testing::kTestMachineId) + "/system.journal");
  EXPECT_EQ(Messages(Read()), (std::vector<std::string>{"amdgpu: first", "amdgpu: second", "amdgpu: third"}));
}

TEST_F(SystemLogTest, AFileCutShortIsLeftOutAndTheOthersRead) {
  std::vector<JournalFields> many;
  many.reserve(2000);
  for (int i = 0; i < 2000; ++i) {
    many.push_back(
        KernelEntry(kBootA, kT0 + i, "amdgpu: Started evicting pasid " + std::to_string(i) + std::string(200, '.')));
  }
  std::string cut = WriteJournal(t_.path(), many);
  std::filesystem::resize_file(cut, 300000);
  WriteJournal(t_.path(), {KernelEntry(kBootB, kT0 + 5000, "amdgpu: GPU reset begin!")},
               std::string("var/log/journal/") + std::string(testing::kTestMachineId) + "/system@2.journal");
  LogRead read = Read();
  EXPECT_EQ(read.files_unreadable, 1u);
  EXPECT_EQ(Messages(read), (std::vector<std::string>{"amdgpu: GPU reset begin!"}));
}

TEST_F(SystemLogTest, AFileDamagedInTheMiddleIsReadAsFarAsItCanBe) {
  std::vector<JournalFields> many;
  many.reserve(2000);
  for (int i = 0; i < 2000; ++i) {
    many.push_back(
        KernelEntry(kBootA, kT0 + i, "amdgpu: Started evicting pasid " + std::to_string(i) + std::string(200, '.')));
  }
  std::string file = WriteJournal(t_.path(), many);
  {
    // Damage the objects from the 1000th message on (64 KiB of them), where sd-journal stored them.
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    size_t at = bytes.find("pasid 1000.");
    ASSERT_NE(at, std::string::npos);
    f.seekp(static_cast<std::streamoff>(at));
    std::string garbage(64 << 10, '\xa5');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  auto read = ReadSystemLog(OpenRoot(), {});
  ASSERT_TRUE(read) << read.error().message;
  // The entries before the damage are read whole; none is made up of the damage.
  EXPECT_GE(read->entries.size(), 1000u);
  EXPECT_LT(read->entries.size(), 2000u);
  for (const LogEntry& e : read->entries) {
    EXPECT_THAT(e.message, ::testing::MatchesRegex("amdgpu: Started evicting pasid [0-9]+\\.{200}")) << e.message;
  }
}

TEST_F(SystemLogTest, NotAJournalFileIsLeftOut) {
  t_.Write(std::string("var/log/journal/") + std::string(testing::kTestMachineId) + "/system.journal",
           std::string("LPKSHHRH\0\0\0garbage", 18));
  WriteJournal(t_.path(), {KernelEntry(kBootA, kT0, "amdgpu: GPU reset begin!")},
               std::string("var/log/journal/") + std::string(testing::kTestMachineId) + "/user-1000.journal");
  auto open_fds = [] {
    return std::distance(std::filesystem::directory_iterator("/proc/self/fd"), std::filesystem::directory_iterator());
  };
  auto before = open_fds();
  LogRead read = Read();
  EXPECT_EQ(read.files_unreadable, 1u);
  EXPECT_EQ(read.entries.size(), 1u);
  EXPECT_EQ(open_fds(), before) << "every descriptor closed once: sd-journal's own and the refused file's";
}

TEST(SystemLogNoJournalTest, AWorldWithoutAJournalSaysSo) {
  TestTree t;
  t.Write("etc/os-release", "ID=debian\n");
  auto read = ReadSystemLog(*Root::Open(t.path()), {});
  ASSERT_TRUE(read);
  EXPECT_EQ(read->source, LogSource::kNone);
  EXPECT_THAT(read->why_none, HasSubstr("var/log/journal"));
  EXPECT_TRUE(read->entries.empty());
  // Journal directories without a journal file (a container whose journald never ran): none.
  t.Mkdir(std::string("var/log/journal/") + std::string(testing::kTestMachineId));
  t.Mkdir("run/log/journal");
  t.Write("var/log/journal/README", "see journalctl(1)\n");
  auto empty = ReadSystemLog(*Root::Open(t.path()), {});
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->source, LogSource::kNone);
  // One file makes it a journal, even one with nothing this reader keeps.
  t.Write(std::string("var/log/journal/") + std::string(testing::kTestMachineId) + "/system.journal", "");
  auto one = ReadSystemLog(*Root::Open(t.path()), {});
  ASSERT_TRUE(one);
  EXPECT_EQ(one->source, LogSource::kJournal);
  EXPECT_TRUE(one->entries.empty());
  EXPECT_EQ(one->files_unreadable, 1u);
}

// Exit codes of the unprivileged child below.
enum SystemLogChild { kLogChildOk = 0, kLogChildError = 21, kLogChildWrongEntries, kLogChildNotCounted };

int ReadAsUnprivileged(const void* arg) {
  const auto& t = *static_cast<const TestTree*>(arg);
  auto read = ReadSystemLog(*Root::Open(t.path()), {});
  if (!read) return kLogChildError;
  if (read->entries.size() != 1 || read->entries[0].message != "amdgpu: readable by all") return kLogChildWrongEntries;
  if (read->files_not_permitted != 1) return kLogChildNotCounted;
  return kLogChildOk;
}

TEST_F(SystemLogTest, AFileThisUserMayNotReadIsAbsentNotAnError) {
  ASSERT_EQ(::chmod(t_.path().c_str(), 0755), 0);  // mkdtemp's 0700 would hide everything from "nobody"
  std::string dir = std::string("var/log/journal/") + std::string(testing::kTestMachineId);
  std::string open_file =
      WriteJournal(t_.path(), {KernelEntry(kBootA, kT0, "amdgpu: readable by all")}, dir + "/user-65534.journal");
  std::string closed_file =
      WriteJournal(t_.path(), {KernelEntry(kBootA, kT0 + 1, "amdgpu: root's only")}, dir + "/system.journal");
  ASSERT_EQ(::chmod(open_file.c_str(), 0644), 0);
  ASSERT_EQ(::chmod(closed_file.c_str(), 0600), 0);
  for (const char* d : {"var", "var/log", "var/log/journal"}) ASSERT_EQ(::chmod(t_.Path(d).c_str(), 0755), 0);
  ASSERT_EQ(::chmod(t_.Path(dir).c_str(), 0755), 0);
  if (::geteuid() != 0) {
    // As an unprivileged user the test itself is the one who may not read root's file, provided
    // it is not this user's.
    struct stat st {};
    ASSERT_EQ(::stat(closed_file.c_str(), &st), 0);
    if (st.st_uid == ::geteuid()) {
      ASSERT_EQ(::chmod(closed_file.c_str(), 0), 0);
    }
  }
  int result = testing::RunAsNobody(ReadAsUnprivileged, &t_);
  if (result == testing::kNoPrivilegeDrop) GTEST_SKIP() << "cannot drop privileges to uid 65534 here";
  EXPECT_EQ(result, kLogChildOk) << "21: an error, 22: not just the readable file's entry, 23: not counted";
  if (::geteuid() == 0) {
    // Root reads both.
    EXPECT_EQ(Read().entries.size(), 2u);
  }
}

TEST(SystemLogCursorTest, SaveAndLoad) {
  TestTree t;
  auto root = *Root::Open(t.path());
  auto none = LoadCursor(root);
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_EQ(*none, "");
  auto no_dir = SaveCursor(root, "s=1;i=2");
  EXPECT_FALSE(no_dir) << "the directory is systemd's to make";
  t.Mkdir("var/lib/rocmtune/daemon");
  ASSERT_TRUE(SaveCursor(root, "s=b8218b69d1544b5e95a02a532543e66b;i=2;b=0123456789abcdef0123456789abcdef"));
  EXPECT_EQ(*LoadCursor(root), "s=b8218b69d1544b5e95a02a532543e66b;i=2;b=0123456789abcdef0123456789abcdef");
  ASSERT_TRUE(SaveCursor(root, "kmsg:0123456789abcdef0123456789abcdef:42"));
  EXPECT_EQ(*LoadCursor(root), "kmsg:0123456789abcdef0123456789abcdef:42");
  EXPECT_EQ(std::filesystem::directory_iterator(t.Path("var/lib/rocmtune/daemon"))->path().filename(), "faults-cursor")
      << "no temporary left";
  EXPECT_FALSE(SaveCursor(root, "two words"));
  EXPECT_FALSE(SaveCursor(root, std::string(kMaxCursorBytes + 1, 'a')));
  for (const std::string& bad :
       {std::string("a\0b", 3), std::string("line\nline"), std::string(kMaxCursorBytes + 1, 'a')}) {
    t.Write(kFaultsCursorPath, bad);
    EXPECT_FALSE(LoadCursor(root)) << bad;
  }
}

TEST(SystemLogKmsgTest, ThisMachinesKmsg) {
  auto root = *Root::Open("/");
  auto read = ReadKmsg(root, {});
  ASSERT_TRUE(read);
  if (::access("/dev/kmsg", R_OK) != 0) {
    EXPECT_EQ(read->source, LogSource::kNone);
    return;
  }
  if (read->source == LogSource::kNone) {
    // Without CAP_SYSLOG only when kernel.dmesg_restrict is 0 (printk.c check_syslog_permissions).
    EXPECT_THAT(read->why_none, HasSubstr("dmesg_restrict"));
    return;
  }
  EXPECT_EQ(read->source, LogSource::kKmsg);
  EXPECT_THAT(read->last_cursor, ::testing::StartsWith("kmsg:"));
  for (const LogEntry& e : read->entries) EXPECT_EQ(e.transport, LogTransport::kKernel);
  // Another boot has nothing in this buffer.
  EXPECT_TRUE(ReadKmsg(root, Boot(-1))->entries.empty());
}

int ReadKmsgUnprivileged(const void*) {
  std::ifstream restrict_file("/proc/sys/kernel/dmesg_restrict");
  int restricted = 0;
  restrict_file >> restricted;
  auto read = ReadKmsg(*Root::Open("/"), {});
  if (!read) return 31;
  if (restricted == 1)
    return read->source == LogSource::kNone && read->why_none.find("dmesg_restrict") != std::string::npos ? 0 : 32;
  return read->source == LogSource::kKmsg ? 0 : 33;
}

TEST(SystemLogKmsgTest, KmsgAsAnUnprivilegedUserFollowsDmesgRestrict) {
  if (::access("/dev/kmsg", F_OK) != 0) GTEST_SKIP() << "no /dev/kmsg here";
  int result = testing::RunAsNobody(ReadKmsgUnprivileged, nullptr);
  if (result == testing::kNoPrivilegeDrop) GTEST_SKIP() << "cannot drop privileges to uid 65534 here";
  EXPECT_EQ(result, 0)
      << "31: an error, 32: dmesg_restrict=1 but not kNone naming it, 33: dmesg_restrict=0 but not read";
}

}  // namespace
}  // namespace rocmtune::sys
