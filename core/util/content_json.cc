#include "util/content_json.h"

#include <array>
#include <cstdint>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rocmtune {
namespace {

constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int Sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

bool IsValidUtf8(std::string_view s) {
  static constexpr std::array<uint32_t, 4> kMin = {0, 0x80, 0x800, 0x10000};
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n;  // continuation bytes
    if (c < 0x80) n = 0;
    else if ((c >> 5) == 0x6) n = 1;
    else if ((c >> 4) == 0xe) n = 2;
    else if ((c >> 3) == 0x1e) n = 3;
    else return false;
    if (i + n >= s.size() && n > 0) return false;
    uint32_t cp = n == 0 ? c : n == 1 ? (c & 0x1fu) : n == 2 ? (c & 0x0fu) : (c & 0x07u);
    for (size_t k = 1; k <= n; ++k) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 0x2) return false;
      cp = (cp << 6) | (cc & 0x3fu);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += n + 1;
  }
  return true;
}

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 2]);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back(i + 2 < bytes.size() ? kAlphabet[v & 63] : '=');
  }
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    int pad = 0;
    uint32_t v = 0;
    for (size_t k = 0; k < 4; ++k) {
      char c = text[i + k];
      int s = Sextet(c);
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        ++pad;
        s = 0;
      } else if (s < 0 || pad > 0) {
        return std::nullopt;
      }
      v = (v << 6) | static_cast<uint32_t>(s);
    }
    out.push_back(static_cast<char>((v >> 16) & 0xff));
    if (pad < 2) out.push_back(static_cast<char>((v >> 8) & 0xff));
    if (pad < 1) out.push_back(static_cast<char>(v & 0xff));
  }
  return out;
}

nlohmann::ordered_json ContentToJson(const std::optional<std::string>& content) {
  if (!content) return nullptr;
  if (IsValidUtf8(*content)) return *content;
  return {{"base64", Base64Encode(*content)}};
}

Result<std::optional<std::string>> ContentFromJson(const nlohmann::ordered_json& j, std::string_view what) {
  if (j.is_null()) return std::optional<std::string>();
  if (j.is_string()) return std::optional<std::string>(j.get<std::string>());
  auto base64 = j.is_object() && j.size() == 1 ? j.find("base64") : j.end();
  if (base64 != j.end() && base64->is_string()) {
    auto bytes = Base64Decode(base64->get_ref<const std::string&>());
    if (bytes) return std::optional<std::string>(std::move(*bytes));
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: invalid base64", what));
  }
  return Fail(ErrorCode::kInvalidData, fmt::format("{}: expected a string, {{\"base64\": ...}} or null", what));
}

}  // namespace rocmtune
