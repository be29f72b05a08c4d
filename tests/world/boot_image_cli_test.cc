// The image the next boot loads, end to end: rocmtunectl `set` a module option on a world whose
// initramfs loads amdgpu, then `verify` and `status` read the image (made with cpio and the
// compressors, early microcode in front): one that lacks the options or has others is a
// difference naming the image, not "pending reboot"; one that carries them, or carries no
// amdgpu, is not; one this user cannot read is unknown.
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "client/exit_codes.h"
#include "initrd_images.h"

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

namespace rocmtune::client {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using testing::WorldCopy;

constexpr const char* kBootImageWorld = "rx5700xt";  // Ubuntu 24.04, initramfs-tools, 6.8.0-45-generic
constexpr const char* kBootImageVersion = "6.8.0-45-generic";
constexpr const char* kBootImageRel = "boot/initrd.img-6.8.0-45-generic";

std::vector<std::string> BootImageKinds(const json& verify) {
  std::vector<std::string> out;
  for (const auto& d : verify["differences"]) out.push_back(d.value("kind", "") + " " + d.value("subject", ""));
  return out;
}

const json* DifferenceOf(const json& verify, std::string_view kind, std::string_view subject) {
  for (const auto& d : verify["differences"])
    if (d.value("kind", "") == kind && d.value("subject", "") == subject) return &d;
  return nullptr;
}

// The world after `set amdgpu.noretry=0` (the regeneration pending on a --root tree), with an
// image that has amdgpu unless `amdgpu` is false and `options` as its copy of rocmtune's file.
class BootImageCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto set = w_.Ctl({"set", "amdgpu.noretry=0", "--json"});
    ASSERT_EQ(set.exit_code, kExitOk) << set.out << set.err;
  }
  std::string Image(const std::string& options, bool amdgpu = true, const std::string& compress = "zstd") {
    testing::InitrdSpec spec;
    spec.compress = compress;
    spec.early_microcode = true;
    spec.files["init"] = "#!/bin/sh\n";
    spec.files["etc/modprobe.d/alsa-base.conf"] = "options snd-hda-intel model=auto\n";
    if (amdgpu) spec.files[testing::AmdgpuModulePath(kBootImageVersion)] = "module";
    if (!options.empty()) spec.files["etc/modprobe.d/rocmtune.conf"] = options;
    return testing::MakeInitrdImage(w_.Path(kBootImageRel), spec);
  }
  std::string Image() const { return "/" + std::string(kBootImageRel); }
  WorldCopy w_{kBootImageWorld};
};

class BootImageLacksTest : public BootImageCliTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(BootImageLacksTest, AnImageWithoutTheOptionsIsADifferenceNotAPendingReboot) {
  std::string why = Image("", true, GetParam());
  if (!why.empty()) GTEST_SKIP() << why;
  auto verify = w_.Ctl({"verify", "--json"});
  EXPECT_EQ(verify.exit_code, kExitVerifyDiffers) << verify.out;
  json v = verify.Json();
  const json* image = DifferenceOf(v, "initramfs", w_.Path(kBootImageRel));
  ASSERT_NE(image, nullptr) << verify.out;
  EXPECT_EQ((*image)["configured"], "options amdgpu noretry=0");
  EXPECT_TRUE((*image)["running"].is_null());
  EXPECT_THAT((*image)["message"].get<std::string>(), HasSubstr("lacks /etc/modprobe.d/rocmtune.conf"));
  EXPECT_THAT((*image)["message"].get<std::string>(), HasSubstr("update-initramfs -u -k 6.8.0-45-generic"));
  // One row for the image, naming the knob it keeps from the next boot: no row of its own, and
  // not "pending reboot".
  EXPECT_THAT((*image)["message"].get<std::string>(), HasSubstr("; so amdgpu.noretry does not take effect at the "
                                                                "next boot"));
  EXPECT_THAT(BootImageKinds(v), Not(Contains("initramfs amdgpu.noretry"))) << verify.out;
  EXPECT_THAT(BootImageKinds(v), Not(Contains("pending-reboot amdgpu.noretry"))) << verify.out;
  size_t rows = 0;
  for (const auto& d : v["differences"]) rows += d.value("kind", "") == "initramfs";
  EXPECT_EQ(rows, 1u) << verify.out;

