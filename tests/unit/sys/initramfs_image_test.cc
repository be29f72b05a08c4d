// sys/initramfs_image.h on images made with the real tools (tests/support/initrd_images.h):
// cpio, gzip, xz, zstd, lz4 (legacy frame), bzip2, with early microcode archives in front, and
// images cut short, corrupt, unaligned or over a limit.
#include "sys/initramfs_image.h"

#include <fcntl.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "initrd_images.h"
#include "test_tree.h"

namespace rocmtune::sys {
namespace {

using testing::InitrdSpec;
using testing::MakeInitrdImage;

constexpr const char* kImageVersion = "6.1.0-28-amd64";
constexpr const char* kImageOptions = "options amdgpu noretry=0\n";

InitrdSpec MainSpec(const std::string& compress) {
  InitrdSpec spec;
  spec.compress = compress;
  spec.files = {{"init", "#!/bin/sh\n"},
                {"etc/modprobe.d/rocmtune.conf", kImageOptions},
                {testing::AmdgpuModulePath(kImageVersion), std::string(5000, 'k')}};
  return spec;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class InitramfsImageTest : public ::testing::Test {
 protected:
  Result<InitramfsImage> Read(const std::string& rel, const ImageQuery& query = {}) {
    auto root = Root::Open(tree_.path());
    if (!root) return tl::unexpected(root.error());
    return ReadInitramfsImage(*root, rel, query);
  }
  static ImageQuery WantModprobe() {
    ImageQuery q;
    q.want_content = [](std::string_view p) { return p.starts_with("etc/modprobe.d/"); };
    return q;
  }
  testing::TestTree tree_;
};

class InitramfsCompressionTest : public InitramfsImageTest,
                                 public ::testing::WithParamInterface<std::tuple<std::string, bool>> {};

TEST_P(InitramfsCompressionTest, ListsMembersAndReadsTheOnesAsked) {
  auto [compress, early] = GetParam();
  InitrdSpec spec = MainSpec(compress);
  spec.early_microcode = early;
  std::string why = MakeInitrdImage(tree_.Path("boot/initrd.img"), spec);
  if (!why.empty()) GTEST_SKIP() << why;
  auto image = Read("boot/initrd.img", WantModprobe());
  ASSERT_TRUE(image) << image.error().message;
  ASSERT_EQ(image->archives.size(), early ? 2u : 1u);
  EXPECT_EQ(image->archives.front().offset, 0u);
  EXPECT_EQ(image->archives.back().compression, compress);
  if (early) {
    EXPECT_EQ(image->archives.front().compression, "none");
    const ImageMember* ucode = image->Find("kernel/x86/microcode/AuthenticAMD.bin");
    ASSERT_NE(ucode, nullptr);
    EXPECT_EQ(ucode->archive, 0u);
    EXPECT_EQ(ucode->size, 3000u);
    EXPECT_NE(image->Find("early_cpio"), nullptr);
    EXPECT_EQ(image->archives.back().offset % 4, 0u);
  }
  const ImageMember* module = image->Find(testing::AmdgpuModulePath(kImageVersion));
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->size, 5000u);
  EXPECT_EQ(module->archive, early ? 1u : 0u);
  EXPECT_EQ(image->contents.size(), 1u);
  EXPECT_EQ(image->contents.at("etc/modprobe.d/rocmtune.conf"), kImageOptions);
  EXPECT_TRUE(image->cut.empty());
  EXPECT_FALSE(image->stopped);
}

INSTANTIATE_TEST_SUITE_P(Tools, InitramfsCompressionTest,
                         ::testing::Combine(::testing::Values("none", "gzip", "xz", "zstd", "lz4", "bzip2"),
                                            ::testing::Bool()),
                         [](const auto& param_info) {
                           return std::get<0>(param_info.param) + (std::get<1>(param_info.param) ? "_early" : "");
                         });

TEST_F(InitramfsImageTest, ReadsEveryEarlyArchiveBeforeTheMainOne) {
  InitrdSpec spec = MainSpec("gzip");
  spec.early_microcode = true;
  spec.early_archives = 3;
  std::string why = MakeInitrdImage(tree_.Path("boot/initrd.img"), spec);
  if (!why.empty()) GTEST_SKIP() << why;
  auto image = Read("boot/initrd.img");
  ASSERT_TRUE(image) << image.error().message;
  ASSERT_EQ(image->archives.size(), 4u);
  EXPECT_EQ(image->archives[1].compression, "none");
  EXPECT_EQ(image->archives[3].compression, "gzip");
  ASSERT_NE(image->Find("kernel/x86/microcode/GenuineIntel.bin"), nullptr);
  EXPECT_EQ(image->Find("kernel/x86/microcode/GenuineIntel.bin")->archive, 2u);  // the last one wins
}

TEST_F(InitramfsImageTest, SkipsZeroPaddingBetweenArchivesAsTheKernelDoes) {
  InitrdSpec early = MainSpec("none");
  early.files = {{"early_cpio", "1\n"}};
  InitrdSpec main = MainSpec("zstd");
  std::string why = MakeInitrdImage(tree_.Path("a"), early);
  if (why.empty()) why = MakeInitrdImage(tree_.Path("b"), main);
  if (!why.empty()) GTEST_SKIP() << why;
  tree_.Write("boot/padded.img", ReadAll(tree_.Path("a")) + std::string(4096 + 3, '\0') + ReadAll(tree_.Path("b")));
  auto image = Read("boot/padded.img");
  ASSERT_TRUE(image) << image.error().message;
  ASSERT_EQ(image->archives.size(), 2u);
  EXPECT_EQ(image->archives[1].offset, ReadAll(tree_.Path("a")).size() + 4096 + 3);  // compressed: any offset
  EXPECT_NE(image->Find(testing::AmdgpuModulePath(kImageVersion)), nullptr);
}

TEST_F(InitramfsImageTest, RefusesACpioHeaderOffTheFourByteGridAsTheKernelDoes) {
  InitrdSpec early = MainSpec("none");
  early.files = {{"early_cpio", "1\n"}};
  std::string why = MakeInitrdImage(tree_.Path("a"), early);
  if (why.empty()) why = MakeInitrdImage(tree_.Path("b"), MainSpec("none"));
  if (!why.empty()) GTEST_SKIP() << why;
  // init/initramfs.c: a '0' is a header only at a multiple of 4; elsewhere it is compressed data.
  tree_.Write("boot/odd.img", ReadAll(tree_.Path("a")) + std::string(1, '\0') + ReadAll(tree_.Path("b")));
  auto image = Read("boot/odd.img");
  ASSERT_FALSE(image);
  EXPECT_EQ(image.error().code, ErrorCode::kInvalidData);
  EXPECT_NE(image.error().message.find("offset 513"), std::string::npos) << image.error().message;
  // The same bytes on the grid read.
  tree_.Write("boot/even.img", ReadAll(tree_.Path("a")) + std::string(4, '\0') + ReadAll(tree_.Path("b")));
  EXPECT_TRUE(Read("boot/even.img"));
}

// `bytes` as gzip writes them (zlib's deflate with the gzip wrapper).
std::string Gzip(const std::string& bytes) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return "";
  std::string out(deflateBound(&z, static_cast<uLong>(bytes.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int r = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return r == Z_STREAM_END ? out : "";
}

// A cpio header declaring a name or data larger than the archive can hold is refused with what
// it declares, before libarchive reserves memory for it (sys/newc_guard.h): in a plain archive
// past the file's end (corrupt), in a compressed one past what it may unpack to (a limit). A
// header of another cpio format than newc is refused as the kernel refuses it.
TEST_F(InitramfsImageTest, AHeaderLargerThanItsArchiveIsRefusedBeforeItIsRead) {
  std::string why = MakeInitrdImage(tree_.Path("boot/plain.img"), MainSpec("none"));
  if (!why.empty()) GTEST_SKIP() << why;
  const std::string good = ReadAll(tree_.Path("boot/plain.img"));
  ASSERT_EQ(good.substr(0, 6), "070701");
  auto patched = [&](size_t field_at, const char* value) {
    std::string b = good;
    b.replace(field_at, 8, value);
    return b;
  };
  const std::string huge_name = patched(94, "FFFFFFFF"), huge_data = patched(54, "FFFFFFF0");
  tree_.Write("boot/name.img", huge_name);
  auto name = Read("boot/name.img");
  ASSERT_FALSE(name);
  EXPECT_EQ(name.error().code, ErrorCode::kInvalidData);
  EXPECT_NE(name.error().message.find("the cpio header at byte 0 of the archive declares a name of 4294967295 bytes, "
                                      "more than the "),
            std::string::npos)
      << name.error().message;
  tree_.Write("boot/data.img", huge_data);
  auto data = Read("boot/data.img");
  ASSERT_FALSE(data);
  EXPECT_NE(data.error().message.find("declares 4294967280 bytes of data"), std::string::npos) << data.error().message;
  const std::string gz = Gzip(huge_name);
  ASSERT_FALSE(gz.empty());
  tree_.Write("boot/name.gz.img", gz);
  auto compressed = Read("boot/name.gz.img");
  ASSERT_FALSE(compressed);
  EXPECT_EQ(compressed.error().code, ErrorCode::kTooLarge) << compressed.error().message;
  EXPECT_NE(compressed.error().message.find("declares a name of 4294967295 bytes"), std::string::npos)
      << compressed.error().message;
  // The same archive gzip'ed unchanged reads.
  tree_.Write("boot/good.gz.img", Gzip(good));
  auto fine = Read("boot/good.gz.img");
  ASSERT_TRUE(fine) << fine.error().message;
  EXPECT_EQ(fine->archives.at(0).compression, "gzip");
  // odc ("070707"), which libarchive reads and the kernel does not.
  std::string odc = good;
  odc.replace(0, 6, "070707");
  tree_.Write("boot/odc.img", odc);
  auto old_format = Read("boot/odc.img");
  ASSERT_FALSE(old_format);
  EXPECT_NE(old_format.error().message.find("no newc cpio header at byte 0"), std::string::npos)
      << old_format.error().message;
}

TEST_F(InitramfsImageTest, ACorruptImageIsAnErrorNamingIt) {
  std::string why = MakeInitrdImage(tree_.Path("boot/good.img"), MainSpec("zstd"));
  if (!why.empty()) GTEST_SKIP() << why;
  const std::string good = ReadAll(tree_.Path("boot/good.img"));
  struct Case {
    const char* name;
    std::string bytes;
  };
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 0x55;
  for (const Case& c : {Case{"cut.img", good.substr(0, good.size() / 2)}, Case{"flipped.img", flipped},
                        Case{"text.img", "not an image at all\n"}, Case{"nul.img", std::string(100, '\0') + "x"},
                        Case{"magic.img", "070701" + std::string(200, 'g')}}) {
    tree_.Write(std::string("boot/") + c.name, c.bytes);
    auto image = Read(std::string("boot/") + c.name);
    ASSERT_FALSE(image) << c.name;
    EXPECT_EQ(image.error().code, ErrorCode::kInvalidData) << c.name << ": " << image.error().message;
    EXPECT_NE(image.error().message.find(c.name), std::string::npos) << image.error().message;
  }
  tree_.Write("boot/empty.img", "");
  EXPECT_FALSE(Read("boot/empty.img"));
  tree_.Write("boot/zeros.img", std::string(2048, '\0'));
  auto zeros = Read("boot/zeros.img");
  ASSERT_TRUE(zeros) << zeros.error().message;  // the kernel unpacks nothing from it either
  EXPECT_TRUE(zeros->members.empty());
}

TEST_F(InitramfsImageTest, EveryLimitIsAnErrorNotAPartialList) {
  InitrdSpec spec = MainSpec("xz");
  spec.files["usr/lib/firmware/zeros.bin"] = std::string(4 << 20, '\0');  // 4 MiB of zeros: ~600 bytes of xz
  std::string why = MakeInitrdImage(tree_.Path("boot/initrd.img"), spec);
  if (!why.empty()) GTEST_SKIP() << why;
  ASSERT_TRUE(Read("boot/initrd.img"));
  ImageQuery few;
  few.limits.max_members = 3;
  auto members = Read("boot/initrd.img", few);
  ASSERT_FALSE(members);
  EXPECT_EQ(members.error().code, ErrorCode::kTooLarge);
  ImageQuery ratio;
  ratio.limits.ratio_floor = 1 << 20;
  ratio.limits.max_ratio = 10;
  auto bomb = Read("boot/initrd.img", ratio);
  ASSERT_FALSE(bomb);
  EXPECT_EQ(bomb.error().code, ErrorCode::kTooLarge);
  // The header of the 4 MiB member is refused before libarchive reserves anything for it.
  EXPECT_NE(bomb.error().message.find("declares 4194304 bytes of data, more than the"), std::string::npos)
      << bomb.error().message;
  EXPECT_NE(bomb.error().message.find("which a compressed archive may unpack to (10 times"), std::string::npos)
      << bomb.error().message;
  ImageQuery total;
  total.limits.max_unpacked = 1 << 20;
  EXPECT_FALSE(Read("boot/initrd.img", total));
  ImageQuery file;
  file.limits.max_file = 16;
  EXPECT_FALSE(Read("boot/initrd.img", file));
  ImageQuery archives;
  archives.limits.max_archives = 0;
  EXPECT_FALSE(Read("boot/initrd.img", archives));
}

TEST_F(InitramfsImageTest, AMemberIsReadUpToTheLimitAndSaysItWasCut) {
  InitrdSpec spec = MainSpec("gzip");
  spec.files["etc/modprobe.d/big.conf"] = std::string(100000, '#');
  std::string why = MakeInitrdImage(tree_.Path("boot/initrd.img"), spec);
  if (!why.empty()) GTEST_SKIP() << why;
  ImageQuery q = WantModprobe();
  q.limits.max_read = 1000;
  auto image = Read("boot/initrd.img", q);
  ASSERT_TRUE(image) << image.error().message;
  EXPECT_EQ(image->contents.at("etc/modprobe.d/big.conf").size(), 1000u);
  EXPECT_EQ(image->cut, std::vector<std::string>{"etc/modprobe.d/big.conf"});
  EXPECT_EQ(image->contents.at("etc/modprobe.d/rocmtune.conf"), kImageOptions);
}

TEST_F(InitramfsImageTest, StopsWhenTheCallerHasWhatItNeeds) {
  std::string why = MakeInitrdImage(tree_.Path("boot/initrd.img"), MainSpec("zstd"));
  if (!why.empty()) GTEST_SKIP() << why;
  ImageQuery q;
  q.stop_when = [](const InitramfsImage& so_far) { return so_far.Find("init") != nullptr; };
  auto image = Read("boot/initrd.img", q);
  ASSERT_TRUE(image) << image.error().message;
  EXPECT_TRUE(image->stopped);
  EXPECT_EQ(image->Find(testing::AmdgpuModulePath(kImageVersion)), nullptr);  // sorted after "init"
}

TEST_F(InitramfsImageTest, AMissingImageIsNotFound) {
  auto image = Read("boot/initrd.img-none");
  ASSERT_FALSE(image);
  EXPECT_EQ(image.error().code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace rocmtune::sys
