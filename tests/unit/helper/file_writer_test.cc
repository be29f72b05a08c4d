// FileWriter: the helper's only way to touch files. Atomic replace, never through a symlink,
// never out of the root, and "cannot read" is never taken for "absent".
#include "helper/file_writer.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_tree.h"

namespace fs = std::filesystem;

namespace rocmtune::helper {
namespace {

constexpr const char* kConf = "etc/modprobe.d/rocmtune.conf";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

unsigned ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

class FileWriterTest : public ::testing::Test {
 protected:
  FileWriterTest() : root_(*sys::Root::Open(tree_.path())), writer_(root_, hooks_) {}
  testing::TestTree tree_;
  testing::TestTree outside_;  // where an escaping write would land
  sys::Root root_;
  NoHooks hooks_;
  FileWriter writer_;
};

TEST_F(FileWriterTest, ReplaceWritesNewFilesAndLeavesNoTemporary) {
  tree_.Mkdir("etc/modprobe.d");
  ASSERT_TRUE(writer_.Replace(kConf, std::string("a\0b\n", 4)));
  EXPECT_EQ(Slurp(tree_.Path(kConf)), std::string("a\0b\n", 4));
  EXPECT_FALSE(fs::exists(tree_.Path(FileWriter::TemporaryName(kConf))));
  ASSERT_TRUE(writer_.Replace(kConf, ""));
  EXPECT_EQ(Slurp(tree_.Path(kConf)), "");
  EXPECT_EQ(ModeOf(tree_.Path(kConf)) & 0133, 0u) << "never executable, never world-writable";
}

// `sudo` keeps the caller's umask; what rocmtune creates must not depend on it (umask 077 made a
// 0600 profile.d script that login shells of other users could not read).
TEST_F(FileWriterTest, ModesDoNotDependOnTheUmask) {
  for (mode_t mask : {mode_t{077}, mode_t{027}, mode_t{0}}) {
    SCOPED_TRACE(fmt::format("umask {:03o}", mask));
    testing::TestTree tree;
    sys::Root root = *sys::Root::Open(tree.path());
    FileWriter writer(root, hooks_);
    mode_t old = ::umask(mask);
    auto made = writer.Mkdir("etc");
    auto made2 = made ? writer.Mkdir("etc/profile.d") : made;
    auto written = made2 ? writer.Replace("etc/profile.d/rocmtune.sh", "export X=1\n") : made2;
    ::umask(old);
    ASSERT_TRUE(written) << written.error().message;
    EXPECT_EQ(ModeOf(tree.Path("etc")), 0755u);
    EXPECT_EQ(ModeOf(tree.Path("etc/profile.d")), 0755u);
    EXPECT_EQ(ModeOf(tree.Path("etc/profile.d/rocmtune.sh")), 0644u);
  }
}

TEST_F(FileWriterTest, ReplaceKeepsTheOldFilesModeAndOwner) {
  tree_.Write(kConf, "old\n");
  tree_.Chmod(kConf, 0600);
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown(tree_.Path(kConf).c_str(), 65534, 65534), 0);
  }
  ASSERT_TRUE(writer_.Replace(kConf, "new\n"));
  EXPECT_EQ(Slurp(tree_.Path(kConf)), "new\n");
  EXPECT_EQ(ModeOf(tree_.Path(kConf)), 0600u);
  if (::geteuid() == 0) {
    struct stat st {};
    ASSERT_EQ(::stat(tree_.Path(kConf).c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, 65534u);
    EXPECT_EQ(st.st_gid, 65534u);
  }
  tree_.Chmod(kConf, 0640);
  ASSERT_TRUE(writer_.Replace(kConf, "newer\n"));
  EXPECT_EQ(ModeOf(tree_.Path(kConf)), 0640u);
}

TEST_F(FileWriterTest, ReplaceRefusesASymlinkAtTheTarget) {
  outside_.Write("victim", "precious\n");
  tree_.Symlink(kConf, outside_.Path("victim"));
  tree_.Symlink("etc/modprobe.d/inside.conf", "rocmtune.conf.real");
  tree_.Write("etc/modprobe.d/rocmtune.conf.real", "real\n");
  EXPECT_FALSE(writer_.Replace(kConf, "evil\n"));
  EXPECT_FALSE(writer_.Replace("etc/modprobe.d/inside.conf", "evil\n")) << "even a link that stays inside";
  EXPECT_EQ(Slurp(outside_.Path("victim")), "precious\n");
  EXPECT_EQ(Slurp(tree_.Path("etc/modprobe.d/rocmtune.conf.real")), "real\n");
  EXPECT_TRUE(fs::is_symlink(tree_.Path(kConf)));
  EXPECT_FALSE(fs::exists(tree_.Path(FileWriter::TemporaryName(kConf))));
}

TEST_F(FileWriterTest, ReplaceRefusesASymlinkOnThePath) {
  outside_.Mkdir("modprobe.d");
  tree_.Mkdir("etc");
  tree_.Symlink("etc/modprobe.d", outside_.Path("modprobe.d"));  // absolute: out of the root
  tree_.Mkdir("realetc/modprobe.d");
  tree_.Symlink("etc2", "realetc");  // relative: stays inside, still refused
  auto out = writer_.Replace(kConf, "evil\n");
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("symlink"), std::string::npos) << out.error().message;
  EXPECT_FALSE(writer_.Replace("etc2/modprobe.d/rocmtune.conf", "evil\n"));
  EXPECT_TRUE(fs::is_empty(outside_.Path("modprobe.d")));
  EXPECT_TRUE(fs::is_empty(tree_.Path("realetc/modprobe.d")));
}

