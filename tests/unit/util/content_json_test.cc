// File contents inside JSON: UTF-8 validity, base64, and byte-exact round trips.
#include "util/content_json.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace rocmtune {
namespace {

using json = nlohmann::ordered_json;

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out.push_back(static_cast<char>(b));
  return out;
}

struct Utf8Case {
  std::string name;
  std::string bytes;
  bool valid;
};

TEST(ContentJsonTest, Utf8ValidityTable) {
  const std::vector<Utf8Case> cases = {
      {"empty", "", true},
      {"ascii", "options amdgpu noretry=0\n", true},
      {"nul", std::string("a\0b", 3), true},
      {"two-byte e-acute", Bytes({0xc3, 0xa9}), true},
      {"smallest two-byte U+0080", Bytes({0xc2, 0x80}), true},
      {"three-byte euro", Bytes({0xe2, 0x82, 0xac}), true},
      {"smallest three-byte U+0800", Bytes({0xe0, 0xa0, 0x80}), true},
      {"last before surrogates U+D7FF", Bytes({0xed, 0x9f, 0xbf}), true},
      {"first after surrogates U+E000", Bytes({0xee, 0x80, 0x80}), true},
      {"four-byte emoji", Bytes({0xf0, 0x9f, 0x98, 0x80}), true},
      {"largest U+10FFFF", Bytes({0xf4, 0x8f, 0xbf, 0xbf}), true},
      {"overlong slash (2 bytes)", Bytes({0xc0, 0xaf}), false},
      {"overlong NUL (2 bytes)", Bytes({0xc0, 0x80}), false},
      {"overlong U+007F (2 bytes)", Bytes({0xc1, 0xbf}), false},
      {"overlong slash (3 bytes)", Bytes({0xe0, 0x80, 0xaf}), false},
      {"overlong U+07FF (3 bytes)", Bytes({0xe0, 0x9f, 0xbf}), false},
      {"overlong slash (4 bytes)", Bytes({0xf0, 0x80, 0x80, 0xaf}), false},
      {"overlong U+FFFF (4 bytes)", Bytes({0xf0, 0x8f, 0xbf, 0xbf}), false},
      {"high surrogate U+D800", Bytes({0xed, 0xa0, 0x80}), false},
      {"low surrogate U+DFFF", Bytes({0xed, 0xbf, 0xbf}), false},
      {"surrogate pair CESU-8", Bytes({0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80}), false},
      {"past U+10FFFF", Bytes({0xf4, 0x90, 0x80, 0x80}), false},
      {"five-byte lead", Bytes({0xf8, 0x88, 0x80, 0x80, 0x80}), false},
      {"0xff", Bytes({0xff}), false},
      {"0xfe", Bytes({0xfe}), false},
      {"lone continuation", Bytes({0x80}), false},
      {"continuation after ascii", "a" + Bytes({0xbf}), false},
      {"truncated two-byte at end", "ab" + Bytes({0xc3}), false},
      {"truncated three-byte at end", Bytes({0xe2, 0x82}), false},
      {"truncated four-byte at end", Bytes({0xf0, 0x9f, 0x98}), false},
      {"truncated two-byte before ascii", Bytes({0xc3}) + "a", false},
      {"truncated three-byte before ascii", Bytes({0xe2, 0x82}) + "a", false},
      {"lead byte then another lead", Bytes({0xc3, 0xc3, 0xa9}), false},
      {"latin-1 config comment", "# caf" + Bytes({0xe9}) + "\n", false},
  };
  for (const Utf8Case& c : cases) EXPECT_EQ(IsValidUtf8(c.bytes), c.valid) << c.name;
}

TEST(ContentJsonTest, Base64KnownVectors) {
  // RFC 4648 section 10.
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foob"), "Zm9vYg==");
  EXPECT_EQ(Base64Encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode(Bytes({0xfb, 0xff})), "+/8=");
  EXPECT_EQ(Base64Decode("Zm9vYmE="), "fooba");
  EXPECT_EQ(Base64Decode("+/8="), Bytes({0xfb, 0xff}));
}

TEST(ContentJsonTest, Base64RoundTripsEveryByteValue) {
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  std::string encoded = Base64Encode(all);
  EXPECT_EQ(encoded.size(), (all.size() + 2) / 3 * 4);
  auto decoded = Base64Decode(encoded);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(*decoded, all);
  // Each byte value alone, too (one byte: two padding characters).
  for (int b = 0; b < 256; ++b) {
    std::string one(1, static_cast<char>(b));
    EXPECT_EQ(Base64Decode(Base64Encode(one)), one) << "byte " << b;
  }
}

