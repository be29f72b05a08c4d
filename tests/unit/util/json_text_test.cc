// IsWholeJsonText (util/json_text.h): rocmtunectl prints rocmtuned's documents as they came once
// the text is one JSON value as far as its structure shows. Every document JsonText writes must
// pass, and text that is cut, crossed or followed by more must not (the parser then says why).
#include "util/json_text.h"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/status.h"
#include "detect/inventory.h"
#include "sys/root.h"
#include "world_names.h"

namespace rocmtune {
namespace {

using Doc = nlohmann::ordered_json;

TEST(IsWholeJsonText, EveryWorldsStatusIsWhole) {
  for (const std::string& world : testing::WorldNames()) {
    auto root = sys::Root::Open(testing::WorldPath(world));
    ASSERT_TRUE(root) << world;
    api::StatusOptions options;
    options.live_facts = false;
    options.caller = false;
    auto doc = api::DescribeSystem(*root, detect::Detect(*root, {.use_libdrm = false}), options);
    ASSERT_TRUE(doc) << world << ": " << doc.error().message;
    const std::string text = JsonText(*doc);
    EXPECT_TRUE(IsWholeJsonText(text)) << world;
    EXPECT_TRUE(IsWholeJsonText(JsonText(*doc, -1))) << world;
    // Cut anywhere inside the outermost object, it is not whole.
    for (size_t cut : {text.size() / 3, text.size() / 2, text.size() - 2})
      EXPECT_FALSE(IsWholeJsonText(text.substr(0, cut))) << world << " cut at " << cut;
  }
}

// What a string may hold that looks like structure, escapes, empty and nested containers,
// numbers and literals, and bytes JsonText replaced.
TEST(IsWholeJsonText, StringsEscapesAndEmptyContainers) {
  Doc doc = Doc::parse(R"({"a{[":"x,y:z]}","q":"say \"hi\" \\","u":"\u0001\t\n","e":{},"l":[],
    "n":[[],{},[[]],{"k":[1,-2.5e-3,true,false,null]}],"s":"","b":"back\\","o":{"p":{"r":[{}]}}})");
  doc["bytes"] = std::string("Radeon\xff\xfe Pro\0x", 14);
  for (int indent : {-1, 0, 2}) EXPECT_TRUE(IsWholeJsonText(JsonText(doc, indent))) << indent;
  for (const Doc& one : {Doc::array(), Doc::object(), Doc(42), Doc("a string"), Doc(nullptr)})
    EXPECT_TRUE(IsWholeJsonText(JsonText(one))) << JsonText(one);
}

TEST(IsWholeJsonText, TextThatIsNotOneValueIsRefused) {
  for (std::string_view bad : {
           "",                   // nothing
           "  \n",               // only whitespace
           R"({"a":1)",          // not closed
           R"({"a":1}})",        // one bracket too many
           R"({"a":[1}])",       // crossed
           R"({"a":"open})",     // a string not closed
           R"({"a":"x\"})",      // its quote escaped
           R"({"a":1}{"b":2})",  // two values
           R"({"a":1} x)",       // text after the value
           R"([1:2])",           // a colon in an array
           R"(1,2)",             // a comma outside
           R"(1{})",             // a number, then an object
           R"("a""b")",          // two strings
       })
    EXPECT_FALSE(IsWholeJsonText(bad)) << bad;
}

}  // namespace
}  // namespace rocmtune