TEST_F(FileWriterTest, ReplaceRefusesDotDotOutOfTheRoot) {
  tree_.Mkdir("etc/modprobe.d");
  for (const char* path : {"../escape.conf", "etc/../../escape.conf", "etc/modprobe.d/../../../escape.conf"}) {
    auto out = writer_.Replace(path, "evil\n");
    ASSERT_FALSE(out) << path;
    EXPECT_EQ(out.error().code, ErrorCode::kEscapesRoot) << path << ": " << out.error().message;
  }
  EXPECT_FALSE(fs::exists(fs::path(tree_.path()).parent_path() / "escape.conf"));
  EXPECT_FALSE(writer_.Replace("etc/modprobe.d/..", "x")) << "\"..\" as the name is a directory";
}

TEST_F(FileWriterTest, ReplaceRefusesADirectoryAndRemovesAPlantedTemporary) {
  tree_.Mkdir(kConf);
  EXPECT_FALSE(writer_.Replace(kConf, "x"));
  EXPECT_TRUE(fs::is_directory(tree_.Path(kConf)));
  // A symlink planted at the temporary's name is unlinked, not written through.
  outside_.Write("victim", "precious\n");
  std::string other = "etc/modprobe.d/other.conf";
  tree_.Symlink(FileWriter::TemporaryName(other), outside_.Path("victim"));
  ASSERT_TRUE(writer_.Replace(other, "mine\n"));
  EXPECT_EQ(Slurp(tree_.Path(other)), "mine\n");
  EXPECT_EQ(Slurp(outside_.Path("victim")), "precious\n");
  EXPECT_FALSE(fs::is_symlink(tree_.Path(other)));
}

TEST_F(FileWriterTest, ReadTellsAbsentFromPresent) {
  auto absent = writer_.Read(kConf);
  ASSERT_TRUE(absent) << absent.error().message;
  EXPECT_FALSE(absent->has_value());
  tree_.Write(kConf, std::string("x\0y", 3));
  auto present = writer_.Read(kConf);
  ASSERT_TRUE(present);
  EXPECT_EQ(present->value(), std::string("x\0y", 3));
  tree_.Write("etc/empty", "");
  EXPECT_EQ(writer_.Read("etc/empty").value(), std::string());
}

