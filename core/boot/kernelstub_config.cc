#include "boot/kernelstub_config.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "util/json_limits.h"
#include "util/text.h"

namespace rocmtune::boot {
namespace {

using json = nlohmann::ordered_json;

// kernelstub's config_rev now (config.py config_default); a newer one it raises ConfigError for.
constexpr int kConfigRev = 3;

tl::unexpected<Error> Bad(std::string_view why) {
  return Fail(ErrorCode::kInvalidData, fmt::format("/{}: {}", kKernelstubConfigPath, why));
}

bool Printable(std::string_view s) {
  return !s.empty() &&
         std::none_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

// config.py parse_options: whitespace-split words, a word with '"' joined with the following ones
// up to the next word with '"' (the words it joins become empty strings, kept in the list).
std::vector<std::string> SplitOptions(std::string_view s) {
  std::vector<std::string> words;
  for (std::string_view w : text::Tokens(s)) words.emplace_back(w);
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i].find('"') == std::string::npos) continue;
    for (size_t k = i + 1; k < words.size(); ++k) {
      std::string next = std::exchange(words[k], "");
      words[i] += " " + next;
      if (next.find('"') != std::string::npos) break;
    }
  }
  return words;
}

// The 1-based line where `token` is written as a JSON string at or after `from`; moves `from` past it.
int LineOf(std::string_view text, const std::string& token, size_t& from) {
  std::string quoted = json(token).dump();
  size_t at = text.find(quoted, from);
  if (at == std::string_view::npos) return 0;
  from = at + quoted.size();
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

}  // namespace

Result<KernelstubConfig> ParseKernelstubConfig(std::string_view text) {
  // Python's json.load fails on a NUL where nlohmann may stop reading at it.
  if (text.find('\0') != std::string_view::npos) return Bad("holds a NUL byte");
  auto doc = ParseBoundedJson(text, fmt::format("/{}", kKernelstubConfigPath), 8);
  if (!doc) return tl::unexpected(doc.error());
  if (!doc->is_object()) return Bad("not a JSON object");
  KernelstubConfig out;
  const char* section = doc->contains("user") ? "user" : "default";
  out.user_section = section == std::string_view("user");
  if (!doc->contains(section) || !(*doc)[section].is_object()) return Bad(fmt::format("no \"{}\" object", section));
  const json& s = (*doc)[section];
  if (s.contains("config_rev")) {
    if (!s["config_rev"].is_number_integer()) return Bad("config_rev is not a number");
    if (s["config_rev"].get<int64_t>() > kConfigRev)
      return Bad(
          fmt::format("config_rev {} is newer than kernelstub's {}", s["config_rev"].get<int64_t>(), kConfigRev));
  }
  if (!s.contains("kernel_options")) return Bad(fmt::format("\"{}\" has no kernel_options", section));
  const json& opts = s["kernel_options"];
  std::vector<std::string> tokens;
  if (opts.is_string()) {
    tokens = SplitOptions(opts.get_ref<const std::string&>());
  } else if (opts.is_array()) {
    for (const json& o : opts) {
      if (!o.is_string()) return Bad("a kernel option is not a string");
      tokens.push_back(o.get<std::string>());
    }
  } else {
    return Bad("kernel_options is neither a list nor a string");
  }
  if (s.contains("esp_path")) {
    if (!s["esp_path"].is_string()) return Bad("esp_path is not a string");
    out.esp_path = s["esp_path"].get<std::string>();
  } else {
    out.esp_path = "/boot/efi";
  }
  // Lines: the options are written after the section's name (json.dump(indent=2): one per line).
  size_t from = text.find(json(std::string(section)).dump());
  if (from == std::string_view::npos) from = 0;
  for (std::string& t : tokens) {
    if (t.empty()) continue;  // a word parse_options joined into the one before it
    if (!Printable(t)) return Bad("a kernel option holds a control character");
    int line = LineOf(text, t, from);
    out.options.push_back({std::move(t), line});
  }
  return out;
}

}  // namespace rocmtune::boot
