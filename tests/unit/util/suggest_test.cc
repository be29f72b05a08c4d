#include "util/suggest.h"

#include <gtest/gtest.h>

namespace rocmtune::text {
namespace {

TEST(SuggestTest, NearestNamesFirstWithinTwoEdits) {
  const std::vector<std::string> names = {"status", "doctor", "stock", "strix-halo"};
  EXPECT_EQ(Nearest("stauts", names), std::vector<std::string>{"status"});  // a swap and more
  EXPECT_EQ(Nearest("STATUS", names), std::vector<std::string>{"status"});  // case-insensitive
  EXPECT_TRUE(Nearest("zzzzzz", names).empty());
  EXPECT_TRUE(Nearest("", names).empty());
  EXPECT_TRUE(Nearest(std::string(100, 's'), names).empty());  // no table for absurd input
}

TEST(SuggestTest, DidYouMeanSentence) {
  EXPECT_EQ(DidYouMean("rdna1-saf", {"rdna1-safe", "stock"}), " Did you mean rdna1-safe?");
  EXPECT_EQ(DidYouMean("stok", {"stock", "stack", "zzz"}), " Did you mean stock or stack?");
  EXPECT_EQ(DidYouMean("qqqq", {"stock"}), "");
}

TEST(SuggestTest, EditDistanceCountsASwapOnce) {
  EXPECT_EQ(EditDistance("noretry", "noretyr"), 1u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("abc", "abc"), 0u);
}

}  // namespace
}  // namespace rocmtune::text
