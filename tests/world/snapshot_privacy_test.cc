// `rocmtunectl snapshot` end to end: a world with every private thing a
// bug report must not carry (network configuration, disk identifiers and a host name on the
// kernel command line and in GRUB's and the BLS entry's copies of it, user names in comments
// and home paths) gives a directory, an archive and documents (rocmtune-status.json,
// doctor.json) none of them is in, while `status` reads the same from the snapshot; files and
// directories keep their mode (a 0600 journal stays 0600) in both formats; and a snapshot of
// every world, and of one whose sys/class/iommu is empty, reads back to the same `status`.
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "client/exit_codes.h"
#include "world_names.h"

namespace fs = std::filesystem;

namespace rocmtune::client {
namespace {

using ::testing::HasSubstr;
using testing::WorldCopy;

constexpr std::string_view kSnapshotPrivacyWorld = "rx6600";  // Fedora: GRUB defaults and a BLS entry
const std::string kBls = "boot/loader/entries/8466ea9e024ef5b4c9f22e0eee9a30a8-6.11.4-301.fc41.x86_64.conf";

std::string PrivacyShell(const std::string& command, int* status) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  *status = ::pclose(p);
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string PrivacyReplace(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// Each private token, and what the snapshot keeps of it.
const std::vector<std::pair<std::string, std::string>> kTokens = {
    {"ip=10.0.0.2::10.0.0.1:255.255.255.0:secrethost:eno1:none", "ip=redacted"},
    {"rd.luks.uuid=luks-1111aaaa-2222-3333-4444-555566667777", "rd.luks.uuid=redacted"},
    {"rd.luks.name=0f9e8d7c-1111-2222-3333-444455556666=cryptroot", "rd.luks.name=redacted"},
    {"cryptdevice=UUID=a1b2c3d4-0000-1111-2222-333344445555:cryptroot", "cryptdevice=redacted"},
    {"resume=PARTUUID=cafebabe-0000-1111-2222-333344445555", "resume=PARTUUID=redacted"},
    {"hostname=secretname", "hostname=redacted"},
    {"nfsroot=192.168.77.5:/export/alice", "nfsroot=redacted"},
    {"rd.iscsi.initiator=iqn.2024-01.org.example:secretinitiator", "rd.iscsi.initiator=redacted"},
    {"root=UUID=439868dc-c5d4-4754-8106-ac392fe377cd", "root=UUID=redacted"},
};
// None of these may appear anywhere in a snapshot.
const std::vector<std::string> kSecrets = {"10.0.0.2", "secrethost", "1111aaaa",     "0f9e8d7c",        "a1b2c3d4",
                                           "cafebabe", "secretname", "192.168.77.5", "secretinitiator", "439868dc",
                                           "alice",    "carol",      "dave"};

std::string Tokens() {
  std::string out;
  for (const auto& [token, kept] : kTokens)
    if (!token.starts_with("root=")) out += " " + token;  // root= is in the world already
  return out;
}

void AddPrivacyFacts(const WorldCopy& w) {
  // alice and dave are human accounts (dave only in passwd), carol only a home directory; the
  // system account and nobody are not user names to take out.
  w.Write("etc/passwd",
          "root:x:0:0:root:/root:/bin/bash\nchrony:x:992:987::/var/lib/chrony:/sbin/nologin\n"
          "alice:x:1000:1000:Alice:/home/alice:/bin/bash\ndave:x:1001:1001::/srv/dave:/bin/bash\n"
          "nobody:x:65534:65534:Kernel Overflow User:/:/sbin/nologin\n");
  fs::create_directories(w.Path("home/carol"));
  w.Write("etc/hostname", "secrethost\n");
  std::string cmdline = w.Read("proc/cmdline");
  w.Write("proc/cmdline", cmdline.substr(0, cmdline.size() - 1) + Tokens() + "\n");
  w.Write("etc/default/grub", PrivacyReplace(w.Read("etc/default/grub"), "GRUB_CMDLINE_LINUX=\"rhgb quiet\"",
                                             "GRUB_CMDLINE_LINUX=\"rhgb quiet" + Tokens() + "\""));
  w.Write(kBls, PrivacyReplace(w.Read(kBls), " rhgb quiet\n", " rhgb quiet" + Tokens() + "\n"));
  w.Write("etc/modprobe.d/local.conf",
          "# set by alice@secrethost for dave's jobs; carol: do not touch\noptions amdgpu noretry=0\n");
}

// Every file of `dir` that holds a secret, with the line.
std::string Leaks(const std::string& dir) {
  std::string args;
  for (const std::string& s : kSecrets) args += fmt::format(" -e '{}'", s);
  int status = -1;
  std::string found = PrivacyShell(fmt::format("grep -rIn{} '{}' 2>&1", args, dir), &status);
  EXPECT_EQ(WEXITSTATUS(status), 1) << "grep failed: " << found;
  return found;
}

TEST(SnapshotPrivacyTest, NoPrivateValueInTheDirectoryTheArchiveOrTheDocuments) {
  int status = -1;
  PrivacyShell("tar --version >/dev/null 2>&1", &status);
  if (status != 0) GTEST_SKIP() << "tar is not installed";
  WorldCopy w(kSnapshotPrivacyWorld);
  AddPrivacyFacts(w);
  // A journal holding the GRUB defaults before and after: the tokens are in its JSON too.
  auto set = w.Ctl({"set", "cmdline.iommu=pt"});
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  ASSERT_THAT(PrivacyShell(fmt::format("cat '{}'/var/lib/rocmtune/journal/*", w.root()), &status),
              HasSubstr("10.0.0.2"));

  testing::TestTree out;
  auto dir = w.Ctl({"snapshot", out.Path("dir")});
  ASSERT_EQ(dir.exit_code, kExitOk) << dir.out << dir.err;
  auto archive = w.Ctl({"snapshot", "--output", out.Path("bug.tar.gz")});
  ASSERT_EQ(archive.exit_code, kExitOk) << archive.out << archive.err;
  out.Mkdir("x");
  PrivacyShell(fmt::format("tar xzf '{}' -C '{}' 2>&1", out.Path("bug.tar.gz"), out.Path("x")), &status);
  ASSERT_EQ(status, 0);
  for (const std::string& top : {out.Path("dir"), out.Path("x/bug")}) {
    EXPECT_EQ(Leaks(top), "") << top;
    for (const char* doc : {"rocmtune-status.json", "doctor.json"}) EXPECT_TRUE(fs::exists(top + "/" + doc)) << doc;
    // The names stay, the values go; what rocmtune reads stays.
    std::string cmdline = w.Read("proc/cmdline");
    for (const auto& [token, kept] : kTokens) cmdline = PrivacyReplace(cmdline, token, kept);
    EXPECT_EQ(ReadFile(top + "/proc/cmdline"), cmdline);
    EXPECT_THAT(ReadFile(top + "/etc/modprobe.d/local.conf"),
                HasSubstr("# set by redacted@redacted for redacted's jobs; redacted: do not touch\n"
                          "options amdgpu noretry=0\n"));
    EXPECT_THAT(ReadFile(top + "/etc/default/grub"), HasSubstr("iommu=pt"));
  }
  // `status` of the snapshot is the source's, apart from the redacted values.
  auto source = w.Ctl({"status", "--json"});
  auto copy = testing::RunCtl(out.Path("dir"), {"status", "--json"}, out.path());
  ASSERT_EQ(source.exit_code, kExitOk) << source.err;
  ASSERT_EQ(copy.exit_code, kExitOk) << copy.err;
  std::string expected = PrivacyReplace(source.out, w.root(), out.Path("dir"));
  for (const auto& [token, kept] : kTokens) expected = PrivacyReplace(expected, token, kept);
  EXPECT_EQ(copy.out, expected);
}

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// 0640 -> "rw-r-----", as ls and tar print it.
std::string ModeString(mode_t mode) {
  std::string s;
  for (int bit = 8; bit >= 0; --bit) s.push_back((mode >> bit) & 1 ? "rwxrwxrwx"[8 - bit] : '-');
  return s;
}

// `tar tzvf` columns: the mode string and the member's path.
std::map<std::string, std::string> ArchiveModes(const std::string& file) {
  int status = -1;
  std::istringstream lines(PrivacyShell(fmt::format("tar tzvf '{}'", file), &status));
  std::map<std::string, std::string> modes;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string mode, owner, size, date, time, path;
    fields >> mode >> owner >> size >> date >> time >> path;
    if (path.ends_with('/')) path.pop_back();  // a directory, as tar lists it
    modes[path] = mode;
  }
  return modes;
}

TEST(SnapshotModesTest, FilesAndDirectoriesKeepTheSourceModeAtMostInBothFormats) {
  int status = -1;
  PrivacyShell("tar --version >/dev/null 2>&1", &status);
  if (status != 0) GTEST_SKIP() << "tar is not installed";
  WorldCopy w(kSnapshotPrivacyWorld);
  ASSERT_EQ(w.Ctl({"set", "cmdline.iommu=pt"}).exit_code, kExitOk);
  const std::string journal = fs::directory_iterator(w.Path("var/lib/rocmtune/journal"))->path().filename();
  ASSERT_EQ(ModeOf(w.Path("var/lib/rocmtune/journal/" + journal)), 0600u) << "the helper writes the journal 0600";
  w.Write("etc/modprobe.d/private.conf", "options amdgpu noretry=0\n");
  w.Write("etc/modprobe.d/open.conf", "options amdgpu ppfeaturemask=0xfff7bfff\n");
  fs::permissions(w.Path("etc/modprobe.d/private.conf"), fs::perms::owner_read | fs::perms::owner_write);
  fs::permissions(w.Path("etc/modprobe.d/open.conf"), fs::perms::all);  // 0777: at most 0755 in the copy
  fs::permissions(w.Path("etc/modprobe.d"), fs::perms::owner_all);      // 0700
  const std::map<std::string, mode_t> expected = {{"var/lib/rocmtune/journal/" + journal, 0600},
                                                  {"etc/modprobe.d/private.conf", 0600},
                                                  {"etc/modprobe.d/open.conf", 0755},
                                                  {"etc/modprobe.d", 0700},
                                                  {"etc/default/grub", 0644},
                                                  {"proc/cmdline", ModeOf(w.Path("proc/cmdline")) & 0755}};

  testing::TestTree out;
  ::umask(022);
  ASSERT_EQ(w.Ctl({"snapshot", out.Path("dir")}).exit_code, kExitOk);
  ASSERT_EQ(w.Ctl({"snapshot", "--output", out.Path("bug.tar.gz")}).exit_code, kExitOk);
  // Security review 3, item 3: the archive was 0644 (and the directory 0755) whatever it held:
  // `sudo rocmtunectl snapshot -o /tmp/x.tar.gz` gave every user the 0600 journal. Now both are
  // as private as their most private member.
  EXPECT_EQ(ModeOf(out.Path("bug.tar.gz")), 0600u) << fmt::format("{:o}", ModeOf(out.Path("bug.tar.gz")));
  EXPECT_EQ(ModeOf(out.Path("dir")), 0700u) << fmt::format("{:o}", ModeOf(out.Path("dir")));
  auto listed = ArchiveModes(out.Path("bug.tar.gz"));
  for (const auto& [rel, mode] : expected) {
    EXPECT_EQ(ModeOf(out.Path("dir/" + rel)), mode) << fmt::format("{}: {:o}", rel, ModeOf(out.Path("dir/" + rel)));
    std::string member = "bug/" + rel;
    ASSERT_TRUE(listed.count(member)) << member;
    EXPECT_EQ(listed[member].substr(1), ModeString(mode)) << member;
  }
}

// `status --json` of a snapshot of `w` against the source's (the root's path replaced).
void ExpectSameStatus(const WorldCopy& w, const std::string& name) {
  testing::TestTree out;
  auto made = w.Ctl({"snapshot", out.Path("snap")});
  ASSERT_EQ(made.exit_code, kExitOk) << name << ": " << made.err;
  auto source = w.Ctl({"status", "--json"});
  auto copy = testing::RunCtl(out.Path("snap"), {"status", "--json"}, out.path());
  EXPECT_EQ(copy.exit_code, source.exit_code) << name << ": " << copy.err;
  // The private values some worlds have on their command line: root=UUID=… keeps the kind,
  // the LVM names (rd.lvm.lv=) lose the value.
  std::string expected = PrivacyReplace(source.out, w.root(), out.Path("snap"));
  std::istringstream tokens(w.Read("proc/cmdline"));
  for (std::string token; tokens >> token;) {
    size_t uuid = token.find("=UUID=");
    if (uuid != std::string::npos) expected = PrivacyReplace(expected, token, token.substr(0, uuid + 6) + "redacted");
    if (token.starts_with("rd.lvm.lv=")) expected = PrivacyReplace(expected, token, "rd.lvm.lv=redacted");
  }
  EXPECT_EQ(copy.out, expected) << name;
}

TEST(SnapshotRoundTripTest, EveryWorldReadsBackToTheSameStatus) {
  for (const std::string& name : testing::WorldNames()) {
    WorldCopy w(name);
    ExpectSameStatus(w, name);
  }
}

// A host without an IOMMU: the directory is there and empty. Status says "off (no IOMMU unit
// in /sys/class/iommu)"; a snapshot that dropped the empty directory made it "unknown".
TEST(SnapshotRoundTripTest, AnEmptyIommuClassIsKeptAndStillMeansOff) {
  WorldCopy w("rx6600");  // no IOMMU group on its GPU: the class directory alone decides
  ASSERT_FALSE(w.Exists("sys/class/iommu"));
  fs::create_directories(w.Path("sys/class/iommu"));
  auto status = w.Ctl({"status", "--json"});
  ASSERT_THAT(status.out, HasSubstr("no IOMMU unit in /sys/class/iommu"));
  ExpectSameStatus(w, "rx6600 with an empty sys/class/iommu");
}

// The other writers (detect/other_writers.h) come along: power-profiles-daemon's unit, its
// .wants link and a drop-in, tuned's active profile and the profile it includes, GameMode's ini
// and binary, LACT's unit, configuration and socket, CoreCtrl's bus service, the CPU's vendor.
TEST(SnapshotRoundTripTest, TheOtherWritersReadBackTheSame) {
  WorldCopy w("rx6900xt");
  auto link = [&](std::string_view unit_path, std::string_view wants) {
    std::string rel = fmt::format("etc/systemd/system/{}/{}", wants, fs::path(unit_path).filename().string());
    fs::create_directories(fs::path(w.Path(rel)).parent_path());
    fs::create_symlink(fmt::format("/{}", unit_path), w.Path(rel));
  };
  w.Write("lib/systemd/system/power-profiles-daemon.service",
          "[Service]\nExecStart=/usr/libexec/power-profiles-daemon\n");
  link("lib/systemd/system/power-profiles-daemon.service", "graphical.target.wants");
  w.Write("etc/systemd/system/power-profiles-daemon.service.d/10-debug.conf", "[Service]\nEnvironment=X=1\n");
  w.Write("proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\n\nprocessor\t: 1\nvendor_id\t: AuthenticAMD\n");
  w.Write("usr/lib/systemd/system/tuned.service", "[Service]\nExecStart=/usr/sbin/tuned\n");
  link("usr/lib/systemd/system/tuned.service", "multi-user.target.wants");
  w.Write("etc/tuned/active_profile", "gpu\n");
  w.Write("etc/tuned/gpu/tuned.conf", "[main]\ninclude=base\n");
  w.Write("usr/lib/tuned/base/tuned.conf",
          "[sysfs]\n/sys/class/drm/card0/device/power_dpm_force_performance_level=low\n");
  w.Write("usr/bin/gamemoded",
          "\x7f"
          "ELF");
  w.Write("etc/gamemode.ini", "[gpu]\napply_gpu_optimisations=accept-responsibility\namd_performance_level=high\n");
  w.Write("usr/lib/systemd/system/lactd.service", "[Service]\nExecStart=/usr/bin/lact daemon\n");
  link("usr/lib/systemd/system/lactd.service", "multi-user.target.wants");
  w.Write("etc/lact/config.yaml", "version: 5\n");
  w.Write("usr/share/dbus-1/system-services/org.corectrl.helper.service", "[D-BUS Service]\n");
  auto status = w.Ctl({"status", "--json"});
  for (std::string_view id :
       {"writer.power-profiles-daemon", "writer.tuned", "writer.gamemode", "writer.lact", "writer.corectrl"})
    ASSERT_THAT(status.out, HasSubstr(fmt::format("\"{}\"", id))) << "the premise";
  ExpectSameStatus(w, "rx6900xt with the other writers");
}

}  // namespace
}  // namespace rocmtune::client
