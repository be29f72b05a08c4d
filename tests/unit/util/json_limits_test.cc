// The depth pre-scan every reader of untrusted JSON runs before nlohmann parses.
#include "util/json_limits.h"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace rocmtune {
namespace {

std::string Deep(size_t depth, std::string_view open = "[", std::string_view close = "]") {
  std::string out;
  for (size_t i = 0; i < depth; ++i) out += open;
  for (size_t i = 0; i < depth; ++i) out += close;
  return out;
}

TEST(JsonLimitsTest, DepthCountsBracketsOutsideStrings) {
  EXPECT_EQ(JsonDepth("1"), 0u);
  EXPECT_EQ(JsonDepth("{}"), 1u);
  EXPECT_EQ(JsonDepth(R"({"a": [1, {"b": []}], "c": {}})"), 4u);
  EXPECT_EQ(JsonDepth(R"(["[[[[", "{{{{"])"), 1u);
  EXPECT_EQ(JsonDepth(R"(["\"[[[[", "x\\"])"), 1u);  // an escaped quote does not end the string
  EXPECT_EQ(JsonDepth(R"(["x\\", [[ ]] ])"), 3u);    // an escaped backslash does
  EXPECT_EQ(JsonDepth("]]]]{"), 1u);                 // stray closers do not go below zero
  EXPECT_EQ(JsonDepth(Deep(5, "{\"a\":", "}")), 5u);
}

TEST(JsonLimitsTest, ScanStopsPastTheLimit) {
  EXPECT_EQ(JsonDepth(Deep(1000), 10), 11u);
  EXPECT_EQ(JsonDepth(Deep(1000), 2000), 1000u);
}

TEST(JsonLimitsTest, ParseRefusesTooDeepAndTakesTheLimit) {
  EXPECT_TRUE(ParseBoundedJson(Deep(kMaxJsonDepth), "doc"));
  for (size_t depth : {kMaxJsonDepth + 1, size_t{5000}, size_t{100000}}) {
    auto doc = ParseBoundedJson(Deep(depth), "doc");
    ASSERT_FALSE(doc) << depth;
    EXPECT_EQ(doc.error().code, ErrorCode::kInvalidData);
    EXPECT_EQ(doc.error().message, "doc: nests deeper than 32 levels");
  }
  auto unclosed = ParseBoundedJson(std::string(100000, '{'), "doc");
  ASSERT_FALSE(unclosed);
  EXPECT_EQ(unclosed.error().message, "doc: nests deeper than 32 levels");
}

TEST(JsonLimitsTest, ParseRefusesWhatIsNotJson) {
  for (std::string_view text : {"", "{", "[1,]", "\"\xff\"", "{} {}"}) {
    auto doc = ParseBoundedJson(text, "doc");
    ASSERT_FALSE(doc) << text;
    EXPECT_EQ(doc.error().message, "doc: not valid JSON");
  }
  auto ok = ParseBoundedJson(R"({"a": [1, "two"]})", "doc");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ((*ok)["a"][1], "two");
}

}  // namespace
}  // namespace rocmtune