  auto status = w_.Ctl({"status", "--json"});
  ASSERT_EQ(status.exit_code, kExitOk) << status.err;
  json s = status.Json()["boot_image"];
  EXPECT_EQ(s["state"], "lacks") << s.dump();
  EXPECT_EQ(s["image"], w_.Path(kBootImageRel));
  EXPECT_EQ(s["kernel"], kBootImageVersion);
  EXPECT_TRUE(s["carried"].is_null());
  auto text = w_.Ctl({"status"});
  EXPECT_THAT(text.out, HasSubstr("Image:   " + w_.Path(kBootImageRel) + " loads amdgpu at the next boot but lacks"));
}

INSTANTIATE_TEST_SUITE_P(Compressors, BootImageLacksTest, ::testing::Values("none", "gzip", "xz", "zstd", "lz4"));

TEST_F(BootImageCliTest, AnImageWithOtherOptionsIsADifferenceNamingThem) {
  std::string why = Image("options amdgpu noretry=1\n");
  if (!why.empty()) GTEST_SKIP() << why;
  json v = w_.Ctl({"verify", "--json"}).Json();
  const json* image = DifferenceOf(v, "initramfs", w_.Path(kBootImageRel));
  ASSERT_NE(image, nullptr) << v.dump();
  EXPECT_EQ((*image)["running"], "options amdgpu noretry=1");
  EXPECT_THAT((*image)["message"].get<std::string>(), HasSubstr("with options amdgpu noretry=1"));
  EXPECT_EQ(w_.Ctl({"status", "--json"}).Json()["boot_image"]["state"], "differs");
}

TEST_F(BootImageCliTest, AnImageThatCarriesTheOptionsLeavesAPendingReboot) {
  std::string why = Image("# rocmtune\noptions amdgpu noretry=0\n");
  if (!why.empty()) GTEST_SKIP() << why;
  json v = w_.Ctl({"verify", "--json"}).Json();
  EXPECT_THAT(BootImageKinds(v), Contains("pending-reboot amdgpu.noretry")) << v.dump();
  EXPECT_EQ(DifferenceOf(v, "initramfs", w_.Path(kBootImageRel)), nullptr) << v.dump();
  json s = w_.Ctl({"status", "--json"}).Json()["boot_image"];
  EXPECT_EQ(s["state"], "carries");
  EXPECT_EQ(s["carried"], "options amdgpu noretry=0");
}

TEST_F(BootImageCliTest, AnImageWithoutAmdgpuDoesNotMatter) {
  std::string why = Image("", false);
  if (!why.empty()) GTEST_SKIP() << why;
  json v = w_.Ctl({"verify", "--json"}).Json();
  EXPECT_THAT(BootImageKinds(v), Contains("pending-reboot amdgpu.noretry")) << v.dump();
  EXPECT_EQ(DifferenceOf(v, "initramfs", w_.Path(kBootImageRel)), nullptr) << v.dump();
  json s = w_.Ctl({"status", "--json"}).Json()["boot_image"];
  EXPECT_EQ(s["state"], "no-amdgpu");
  EXPECT_THAT(s["message"].get<std::string>(), HasSubstr("loads from the root file system"));
}

TEST_F(BootImageCliTest, AnImageThisUserCannotReadIsUnknownNotADifference) {
  std::string why = Image("");
  if (!why.empty()) GTEST_SKIP() << why;
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run rocmtunectl as another user than the image's owner";
  fs::permissions(w_.Path(kBootImageRel), fs::perms::owner_read | fs::perms::owner_write);  // Fedora's 0600
  auto status = w_.Ctl({"status", "--json"}, /*as_nobody=*/true);
  ASSERT_NE(status.exit_code, testing::kCannotDropPrivileges);
  json s = status.Json()["boot_image"];
  EXPECT_EQ(s["state"], "unknown") << status.out << status.err;
  EXPECT_EQ(s["message"], "unknown: cannot read " + w_.Path(kBootImageRel) + " as this user");
  // The journal is 0640 root:rocmtune: the daemon's user reads it, as this user stands in for.
  for (const auto& e : fs::recursive_directory_iterator(w_.Path("var/lib/rocmtune")))
    fs::permissions(e.path(), fs::perms::others_read | fs::perms::others_exec, fs::perm_options::add);
  auto verify = w_.Ctl({"verify", "--json"}, true);
  ASSERT_TRUE(verify.Json()["differences"].is_array()) << verify.out << verify.err;
  EXPECT_EQ(DifferenceOf(verify.Json(), "initramfs", w_.Path(kBootImageRel)), nullptr) << verify.out;
  // Root reads it: the same image lacks the options.
  EXPECT_EQ(w_.Ctl({"status", "--json"}).Json()["boot_image"]["state"], "lacks");
}

