// `rocmtunectl snapshot --output FILE.tar.gz` end to end: the archive, extracted with
// tar, is a world whose `status --json` is the source's, and nothing private is in it.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"
#include "runtime_layouts.h"

namespace fs = std::filesystem;

namespace rocmtune::client {
namespace {

using testing::WorldCopy;

constexpr std::string_view kSnapshotArchiveWorld = "rx6600";
const std::string kDev = "sys/devices/pci0000:00/0000:12:00.0/";

// Output of a shell command; the test skips when the tool is missing.
std::string Shell(const std::string& command, int* status) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  *status = ::pclose(p);
  return out;
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

void AddPrivateFacts(const WorldCopy& w) {
  w.Write("etc/hostname", "secrethost\n");
  w.Write("proc/sys/kernel/hostname", "secrethost\n");
  w.Write("etc/passwd", "alice:x:1000:1000::/home/alice:/bin/bash\n");
  w.Write(kDev + "serial_number", "SERIAL-0xfeed1234\n");
  w.Write("sys/class/net/eno1/address", "aa:bb:cc:dd:ee:f1\n");
  w.Write("proc/cmdline", w.Read("proc/cmdline").substr(0, w.Read("proc/cmdline").size() - 1) +
                              " ip=10.0.0.2::10.0.0.1:255.255.255.0:secrethost:eno1:none"
                              " BOOTIF=01-aa-bb-cc-dd-ee-f2 init=/home/alice/init\n");
  w.Write("etc/environment", "HIP_PATH=/home/alice/rocm\nLANG=C.UTF-8\n");
}

TEST(SnapshotArchiveCliTest, ExtractedArchiveIsTheSourceWorldWithoutPrivateFacts) {
  int status = -1;
  Shell("tar --version >/dev/null 2>&1", &status);
  if (status != 0) GTEST_SKIP() << "tar is not installed";
  WorldCopy w(kSnapshotArchiveWorld);
  AddPrivateFacts(w);
  // The runtime's code is read from its library names: the snapshot keeps them (empty files), so
  // its verdict is the machine's.
  testing::InstallSystemRocm(w, "6.2.4", {"gfx900", "gfx906", "gfx1030", "gfx1100"});
  auto set = w.Ctl({"set", "cmdline.iommu=pt"});  // a journal and an owned file to carry
  ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  ASSERT_GT(w.JournalFiles(), 0u);
  testing::TestTree out;
  std::string file = out.Path("bug.tar.gz");
  auto made = w.Ctl({"snapshot", "--output", file, "--json"});
  ASSERT_EQ(made.exit_code, kExitOk) << made.out << made.err;
  EXPECT_EQ(made.Json()["archive"], file);
  EXPECT_EQ(made.Json()["top"], "bug");

  std::string listing = Shell("tar tzvf '" + file + "'", &status);
  ASSERT_EQ(status, 0) << listing;
  std::istringstream lines(listing);
  size_t members = 0;
  for (std::string line; std::getline(lines, line); ++members) {
    EXPECT_NE(line.find(" 0/0 "), std::string::npos) << "owner is not root by number: " << line;
    EXPECT_NE(line.find(" bug/"), std::string::npos) << "outside the top directory: " << line;
  }
  EXPECT_GT(members, 50u);

  out.Mkdir("x");
  Shell("tar xzf '" + file + "' -C '" + out.Path("x") + "' 2>&1", &status);
  ASSERT_EQ(status, 0);
  std::string top = out.Path("x/bug");
  for (const char* f : {"etc/passwd", "sys/class/net/eno1/address"}) EXPECT_FALSE(fs::exists(top + "/" + f)) << f;
  EXPECT_FALSE(fs::exists(top + "/" + kDev + "serial_number"));
  EXPECT_TRUE(fs::exists(top + "/rocmtune-status.json"));
  EXPECT_TRUE(fs::is_directory(top + "/var/lib/rocmtune/journal"));
  Shell("grep -rIl -e secrethost -e alice -e SERIAL-0xfeed -e 'aa:bb:cc' -e 'aa-bb-cc' '" + top + "'", &status);
  EXPECT_EQ(WEXITSTATUS(status), 1) << Shell("grep -rIn -e secrethost -e alice -e SERIAL -e 'aa.bb.cc' '" + top + "'",
                                             &status);

  // The same status, apart from what was redacted.
  auto source = w.Ctl({"status", "--json"});
  auto extracted = testing::RunCtl(top, {"status", "--json"}, out.path());
  ASSERT_EQ(source.exit_code, kExitOk) << source.err;
  ASSERT_EQ(extracted.exit_code, kExitOk) << extracted.err;
  std::string expected = source.out;
  // ip= and BOOTIF= keep their names only.
  for (auto [from, to] :
       {std::pair<std::string, std::string>{"ip=10.0.0.2::10.0.0.1:255.255.255.0:secrethost:eno1:none", "ip=redacted"},
        {"BOOTIF=01-aa-bb-cc-dd-ee-f2", "BOOTIF=redacted"},
        {"root=UUID=439868dc-c5d4-4754-8106-ac392fe377cd", "root=UUID=redacted"},
        {"secrethost", "redacted"},
        {"/home/alice", "/home/redacted"},
        // An absolute link is kept relative, so it stays inside the extracted tree.
        {"/opt/rocm -> /opt/rocm-6.2.4", "/opt/rocm -> rocm-6.2.4"},
        {w.root(), top}})
    expected = Replace(expected, from, to);
  EXPECT_EQ(extracted.out, expected);
  EXPECT_NE(extracted.out.find("iommu"), std::string::npos);
  EXPECT_NE(extracted.out.find("\"/opt/rocm-6.2.4/lib/rocblas/library\""), std::string::npos);
  // One empty file per target and directory, no library itself.
  EXPECT_TRUE(fs::exists(top + "/opt/rocm-6.2.4/lib/rocblas/library/Kernels.so-000-gfx1030.hsaco"));
  EXPECT_EQ(fs::file_size(top + "/opt/rocm-6.2.4/lib/rocblas/library/Kernels.so-000-gfx1030.hsaco"), 0u);
  EXPECT_FALSE(fs::exists(top + "/opt/rocm-6.2.4/lib/librocblas.so.4.3"));
}

TEST(SnapshotArchiveCliTest, TakesExactlyOneOfDirAndOutputAndNeverReplacesAFile) {
  WorldCopy w(kSnapshotArchiveWorld);
  testing::TestTree out;
  auto neither = w.Ctl({"snapshot"});
  EXPECT_EQ(neither.exit_code, kExitUsage);
  EXPECT_NE(neither.err.find("DIR or --output FILE"), std::string::npos) << neither.err;
  auto both = w.Ctl({"snapshot", out.Path("d"), "--output", out.Path("f.tar.gz")});
  EXPECT_EQ(both.exit_code, kExitUsage);
  EXPECT_FALSE(fs::exists(out.Path("d")));
  EXPECT_FALSE(fs::exists(out.Path("f.tar.gz")));
  out.Write("f.tar.gz", "mine");
  auto exists = w.Ctl({"snapshot", "--output", out.Path("f.tar.gz"), "--json"});
  EXPECT_EQ(exists.exit_code, kExitUsage);
  EXPECT_EQ(exists.Json()["schema"], "rocmtune.error.v1");
  std::ifstream in(out.Path("f.tar.gz"));
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "mine");
  // The directory form still works, and carries the status document too.
  auto dir = w.Ctl({"snapshot", out.Path("d"), "--json"});
  ASSERT_EQ(dir.exit_code, kExitOk) << dir.err;
  EXPECT_FALSE(dir.Json().contains("archive"));
  EXPECT_TRUE(fs::exists(out.Path("d/rocmtune-status.json")));
}

}  // namespace
}  // namespace rocmtune::client
