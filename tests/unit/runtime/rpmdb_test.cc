// runtime/rpmdb.h and the distribution runtime's package on Fedora: databases written by the real
// rpm (Debian's rpm 4.18, sqlite backend) from packages the real rpmbuild made
// (tests/support/rpm_packages.h). Skipped, with the reason, where rpm or rpmbuild is missing.
#include "runtime/rpmdb.h"

#include <sqlite3.h>

#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "rpm_packages.h"
#include "runtime/runtime.h"
#include "runtime_layouts.h"
#include "test_tree.h"

namespace rocmtune::runtime {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kRpmdbRel = "usr/lib/sysimage/rpm/rpmdb.sqlite";

#define SKIP_WITHOUT_RPM()                                          \
  do {                                                              \
    if (auto why = testing::RpmUnavailable()) GTEST_SKIP() << *why; \
  } while (0)

std::vector<std::string> RpmsOf(const std::vector<testing::RpmSpec>& specs) {
  std::vector<std::string> rpms;
  for (const testing::RpmSpec& spec : specs) rpms.push_back(testing::BuildRpm(spec));
  return rpms;
}

// A package owning a file of the same name as HIP's, in another directory.
testing::RpmSpec Decoy() {
  return {"decoy-hip", "1.0", "1", {{"/opt/decoy/lib64/libamdhip64.so.6", ""}}, std::nullopt};
}

std::vector<std::string> FedoraRpms(bool with_decoy_first) {
  std::vector<testing::RpmSpec> specs;
  if (with_decoy_first) specs.push_back(Decoy());
  for (testing::RpmSpec& spec : testing::FedoraRocmPackages()) specs.push_back(spec);
  return RpmsOf(specs);
}

Runtime FedoraDistro(const testing::TestTree& tree) {
  auto root = sys::Root::Open(tree.path());
  if (!root) throw std::runtime_error(root.error().message);
  std::vector<Runtime> runtimes = FindRuntimes(*root, {});
  if (runtimes.size() != 1 || runtimes[0].kind != Kind::kDistro) throw std::runtime_error("no distro runtime");
  return runtimes[0];
}

bool HasLine(const std::vector<std::string>& lines, std::string_view text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

std::string Lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

TEST(Rpmdb, TheOwnerIsThePackageOfThatDirectory) {
  SKIP_WITHOUT_RPM();
  testing::TestTree tree;
  testing::InstallRpms(tree.path(), FedoraRpms(/*with_decoy_first=*/true));
  auto root = sys::Root::Open(tree.path());
  ASSERT_TRUE(root);
  ASSERT_EQ(FindRpmdb(*root), std::string(kRpmdbRel));
  auto db = Rpmdb::Open(*root, kRpmdbRel);
  ASSERT_TRUE(db) << db.error().message;
  auto hip = db->Owner("/usr/lib64/libamdhip64.so.6");
  ASSERT_TRUE(hip) << hip.error().message;
  ASSERT_TRUE(*hip);
  EXPECT_EQ((*hip)->name, "rocm-hip");
  EXPECT_EQ((*hip)->Evr(), "6.3.1-1.fc42");
  auto decoy = db->Owner("/opt/decoy/lib64/libamdhip64.so.6");
  ASSERT_TRUE(decoy && *decoy);
  EXPECT_EQ((*decoy)->name, "decoy-hip");
  auto kernels = db->Owner("/usr/lib64/rocblas/library/TensileLibrary_gfx1030.dat");
  ASSERT_TRUE(kernels && *kernels);
  EXPECT_EQ((*kernels)->name, "rocblas");
  auto nobody = db->Owner("/usr/lib/libamdhip64.so.6");
  ASSERT_TRUE(nobody);
  EXPECT_FALSE(*nobody);
}

TEST(Rpmdb, OlderFedoraKeptItInVarLibRpm) {
  SKIP_WITHOUT_RPM();
  testing::RpmSpec hip = testing::FedoraRocmPackages()[0];
  hip.release = "1.fc35";
  hip.epoch = 2;
  testing::TestTree tree;
  testing::InstallRpms(tree.path(), {testing::BuildRpm(hip)}, "/var/lib/rpm");
  auto root = sys::Root::Open(tree.path());
  ASSERT_TRUE(root);
  ASSERT_EQ(FindRpmdb(*root), "var/lib/rpm/rpmdb.sqlite");
  auto db = Rpmdb::Open(*root, "var/lib/rpm/rpmdb.sqlite");
  ASSERT_TRUE(db) << db.error().message;
  auto owner = db->Owner("/usr/lib64/libamdhip64.so.6");
  ASSERT_TRUE(owner && *owner);
  EXPECT_EQ((*owner)->Evr(), "2:6.3.1-1.fc35");
}

TEST(RpmdbDistro, FedoraNamesThePackagesOfHipAndRocblas) {
  SKIP_WITHOUT_RPM();
  testing::TestTree tree;
  testing::InstallDistroRocblas(tree.path(), "6.3.1", "6.3.1", {"gfx1030", "gfx1100"}, /*fedora=*/true);
  testing::InstallRpms(tree.path(), FedoraRpms(/*with_decoy_first=*/true));
  std::string dir = tree.Path("usr/lib/sysimage/rpm");
  fs::remove(dir + "/rpmdb.sqlite-shm");  // read without its index too: nothing may be created
  size_t files = std::distance(fs::directory_iterator(dir), fs::directory_iterator());
  Runtime distro = FedoraDistro(tree);
  EXPECT_EQ(distro.package, "rocm-hip 6.3.1-1.fc42") << Lines(distro.evidence);
  EXPECT_EQ(distro.version, "6.3.1");
  EXPECT_EQ(distro.label, "the distribution's ROCm 6.3.1 (/usr/lib64)");
  EXPECT_TRUE(HasLine(distro.evidence, "/usr/lib/sysimage/rpm/rpmdb.sqlite: rocm-hip 6.3.1-1.fc42"));
  EXPECT_TRUE(HasLine(distro.evidence, "/usr/lib/sysimage/rpm/rpmdb.sqlite: rocblas 6.3.1-1.fc42"));
  EXPECT_TRUE(HasLine(distro.evidence, "read without its -shm and -wal"));
  EXPECT_EQ(size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator())), files);
}