TEST_F(FileWriterTest, ReadRefusesWhatIsNotAPlainReadableFile) {
  tree_.Mkdir("etc/modprobe.d");
  ASSERT_EQ(::mkfifo(tree_.Path("etc/modprobe.d/fifo.conf").c_str(), 0644), 0);
  tree_.Mkdir("etc/modprobe.d/dir.conf");
  tree_.Write("etc/modprobe.d/real.conf", "real\n");
  tree_.Symlink("etc/modprobe.d/link.conf", "real.conf");
  // A FIFO with no writer would block a plain open: this must return at once, as an error.
  for (const char* path : {"etc/modprobe.d/fifo.conf", "etc/modprobe.d/dir.conf", "etc/modprobe.d/link.conf"}) {
    auto r = writer_.Read(path);
    EXPECT_FALSE(r) << path << " was read as " << (r && *r ? "content" : "absent");
  }
}

int ReadAsNobody(const void* arg) {
  const auto* writer = static_cast<const FileWriter*>(arg);
  auto secret = writer->Read("etc/modprobe.d/secret.conf");
  auto open = writer->Read("etc/modprobe.d/open.conf");
  if (!open || !*open || **open != "open\n") return 3;  // the control: nobody can read this one
  if (secret) return *secret ? 2 : 1;                   // content, or "absent"
  return secret.error().errno_value == EACCES ? 0 : 4;
}

TEST_F(FileWriterTest, ReadOfAnUnreadableFileIsAnErrorNotAbsent) {
  tree_.Write("etc/modprobe.d/secret.conf", "secret\n");
  tree_.Write("etc/modprobe.d/open.conf", "open\n");
  tree_.Chmod("etc/modprobe.d/secret.conf", 0600);
  tree_.Chmod("", 0755);  // mkdtemp made it 0700: let nobody walk in
  int rc = testing::RunAsNobody(ReadAsNobody, &writer_);
  if (rc == testing::kNoPrivilegeDrop) GTEST_SKIP() << "cannot drop privileges to nobody";
  if (::geteuid() != 0 && rc == 2) GTEST_SKIP() << "not root and the file is ours: permission bits do not bite";
  EXPECT_EQ(rc, 0) << "1: taken for absent, 2: read anyway, 3: control failed, 4: other error";
}

TEST_F(FileWriterTest, MissingParentsOutermostFirst) {
  tree_.Mkdir("etc");
  EXPECT_EQ(writer_.MissingParents("etc/environment.d/a/90-rocmtune.conf").value(),
            (std::vector<std::string>{"etc/environment.d", "etc/environment.d/a"}));
  EXPECT_TRUE(writer_.MissingParents("etc/x.conf").value().empty());
  EXPECT_TRUE(writer_.MissingParents("top.conf").value().empty());
  EXPECT_EQ(writer_.MissingParents("var/lib/rocmtune/journal/x").value(),
            (std::vector<std::string>{"var", "var/lib", "var/lib/rocmtune", "var/lib/rocmtune/journal"}));
  tree_.Symlink("etc/profile.d", outside_.path());
  EXPECT_FALSE(writer_.MissingParents("etc/profile.d/rocmtune.sh")) << "a symlink on the path is not 'missing'";
}

