#include "boot/cmdline_tokens.h"

#include <algorithm>

#include <fmt/format.h>

namespace rocmtune::boot {
namespace {

constexpr size_t kMaxKeyBytes = 256;
constexpr size_t kMaxValueBytes = 256;

// isspace() in the C locale, which is what lib/cmdline.c uses.
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

using Span = TokenSpan;

// Token boundaries as next_arg() finds them: a double quote toggles "inside quotes", and only
// whitespace outside quotes separates tokens.
std::vector<Span> TokenSpans(std::string_view s) {
  std::vector<Span> spans;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsSpace(s[i])) ++i;
    if (i >= s.size()) break;
    size_t begin = i;
    bool quoted = false;
    while (i < s.size() && (quoted || !IsSpace(s[i]))) {
      if (s[i] == '"') quoted = !quoted;
      ++i;
    }
    spans.push_back({begin, i});
  }
  return spans;
}

// Spans before a bare "--" (parse_args() stops there; the rest is init's), and where "--" is.
std::vector<Span> KernelSpans(std::string_view s, std::optional<Span>* dashdash = nullptr) {
  std::vector<Span> spans = TokenSpans(s);
  for (size_t i = 0; i < spans.size(); ++i) {
    if (s.substr(spans[i].begin, spans[i].end - spans[i].begin) == "--") {
      if (dashdash) *dashdash = spans[i];
      spans.resize(i);
      break;
    }
  }
  return spans;
}

size_t KernelTokenCount(std::span<const std::string> tokens) {
  auto it = std::find(tokens.begin(), tokens.end(), "--");
  return static_cast<size_t>(it - tokens.begin());
}

std::string MakeToken(std::string_view key, std::optional<std::string_view> value) {
  return value ? fmt::format("{}={}", key, *value) : std::string(key);
}

bool IsKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

// Value ranges of the `options` lines of a BLS entry, and whether "options" has a separator.
struct OptionsLine {
  size_t begin;
  size_t end;
  bool has_separator;
};

std::vector<OptionsLine> FindOptionsLines(std::string_view entry) {
  std::vector<OptionsLine> lines;
  size_t start = 0;
  while (start < entry.size()) {
    size_t nl = entry.find('\n', start);
    size_t end = nl == std::string_view::npos ? entry.size() : nl;
    size_t i = start;
    while (i < end && (entry[i] == ' ' || entry[i] == '\t')) ++i;
    std::string_view rest = entry.substr(i, end - i);
    if (rest.starts_with("options") && (rest.size() == 7 || rest[7] == ' ' || rest[7] == '\t')) {
      size_t v = i + 7;
      while (v < end && (entry[v] == ' ' || entry[v] == '\t')) ++v;
      size_t vend = end > v && entry[end - 1] == '\r' ? end - 1 : end;
      lines.push_back({v, vend, v > i + 7});
    }
    start = end + 1;
  }
  return lines;
}

}  // namespace

std::vector<TokenSpan> KernelTokenSpans(std::string_view cmdline) { return KernelSpans(cmdline); }

std::vector<std::string> SplitCmdline(std::string_view cmdline) {
  std::vector<std::string> tokens;
  for (Span sp : TokenSpans(cmdline)) tokens.emplace_back(cmdline.substr(sp.begin, sp.end - sp.begin));
  return tokens;
}

std::string JoinCmdline(std::span<const std::string> tokens) {
  std::string out;
  for (const std::string& t : tokens) {
    if (!out.empty()) out.push_back(' ');
    out += t;
  }
  return out;
}

std::string_view TokenKey(std::string_view token) {
  if (token.starts_with('"')) token.remove_prefix(1);
  size_t eq = token.find('=');
  if (eq != std::string_view::npos) return token.substr(0, eq);
  if (token.ends_with('"')) token.remove_suffix(1);
  return token;
}

std::string UnderscoredKey(std::string_view key) {
  std::string out(key);
  for (char& c : out)
    if (c == '-') c = '_';
  return out;
}

