// The check before toml++ parses: no non-ASCII outside strings and comments or right after a
// line-ending backslash, valid UTF-8. toml++ 3.3.0 reaches __builtin_unreachable() on such
// input (github.com/marzer/tomlplusplus/issues/190 and /295); CF BB is the reproducer kept here.
#include "util/toml_guard.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <toml++/toml.h>

#include "profiles/profile.h"
#include "util/toml_reader.h"

namespace rocmtune {
namespace {

using ::testing::HasSubstr;

TEST(TomlGuardTest, TheUpstreamReproducersAreRefusedBeforeTomlPlusPlus) {
  for (std::string_view text : {"\xcf\xbb", "\xcc\xaa", "a = 1\n\xcf\xbb = 2\n", "\xcf\xbb\xcf\xbb"}) {
    auto ok = CheckTomlBytes(text, "x.toml");
    ASSERT_FALSE(ok) << text;
    EXPECT_EQ(ok.error().code, ErrorCode::kInvalidData);
    EXPECT_THAT(ok.error().message, HasSubstr("non-ASCII character outside a string or comment"));
  }
  auto line = CheckTomlBytes("a = 1\n\n\xcf\xbb = 2\n", "x.toml");
  ASSERT_FALSE(line);
  EXPECT_EQ(line.error().message, "x.toml: line 3: a non-ASCII character outside a string or comment");
}

// tomlplusplus#190: a line-ending backslash in a """ string, then a non-ASCII character first on a
// later line (toml++ skips the whitespace between and classifies that character).
TEST(TomlGuardTest, NonAsciiRightAfterALineEndingBackslashIsRefused) {
  for (std::string_view text : {"s = \"\"\"\\\n\xc2\xa7\"\"\"\n", "s = \"\"\"\\  \t\r\n\n   \xc2\xa7\"\"\"",
                                "a = 1\ns = \"\"\"x\\\n\t\xcf\xbb\"\"\""}) {
    auto ok = CheckTomlBytes(text, "x.toml");
    ASSERT_FALSE(ok) << text;
    EXPECT_THAT(ok.error().message, HasSubstr("a non-ASCII character right after a line-ending backslash"));
  }
  auto line = CheckTomlBytes("s = \"\"\"\\\n\n\xc2\xa7\"\"\"", "x.toml");
  ASSERT_FALSE(line);
  EXPECT_THAT(line.error().message, HasSubstr("x.toml: line 3:"));
  // Not first after the backslash, or an escaped backslash before the newline: fine.
  for (std::string_view text : {"s = \"\"\"\\\n  a\xc2\xa7\"\"\"", "s = \"\"\"x\\\\\n\xc2\xa7\"\"\""}) {
    EXPECT_TRUE(CheckTomlBytes(text, "x.toml")) << text;
    EXPECT_NO_THROW((void)toml::parse(text)) << text;
  }
}

TEST(TomlGuardTest, NonAsciiOutsideStringsIsRefusedWhereverItStands) {
  for (std::string_view text : {
           "\xc3\xa9t\xc3\xa9 = 1",         // a bare key
           "[t\xc3\xa9]\n",                 // a table header
           "a = \xcf\xbb",                  // a value
           "a = [1, \xcf\xbb]",             // inside an array
           "a = { b = \xcf\xbb }",          // inside an inline table
           "a = \"x\" \xcf\xbb",            // after a string closes
           "a = \"x\\\\\" \xcf\xbb",        // after an escaped backslash closes it
           "a = 'x\\' \xcf\xbb",            // a literal string has no escapes
           "a = \"\"\"x\"\"\"\" \xcf\xbb",  // """x"""" closes after four quotes
           "a = '''x''''' \xcf\xbb",        // '''x''''' after five
           "a = \"x\n\xcf\xbb = 1",         // a one-line string ends at the newline
           "a = \"x\\\n\xcf\xbb = 1",       // even after a backslash
           "# c\n\xcf\xbb",                 // a comment ends at the newline
       }) {
    auto ok = CheckTomlBytes(text, "x.toml");
    EXPECT_FALSE(ok) << text;
  }
}

TEST(TomlGuardTest, InvalidUtf8IsRefusedEvenInStrings) {
  for (std::string_view text : {"a = \"\xff\"", "a = \"\xcf\"", "# \xc0\xaf", "a = '\xed\xa0\x80'", "\xcf"}) {
    auto ok = CheckTomlBytes(text, "x.toml");
    ASSERT_FALSE(ok) << text;
    EXPECT_EQ(ok.error().message, "x.toml: not valid UTF-8");
  }
}

TEST(TomlGuardTest, ValidTomlWithUtf8InStringsAndCommentsStillParses) {
  for (std::string_view text : {
           "a = \"\xcf\xbb\"",
           "a = '\xcf\xbb'",
           "a = \"\\\"\xcf\xbb\"",
           "a = \"\"\"\n\xcf\xbb \"quoted\" \\\"\"\" \xcf\xbb\n\"\"\"",
           "a = '''\n\xcf\xbb ' '' \xcf\xbb\n'''",
           "a = \"\"\"x\"\"\"\"\nb = \"\xc3\xa9\"",
           "# \xcf\xbb comment\na = 1 # \xc3\xa9\n",
           "\"\xcf\xbb\" = 1\n['\xc3\xa9']\nb = [\"\xc3\xa9\", { c = '\xcf\xbb' }]",
           "a = \"#\" \nb = '\"'\nc = \"'\" # \xc3\xa9",
       }) {
    auto ok = CheckTomlBytes(text, "x.toml");
    EXPECT_TRUE(ok) << text << ": " << ok.error().message;
    // And it is TOML: the guard refuses nothing toml++ would read correctly.
    EXPECT_NO_THROW((void)toml::parse(text)) << text;
  }
}

// The one parse entry every loader uses, and a profile through it.
TEST(TomlGuardTest, EveryTomlParseGoesThroughTheGuard) {
  auto doc = ParseTomlDocument("\xcf\xbb", "data.toml");
  ASSERT_FALSE(doc);
  EXPECT_THAT(doc.error().message, HasSubstr("data.toml: line 1: a non-ASCII character outside"));
  auto profile = profiles::ParseProfile("p", "schema_version = 1\ndescription = \"x\"\n\xcf\xbb = 1\n", "p.toml");
  ASSERT_FALSE(profile);
  EXPECT_THAT(profile.error().message, HasSubstr("p.toml: line 3: a non-ASCII character outside"));
  auto fine = profiles::ParseProfile("p", "schema_version = 1 # \xc3\xa9\ndescription = \"caf\xc3\xa9\"\n", "p.toml");
  ASSERT_TRUE(fine) << fine.error().message;
  EXPECT_EQ(fine->description, "caf\xc3\xa9");
}

}  // namespace
}  // namespace rocmtune
