// ParseProfile: the format's rules, one bad file per rule, each with its own message.
#include "profiles/profile.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "profiles/profile_store.h"

namespace rocmtune::profiles {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kHead = "schema_version = 1\ndescription = \"d\"\n";

std::string WithItem(std::string_view item_body) { return std::string(kHead) + "[[items]]\n" + std::string(item_body); }

constexpr std::string_view kGoodItem =
    "id = \"a\"\naction = \"set\"\nkey = \"amdgpu.noretry\"\nvalue = \"1\"\n"
    "why = \"w\"\nsource = \"s\"\n";

TEST(ProfileTest, ParsesEveryField) {
  auto p = ParseProfile("demo", std::string(kHead) + R"(include = ["base", "more"]
[match]
gfx = ["gfx1030", "gfx90a"]
family = ["RDNA3.5"]
apu = true
all = true
[[items]]
id = "one"
action = "set"
key = "env.HSA_OVERRIDE_GFX_VERSION"
value = "10.3.0"
optional = true
match = { gfx = ["gfx1032"], all = true }
why = "because"
source = "here"
[[items]]
id = "two"
action = "unset"
key = "ttm.pages_limit"
why = "w2"
source = "s2"
[[items]]
id = "three"
action = "note"
why = "advice"
source = "s3"
)",
                        "test.toml");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->name, "demo");
  EXPECT_EQ(p->origin, "test.toml");
  EXPECT_EQ(p->description, "d");
  EXPECT_EQ(p->includes, (std::vector<std::string>{"base", "more"}));
  EXPECT_FALSE(p->reset);
  ASSERT_TRUE(p->match);
  EXPECT_EQ(p->match->gfx, (std::vector<std::string>{"gfx1030", "gfx90a"}));
  EXPECT_EQ(p->match->family, (std::vector<knowledge::Family>{knowledge::Family::kRdna3_5}));
  EXPECT_EQ(p->match->apu, true);
  EXPECT_TRUE(p->match->all);
  ASSERT_EQ(p->items.size(), 3u);
  const Item& one = p->items[0];
  EXPECT_EQ(one.id, "one");
  EXPECT_EQ(one.action, Action::kSet);
  ASSERT_TRUE(one.key);
  EXPECT_EQ(one.key->kind, knobs::KnobKind::kEnv);
  EXPECT_EQ(one.key->name, "HSA_OVERRIDE_GFX_VERSION");
  EXPECT_EQ(one.value, "10.3.0");
  EXPECT_TRUE(one.optional);
  ASSERT_TRUE(one.match);
  EXPECT_EQ(one.match->gfx, (std::vector<std::string>{"gfx1032"}));
  EXPECT_TRUE(one.match->all);
  EXPECT_EQ(one.why, "because");
  EXPECT_EQ(one.source, "here");
  EXPECT_EQ(one.from, "demo");
  EXPECT_EQ(p->items[1].action, Action::kUnset);
  EXPECT_EQ(p->items[1].key->Text(), "ttm.pages_limit");
  EXPECT_FALSE(p->items[1].value);
  EXPECT_FALSE(p->items[1].optional);
  EXPECT_EQ(p->items[2].action, Action::kNote);
  EXPECT_FALSE(p->items[2].key);
  EXPECT_FALSE(p->items[2].match);
}

TEST(ProfileTest, ResetProfileWithoutItems) {
  auto p = ParseProfile("stock", std::string(kHead) + "reset = true\n", "stock.toml");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->reset);
  EXPECT_TRUE(p->items.empty());
}

TEST(ProfileTest, PlaceholderValueIsKept) {
  auto p = ParseProfile("x",
                        WithItem("id = \"a\"\naction = \"set\"\nkey = \"ttm.pages_limit\"\n"
                                 "value = \"{gtt_pages}\"\nwhy = \"w\"\nsource = \"s\"\n"),
                        "x.toml");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->items[0].value, "{gtt_pages}");
}

struct BadCase {
  const char* name;
  std::string text;
  const char* expected;  // a substring only this rule's message has
};