TEST_F(FileWriterTest, MkdirAndRmdirIfEmpty) {
  tree_.Mkdir("etc");
  ASSERT_TRUE(writer_.Mkdir("etc/profile.d"));
  EXPECT_TRUE(fs::is_directory(tree_.Path("etc/profile.d")));
  EXPECT_EQ(ModeOf(tree_.Path("etc/profile.d")) & 0777 & ~0755u, 0u);
  ASSERT_TRUE(writer_.Mkdir("etc/profile.d")) << "existing is fine";
  tree_.Write("etc/profile.d/someone-elses.sh", "x\n");
  auto not_empty = writer_.RmdirIfEmpty("etc/profile.d");
  ASSERT_TRUE(not_empty) << not_empty.error().message;
  EXPECT_FALSE(*not_empty);
  EXPECT_EQ(Slurp(tree_.Path("etc/profile.d/someone-elses.sh")), "x\n");
  ASSERT_EQ(::unlink(tree_.Path("etc/profile.d/someone-elses.sh").c_str()), 0);
  auto empty = writer_.RmdirIfEmpty("etc/profile.d");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(*empty);
  EXPECT_FALSE(fs::exists(tree_.Path("etc/profile.d")));
  EXPECT_TRUE(writer_.RmdirIfEmpty("etc/profile.d").value()) << "already gone counts as removed";
}

TEST_F(FileWriterTest, RemoveAndRemoveTemporary) {
  tree_.Write(kConf, "x\n");
  std::string tmp = FileWriter::TemporaryName(kConf);
  EXPECT_EQ(tmp, "etc/modprobe.d/.rocmtune.conf.rocmtune-new");
  EXPECT_EQ(FileWriter::TemporaryName("top"), ".top.rocmtune-new");
  tree_.Write(tmp, "half-written");
  ASSERT_TRUE(writer_.RemoveTemporary(kConf));
  EXPECT_FALSE(fs::exists(tree_.Path(tmp)));
  EXPECT_EQ(Slurp(tree_.Path(kConf)), "x\n") << "the target is not the temporary";
  EXPECT_TRUE(writer_.RemoveTemporary(kConf)) << "no temporary is fine";
  EXPECT_TRUE(writer_.RemoveTemporary("no/such/dir/file")) << "no directory, no temporary";
  ASSERT_TRUE(writer_.Remove(kConf));
  EXPECT_FALSE(fs::exists(tree_.Path(kConf)));
  EXPECT_TRUE(writer_.Remove(kConf)) << "removing the absent is done";
  EXPECT_TRUE(writer_.Remove("no/such/dir/file"));
}

TEST_F(FileWriterTest, WriteAttributeReplacesAWorldsPlainFile) {
  std::string attr = "sys/devices/pci0000:00/0000:03:00.0/power_dpm_force_performance_level";
  tree_.Write(attr, "auto\n");
  tree_.Symlink("sys/class/drm/card0/device", "../../../devices/pci0000:00/0000:03:00.0");
  ASSERT_TRUE(writer_.WriteAttribute("sys/class/drm/card0/device/power_dpm_force_performance_level", "high"));
  EXPECT_EQ(Slurp(tree_.Path(attr)), "high");
  EXPECT_EQ(writer_.ReadAttribute(attr).value(), "high");
  EXPECT_FALSE(writer_.WriteAttribute("sys/class/drm/card0/device/no_such_attribute", "x")) << "never creates";
}

// A root-only file elsewhere in the tree that a hostile tree tries to reach through an attribute.
class AttributeEscapeTest : public FileWriterTest {
 protected:
  static constexpr const char* kDev = "sys/devices/pci0000:00/0000:03:00.0";
  static constexpr const char* kAttr = "sys/class/drm/card0/device/power_dpm_force_performance_level";
  void SetUp() override {
    tree_.Mkdir(kDev);
    tree_.Symlink("sys/class/drm/card0/device", "../../../devices/pci0000:00/0000:03:00.0");
    tree_.Write("etc/shadow", "root:secret:19000::::::\n");
  }
  std::string DevPath(std::string_view name) const { return fmt::format("{}/{}", kDev, name); }
  void ExpectUntouched() {
    EXPECT_EQ(Slurp(tree_.Path("etc/shadow")), "root:secret:19000::::::\n") << "written through the attribute";
  }
};