TEST(RpmdbDistro, NoPackageOwnsTheLibrary) {
  SKIP_WITHOUT_RPM();
  testing::TestTree tree;
  testing::InstallDistroRocblas(tree.path(), "6.3.1", "6.3.1", {"gfx1030"}, /*fedora=*/true);
  testing::InstallRpms(tree.path(), RpmsOf({Decoy()}));
  Runtime distro = FedoraDistro(tree);
  EXPECT_EQ(distro.package, std::nullopt);
  EXPECT_TRUE(
      HasLine(distro.evidence, "/usr/lib/sysimage/rpm/rpmdb.sqlite: no package owns /usr/lib64/libamdhip64.so.6"))
      << Lines(distro.evidence);
  EXPECT_TRUE(HasLine(distro.evidence, "no package owns /usr/lib64/librocblas.so.4"));
}

TEST(RpmdbDistro, AGarbageDatabaseSaysWhyAndKeepsTheRuntime) {
  testing::TestTree tree;
  testing::InstallDistroRocblas(tree.path(), "6.3.1", "6.3.1", {"gfx1030"}, /*fedora=*/true);
  tree.Write(kRpmdbRel, std::string(4096, '\x07') + "not SQLite");
  Runtime distro = FedoraDistro(tree);
  EXPECT_EQ(distro.package, std::nullopt);
  EXPECT_EQ(distro.hip_version, "6.3.21153");
  EXPECT_TRUE(HasLine(distro.evidence, "/usr/lib/sysimage/rpm/rpmdb.sqlite: not read: file is not a database"))
      << Lines(distro.evidence);
  // Another program's SQLite database in its place.
  fs::remove(tree.Path(kRpmdbRel));
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(tree.Path(kRpmdbRel).c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE Packages(hnum INTEGER PRIMARY KEY, blob BLOB)", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  distro = FedoraDistro(tree);
  EXPECT_TRUE(HasLine(distro.evidence, "not read: no table Basenames, not rpm's database")) << Lines(distro.evidence);
}

TEST(RpmdbDistro, AHostileHeaderFailsTheLookupNotTheRuntime) {
  SKIP_WITHOUT_RPM();
  testing::TestTree tree;
  testing::InstallDistroRocblas(tree.path(), "6.3.1", "6.3.1", {"gfx1030"}, /*fedora=*/true);
  testing::InstallRpms(tree.path(), FedoraRpms(/*with_decoy_first=*/false));
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(tree.Path(kRpmdbRel).c_str(), &db), SQLITE_OK);
  // il = 0x7fffffff entries: rpm's header bound, refused before anything is allocated.
  ASSERT_EQ(sqlite3_exec(db,
                         "UPDATE Packages SET blob = x'7fffffff00000010' WHERE hnum = "
                         "(SELECT hnum FROM Basenames WHERE key = 'libamdhip64.so.6')",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  Runtime distro = FedoraDistro(tree);
  EXPECT_EQ(distro.package, std::nullopt);
  EXPECT_TRUE(HasLine(distro.evidence, ": rpm header: 2147483647 index entries, not 1 to 65535"))
      << Lines(distro.evidence);
  EXPECT_EQ(distro.code.size(), 1u);
}

// 0: the package was read; 11: it was not; 12: the directory changed.
int ReadPackageAsUser(const void* arg) {
  const auto* tree = static_cast<const testing::TestTree*>(arg);
  std::string dir = tree->Path("usr/lib/sysimage/rpm");
  size_t files = std::distance(fs::directory_iterator(dir), fs::directory_iterator());
  Runtime distro = FedoraDistro(*tree);
  if (distro.package != "rocm-hip 6.3.1-1.fc42") return 11;
  return size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator())) == files ? 0 : 12;
}

TEST(RpmdbDistro, AUserReadsTheDatabaseTheyCannotWrite) {
  SKIP_WITHOUT_RPM();
  testing::TestTree tree;
  testing::InstallDistroRocblas(tree.path(), "6.3.1", "6.3.1", {"gfx1030"}, /*fedora=*/true);
  testing::InstallRpms(tree.path(), FedoraRpms(/*with_decoy_first=*/false));
  tree.Chmod("", 0755);
  tree.Chmod("usr/lib/sysimage/rpm", 0555);
  int result = testing::RunAsNobody(ReadPackageAsUser, &tree);
  if (result == testing::kNoPrivilegeDrop) GTEST_SKIP() << "cannot drop privileges to uid 65534 here";
  EXPECT_EQ(result, 0) << "11: no package, 12: the directory changed";
}

}  // namespace
}  // namespace rocmtune::runtime