bool SameKey(std::string_view a, std::string_view b) {
  // kernel/params.c parameq(): dashes and underscores are equivalent in parameter names.
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i] == '-' ? '_' : a[i];
    char y = b[i] == '-' ? '_' : b[i];
    if (x != y) return false;
  }
  return true;
}

std::optional<std::string> TokenValue(std::span<const std::string> tokens, std::string_view key) {
  size_t n = KernelTokenCount(tokens);
  for (size_t i = n; i-- > 0;) {
    std::string_view t = tokens[i];
    if (!SameKey(TokenKey(t), key)) continue;
    bool quoted = t.starts_with('"');
    if (quoted) t.remove_prefix(1);
    size_t eq = t.find('=');
    if (eq == std::string_view::npos) return std::string();
    std::string_view v = t.substr(eq + 1);
    if (v.starts_with('"')) {
      v.remove_prefix(1);
      if (v.ends_with('"')) v.remove_suffix(1);
    } else if (quoted && v.ends_with('"')) {
      v.remove_suffix(1);
    }
    return std::string(v);
  }
  return std::nullopt;
}

bool AddOrReplaceToken(std::vector<std::string>& tokens, std::string_view key, std::optional<std::string_view> value) {
  std::string token = MakeToken(key, value);
  size_t n = KernelTokenCount(tokens);
  for (size_t i = n; i-- > 0;) {
    if (!SameKey(TokenKey(tokens[i]), key)) continue;
    if (tokens[i] == token) return false;
    tokens[i] = std::move(token);
    return true;
  }
  tokens.insert(tokens.begin() + static_cast<std::ptrdiff_t>(n), std::move(token));
  return true;
}

size_t RemoveToken(std::vector<std::string>& tokens, std::string_view key, std::optional<std::string_view> value) {
  size_t n = KernelTokenCount(tokens);
  size_t removed = 0;
  for (size_t i = n; i-- > 0;) {
    if (!SameKey(TokenKey(tokens[i]), key)) continue;
    if (value && TokenValue(std::span<const std::string>(&tokens[i], 1), key) != *value) continue;
    tokens.erase(tokens.begin() + static_cast<std::ptrdiff_t>(i));
    ++removed;
  }
  return removed;
}

Result<void> ValidateKey(std::string_view key) {
  if (key.empty()) return Fail(ErrorCode::kInvalidArgument, "kernel parameter name is empty");
  if (key.size() > kMaxKeyBytes)
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("kernel parameter name is longer than {} bytes", kMaxKeyBytes));
  for (char c : key)
    if (!IsKeyChar(c))
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("kernel parameter name '{}' may only contain letters, digits, '_', '.' and '-'", key));
  return {};
}

Result<void> ValidateValue(std::string_view value) {
  if (value.size() > kMaxValueBytes)
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("kernel parameter value is longer than {} bytes", kMaxValueBytes));
  for (char c : value) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || IsSpace(c))
      return Fail(ErrorCode::kInvalidArgument, "kernel parameter value contains whitespace or a control character");
    if (std::string_view("\"'$`;&|<>\\").find(c) != std::string_view::npos)
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("kernel parameter value '{}' contains '{}' (quotes, '$', '`', ';', '&', '|', '<', '>' "
                              "and '\\' are refused: they would be interpreted by the shell or by GRUB)",
                              value, c));
  }
  return {};
}

Result<void> ValidateToken(std::string_view token) {
  size_t eq = token.find('=');
  if (auto k = ValidateKey(token.substr(0, eq)); !k) return k;
  if (eq == std::string_view::npos) return {};
  return ValidateValue(token.substr(eq + 1));
}