TEST_F(AttributeEscapeTest, AHardLinkedAttributeIsRefusedAndNotTruncated) {
  ASSERT_EQ(::link(tree_.Path("etc/shadow").c_str(), tree_.Path(DevPath("power_dpm_force_performance_level")).c_str()),
            0);
  auto written = writer_.WriteAttribute(kAttr, "high");
  ASSERT_FALSE(written);
  EXPECT_NE(written.error().message.find("link"), std::string::npos) << written.error().message;
  ExpectUntouched();
  EXPECT_FALSE(writer_.ReadAttribute(kAttr)) << "nor read through";
}

TEST_F(AttributeEscapeTest, AnAttributeThatIsASymlinkIsRefused) {
  tree_.Symlink(DevPath("power_dpm_force_performance_level"), "../../../etc/shadow");
  EXPECT_FALSE(writer_.WriteAttribute(kAttr, "high"));
  ExpectUntouched();
  // Even a link to a plain attribute in the same directory: the attribute itself is never a link.
  tree_.Write(DevPath("real"), "auto\n");
  ASSERT_EQ(::unlink(tree_.Path(DevPath("power_dpm_force_performance_level")).c_str()), 0);
  tree_.Symlink(DevPath("power_dpm_force_performance_level"), "real");
  EXPECT_FALSE(writer_.WriteAttribute(kAttr, "high"));
  EXPECT_EQ(Slurp(tree_.Path(DevPath("real"))), "auto\n");
}

TEST_F(AttributeEscapeTest, ADeviceLinkThatLeavesSysIsRefused) {
  tree_.Write("etc/power_dpm_force_performance_level", "auto\n");
  tree_.Symlink("sys/class/drm/card1", "../../../etc");
  EXPECT_FALSE(writer_.WriteAttribute("sys/class/drm/card1/power_dpm_force_performance_level", "high"));
  EXPECT_EQ(Slurp(tree_.Path("etc/power_dpm_force_performance_level")), "auto\n");
  tree_.Write("etc/x/sys-lookalike/power_dpm_force_performance_level", "auto\n");
  EXPECT_FALSE(writer_.WriteAttribute("etc/x/sys-lookalike/power_dpm_force_performance_level", "high"))
      << "only attributes under the root's sys/";
  EXPECT_EQ(Slurp(tree_.Path("etc/x/sys-lookalike/power_dpm_force_performance_level")), "auto\n");
}

TEST_F(AttributeEscapeTest, ANonRegularAttributeIsRefused) {
  ASSERT_EQ(::mkfifo(tree_.Path(DevPath("power_dpm_force_performance_level")).c_str(), 0600), 0);
  EXPECT_FALSE(writer_.WriteAttribute(kAttr, "high")) << "a FIFO (and it must not block)";
  ASSERT_EQ(::unlink(tree_.Path(DevPath("power_dpm_force_performance_level")).c_str()), 0);
  tree_.Mkdir(DevPath("power_dpm_force_performance_level"));
  EXPECT_FALSE(writer_.WriteAttribute(kAttr, "high"));
}

TEST_F(AttributeEscapeTest, APlainAttributeIsStillWrittenWhole) {
  tree_.Write(DevPath("power_dpm_force_performance_level"), "manual-and-longer\n");
  ASSERT_TRUE(writer_.WriteAttribute(kAttr, "high"));
  EXPECT_EQ(Slurp(tree_.Path(DevPath("power_dpm_force_performance_level"))), "high")
      << "a world's file is replaced whole";
}

TEST(PathPartsTest, ParentAndBaseName) {
  EXPECT_EQ(ParentOf("etc/modprobe.d/x.conf"), "etc/modprobe.d");
  EXPECT_EQ(ParentOf("x"), "");
  EXPECT_EQ(BaseName("etc/modprobe.d/x.conf"), "x.conf");
  EXPECT_EQ(BaseName("x"), "x");
}

}  // namespace
}  // namespace rocmtune::helper
