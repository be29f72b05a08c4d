// snapshot --output: the archive's members, read back with libarchive.
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/snapshot.h"
#include "journal/journal.h"
#include "snapshot/archive_out.h"
#include "snapshot/snapshot.h"
#include "test_tree.h"
#include "util/handle.h"

namespace fs = std::filesystem;

namespace rocmtune::snapshot {
namespace {

using testing::TestTree;

struct Member {
  std::string path;
  mode_t type = 0;
  int64_t uid = -1, gid = -1, mtime = 0;
  bool has_uname = false, has_gname = false;
  std::string content;
};

std::vector<Member> ReadMembers(const std::string& file) {
  Handle<archive*, archive_read_free> a(archive_read_new());
  archive_read_support_filter_gzip(a.get());
  archive_read_support_format_tar(a.get());
  EXPECT_EQ(archive_read_open_filename(a.get(), file.c_str(), 16384), ARCHIVE_OK) << archive_error_string(a.get());
  std::vector<Member> out;
  archive_entry* e = nullptr;
  while (archive_read_next_header(a.get(), &e) == ARCHIVE_OK) {
    Member m;
    m.path = archive_entry_pathname(e);
    m.type = archive_entry_filetype(e);
    m.uid = archive_entry_uid(e);
    m.gid = archive_entry_gid(e);
    m.mtime = archive_entry_mtime(e);
    m.has_uname = archive_entry_uname(e) && *archive_entry_uname(e);
    m.has_gname = archive_entry_gname(e) && *archive_entry_gname(e);
    char buf[4096];
    for (la_ssize_t n; (n = archive_read_data(a.get(), buf, sizeof buf)) > 0;) m.content.append(buf, size_t(n));
    if (m.type == AE_IFLNK) m.content = archive_entry_symlink(e);
    out.push_back(std::move(m));
  }
  return out;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

const std::string kDev = "sys/devices/pci0000:00/0000:03:00.0/";

// A small machine with one GPU and something of each kind a report must not carry.
void BuildPrivateWorld(const TestTree& src) {
  src.Symlink("sys/class/drm/card0", "../../devices/pci0000:00/0000:03:00.0/drm/card0");
  src.Symlink("sys/devices/pci0000:00/0000:03:00.0/drm/card0/device", "../../../0000:03:00.0");
  src.Write(kDev + "uevent", "DRIVER=amdgpu\nPCI_ID=1002:73FF\nPCI_SLOT_NAME=0000:03:00.0\n");
  src.Write(kDev + "vendor", "0x1002\n");
  src.Write(kDev + "serial_number", "SERIAL-0xfeed1234\n");
  src.Write("etc/hostname", "secrethost.example.org\n");
  src.Write("proc/sys/kernel/hostname", "secrethost\n");
  src.Write("etc/passwd", "alice:x:1000:1000::/home/alice:/bin/bash\n");
  src.Write("etc/os-release", "ID=debian\nVERSION_ID=12\n");
  src.Write("sys/class/net/eno1/address", "aa:bb:cc:dd:ee:f1\n");
  src.Write("sys/devices/pci0000:00/0000:05:00.0/net/eno1/address", "aa:bb:cc:dd:ee:f1\n");
  src.Write("proc/cmdline",
            "root=/dev/sda1 ip=10.0.0.2::10.0.0.1:255.255.255.0:secrethost:eno1:none BOOTIF=01-aa-bb-cc-dd-ee-f2 "
            "init=/home/alice/init amdgpu.ppfeaturemask=0xffffffff\n");
  src.Write("etc/modprobe.d/local.conf", "# tuned by secrethost for /home/alice\noptions amdgpu noretry=0\n");
  src.Write("etc/rocmtune/profiles/mine.toml", "# from /home/alice/profiles\n");
  src.Write("var/lib/rocmtune/journal/1.jsonl", "{\"record\":\"begin\",\"host\":\"secrethost\"}\n");
}

const char* const kSecrets[] = {"secrethost", "alice", "SERIAL-0xfeed", "aa:bb:cc", "aa-bb-cc", "ee:f1"};

TEST(SnapshotArchiveTest, NoMemberHoldsAMacAddressHostNameUserNameOrSerial) {
  TestTree src, out;
  BuildPrivateWorld(src);
  auto root = sys::Root::Open(src.path());
  ASSERT_TRUE(root);
  auto report = api::SnapshotArchive(*root, out.Path("bug.tar.gz"));
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->top, "bug");
  auto members = ReadMembers(out.Path("bug.tar.gz"));
  ASSERT_FALSE(members.empty());
  std::map<std::string, std::string> files;
  for (const Member& m : members) {
    for (const char* secret : kSecrets) {
      EXPECT_EQ(m.path.find(secret), std::string::npos) << m.path;
      EXPECT_EQ(m.content.find(secret), std::string::npos) << secret << " in " << m.path << ":\n" << m.content;
    }
    files[m.path] = m.content;
  }
  EXPECT_EQ(files.count("bug/etc/passwd"), 0u);
  EXPECT_EQ(files.count("bug/sys/class/net/eno1/address"), 0u);
  EXPECT_EQ(files.count("bug/" + kDev + "serial_number"), 0u);
  EXPECT_EQ(files["bug/etc/hostname"], "redacted\n");
  EXPECT_EQ(files["bug/etc/os-release"], "ID=debian\nVERSION_ID=12\n");
  EXPECT_NE(files["bug/proc/cmdline"].find("init=/home/redacted/init amdgpu.ppfeaturemask=0xffffffff"),
            std::string::npos)
      << files["bug/proc/cmdline"];
  // rocmtune's configuration and journal, and the status document, are in the report.
  EXPECT_EQ(files["bug/etc/rocmtune/profiles/mine.toml"], "# from /home/redacted/profiles\n");
  EXPECT_EQ(files.count("bug/var/lib/rocmtune/journal/1.jsonl"), 1u);
  EXPECT_NE(files["bug/rocmtune-status.json"].find("\"rocmtune.status.v1\""), std::string::npos);
}

// Security review 39, item 3a: the journal holds whole files as they were and became; the
// snapshot carries those contents redacted as it carries the files themselves. A 0600
// /etc/environment with a token, edited by one transaction recorded inline (as before private
// ops existed) and by one whose contents sit in the root-only contents file.
TEST(SnapshotArchiveTest, TheJournalCarriesNoSecretOfTheFilesItChanged) {
  constexpr std::string_view kEnv = "API_TOKEN=secret123\nHSA_OVERRIDE_GFX_VERSION=10.3.0\n";
  constexpr std::string_view kCommented = "API_TOKEN=secret123\n# rocmtune unset: HSA_OVERRIDE_GFX_VERSION=10.3.0\n";
  TestTree src, out;
  BuildPrivateWorld(src);
  src.Write("etc/environment", kCommented);
  src.Chmod("etc/environment", 0600);
  const std::string dir(journal::kJournalDir);
  for (uint64_t n : {2, 3}) {
    journal::Transaction t;
    t.number = n;
    t.id = std::to_string(n);
    t.time = "2026-11-23T00:00:00Z";
    t.intent = {"unset", "", {"env.HSA_OVERRIDE_GFX_VERSION"}, "", {}};
    t.ops.push_back({plan::OpKind::kWriteFile,
                     plan::BackendId::kEnv,
                     "etc/environment",
                     std::string(kEnv),
                     std::string(kCommented),
                     {},
                     "comment out"});
    if (n == 3) {
      t.private_ops = {0};
      src.Write(dir + "/000003.contents", journal::ContentsRecord(t).dump() + "\n");
      src.Chmod(dir + "/000003.contents", 0600);
    }
    src.Write(dir + "/" + journal::JournalFileName(n), journal::BeginRecord(t).dump() + "\n" +
                                                           journal::DoneRecord(0).dump() + "\n" +
                                                           journal::CommitRecord().dump() + "\n");
  }
  auto root = sys::Root::Open(src.path());
  ASSERT_TRUE(root);
  auto report = api::SnapshotArchive(*root, out.Path("bug.tar.gz"));
  ASSERT_TRUE(report) << report.error().message;
  std::map<std::string, std::string> files;
  for (const Member& m : ReadMembers(out.Path("bug.tar.gz"))) {
    EXPECT_EQ(m.content.find("secret123"), std::string::npos) << m.path << ":\n" << m.content;
    files[m.path] = m.content;
  }
  // The metadata stays, and what the snapshot keeps of the file itself (ROCm variables).
  for (uint64_t n : {2, 3}) {
    std::string rel = dir + "/" + journal::JournalFileName(n);
    ASSERT_EQ(files.count("bug/" + rel), 1u) << rel;
    auto txn = journal::ParseTransaction(files["bug/" + rel], rel);
    ASSERT_TRUE(txn) << txn.error().message;
    EXPECT_EQ(txn->state, journal::State::kCommitted);
    ASSERT_EQ(txn->ops.size(), 1u);
    EXPECT_EQ(txn->ops[0].path, "etc/environment");
    if (n == 2) {
      EXPECT_EQ(txn->ops[0].before, "# API_TOKEN=<redacted>\nHSA_OVERRIDE_GFX_VERSION=\"10.3.0\"\n");
      continue;
    }
    ASSERT_EQ(files.count("bug/" + dir + "/000003.contents"), 1u);
    ASSERT_TRUE(journal::ApplyContents(files["bug/" + dir + "/000003.contents"], *txn, "000003.contents"));
    EXPECT_EQ(txn->ops[0].before, "# API_TOKEN=<redacted>\nHSA_OVERRIDE_GFX_VERSION=\"10.3.0\"\n");
  }
}

TEST(SnapshotArchiveTest, MembersAreSortedOwnedByRootWithTheSourcesMtimes) {
  TestTree src, out;
  BuildPrivateWorld(src);
  timespec times[2] = {{1234567890, 0}, {1234567890, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, src.Path("proc/cmdline").c_str(), times, 0), 0);
  auto root = sys::Root::Open(src.path());
  ASSERT_TRUE(root);
  ASSERT_TRUE(WriteSnapshotArchive(*root, out.Path("w.tgz")));
  auto members = ReadMembers(out.Path("w.tgz"));
  ASSERT_FALSE(members.empty());
  EXPECT_EQ(members.front().path, "w/");
  std::set<std::string> seen;
  std::string last;
  bool saw_cmdline = false, saw_link = false;
  for (const Member& m : members) {
    std::string path = m.path.ends_with('/') ? m.path.substr(0, m.path.size() - 1) : m.path;
    EXPECT_LT(last, path) << "members in path order";
    last = path;
    if (path != "w") {
      EXPECT_TRUE(seen.count(path.substr(0, path.rfind('/')))) << path << " before its directory";
    }
    seen.insert(path);
    EXPECT_EQ(m.uid, 0) << path;
    EXPECT_EQ(m.gid, 0) << path;
    EXPECT_FALSE(m.has_uname || m.has_gname) << path;
    if (path == "w/proc/cmdline") {
      saw_cmdline = true;
      EXPECT_EQ(m.mtime, 1234567890);
    }
    if (path == "w/sys/class/drm/card0") {
      saw_link = true;
      EXPECT_EQ(m.type, AE_IFLNK);
      EXPECT_EQ(m.content, "../../devices/pci0000:00/0000:03:00.0/drm/card0");
    }
  }
  EXPECT_TRUE(saw_cmdline);
  EXPECT_TRUE(saw_link);
}

TEST(SnapshotArchiveTest, TheSameSourceGivesTheSameBytes) {
  TestTree src, out;
  BuildPrivateWorld(src);
  auto root = sys::Root::Open(src.path());
  ASSERT_TRUE(root);
  out.Mkdir("a");
  out.Mkdir("b");
  ASSERT_TRUE(WriteSnapshotArchive(*root, out.Path("a/s.tar.gz")));
  // A second later: a clock in the bytes (gzip's header time, a directory's mtime) would show.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ASSERT_TRUE(WriteSnapshotArchive(*root, out.Path("b/s.tar.gz")));
  std::string a = ReadAll(out.Path("a/s.tar.gz"));
  EXPECT_GT(a.size(), 100u);
  EXPECT_EQ(a, ReadAll(out.Path("b/s.tar.gz")));
}

TEST(SnapshotArchiveTest, RefusesAnExistingFileAndLeavesNothingBehind) {
  TestTree src, out;
  BuildPrivateWorld(src);
  out.Write("bug.tar.gz", "mine");
  auto root = sys::Root::Open(src.path());
  ASSERT_TRUE(root);
  auto r = WriteSnapshotArchive(*root, out.Path("bug.tar.gz"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(ReadAll(out.Path("bug.tar.gz")), "mine");
  out.Symlink("link.tar.gz", "elsewhere.tar.gz");
  EXPECT_FALSE(WriteSnapshotArchive(*root, out.Path("link.tar.gz")));
  EXPECT_FALSE(fs::exists(out.Path("elsewhere.tar.gz")));
  // A written archive leaves no temporary beside it.
  ASSERT_TRUE(WriteSnapshotArchive(*root, out.Path("new.tar.gz")));
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(out.path())) names.insert(e.path().filename().string());
  EXPECT_EQ(names, (std::set<std::string>{"bug.tar.gz", "link.tar.gz", "new.tar.gz"}));
}

// A member never lands outside the top directory, and a name that merely holds ".." is a name.
TEST(SnapshotArchiveTest, MembersArePlainPathsUnderTheTop) {
  TestTree out;
  auto archive = ArchiveOut::Open(out.Path("p.tar.gz"));
  ASSERT_TRUE(archive) << archive.error().message;
  for (const char* bad : {"../etc/x", "etc/../../x", "/etc/x", "etc//x", "etc/./x", ""})
    EXPECT_FALSE(archive->WriteFile(bad, "x", 1, 0644)) << bad;
  auto odd = archive->WriteFile("etc/modprobe.d/a..b.conf", "options amdgpu noretry=0\n", 1, 0644);
  ASSERT_TRUE(odd) << odd.error().message;
  EXPECT_TRUE(*odd);
  ASSERT_TRUE(archive->Finish());
  auto members = ReadMembers(out.Path("p.tar.gz"));
  ASSERT_EQ(members.size(), 4u);
  EXPECT_EQ(members.back().path, "p/etc/modprobe.d/a..b.conf");
}

}  // namespace
}  // namespace rocmtune::snapshot
