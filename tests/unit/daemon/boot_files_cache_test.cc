// What rocmtuned keeps of a root-only ESP (daemon/boot_files_cache.h): read once, again only when
// a transaction committed, what the daemon can see changed or it is old, and for requests polkit
// has not admitted at most once per kUnadmittedInterval however often they ask.
#include "daemon/boot_files_cache.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace rocmtune::daemon {
namespace {

using std::chrono::seconds;

class BootFilesCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/rocmtune-bootcache-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    std::filesystem::create_directories(dir_ / "boot/efi");
    auto root = sys::Root::Open(dir_.string());
    ASSERT_TRUE(root) << root.error().message;
    root_.emplace(std::move(*root));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  BootFilesCache Cache() {
    return BootFilesCache(
        [this]() -> Result<std::optional<sys::RootSupplement>> {
          ++reads_;
          sys::RootSupplement files;
          files.files.emplace("boot/efi/loader/loader.conf", "default linux-" + std::to_string(reads_) + ".conf\n");
          return std::optional<sys::RootSupplement>(files);
        },
        [this] { return now_; });
  }
  std::string Content(const Result<std::optional<sys::RootSupplement>>& got) {
    if (!got || !*got) return "";
    return (*got)->files.at("boot/efi/loader/loader.conf");
  }

  std::filesystem::path dir_;
  std::optional<sys::Root> root_;
  int reads_ = 0;
  BootFilesCache::Clock::time_point now_{seconds(1000)};
};

TEST_F(BootFilesCacheTest, AThousandRequestsNotAdmittedReadOnceAMinute) {
  BootFilesCache cache = Cache();
  for (int i = 0; i < 1000; ++i) {
    auto got = cache.Get(*root_, /*admitted=*/false);
    ASSERT_TRUE(got) << got.error().message;
    EXPECT_EQ(Content(got), "default linux-1.conf\n");
  }
  EXPECT_EQ(reads_, 1);
  // Invalidated (a transaction): an unadmitted request within the minute gets what was kept.
  cache.Invalidate();
  EXPECT_EQ(Content(cache.Get(*root_, false)), "default linux-1.conf\n");
  EXPECT_EQ(reads_, 1);
  // Root's (admitted) request reads again at once.
  EXPECT_EQ(Content(cache.Get(*root_, true)), "default linux-2.conf\n");
  EXPECT_EQ(reads_, 2);
  EXPECT_EQ(cache.Reads(), 2U);
}

TEST_F(BootFilesCacheTest, NothingKeptAndTheMinuteNotOverIsBusyNotAHelper) {
  BootFilesCache cache = Cache();
  ASSERT_TRUE(cache.Get(*root_, false));
  cache.Invalidate();
  // A fresh cache that read for an unadmitted caller and failed keeps nothing: the next is Busy.
  BootFilesCache failing(
      [this]() -> Result<std::optional<sys::RootSupplement>> {
        ++reads_;
        return Fail(ErrorCode::kIo, "cannot reach rocmtune-helper");
      },
      [this] { return now_; });
  EXPECT_FALSE(failing.Get(*root_, false));
  auto second = failing.Get(*root_, false);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, ErrorCode::kBusy);
  EXPECT_EQ(reads_, 2);  // one by `cache`, one by `failing`
  now_ += BootFilesCache::kUnadmittedInterval;
  EXPECT_FALSE(failing.Get(*root_, false));
  EXPECT_EQ(reads_, 3);
}

TEST_F(BootFilesCacheTest, WhatTheDaemonCanSeeChangeReadsAgain) {
  BootFilesCache cache = Cache();
  ASSERT_EQ(Content(cache.Get(*root_, true)), "default linux-1.conf\n");
  // A kernel installed: /boot changed (a new file in it).
  std::ofstream(dir_ / "boot/vmlinuz-6.18.4") << "kernel";
  EXPECT_EQ(Content(cache.Get(*root_, true)), "default linux-2.conf\n");
  EXPECT_EQ(Content(cache.Get(*root_, true)), "default linux-2.conf\n");
  // /etc/kernel/cmdline appears.
  std::filesystem::create_directories(dir_ / "etc/kernel");
  EXPECT_EQ(Content(cache.Get(*root_, true)), "default linux-3.conf\n");
  // Old: kMaxAge later it is read again.
  now_ += BootFilesCache::kMaxAge;
  EXPECT_EQ(Content(cache.Get(*root_, true)), "default linux-4.conf\n");
  EXPECT_EQ(reads_, 4);
}

}  // namespace
}  // namespace rocmtune::daemon
