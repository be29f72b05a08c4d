// Offload bundle headers: the real ones hipcc wrote (tests/fixtures/fatbin), compressed ones, and
// hostile ones, each of which must fail with a reason and without reading past a bound.
#include "runtime/bundle.h"

#include <zlib.h>
#include <zstd.h>

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "runtime_layouts.h"

namespace rocmtune::runtime {
namespace {

using Targets = std::vector<std::string>;

BundleLimits LimitsOf(size_t bundles, size_t header_bytes) {
  BundleLimits limits;
  limits.max_bundles = bundles;
  limits.max_header_bytes = header_bytes;
  return limits;
}

std::string ReadFixture(std::string_view name) {
  std::ifstream in(testing::FatbinFixture(name), std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  EXPECT_TRUE(in.good() || in.eof()) << name;
  return content.str();
}

void PutLe(std::string& out, uint64_t value, size_t width) {
  for (size_t i = 0; i < width; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
}

struct Entry {
  uint64_t offset;
  uint64_t size;
  std::string id;
};

// An uncompressed bundle as clang-offload-bundler lays it out (header, then the entries' bytes).
std::string MakeBundle(const std::vector<Entry>& entries, uint64_t claimed_count = 0, size_t total = 0) {
  std::string out = "__CLANG_OFFLOAD_BUNDLE__";
  PutLe(out, claimed_count ? claimed_count : entries.size(), 8);
  for (const Entry& e : entries) {
    PutLe(out, e.offset, 8);
    PutLe(out, e.size, 8);
    PutLe(out, e.id.size(), 8);
    out += e.id;
  }
  if (out.size() < total) out.resize(total, '\0');
  return out;
}

std::string HipBundle(const Targets& targets) {
  std::vector<Entry> entries = {{4096, 0, "host-x86_64-unknown-linux-gnu-"}};
  uint64_t at = 4096;
  for (const std::string& t : targets) {
    entries.push_back({at, 100, "hipv4-amdgcn-amd-amdhsa--" + t});
    at += 4096;
  }
  return MakeBundle(entries, 0, at);
}

std::string Ccob(uint16_t version, uint16_t method, const std::string& compressed, uint64_t uncompressed) {
  std::string out = "CCOB";
  PutLe(out, version, 2);
  PutLe(out, method, 2);
  size_t header = version == 1 ? 20 : version == 2 ? 24 : 32;
  if (version == 2) PutLe(out, header + compressed.size(), 4);
  if (version == 3) PutLe(out, header + compressed.size(), 8);
  PutLe(out, uncompressed, version == 3 ? 8 : 4);
  PutLe(out, 0x1234, 8);  // the hash, not checked
  return out + compressed;
}

std::string Zlib(const std::string& raw) {
  uLongf size = compressBound(raw.size());
  std::string out(size, '\0');
  EXPECT_EQ(
      compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(raw.data()), raw.size(), 9),
      Z_OK);
  out.resize(size);
  return out;
}

std::string Zstd(const std::string& raw) {
  std::string out(ZSTD_compressBound(raw.size()), '\0');
  size_t size = ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), 3);
  EXPECT_FALSE(ZSTD_isError(size));
  out.resize(size);
  return out;
}

// The section the hipcc-built libgfx1010_gfx1031.so has (objcopy --only-section .hip_fatbin).
std::string Gfx1010Gfx1031Bundle() {
  // Its one bundle, uncompressed: what the compressed fixtures hold too.
  std::string zst = ReadFixture("ccob_v2_zstd.bin");
  std::string raw(1 << 20, '\0');
  size_t size = ZSTD_decompress(raw.data(), raw.size(), zst.data() + 24, zst.size() - 24);
  EXPECT_FALSE(ZSTD_isError(size));
  raw.resize(size);
  return raw;
}

TEST(RuntimeBundle, HipccUncompressedBundle) {
  std::string raw = Gfx1010Gfx1031Bundle();
  ASSERT_TRUE(raw.starts_with("__CLANG_OFFLOAD_BUNDLE__"));
  auto ids =
      BundleEntryIds([&](uint64_t off, size_t len) -> Result<std::string> { return raw.substr(off, len); }, raw.size());
  ASSERT_TRUE(ids) << ids.error().message;
  EXPECT_EQ(*ids, (Targets{"host-x86_64-unknown-linux", "hipv4-amdgcn-amd-amdhsa--gfx1010",
                           "hipv4-amdgcn-amd-amdhsa--gfx1031"}));
  auto targets = BundleTargets(raw);
  ASSERT_TRUE(targets) << targets.error().message;
  EXPECT_EQ(*targets, (Targets{"gfx1010", "gfx1031"}));
}

TEST(RuntimeBundle, CompressedFixturesZstdV2AndZlibV3) {
  for (std::string_view name : {"ccob_v2_zstd.bin", "ccob_v3_zlib.bin"}) {
    auto targets = BundleTargets(ReadFixture(name));
    ASSERT_TRUE(targets) << name << ": " << targets.error().message;
    EXPECT_EQ(*targets, (Targets{"gfx1010", "gfx1031"})) << name;
  }
}

TEST(RuntimeBundle, CompressedVersionOneAndBothMethods) {
  std::string raw = HipBundle({"gfx1100", "gfx1101"});
  for (uint16_t version : {uint16_t{1}, uint16_t{2}, uint16_t{3}}) {
    for (uint16_t method : {uint16_t{0}, uint16_t{1}}) {
      std::string packed = method == 0 ? Zlib(raw) : Zstd(raw);
      auto targets = BundleTargets(Ccob(version, method, packed, raw.size()));
      ASSERT_TRUE(targets) << "v" << version << " m" << method << ": " << targets.error().message;
      EXPECT_EQ(*targets, (Targets{"gfx1100", "gfx1101"}));
    }
  }
}

TEST(RuntimeBundle, OnlyTheHeaderIsInflated) {
  // 64 MiB of device code compresses to little; the reader must stop after the header.
  std::vector<Entry> entries = {{4096, 64 << 20, "hipv4-amdgcn-amd-amdhsa--gfx942"}};
  std::string raw = MakeBundle(entries, 0, 4096 + (64 << 20));
  std::string packed = Zstd(raw);
  size_t asked = 0;
  std::string section = Ccob(3, 1, packed, raw.size());
  ReadAt read = [&](uint64_t off, size_t len) -> Result<std::string> {
    asked += len;
    return section.substr(off, len);
  };
  auto targets = BundleTargets(read, section.size());
  ASSERT_TRUE(targets) << targets.error().message;
  EXPECT_EQ(*targets, Targets{"gfx942"});
  EXPECT_LT(asked, size_t{256 << 10});
}

TEST(RuntimeBundle, BundlesBackToBackAt4096) {
  // The first bundle's last entry ends at 8192: the next starts there (libtwo_units.so, read in
  // fat_binary_test.cc, has hipcc's: at 0 and 12288).
  std::string first = HipBundle({"gfx900"});
  ASSERT_EQ(first.size(), 8192u);
  std::string section = first + HipBundle({"gfx1030", "gfx900"});
  auto targets = BundleTargets(section);
  ASSERT_TRUE(targets) << targets.error().message;
  EXPECT_EQ(*targets, (Targets{"gfx1030", "gfx900"}));
}

TEST(RuntimeBundle, StopsAfterMaxBundles) {
  std::string section;
  for (std::string t : {"gfx900", "gfx906", "gfx1030"}) {
    std::string bundle = HipBundle({t});
    bundle.resize(8192, '\0');
    section += bundle;
  }
  auto targets = BundleTargets(section, LimitsOf(2, 1 << 20));
  ASSERT_TRUE(targets) << targets.error().message;
  EXPECT_EQ(*targets, (Targets{"gfx900", "gfx906"}));
}

void ExpectBundleFails(const std::string& section, std::string_view says, ErrorCode code = ErrorCode::kInvalidData) {
  auto targets = BundleTargets(section);
  ASSERT_FALSE(targets) << "accepted: " << ::testing::PrintToString(*targets);
  EXPECT_EQ(targets.error().code, code) << targets.error().message;
  EXPECT_NE(targets.error().message.find(says), std::string::npos) << targets.error().message;
}

TEST(RuntimeBundle, HostileUncompressed) {
  ExpectBundleFails("", "empty");
  ExpectBundleFails("ELF\x7f not a bundle at all", "no offload bundle at the start");
  ExpectBundleFails("__CLANG_OFFLOAD_BUNDLE__\x03", "truncated");
  std::string whole = HipBundle({"gfx1030"});
  ExpectBundleFails(whole.substr(0, 60), "truncated");  // cut within the header
  ExpectBundleFails(whole.substr(0, 4150), "past");     // cut within gfx1030's code
  ExpectBundleFails(MakeBundle({{0, 1, "hipv4-amdgcn-amd-amdhsa--gfx900"}}, 0xffffffffffff),
                    "claims 281474976710655 entries");
  ExpectBundleFails(MakeBundle({}, 0), "claims 0 entries");
  ExpectBundleFails(MakeBundle({{4096, ~uint64_t{0} - 10, "hipv4-amdgcn-amd-amdhsa--gfx900"}}), "past 2^64");
  ExpectBundleFails(MakeBundle({{4096, uint64_t{1} << 40, "hipv4-amdgcn-amd-amdhsa--gfx900"}}), "past");
  std::string huge_id = "__CLANG_OFFLOAD_BUNDLE__";
  PutLe(huge_id, 1, 8);
  PutLe(huge_id, 0, 8);
  PutLe(huge_id, 0, 8);
  PutLe(huge_id, uint64_t{1} << 62, 8);
  ExpectBundleFails(huge_id + "x", "id of 4611686018427387904 bytes");
}

TEST(RuntimeBundle, HeaderOverTheBoundIsRefused) {
  std::vector<Entry> entries;
  for (int i = 0; i < 1000; ++i) entries.push_back({0, 0, std::string(1000, 'h')});
  std::string section = MakeBundle(entries);
  auto targets = BundleTargets(section, LimitsOf(16, 256 << 10));
  ASSERT_FALSE(targets);
  EXPECT_EQ(targets.error().code, ErrorCode::kTooLarge) << targets.error().message;
}

TEST(RuntimeBundle, HostileCompressed) {
  std::string raw = HipBundle({"gfx1100"});
  std::string zstd = Zstd(raw);
  ExpectBundleFails("CCOB\x01", "truncated");
  ExpectBundleFails(Ccob(4, 1, zstd, raw.size()), "version 4 is unknown", ErrorCode::kUnsupported);
  ExpectBundleFails(Ccob(2, 7, zstd, raw.size()), "method 7 is unknown", ErrorCode::kUnsupported);
  std::string cut = Ccob(2, 1, zstd, raw.size());
  ExpectBundleFails(cut.substr(0, cut.size() - 5), "truncated");  // total size past the section's end
  std::string garbage = Ccob(3, 1, std::string(200, 'x'), raw.size());
  ExpectBundleFails(garbage, "zstd");
  ExpectBundleFails(Ccob(3, 0, std::string(200, 'x'), raw.size()), "zlib");
  ExpectBundleFails(Ccob(3, 1, Zstd("not a bundle, but longer than the magic"), 40),
                    "does not inflate to an offload bundle");
  ExpectBundleFails(Ccob(3, 1, Zstd(raw.substr(0, 40)), 40), "less than its own header");
  ExpectBundleFails(Ccob(3, 1, zstd, 8), "holds no bundle");
  // A bomb: the header's entries claim more than the uncompressed size says.
  ExpectBundleFails(Ccob(3, 1, zstd, 200), "uncompressed size of 200");
}

}  // namespace
}  // namespace rocmtune::runtime
