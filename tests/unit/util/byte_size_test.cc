// The one size formatter: what `status`, `explain` and `set` print next to a page count.
#include "util/byte_size.h"

#include <limits>

#include <gtest/gtest.h>

namespace rocmtune::util {
namespace {

TEST(ByteSizeTest, FormatsBinaryUnits) {
  EXPECT_EQ(FormatBytes(0), "0 bytes");
  EXPECT_EQ(FormatBytes(1023), "1023 bytes");
  EXPECT_EQ(FormatBytes(4096), "4 KiB");                   // one page
  EXPECT_EQ(FormatBytes(3047936ULL * 4096), "11.6 GiB");   // the pages_limit
  EXPECT_EQ(FormatBytes(16ULL << 30), "16 GiB");           // whole: no fraction
  EXPECT_EQ(FormatBytes((1ULL << 30) - 1), "1023.9 MiB");  // rounded down, never up to 1 GiB
  EXPECT_EQ(FormatBytes(1536ULL << 20), "1.5 GiB");
  EXPECT_EQ(FormatBytes(99999999999999ULL * 4096), "363.7 PiB");  // the huge pages_limit
  EXPECT_EQ(FormatBytes(std::numeric_limits<uint64_t>::max()), "15.9 EiB");
}

TEST(ByteSizeTest, MultiplyDetectsOverflow) {
  EXPECT_EQ(MultiplyBytes(3047936, 4096), 3047936ULL * 4096);
  EXPECT_EQ(MultiplyBytes(0, 4096), 0u);
  EXPECT_EQ(MultiplyBytes(std::numeric_limits<uint64_t>::max() / 4096, 4096),
            std::numeric_limits<uint64_t>::max() / 4096 * 4096);
  EXPECT_FALSE(MultiplyBytes(std::numeric_limits<uint64_t>::max() / 4096 + 1, 4096));
  EXPECT_FALSE(MultiplyBytes(std::numeric_limits<uint64_t>::max(), 4096));
}

}  // namespace
}  // namespace rocmtune::util
