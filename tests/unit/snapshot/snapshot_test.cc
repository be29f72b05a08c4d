#include "snapshot/snapshot.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/status.h"
#include "api/status_json.h"
#include "cli_runner.h"
#include "detect/inventory.h"
#include "esp_worlds.h"
#include "snapshot/redact_cmdline.h"
#include "test_tree.h"
#include "util/json_text.h"
#include "world_names.h"

namespace fs = std::filesystem;

namespace rocmtune::snapshot {
namespace {

using testing::TestTree;

std::string Status(const std::string& path) {
  auto root = sys::Root::Open(path);
  EXPECT_TRUE(root) << path;
  return JsonText(*api::DescribeSystem(*root));
}

// A snapshot must carry everything detection reads: the status of the snapshot is the
// status of the original, for every world, apart from the kernel parameters' private values
// (root=UUID=redacted, rd.lvm.lv=redacted: snapshot/redact_cmdline.h).
TEST(SnapshotTest, StatusOfSnapshotEqualsStatusOfSource) {
  auto worlds = testing::WorldNames();
  ASSERT_FALSE(worlds.empty());
  for (const std::string& world : worlds) {
    TestTree out;
    std::string dir = out.Path("snap");
    auto root = sys::Root::Open(fs::path(ROCMTUNE_WORLDS_DIR) / world);
    ASSERT_TRUE(root);
    auto stats = WriteSnapshot(*root, dir);
    ASSERT_TRUE(stats) << world << ": " << stats.error().message;
    EXPECT_EQ(Status(dir), RedactKernelTokens(Status(fs::path(ROCMTUNE_WORLDS_DIR) / world))) << world;
  }
}

// The ESP setups' next boot lives in files the captured worlds lack: kernelstub's configuration
// and program (Pop!_OS), systemd-boot's entries on /boot/efi. A snapshot carries them, so its
// status names the same boot setup and CONFIGURED (before: "grub" and nothing configured).
TEST(SnapshotTest, TheEspSetupsNextBootIsInTheSnapshot) {
  for (auto [base, make] :
       {std::pair{testing::kPopOsBase, +[](const std::string& r) { testing::MakePopOs(r); }},
        std::pair{testing::kUbuntuEspBase, +[](const std::string& r) { testing::MakeUbuntuSdBoot(r, false); }}}) {
    testing::WorldCopy src(base);
    make(src.root());
    TestTree out;
    auto root = sys::Root::Open(src.root());
    ASSERT_TRUE(root);
    ASSERT_TRUE(WriteSnapshot(*root, out.Path("snap")));
    std::string want = RedactKernelTokens(Status(src.root()));
    EXPECT_EQ(Status(out.Path("snap")), want) << base;
    const bool pop = std::string(base) == testing::kPopOsBase;
    EXPECT_NE(want.find(pop ? "\"boot\": \"kernelstub\"" : "\"boot\": \"systemd-boot\""), std::string::npos) << want;
    EXPECT_NE(want.find(pop ? "etc/kernelstub/configuration" : "boot/efi/loader/entries/"), std::string::npos)
        << "the next boot's file is in the status";
  }
}

TEST(SnapshotTest, LeavesOutPrivateAndSideEffectingFiles) {
  TestTree src;
  src.Symlink("sys/class/drm/card0", "../../devices/pci0000:00/0000:03:00.0/drm/card0");
  src.Symlink("sys/devices/pci0000:00/0000:03:00.0/drm/card0/device", "../../../0000:03:00.0");
  std::string dev = "sys/devices/pci0000:00/0000:03:00.0/";
  src.Write(dev + "uevent", "DRIVER=amdgpu\nPCI_ID=1002:731F\nPCI_SLOT_NAME=0000:03:00.0\n");
  src.Write(dev + "serial_number", "SECRET-SERIAL\n");
  src.Write(dev + "unique_id", "abcdef0123\n");
  src.Write(dev + "rom", "ROM");
  src.Write(dev + "config", "CFG");
  src.Write("etc/machine-id", "0123456789abcdef\n");
  src.Write("etc/shadow", "root:x:\n");
  src.Write("sys/class/kfd/kfd/topology/nodes/1/properties", "simd_count 4\nunique_id 1234567\n");
  TestTree out;
  std::string dir = out.Path("snap");
  auto root = sys::Root::Open(src.path());
  ASSERT_TRUE(root);
  ASSERT_TRUE(WriteSnapshot(*root, dir));
  EXPECT_TRUE(fs::exists(dir + "/" + dev + "uevent"));
  EXPECT_TRUE(fs::is_symlink(dir + "/sys/class/drm/card0"));
  for (const char* f : {"serial_number", "unique_id", "rom", "config"})
    EXPECT_FALSE(fs::exists(dir + "/" + dev + f)) << f;
  EXPECT_FALSE(fs::exists(dir + "/etc/machine-id"));
  EXPECT_FALSE(fs::exists(dir + "/etc/shadow"));
  std::ifstream props(dir + "/sys/class/kfd/kfd/topology/nodes/1/properties");
  std::string content((std::istreambuf_iterator<char>(props)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content.find("1234567"), std::string::npos) << "raw unique_id leaked";
  EXPECT_NE(content.find("unique_id "), std::string::npos);
  EXPECT_NE(content.find("simd_count 4"), std::string::npos);
}

TEST(SnapshotTest, RefusesANonEmptyOutputDirectory) {
  TestTree src, out;
  out.Write("snap/keep", "mine");
  auto root = sys::Root::Open(src.path());
  ASSERT_TRUE(root);
  auto r = WriteSnapshot(*root, out.Path("snap"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
}

// OUT as a symlink is refused, not followed: as root, following it would write wherever it points.
TEST(SnapshotTest, RefusesASymlinkAsTheOutputDirectory) {
  TestTree src, out;
  src.Write("proc/cmdline", "quiet\n");
  out.Mkdir("elsewhere");
  out.Symlink("snap", "elsewhere");
  auto root = sys::Root::Open(src.path());
  ASSERT_TRUE(root);
  auto r = WriteSnapshot(*root, out.Path("snap"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(fs::is_empty(out.Path("elsewhere")));
}

// What holds a snapshot honours the umask, as any file a user makes: 077 keeps the directory
// and the archive the owner's even when every member is public.
TEST(SnapshotTest, TheOutputHonoursTheUmask) {
  TestTree src, out;
  src.Write("proc/cmdline", "quiet\n");
  auto root = sys::Root::Open(src.path());
  ASSERT_TRUE(root);
  const mode_t old = ::umask(077);
  auto dir = WriteSnapshot(*root, out.Path("snap"));
  auto archive = WriteSnapshotArchive(*root, out.Path("snap.tar.gz"));
  ::umask(old);
  ASSERT_TRUE(dir) << dir.error().message;
  ASSERT_TRUE(archive) << archive.error().message;
  EXPECT_EQ(fs::status(out.Path("snap")).permissions() & fs::perms::all, fs::perms::owner_all);
  EXPECT_EQ(fs::status(out.Path("snap.tar.gz")).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

TEST(SnapshotTest, CreatesTheOutputDirectoryReadableWhenDone) {
  TestTree src, out;
  src.Write("proc/cmdline", "quiet\n");
  auto root = sys::Root::Open(src.path());
  ASSERT_TRUE(root);
  auto stats = WriteSnapshot(*root, out.Path("snap"));
  ASSERT_TRUE(stats) << stats.error().message;
  EXPECT_EQ(stats->files, 1u);
  EXPECT_EQ(fs::status(out.Path("snap")).permissions() & fs::perms::all,
            fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                fs::perms::others_exec);
  EXPECT_TRUE(fs::is_regular_file(out.Path("snap/proc/cmdline")));
}

}  // namespace
}  // namespace rocmtune::snapshot
