// Shared by the allow-list tests: op builders and a world with every shared file present.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "boot/cmdline_tokens.h"
#include "boot/grub_config.h"
#include "detect/inventory.h"
#include "helper/allow_list.h"
#include "test_tree.h"

namespace rocmtune::helper {

using plan::Op;
using plan::OpKind;

inline constexpr std::string_view kBls = "boot/loader/entries/0123abcd-6.11.4-301.fc41.x86_64.conf";
inline constexpr std::string_view kBlsContent =
    "title Fedora Linux (6.11.4-301.fc41.x86_64) 41\n"
    "version 6.11.4-301.fc41.x86_64\n"
    "linux /vmlinuz-6.11.4-301.fc41.x86_64\n"
    "initrd /initramfs-6.11.4-301.fc41.x86_64.img\n"
    "options root=UUID=439868dc-c5d4-4754-8106-ac392fe377cd ro rhgb quiet\n"
    "grub_users $grub_users\n";
inline constexpr std::string_view kKernelCmdline = "root=UUID=3cf73d50 ro rhgb quiet\n";
inline constexpr std::string_view kCard0 = "sys/class/drm/card0/device";

inline Op File(std::string path, std::string backend, std::optional<std::string> after,
               std::optional<std::string> before = std::nullopt) {
  Op op;
  op.kind = after ? OpKind::kWriteFile : OpKind::kRemoveFile;
  op.backend = plan::ParseBackendId(backend).value();
  op.path = std::move(path);
  op.before = std::move(before);
  op.after = std::move(after);
  return op;
}

inline Op Sysfs(std::string path, std::string value) {
  Op op;
  op.kind = OpKind::kWriteSysfs;
  op.backend = plan::BackendId::kSysfs;
  op.path = std::move(path);
  op.after = std::move(value);
  return op;
}

inline Op Regen(std::string backend, std::string name, std::vector<std::string> argv) {
  Op op;
  op.kind = OpKind::kRegenerate;
  op.backend = plan::ParseBackendId(backend).value();
  op.path = std::move(name);
  op.argv = std::move(argv);
  return op;
}

inline std::string Attr(std::string_view name) { return std::string(kCard0) + "/" + std::string(name); }

// A copy of the Arch RX 6900 XT world (GRUB without drop-ins, card0 with a COMPUTE profile) with
// a BLS entry and /etc/kernel/cmdline added, so every shared file exists.
class AllowListTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::CopyTree((std::filesystem::path(ROCMTUNE_WORLDS_DIR) / "rx6900xt").string(), tree_.Path("root"));
    tree_.Write("root/" + std::string(kBls), kBlsContent);
    tree_.Write("root/etc/kernel/cmdline", kKernelCmdline);
    root_.emplace(*sys::Root::Open(tree_.Path("root")));
    inventory_ = detect::Detect(*root_);
    ASSERT_FALSE(inventory_.gpus.empty());
    ASSERT_EQ(inventory_.gpus[0].device_dir, kCard0);
  }

  std::string Disk(std::string_view rel) const { return *root_->ReadFile(rel); }
  // /etc/default/grub with its command line edited by the backend's own function, before = disk.
  Op GrubEdit(std::string after) const {
    return File(std::string(boot::kGrubDefaultsPath), "cmdline", std::move(after), Disk(boot::kGrubDefaultsPath));
  }
  std::string GrubWith(std::vector<std::string> add, std::vector<std::string> remove = {}) const {
    return *boot::SetAssignmentTokens(Disk(boot::kGrubDefaultsPath), boot::kGrubCmdlineLinuxDefault, add, remove);
  }

  Result<void> Check(const Op& op) const { return CheckOp(*root_, inventory_, op); }

  testing::TestTree tree_;
  std::optional<sys::Root> root_;
  detect::Inventory inventory_;
};

struct Hostile {
  std::string what;
  Op op;
  std::string_view rule;
};

inline void ExpectRefused(const Result<void>& verdict, const Hostile& h) {
  ASSERT_FALSE(verdict) << h.what << " was accepted";
  EXPECT_THAT(verdict.error().message, ::testing::HasSubstr(": " + std::string(h.rule) + ": ")) << h.what;
}

}  // namespace rocmtune::helper
