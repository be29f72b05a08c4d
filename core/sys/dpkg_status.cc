#include "sys/dpkg_status.h"

#include "util/text.h"

namespace rocmtune::sys {

std::optional<DpkgPackage> FirstInstalled(std::string_view status,
                                          const std::function<bool(std::string_view name)>& wanted) {
  for (size_t at = 0; at < status.size();) {
    size_t end = status.find("\n\n", at);
    if (end == std::string_view::npos) end = status.size();
    std::string_view stanza = status.substr(at, end - at);
    at = end + 2;
    DpkgPackage package;
    bool installed = false;
    for (std::string_view line : text::SplitLines(stanza)) {
      if (line.starts_with("Package:")) package.name = std::string(text::Trim(line.substr(8)));
      else if (line.starts_with("Version:")) package.version = std::string(text::Trim(line.substr(8)));
      else if (line.starts_with("Status:")) installed = text::Trim(line).ends_with(" installed");
    }
    if (installed && wanted(package.name)) return package;
  }
  return std::nullopt;
}

}  // namespace rocmtune::sys