TEST(ContentJsonTest, Base64RoundTripsLengthsZeroToTen) {
  for (size_t len = 0; len <= 10; ++len) {
    std::string bytes;
    for (size_t i = 0; i < len; ++i) bytes.push_back(static_cast<char>(0xf7 - 37 * i));
    std::string encoded = Base64Encode(bytes);
    EXPECT_EQ(encoded.size() % 4, 0u) << len;
    EXPECT_EQ(encoded.size(), (len + 2) / 3 * 4) << len;
    size_t padding = len % 3 == 0 ? 0 : 3 - len % 3;
    EXPECT_EQ(encoded.size() - encoded.find_last_not_of('=') - 1, padding) << len;
    EXPECT_EQ(Base64Decode(encoded), bytes) << len;
  }
}

TEST(ContentJsonTest, Base64RefusesMalformedText) {
  for (const char* bad : {"Z", "Zg", "Zg=", "Zm9vY", "Zg=a", "Z===", "====", "=Zg=", "Zm9v====", "Zg==Zg==", "Zm9!",
                          "Zm 9", "Zm9\n", "Zm9-", "Zm9_"})
    EXPECT_FALSE(Base64Decode(bad)) << bad;
}

TEST(ContentJsonTest, AbsentFileIsNull) {
  EXPECT_TRUE(ContentToJson(std::nullopt).is_null());
  auto back = ContentFromJson(json(nullptr), "test");
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->has_value());
}

TEST(ContentJsonTest, Utf8TravelsAsAStringAndOtherBytesAsBase64) {
  json text = ContentToJson(std::string("options amdgpu noretry=0\n"));
  ASSERT_TRUE(text.is_string());
  EXPECT_EQ(text.get<std::string>(), "options amdgpu noretry=0\n");
  json empty = ContentToJson(std::string());
  ASSERT_TRUE(empty.is_string());
  EXPECT_EQ(empty.get<std::string>(), "");
  json binary = ContentToJson(Bytes({'a', 0xff, 'b'}));
  ASSERT_TRUE(binary.is_object());
  EXPECT_EQ(binary.size(), 1u);
  EXPECT_EQ(binary.value("base64", ""), Base64Encode(Bytes({'a', 0xff, 'b'})));
}

TEST(ContentJsonTest, RoundTripsAreByteExactThroughSerializedText) {
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  const std::vector<std::string> contents = {
      "",
      "plain\n",
      std::string("NUL\0inside\0", 11),
      std::string(4096, '\0'),
      Bytes({0xc3, 0xa9}) + "t" + Bytes({0xc3, 0xa9}) + "\n",
      Bytes({0xf0, 0x9f, 0x98, 0x80}),
      Bytes({0xc0, 0xaf}),             // overlong
      Bytes({0xed, 0xa0, 0x80}),       // surrogate
      "# caf" + Bytes({0xe9}) + "\n",  // Latin-1
      "x" + Bytes({0xe2, 0x82}),       // truncated at the end
      all,
      "\"quotes\" \\backslash\\ \t\r\n\x01\x1f\x7f",
  };
  for (const std::string& c : contents) {
    // Through text, as a journal line or a plan on stdin travels.
    std::string text = ContentToJson(c).dump();
    json parsed = json::parse(text, nullptr, false);
    ASSERT_FALSE(parsed.is_discarded()) << text;
    auto back = ContentFromJson(parsed, "test");
    ASSERT_TRUE(back) << back.error().message;
    ASSERT_TRUE(back->has_value());
    EXPECT_EQ(**back, c) << text;
  }
}

TEST(ContentJsonTest, BadInputsAreRefusedNamingWhat) {
  const std::vector<json> bad = {
      json(42),
      json(true),
      json(1.5),
      json::array({"a"}),
      json::object(),
      json({{"base64", 1}}),
      json({{"base64", nullptr}}),
      json({{"base64", "Zg="}}),
      json({{"base64", "!!!!"}}),
      json({{"base64", "Zg=="}, {"extra", "x"}}),
      json({{"text", "Zg=="}}),
  };
  for (const json& j : bad) {
    auto r = ContentFromJson(j, "op 3 before");
    ASSERT_FALSE(r) << j.dump();
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidData) << j.dump();
    EXPECT_NE(r.error().message.find("op 3 before"), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace rocmtune
