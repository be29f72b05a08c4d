#include "boot/cmdline_owned.h"

#include <fmt/format.h>

#include "boot/cmdline_tokens.h"
#include "util/text.h"

namespace rocmtune::boot {
namespace {

constexpr std::string_view kStateHeader =
    "# Kernel command-line tokens rocmtune added (it removes only these). \"TOKEN replaced ORIGINAL\":\n"
    "# TOKEN took the place of the admin's ORIGINAL, which unset/reset put back.\n";

}  // namespace

std::vector<OwnedToken> ParseTokensState(std::string_view content) {
  std::vector<OwnedToken> out;
  for (std::string_view line : text::SplitLines(content)) {
    line = text::Trim(line);
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string> words = SplitCmdline(line);
    if (words.size() == 3 && words[1] == kReplacedWord) out.push_back({words[0], words[2]});
    else out.push_back({std::string(line), std::nullopt});
  }
  return out;
}

std::string TokensStateText(std::span<const OwnedToken> tokens) {
  std::string out(kStateHeader);
  for (const OwnedToken& t : tokens)
    out += t.replaced ? fmt::format("{} {} {}\n", t.token, kReplacedWord, *t.replaced) : t.token + "\n";
  return out;
}

std::optional<std::string> LastToken(std::span<const std::string> tokens, std::string_view key) {
  std::optional<std::string> last;
  for (const std::string& t : tokens) {
    if (t == "--") break;
    if (SameKey(TokenKey(t), key)) last = t;
  }
  return last;
}

}  // namespace rocmtune::boot