Result<std::string> EditCmdlineText(std::string_view text, std::span<const std::string> add_tokens,
                                    std::span<const std::string> remove_keys) {
  for (const std::string& t : add_tokens)
    if (auto v = ValidateToken(t); !v) return tl::unexpected(v.error());
  for (const std::string& k : remove_keys)
    if (auto v = ValidateKey(k); !v) return tl::unexpected(v.error());

  std::string out(text);
  for (const std::string& key : remove_keys) {
    for (;;) {
      std::vector<Span> spans = KernelSpans(out);
      auto it = std::find_if(spans.begin(), spans.end(), [&](Span sp) {
        return SameKey(TokenKey(std::string_view(out).substr(sp.begin, sp.end - sp.begin)), key);
      });
      if (it == spans.end()) break;
      // Take the whitespace before the token with it (or after, for the first token), so the
      // neighbours keep their own spacing.
      size_t i = static_cast<size_t>(it - spans.begin());
      std::vector<Span> all = TokenSpans(out);
      if (i > 0) {
        out.erase(spans[i - 1].end, it->end - spans[i - 1].end);
      } else if (i + 1 < all.size()) {
        out.erase(it->begin, all[i + 1].begin - it->begin);
      } else {
        out.erase(it->begin, it->end - it->begin);
      }
    }
  }
  for (const std::string& token : add_tokens) {
    std::string_view key = TokenKey(token);
    std::optional<Span> dashdash;
    std::vector<Span> spans = KernelSpans(out, &dashdash);
    auto last = std::find_if(spans.rbegin(), spans.rend(), [&](Span sp) {
      return SameKey(TokenKey(std::string_view(out).substr(sp.begin, sp.end - sp.begin)), key);
    });
    if (last != spans.rend()) {
      out.replace(last->begin, last->end - last->begin, token);
    } else if (dashdash) {
      out.insert(dashdash->begin, token + " ");
    } else if (!spans.empty()) {
      out.insert(spans.back().end, " " + token);
    } else {
      out.insert(0, token);
    }
  }
  return out;
}

Result<std::string> SetBlsOptions(std::string_view entry_content, std::span<const std::string> add_tokens,
                                  std::span<const std::string> remove_keys) {
  std::string out(entry_content);
  std::vector<OptionsLine> lines = FindOptionsLines(out);
  for (const OptionsLine& l : lines)
    for (const std::string& tok : SplitCmdline(std::string_view(out).substr(l.begin, l.end - l.begin)))
      if (tok == "$kernelopts")
        return Fail(ErrorCode::kUnsupported,
                    "the BLS entry takes its options from $kernelopts in grubenv; rocmtune does not edit grubenv "
                    "(use grubby)");
  // Validates everything once, before any edit.
  if (auto v = EditCmdlineText("", add_tokens, remove_keys); !v) return v;

  auto edit_line = [&](const OptionsLine& l, std::span<const std::string> add,
                       std::span<const std::string> remove) -> Result<void> {
    auto value = EditCmdlineText(std::string_view(out).substr(l.begin, l.end - l.begin), add, remove);
    if (!value) return tl::unexpected(value.error());
    if (!l.has_separator && !value->empty()) value->insert(0, " ");
    out.replace(l.begin, l.end - l.begin, *value);
    return {};
  };
  for (size_t i = lines.size(); i-- > 0;)
    if (auto r = edit_line(lines[i], {}, remove_keys); !r) return tl::unexpected(r.error());
  for (const std::string& token : add_tokens) {
    lines = FindOptionsLines(out);
    if (lines.empty()) {
      if (!out.empty() && out.back() != '\n') out.push_back('\n');
      out += fmt::format("options {}\n", token);
      continue;
    }
    const OptionsLine* target = &lines.back();
    for (const OptionsLine& l : lines) {
      std::vector<std::string> toks = SplitCmdline(std::string_view(out).substr(l.begin, l.end - l.begin));
      if (TokenValue(toks, TokenKey(token))) target = &l;
    }
    if (auto r = edit_line(*target, std::span<const std::string>(&token, 1), {}); !r) return tl::unexpected(r.error());
  }
  return out;
}

Result<std::string> SetKernelCmdlineFile(std::string_view content, std::span<const std::string> add_tokens,
                                         std::span<const std::string> remove_keys) {
  auto out = EditCmdlineText(content, add_tokens, remove_keys);
  if (out && content.empty() && !out->empty()) out->push_back('\n');
  return out;
}

}  // namespace rocmtune::boot