std::vector<BadCase> BadCases() {
  std::string good(kGoodItem);
  return {
      {"no_schema", "description = \"d\"\n", "'schema_version' is missing"},
      {"schema_2", "schema_version = 2\ndescription = \"d\"\n", "unsupported 'schema_version'"},
      {"schema_string", "schema_version = \"1\"\ndescription = \"d\"\n", "unsupported 'schema_version'"},
      {"no_description", "schema_version = 1\n", "'description' is missing"},
      {"description_int", "schema_version = 1\ndescription = 3\n", "'description' must be a string, not an integer"},
      {"unknown_top_key", std::string(kHead) + "reboot = true\n", "unknown key 'reboot'"},
      {"include_string", std::string(kHead) + "include = \"base\"\n", "'include' must be an array of strings"},
      {"include_ints", std::string(kHead) + "include = [1]\n", "'include' must hold strings, not an integer"},
      {"include_bad_name", std::string(kHead) + "include = [\"../etc/x\"]\n",
       "include '../etc/x' is not a profile name"},
      {"include_self", std::string(kHead) + "include = [\"p\"]\n", "cannot include itself"},
      {"reset_string", std::string(kHead) + "reset = \"yes\"\n", "'reset' must be true or false, not a string"},
      {"match_not_table", std::string(kHead) + "match = \"gfx1030\"\n", "'match' must be a table"},
      {"match_empty", std::string(kHead) + "[match]\n", "'match' needs gfx, family or apu"},
      {"match_unknown_key", std::string(kHead) + "[match]\ngpu = [\"gfx1030\"]\n", "unknown key 'gpu'"},
      {"match_bad_gfx", std::string(kHead) + "[match]\ngfx = [\"navi10\"]\n", "'navi10' is not a gfx target"},
      {"match_bad_family", std::string(kHead) + "[match]\nfamily = [\"rdna1\"]\n", "'rdna1' is not a family"},
      {"match_apu_string", std::string(kHead) + "[match]\napu = \"yes\"\n", "'apu' must be true or false"},
      {"items_table", std::string(kHead) + "[items]\nid = \"a\"\n", "'items' must be an array of tables"},
      {"items_strings", std::string(kHead) + "items = [\"a\"]\n", "items[0] must be a table, not a string"},
      {"item_no_id", WithItem("action = \"note\"\nwhy = \"w\"\nsource = \"s\"\n"), "items[0]: 'id' is missing"},
      {"item_bad_id", WithItem("id = \"A B\"\naction = \"note\"\nwhy = \"w\"\nsource = \"s\"\n"), "id 'A B' must be"},
      {"item_unknown_key", WithItem(good + "kind = \"env\"\n"), "item 'a': unknown key 'kind'"},
      {"item_no_action", WithItem("id = \"a\"\nwhy = \"w\"\nsource = \"s\"\n"), "item 'a': 'action' is missing"},
      {"item_bad_action",
       WithItem("id = \"a\"\naction = \"remove\"\nkey = \"amdgpu.noretry\"\nwhy = \"w\"\nsource = \"s\"\n"),
       "unknown action 'remove'"},
      {"item_no_why", WithItem("id = \"a\"\naction = \"note\"\nsource = \"s\"\n"), "item 'a': 'why' is missing"},
      {"item_no_source", WithItem("id = \"a\"\naction = \"note\"\nwhy = \"w\"\n"), "item 'a': 'source' is missing"},
      {"item_empty_why", WithItem("id = \"a\"\naction = \"note\"\nwhy = \"\"\nsource = \"s\"\n"), "'why' is empty"},
      {"item_bad_key",
       WithItem("id = \"a\"\naction = \"unset\"\nkey = \"radeon.noretry\"\nwhy = \"w\"\nsource = \"s\"\n"),
       "unknown prefix 'radeon'"},
      {"item_set_no_key", WithItem("id = \"a\"\naction = \"set\"\nvalue = \"1\"\nwhy = \"w\"\nsource = \"s\"\n"),
       "'set' needs a key"},
      {"item_set_no_value",
       WithItem("id = \"a\"\naction = \"set\"\nkey = \"amdgpu.noretry\"\nwhy = \"w\"\nsource = \"s\"\n"),
       "'set' needs a value"},
      {"item_value_int",
       WithItem("id = \"a\"\naction = \"set\"\nkey = \"amdgpu.noretry\"\nvalue = 1\nwhy = \"w\"\nsource = \"s\"\n"),
       "'value' must be a string, not an integer"},
      {"item_unset_value",
       WithItem(
           "id = \"a\"\naction = \"unset\"\nkey = \"amdgpu.noretry\"\nvalue = \"1\"\nwhy = \"w\"\nsource = \"s\"\n"),
       "'unset' takes no value"},
      {"item_note_key",
       WithItem("id = \"a\"\naction = \"note\"\nkey = \"amdgpu.noretry\"\nwhy = \"w\"\nsource = \"s\"\n"),
       "a note takes no key or value"},
      {"item_note_optional", WithItem("id = \"a\"\naction = \"note\"\noptional = true\nwhy = \"w\"\nsource = \"s\"\n"),
       "a note cannot be optional"},
      {"item_optional_string", WithItem(good + "optional = \"yes\"\n"), "'optional' must be true or false"},
      {"item_bad_placeholder",
       WithItem("id = \"a\"\naction = \"set\"\nkey = \"ttm.pages_limit\"\nvalue = \"{gtt_page}\"\nwhy = \"w\"\nsource "
                "= \"s\"\n"),
       "'{gtt_page}' is not a known placeholder"},
      {"item_match_bad", WithItem(good + "match = { gfx = [] }\n"), "'match.gfx' is empty"},
      {"duplicate_id", WithItem(good) + "[[items]]\n" + good, "item id 'a' is used twice"},
      {"reset_with_set", std::string(kHead) + "reset = true\n[[items]]\n" + good, "a reset profile carries only notes"},
      {"reset_with_include", std::string(kHead) + "reset = true\ninclude = [\"base\"]\n",
       "a reset profile cannot include"},
      {"reset_with_match", std::string(kHead) + "reset = true\n[match]\napu = true\n",
       "a reset profile matches every machine"},
      {"syntax", std::string(kHead) + "[[items]\n", "test.toml"},
      {"nul_byte", std::string(kHead) + std::string("# \0\n", 4), "contains a NUL byte"},
      {"huge", std::string(kHead) + "# " + std::string(kMaxProfileBytes, 'x') + "\n", "larger than"},
  };
}

class BadProfileTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadProfileTest, IsRefusedWithItsOwnMessage) {
  const BadCase& c = GetParam();
  auto p = ParseProfile("p", c.text, "test.toml");
  ASSERT_FALSE(p) << c.name << " parsed";
  EXPECT_EQ(p.error().code, ErrorCode::kInvalidData);
  EXPECT_THAT(p.error().message, HasSubstr(c.expected)) << c.name;
  EXPECT_THAT(p.error().message, HasSubstr("test.toml")) << c.name << ": the message must name the file";
}

INSTANTIATE_TEST_SUITE_P(Rules, BadProfileTest, ::testing::ValuesIn(BadCases()),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(ProfileTest, BadProfileNameIsRefused) {
  auto p = ParseProfile("Bad Name", kHead, "Bad Name.toml");
  ASSERT_FALSE(p);
  EXPECT_THAT(p.error().message, HasSubstr("is not a profile name"));
}

// Bytes no editor would write must give an error, never a crash or an exception.
TEST(ProfileTest, HostileBytesAreErrors) {
  const std::vector<std::string> hostile = {
      "schema_version = 1\ndescription = \"\xff\xfe\"\n",  // invalid UTF-8 in a string
      std::string(kHead) +
          "[[items]]\nid = \"a\"\naction = \"note\"\nwhy = \"\xc3\"\nsource = \"s\"\n",  // truncated UTF-8
      std::string("\xef\xbb\xbf\xc3\x28 = 1\n"),                                         // BOM + invalid UTF-8 key
      std::string(kHead) + "x = " + std::string(5000, '[') + "\n",                       // nesting far past any limit
      std::string(kHead) + "[[items]]\n" + std::string(kGoodItem) + "[items.x]\n",
      std::string(kHead) + "items = 1979-05-27T07:32:00Z\n",
      std::string(kHead) + "[match]\ngfx = [[\"gfx1030\"]]\n",
      std::string("\x00\x01\x02", 3),
      "",
  };
  for (const std::string& text : hostile) {
    auto p = ParseProfile("p", text, "hostile.toml");
    ASSERT_FALSE(p) << "accepted: " << text.substr(0, 60);
    EXPECT_EQ(p.error().code, ErrorCode::kInvalidData);
    EXPECT_THAT(p.error().message, HasSubstr("hostile.toml"));
  }
}

TEST(ProfileTest, ValidProfileNames) {
  for (auto ok : {"stock", "rdna1-safe", "my_profile.v2", "a"}) EXPECT_TRUE(ValidProfileName(ok)) << ok;
  const std::vector<std::string> bad = {"", ".hidden", "-x", "Upper", "a/b", "a b", "..", std::string(65, 'a')};
  for (const std::string& name : bad) EXPECT_FALSE(ValidProfileName(name)) << name;
}

}  // namespace
}  // namespace rocmtune::profiles

namespace rocmtune::profiles {
namespace {

// The one strict reader (util/toml_reader.h) refuses a misspelt key in a shipped profile as in an
// admin's, naming the file and the item, the keys it knows and the nearest one.
TEST(ProfileTest, AMisspeltKeyInAShippedProfileNamesFileItemAndTheNearestKey) {
  for (const BuiltinProfile& b : BuiltinProfiles()) {
    const std::string text(b.text);
    const size_t item = text.find("\n[[items]]\nid = \"");
    if (item == std::string::npos) continue;
    const size_t id_start = item + 17;
    const std::string id = text.substr(id_start, text.find('"', id_start) - id_start);
    std::string broken = text;
    broken.replace(broken.find("\nwhy = ", item) + 1, 3, "wyh");
    auto p = ParseProfile(b.name, broken, "/etc/rocmtune/profiles/x.toml");
    ASSERT_FALSE(p) << b.name;
    EXPECT_THAT(p.error().message,
                HasSubstr("/etc/rocmtune/profiles/x.toml: item '" + id + "': unknown key 'wyh' (known: id, action"))
        << b.name;
    EXPECT_THAT(p.error().message, HasSubstr("Did you mean why?")) << b.name;
  }
}

}  // namespace
}  // namespace rocmtune::profiles
