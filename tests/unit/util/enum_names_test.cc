#include "util/enum_names.h"

#include <gtest/gtest.h>

namespace rocmtune {
namespace {

enum class Colour { kRed, kGreen, kBlue };

constexpr EnumNames<Colour, 2> kColours = {{{Colour::kRed, "red"}, {Colour::kGreen, "green"}}};

// The lookups work at compile time, so tables can be checked there.
static_assert(NameOf(kColours, Colour::kGreen, "?") == "green");
static_assert(ParseName(kColours, "red") == Colour::kRed);
static_assert(Distinct(kColours));
static_assert(!Distinct(EnumNames<Colour, 2>{{{Colour::kRed, "red"}, {Colour::kRed, "rot"}}}));
static_assert(!Distinct(EnumNames<Colour, 2>{{{Colour::kRed, "red"}, {Colour::kBlue, "red"}}}));

TEST(EnumNamesTest, EveryNameParsesBackToItsValue) {
  for (const EnumName<Colour>& entry : kColours) {
    EXPECT_EQ(ParseName(kColours, NameOf(kColours, entry.value, "?")), entry.value) << entry.name;
  }
}

TEST(EnumNamesTest, AValueOutsideTheTableGetsTheFallback) {
  EXPECT_EQ(NameOf(kColours, Colour::kBlue, "unknown"), "unknown");
  EXPECT_EQ(NameOf(kColours, static_cast<Colour>(7), "?"), "?");
}

TEST(EnumNamesTest, ParsingIsExactAndCaseSensitive) {
  EXPECT_EQ(ParseName(kColours, "green"), Colour::kGreen);
  for (std::string_view bad : {"Green", "GREEN", "gree", "green ", "", "blue"})
    EXPECT_EQ(ParseName(kColours, bad), std::nullopt) << bad;
}

}  // namespace
}  // namespace rocmtune
