#include "util/json_text.h"

#include <vector>

#include <nlohmann/json.hpp>

namespace rocmtune {

std::string JsonText(const nlohmann::ordered_json& doc, int indent) {
  return doc.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

bool IsWholeJsonText(std::string_view text) {
  std::vector<char> open;  // the brackets open at this point
  bool done = false;       // a whole value was read: nothing but whitespace may follow
  bool started = false;    // a value began
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
    if (done) return false;  // text after the value
    if (c == '"') {          // a string, escapes and all
      size_t end = i + 1;
      while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
      if (end >= text.size()) return false;  // not closed
      i = end;
      started = true;
      done = open.empty();
      continue;
    }
    switch (c) {
      case '{':
      case '[':
        if (open.empty() && started) return false;  // after a number or literal
        open.push_back(c == '{' ? '}' : ']');
        started = true;
        break;
      case '}':
      case ']':
        if (open.empty() || open.back() != c) return false;
        open.pop_back();
        done = open.empty();
        break;
      case ',':
        if (open.empty()) return false;
        break;
      case ':':
        if (open.empty() || open.back() != '}') return false;
        break;
      default:  // a number or a literal
        started = true;
    }
  }
  return started && open.empty();
}

nlohmann::ordered_json StringOrNull(const std::string& s) {
  return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s);
}

}  // namespace rocmtune
