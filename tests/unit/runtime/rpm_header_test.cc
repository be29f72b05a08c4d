// runtime/rpm_header.h: headers rpm 4.18 wrote (tests/fuzz/corpus/rpm_header, from rpmdb.sqlite's
// Packages table) and hand-made malformed ones.
#include "runtime/rpm_header.h"

#include <fstream>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

namespace rocmtune::runtime {
namespace {

std::string RpmHeaderSeed(std::string_view name) {
  std::ifstream in(std::string(ROCMTUNE_SOURCE_DIR) + "/tests/fuzz/corpus/rpm_header/" + std::string(name),
                   std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::string BigEndian(uint32_t value) {
  return {static_cast<char>(value >> 24), static_cast<char>(value >> 16), static_cast<char>(value >> 8),
          static_cast<char>(value)};
}

// A header laid out by hand: entries and data as given, il and dl counted unless overridden.
struct BlobBuilder {
  struct Entry {
    uint32_t tag, type, offset, count;
  };
  std::vector<Entry> entries;
  std::string data;

  BlobBuilder& Strings(RpmTag tag, const std::vector<std::string>& values, uint32_t type = 8) {
    entries.push_back(
        {static_cast<uint32_t>(tag), type, static_cast<uint32_t>(data.size()), static_cast<uint32_t>(values.size())});
    for (const std::string& value : values) data += value + '\0';
    return *this;
  }
  BlobBuilder& String(RpmTag tag, const std::string& value) { return Strings(tag, {value}, 6); }
  BlobBuilder& Int32s(RpmTag tag, const std::vector<uint32_t>& values) {
    while (data.size() % 4 != 0) data += '\0';
    entries.push_back(
        {static_cast<uint32_t>(tag), 4, static_cast<uint32_t>(data.size()), static_cast<uint32_t>(values.size())});
    for (uint32_t value : values) data += BigEndian(value);
    return *this;
  }
  std::string Blob() const {
    std::string blob = BigEndian(static_cast<uint32_t>(entries.size())) + BigEndian(static_cast<uint32_t>(data.size()));
    for (const Entry& e : entries)
      blob += BigEndian(e.tag) + BigEndian(e.type) + BigEndian(e.offset) + BigEndian(e.count);
    return blob + data;
  }
};

BlobBuilder Hip() {
  BlobBuilder b;
  b.String(RpmTag::kName, "rocm-hip").String(RpmTag::kVersion, "6.3.1").String(RpmTag::kRelease, "1.fc42");
  b.Strings(RpmTag::kBasenames, {"libamdhip64.so.6", "hip"}).Strings(RpmTag::kDirNames, {"/usr/lib64/", "/usr/share/"});
  b.Int32s(RpmTag::kDirIndexes, {0, 1});
  return b;
}

std::string ErrorOf(const Result<RpmHeader>& header) { return header ? "" : header.error().message; }

TEST(RpmHeader, ReadsWhatRpmWrote) {
  std::string blob = RpmHeaderSeed("rocm-hip");
  ASSERT_FALSE(blob.empty());
  auto header = RpmHeader::Parse(blob);
  ASSERT_TRUE(header) << header.error().message;
  auto package = header->Package();
  ASSERT_TRUE(package) << package.error().message;
  EXPECT_EQ(package->name, "rocm-hip");
  EXPECT_EQ(package->Evr(), "6.3.1-1.fc42");
  EXPECT_EQ(package->epoch, std::nullopt);
  EXPECT_EQ(header->FilePath(0), "/usr/lib64/libamdhip64.so.6");
  EXPECT_EQ(header->FilePath(1), "/usr/lib64/libamdhip64.so.6.3.42134");
  EXPECT_FALSE(header->FilePath(2));

  std::string with_epoch = RpmHeaderSeed("rocblas-epoch");
  auto rocblas = RpmHeader::Parse(with_epoch);
  ASSERT_TRUE(rocblas) << rocblas.error().message;
  EXPECT_EQ(rocblas->Package()->Evr(), "1:6.3.1-1.fc42");
  EXPECT_EQ(rocblas->FilePath(2), "/usr/lib64/rocblas/library/TensileLibrary_gfx1030.dat");
}

TEST(RpmHeader, ReadsAHandMadeHeader) {
  std::string blob = Hip().Blob();
  auto header = RpmHeader::Parse(blob);
  ASSERT_TRUE(header) << header.error().message;
  EXPECT_EQ(header->Package()->Evr(), "6.3.1-1.fc42");
  EXPECT_EQ(header->FilePath(1), "/usr/share/hip");
}

TEST(RpmHeader, RefusesTruncatedOrPaddedBlobs) {
  std::string blob = Hip().Blob();
  EXPECT_NE(ErrorOf(RpmHeader::Parse(blob.substr(0, 7))).find("shorter than its two lengths"), std::string::npos);
  EXPECT_NE(ErrorOf(RpmHeader::Parse(blob.substr(0, blob.size() - 1))).find("make"), std::string::npos);
  EXPECT_FALSE(RpmHeader::Parse(blob + '\0'));
  EXPECT_FALSE(RpmHeader::Parse(RpmHeaderSeed("truncated")));
  EXPECT_FALSE(RpmHeader::Parse(""));
}

TEST(RpmHeader, RefusesHugeCounts) {
  // il and dl as large as 32 bits go: refused before anything is allocated for them.
  std::string huge = BigEndian(0xffffffff) + BigEndian(0xffffffff);
  EXPECT_NE(ErrorOf(RpmHeader::Parse(huge)).find("index entries"), std::string::npos);
  std::string data_huge = BigEndian(1) + BigEndian(0x10000000) + std::string(16, '\0');
  EXPECT_NE(ErrorOf(RpmHeader::Parse(data_huge)).find("bytes of data"), std::string::npos);
  // An entry counting more items than there are bytes.
  BlobBuilder b = Hip();
  b.entries[3].count = 0x7fffffff;
  EXPECT_NE(ErrorOf(RpmHeader::Parse(b.Blob())).find("counts"), std::string::npos);
  b = Hip();
  b.entries[0].count = 0;
  EXPECT_FALSE(RpmHeader::Parse(b.Blob()));
}

TEST(RpmHeader, RefusesOffsetsOutOfRangeOrMisaligned) {
  BlobBuilder b = Hip();
  b.entries[0].offset = static_cast<uint32_t>(b.data.size() + 1);
  EXPECT_NE(ErrorOf(RpmHeader::Parse(b.Blob())).find("past"), std::string::npos);
  b = Hip();
  b.entries.back().offset += 2;  // DIRINDEXES, INT32: 4-aligned
  EXPECT_NE(ErrorOf(RpmHeader::Parse(b.Blob())).find("not aligned"), std::string::npos);
  b = Hip();
  b.entries.back().type = 10;
  EXPECT_NE(ErrorOf(RpmHeader::Parse(b.Blob())).find("type 10"), std::string::npos);
  // DIRINDEXES counting more numbers than fit after its offset.
  b = Hip();
  b.entries.back().count = static_cast<uint32_t>(b.data.size() / 4);
  std::string blob = b.Blob();
  auto header = RpmHeader::Parse(blob);
  ASSERT_TRUE(header) << header.error().message;
  EXPECT_NE(header->FilePath(0).error().message.find("run past the data"), std::string::npos);
}

TEST(RpmHeader, IndexesOutOfRangeFailTheFile) {
  BlobBuilder b = Hip();
  b.data.replace(b.entries.back().offset, 4, BigEndian(2));  // DIRINDEXES[0] = 2 of 2 DIRNAMES
  std::string blob = b.Blob();
  auto header = RpmHeader::Parse(blob);
  ASSERT_TRUE(header);
  EXPECT_NE(header->FilePath(0).error().message.find("no string 2"), std::string::npos);
  EXPECT_TRUE(header->FilePath(1));
  EXPECT_NE(header->FilePath(0xffffffff).error().message.find("BASENAMES"), std::string::npos);
}

TEST(RpmHeader, StringsNeedTheirNul) {
  BlobBuilder b;
  b.String(RpmTag::kName, "rocm-hip").String(RpmTag::kVersion, "6.3.1").String(RpmTag::kRelease, "1.fc42");
  b.data.pop_back();  // RELEASE, the last string, loses its NUL
  std::string blob = b.Blob();
  auto header = RpmHeader::Parse(blob);
  ASSERT_TRUE(header) << header.error().message;
  auto package = header->Package();
  ASSERT_FALSE(package);
  EXPECT_NE(package.error().message.find("RELEASE (1002): string 0 has no NUL"), std::string::npos);
}

TEST(RpmHeader, NulAndControlBytesInNames) {
  // A NUL inside ends the string where rpm ends it too; a control byte is refused.
  BlobBuilder b;
  b.String(RpmTag::kName, std::string("rocm\0hip", 8)).String(RpmTag::kVersion, "6.3.1").String(RpmTag::kRelease, "1");
  std::string blob = b.Blob();
  auto header = RpmHeader::Parse(blob);
  ASSERT_TRUE(header);
  EXPECT_EQ(header->Package()->name, "rocm");
  BlobBuilder c;
  c.String(RpmTag::kName, "rocm-hip").String(RpmTag::kVersion, "6.3.1\n").String(RpmTag::kRelease, "1");
  std::string text = c.Blob();
  auto escaped = RpmHeader::Parse(text);
  ASSERT_TRUE(escaped);
  EXPECT_NE(escaped->Package().error().message.find("VERSION (1001) is empty or holds a control byte"),
            std::string::npos);
  BlobBuilder empty;
  empty.String(RpmTag::kName, "").String(RpmTag::kVersion, "6.3.1").String(RpmTag::kRelease, "1");
  std::string none = empty.Blob();
  EXPECT_FALSE(RpmHeader::Parse(none)->Package());
}

TEST(RpmHeader, WrongTypesMissingAndDuplicateTags) {
  BlobBuilder b;
  b.Int32s(RpmTag::kName, {7}).String(RpmTag::kVersion, "6.3.1").String(RpmTag::kRelease, "1");
  std::string blob = b.Blob();
  EXPECT_NE(RpmHeader::Parse(blob)->Package().error().message.find("NAME (1000) has type 4"), std::string::npos);
  BlobBuilder no_release;
  no_release.String(RpmTag::kName, "rocm-hip").String(RpmTag::kVersion, "6.3.1");
  std::string missing = no_release.Blob();
  EXPECT_NE(RpmHeader::Parse(missing)->Package().error().message.find("no RELEASE"), std::string::npos);
  BlobBuilder twice = Hip();
  twice.String(RpmTag::kName, "other");
  std::string dup = twice.Blob();
  EXPECT_NE(RpmHeader::Parse(dup)->Package().error().message.find("NAME (1000) twice"), std::string::npos);
  BlobBuilder epoch = Hip();
  epoch.Strings(RpmTag::kEpoch, {"1"});
  std::string bad_epoch = epoch.Blob();
  EXPECT_NE(RpmHeader::Parse(bad_epoch)->Package().error().message.find("EPOCH (1003) has type 8"), std::string::npos);
}

}  // namespace
}  // namespace rocmtune::runtime
