#include "knobs/runtime_state.h"

#include <algorithm>

#include <fmt/format.h>

#include "plan/owned_paths.h"
#include "util/text.h"

namespace rocmtune::knobs {

bool IsRuntimeWord(std::string_view word) {
  return !word.empty() && word.size() <= 64 && std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::vector<RuntimeSetting> ParseRuntimeState(std::string_view content) {
  std::vector<RuntimeSetting> out;
  for (std::string_view line : text::SplitLines(content)) {
    line = text::Trim(line);
    if (line.empty() || line.starts_with('#')) continue;
    std::vector<std::string_view> words = text::Tokens(line);
    if (words.size() != 4 || !IsRuntimeWord(words[1]) || !IsRuntimeWord(words[2]) || !IsRuntimeWord(words[3])) continue;
    out.push_back({std::string(words[0]), std::string(words[1]), std::string(words[2]), std::string(words[3])});
  }
  return out;
}

std::string RuntimeStateText(std::span<const RuntimeSetting> settings) {
  std::string out =
      "# rocmtune: runtime attributes it keeps set (device, attribute, value, value before).\n"
      "# Written by rocmtune-helper; `rocmtunectl reset` writes the values before back.\n";
  for (const RuntimeSetting& s : settings)
    out += fmt::format("{} {} {} {}\n", s.device, s.attribute, s.value, s.before);
  return out;
}

std::vector<RuntimeSetting> DesiredRuntime(const sys::Root& root) {
  auto content = root.ReadFile(plan::kRuntimeState, 1 << 20);
  return content ? ParseRuntimeState(*content) : std::vector<RuntimeSetting>{};
}

}  // namespace rocmtune::knobs