// After unset (rocmtune's file without options) and after reset (no file), an image that still
// has the options, or the file, boots with what rocmtune took out: a verify difference and the
// Image: line. One step beside: an image regenerated without them is not.
class StaleImageTest : public BootImageCliTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(StaleImageTest, AnImageWithRemovedOptionsIsADifferenceAfterUnsetAndReset) {
  const std::string verb = GetParam();
  auto undo = verb == "reset" ? w_.Ctl({"reset", "--json"}) : w_.Ctl({"unset", "amdgpu.noretry", "--json"});
  ASSERT_EQ(undo.exit_code, kExitOk) << undo.out << undo.err;
  std::string why = Image("# rocmtune\noptions amdgpu noretry=0\n");
  if (!why.empty()) GTEST_SKIP() << why;
  auto verify = w_.Ctl({"verify", "--json"});
  EXPECT_EQ(verify.exit_code, kExitVerifyDiffers) << verify.out;
  json v = verify.Json();
  const json* image = DifferenceOf(v, "initramfs", w_.Path(kBootImageRel));
  ASSERT_NE(image, nullptr) << verify.out;
  EXPECT_TRUE((*image)["configured"].is_null());
  EXPECT_EQ((*image)["running"], "options amdgpu noretry=0");
  EXPECT_THAT((*image)["message"].get<std::string>(), HasSubstr("which rocmtune no longer sets"));
  EXPECT_THAT((*image)["message"].get<std::string>(), HasSubstr("update-initramfs -u -k 6.8.0-45-generic"));
  json s = w_.Ctl({"status", "--json"}).Json()["boot_image"];
  EXPECT_EQ(s["state"], "stale") << s.dump();
  EXPECT_THAT(w_.Ctl({"status"}).out, HasSubstr("Image:   " + w_.Path(kBootImageRel) +
                                                " loads amdgpu at the next boot with rocmtune's removed "
                                                "options (options amdgpu noretry=0)"));

  // Regenerated without rocmtune's file: nothing to say.
  ASSERT_EQ(Image(""), "");
  auto clean = w_.Ctl({"verify", "--json"});
  json c = clean.Json();
  EXPECT_EQ(DifferenceOf(c, "initramfs", w_.Path(kBootImageRel)), nullptr) << clean.out;
  EXPECT_FALSE(w_.Ctl({"status", "--json"}).Json().contains("boot_image"));
}

INSTANTIATE_TEST_SUITE_P(Verbs, StaleImageTest, ::testing::Values("unset", "reset"));

// After reset rocmtune's file is gone: the image's copy, options or not, is still rocmtune's.
TEST_F(BootImageCliTest, AfterResetTheFileAloneIsStale) {
  ASSERT_EQ(w_.Ctl({"reset"}).exit_code, kExitOk);
  ASSERT_FALSE(fs::exists(w_.Path("etc/modprobe.d/rocmtune.conf")));
  std::string why = Image("# rocmtune: no options\n");
  if (!why.empty()) GTEST_SKIP() << why;
  json s = w_.Ctl({"status", "--json"}).Json()["boot_image"];
  EXPECT_EQ(s["state"], "stale") << s.dump();
  EXPECT_THAT(s["message"].get<std::string>(), HasSubstr("with rocmtune's file from its copy"));
}

TEST_F(BootImageCliTest, NoImageLineWithoutModuleOptions) {
  WorldCopy plain(kBootImageWorld);
  auto status = plain.Ctl({"status", "--json"});
  EXPECT_FALSE(status.Json().contains("boot_image")) << status.out;
  EXPECT_THAT(plain.Ctl({"status"}).out, Not(HasSubstr("Image:")));
  // Never written by rocmtune: an image with such a file is not read at all.
  testing::InitrdSpec spec;
  spec.files = {{testing::AmdgpuModulePath(kBootImageVersion), "m"},
                {"etc/modprobe.d/rocmtune.conf", "options amdgpu noretry=0\n"}};
  ASSERT_EQ(testing::MakeInitrdImage(plain.Path(kBootImageRel), spec), "");
  EXPECT_FALSE(plain.Ctl({"status", "--json"}).Json().contains("boot_image"));
}

}  // namespace
}  // namespace rocmtune::client
