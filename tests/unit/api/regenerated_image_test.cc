// After a change whose initramfs regeneration the helper ran, the result says whether the image
// the next boot loads carries rocmtune's module options (rocmtune.result.v1 `boot_image`, and a
// warning when it does not). The helper's Executor writes the tree; the regenerator's part is
// played by writing the image it would have built (made with cpio and zstd) and answering done.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/change.h"
#include "api/result_json.h"
#include "api/test_writers.h"
#include "cli_runner.h"
#include "initrd_images.h"

namespace rocmtune {
namespace {

constexpr const char* kRegenImage = "boot/initrd.img-6.8.0-45-generic";  // rx5700xt's kernel

// The Executor, then a "regeneration" that writes `options` (none when empty) into the image.
class RegeneratingWriter final : public api::Writer {
 public:
  RegeneratingWriter(const testing::WorldCopy& w, std::string options) : w_(w), inner_(w.root()), options_(options) {}
  Result<void> MayWrite(const sys::Root& root) const override { return inner_.MayWrite(root); }
  Result<plan::HelperReply> Apply(const plan::Plan& plan, bool force) override {
    auto reply = inner_.Apply(plan, force);
    if (!reply) return reply;
    testing::InitrdSpec spec;
    spec.early_microcode = true;
    spec.files[testing::AmdgpuModulePath("6.8.0-45-generic")] = "module";
    if (!options_.empty()) spec.files["etc/modprobe.d/rocmtune.conf"] = options_;
    skip = testing::MakeInitrdImage(w_.Path(kRegenImage), spec);
    reply->initramfs = plan::Regen::kDone;
    return reply;
  }
  Result<plan::HelperReply> Recover() override { return inner_.Recover(); }
  std::string skip;

 private:
  const testing::WorldCopy& w_;
  testing::ExecutorWriter inner_;
  std::string options_;
};

TEST(RegeneratedImageTest, TheResultSaysWhetherTheRebuiltImageCarriesTheOptions) {
  testing::WorldCopy w("rx5700xt");
  RegeneratingWriter stale(w, "");  // the tool built an image without them
  auto set = api::Set(*sys::Root::Open(w.root()), {"amdgpu.noretry=0"}, {}, stale);
  if (!stale.skip.empty()) GTEST_SKIP() << stale.skip;
  ASSERT_TRUE(set) << set.error().message;
  nlohmann::ordered_json doc = api::ResultJson(*set);
  EXPECT_EQ(doc["regenerated"]["initramfs"], "done");
  ASSERT_TRUE(doc.contains("boot_image")) << doc.dump();
  EXPECT_EQ(doc["boot_image"]["state"], "lacks");
  EXPECT_EQ(doc["boot_image"]["image"], w.Path(kRegenImage));
  bool warned = false;
  for (const auto& warning : doc["warnings"])
    warned |= warning.dump().find("lacks /etc/modprobe.d/rocmtune.conf") != std::string::npos;
  EXPECT_TRUE(warned) << doc["warnings"].dump();

  testing::WorldCopy good("rx5700xt");
  RegeneratingWriter carries(good, "options amdgpu noretry=0\n");
  auto set2 = api::Set(*sys::Root::Open(good.root()), {"amdgpu.noretry=0"}, {}, carries);
  ASSERT_TRUE(set2) << set2.error().message;
  nlohmann::ordered_json doc2 = api::ResultJson(*set2);
  EXPECT_EQ(doc2["boot_image"]["state"], "carries") << doc2.dump();
  EXPECT_EQ(doc2["warnings"].dump().find("rocmtune.conf"), std::string::npos) << doc2["warnings"].dump();
}

// unset's regeneration that left the option in the image (the tool failed quietly, or built from
// an old copy): the result says the image is stale and warns; one that took it out says nothing.
TEST(RegeneratedImageTest, AnUnsetWhoseImageKeepsTheOptionIsStale) {
  testing::WorldCopy w("rx5700xt");
  RegeneratingWriter carries(w, "options amdgpu noretry=0\n");
  auto set = api::Set(*sys::Root::Open(w.root()), {"amdgpu.noretry=0"}, {}, carries);
  if (!carries.skip.empty()) GTEST_SKIP() << carries.skip;
  ASSERT_TRUE(set) << set.error().message;
  RegeneratingWriter kept(w, "options amdgpu noretry=0\n");
  auto unset = api::Unset(*sys::Root::Open(w.root()), {"amdgpu.noretry"}, {}, kept);
  ASSERT_TRUE(unset) << unset.error().message;
  nlohmann::ordered_json doc = api::ResultJson(*unset);
  EXPECT_EQ(doc["regenerated"]["initramfs"], "done") << doc.dump();
  ASSERT_TRUE(doc.contains("boot_image")) << doc.dump();
  EXPECT_EQ(doc["boot_image"]["state"], "stale");
  EXPECT_NE(doc["warnings"].dump().find("which rocmtune no longer sets"), std::string::npos) << doc["warnings"].dump();

  RegeneratingWriter rebuilt(w, "");
  auto set2 = api::Set(*sys::Root::Open(w.root()), {"amdgpu.noretry=0"}, {}, carries);
  ASSERT_TRUE(set2) << set2.error().message;
  auto unset2 = api::Unset(*sys::Root::Open(w.root()), {"amdgpu.noretry"}, {}, rebuilt);
  ASSERT_TRUE(unset2) << unset2.error().message;
  nlohmann::ordered_json doc2 = api::ResultJson(*unset2);
  EXPECT_FALSE(doc2.contains("boot_image")) << doc2.dump();
  EXPECT_EQ(doc2["warnings"].dump().find("rocmtune.conf"), std::string::npos) << doc2["warnings"].dump();
}

TEST(RegeneratedImageTest, NoBootImageWhenNothingWasRegenerated) {
  testing::WorldCopy w("rx5700xt");
  testing::ExecutorWriter writer(w.root());
  auto set = api::Set(*sys::Root::Open(w.root()), {"amdgpu.noretry=0"}, {}, writer);
  ASSERT_TRUE(set) << set.error().message;
  nlohmann::ordered_json doc = api::ResultJson(*set);
  EXPECT_EQ(doc["regenerated"]["initramfs"], "pending");  // a --root tree: not run
  EXPECT_FALSE(doc.contains("boot_image")) << doc.dump();
}

}  // namespace
}  // namespace rocmtune
