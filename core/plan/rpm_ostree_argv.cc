#include "plan/rpm_ostree_argv.h"

#include <fmt/format.h>

namespace rocmtune::plan {

std::string KargsReplaceArg(std::string_view key, std::string_view old_value, std::string_view new_value) {
  return fmt::format("{}{}={}={}", kKargsReplace, key, old_value, new_value);
}

std::optional<KargsReplace> ParseKargsReplace(std::string_view value) {
  size_t first = value.find('=');
  if (first == std::string_view::npos) return std::nullopt;
  size_t second = value.find('=', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  return KargsReplace{std::string(value.substr(0, first)), std::string(value.substr(first + 1, second - first - 1)),
                      std::string(value.substr(second + 1))};
}

std::optional<std::vector<std::string>> InverseRpmOstree(const std::vector<std::string>& argv) {
  if (argv.size() < 3 || argv[0] != kRpmOstree) return std::nullopt;
  std::vector<std::string> out = {argv[0], argv[1]};
  if (argv[1] == kInitramfsEtc) {
    if (argv.size() != 3) return std::nullopt;
    std::string_view a = argv[2];
    if (a == kForceSync) return argv;
    if (a.starts_with(kTrack)) out.push_back(fmt::format("{}{}", kUntrack, a.substr(kTrack.size())));
    else if (a.starts_with(kUntrack)) out.push_back(fmt::format("{}{}", kTrack, a.substr(kUntrack.size())));
    else return std::nullopt;
    return out;
  }
  if (argv[1] != kKargs) return std::nullopt;
  for (size_t i = 2; i < argv.size(); ++i) {
    std::string_view a = argv[i];
    if (a.starts_with(kKargsAppend)) {
      out.push_back(fmt::format("{}{}", kKargsDelete, a.substr(kKargsAppend.size())));
    } else if (a.starts_with(kKargsDelete)) {
      out.push_back(fmt::format("{}{}", kKargsAppend, a.substr(kKargsDelete.size())));
    } else if (a.starts_with(kKargsReplace)) {
      auto r = ParseKargsReplace(a.substr(kKargsReplace.size()));
      if (!r || r->new_value.find('=') != std::string::npos) return std::nullopt;
      out.push_back(KargsReplaceArg(r->key, r->new_value, r->old_value));
    } else {
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace rocmtune::plan
