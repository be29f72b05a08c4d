// The trial's tokens, the header line every trial entry starts with, and the BLS entry
// (trial_boot.h). The GRUB entry is in grub_menu.cc.
#include "boot/trial_boot.h"

#include <fmt/format.h>

#include "boot/cmdline_tokens.h"
#include "util/text.h"

namespace rocmtune::boot {
namespace {

constexpr std::string_view kHeaderStart = "# rocmtune-trial id=";
constexpr std::string_view kHeaderTokens = " tokens=";
constexpr size_t kMaxIdBytes = 64;

bool IsIdChar(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'; }

bool IsTrialId(std::string_view id) {
  if (id.empty() || id.size() > kMaxIdBytes) return false;
  for (char c : id)
    if (!IsIdChar(c)) return false;
  return true;
}

std::optional<std::string_view> IdValue(std::string_view token) {
  if (!token.starts_with(kTrialIdKey) || token.size() <= kTrialIdKey.size() || token[kTrialIdKey.size()] != '=')
    return std::nullopt;
  return token.substr(kTrialIdKey.size() + 1);
}

std::string Joined(std::span<const std::string> tokens) {
  std::string out;
  for (const std::string& t : tokens) out += (out.empty() ? "" : " ") + t;
  return out;
}

// `value` of an options line with each `$name` / `${name}` word replaced by grubenv's value of
// name (unset: nothing), as GRUB's blscfg hands the line to its `linux` command, which expands
// variables (rhboot/grub2 grub-core/commands/blscfg.c: options are appended as they are).
std::string ExpandGrubVars(std::string_view value, std::string_view grubenv) {
  std::string out;
  for (std::string_view word : text::Tokens(value)) {
    std::string expanded(word);
    if (word.starts_with("${") && word.ends_with("}")) {
      expanded = GrubEnvValue(grubenv, word.substr(2, word.size() - 3)).value_or("");
    } else if (word.starts_with("$")) {
      expanded = GrubEnvValue(grubenv, word.substr(1)).value_or("");
    }
    if (expanded.empty()) continue;
    out += (out.empty() ? "" : " ") + expanded;
  }
  return out;
}

// A BLS key: the line's first word (the Boot Loader Specification: "key value", '#' comments).
std::string_view KeyOf(std::string_view line) {
  line = text::Trim(line);
  size_t end = line.find_first_of(" \t");
  return line.substr(0, end);
}

std::string_view ValueOf(std::string_view line) {
  line = text::Trim(line);
  size_t end = line.find_first_of(" \t");
  return end == std::string_view::npos ? std::string_view() : text::Trim(line.substr(end));
}

}  // namespace

std::vector<std::string> SdBootTrialEntryPaths() {
  std::vector<std::string> out;
  for (std::string_view esp : kEspCandidates) out.push_back(fmt::format("{}/loader/entries/{}", esp, kTrialEntryFile));
  return out;
}

Result<void> CheckTrialTokens(std::span<const std::string> tokens) {
  int ids = 0;
  for (const std::string& t : tokens) {
    if (auto ok = ValidateToken(t); !ok)
      return Fail(ErrorCode::kInvalidArgument, fmt::format("trial token '{}': {}", t, ok.error().message));
    // GRUB's script lexer makes words of these (grub-core/script/yylex.l); a token is one word.
    if (t.find_first_of("{}#") != std::string::npos)
      return Fail(ErrorCode::kInvalidArgument, fmt::format("trial token '{}': '{{', '}}' and '#' are not allowed", t));
    if (auto id = IdValue(t)) {
      if (!IsTrialId(*id))
        return Fail(ErrorCode::kInvalidArgument,
                    fmt::format("trial token '{}': the id is 1 to {} letters, digits or '-'", t, kMaxIdBytes));
      ++ids;
    }
  }
  if (ids != 1)
    return Fail(ErrorCode::kInvalidArgument, fmt::format("a trial carries exactly one {}=<id> token", kTrialIdKey));
  return {};
}

std::optional<std::string> TrialIdOf(std::span<const std::string> tokens) {
  std::optional<std::string> out;
  for (const std::string& t : tokens) {
    if (auto id = IdValue(t)) {
      if (out) return std::nullopt;
      out = std::string(*id);
    }
  }
  return out;
}

std::string TrialHeader(const TrialBoot& trial) {
  return fmt::format("{}{}{}{}\n", kHeaderStart, trial.id, kHeaderTokens, Joined(trial.tokens));
}

std::optional<TrialBoot> ParseTrialHeader(std::string_view content) {
  if (!content.starts_with(kHeaderStart)) return std::nullopt;
  size_t eol = content.find('\n');
  if (eol == std::string_view::npos) return std::nullopt;
  std::string_view line = content.substr(kHeaderStart.size(), eol - kHeaderStart.size());
  size_t sep = line.find(kHeaderTokens);
  if (sep == std::string_view::npos) return std::nullopt;
  TrialBoot trial;
  trial.id = std::string(line.substr(0, sep));
  std::string_view rest = line.substr(sep + kHeaderTokens.size());
  for (std::string_view t : text::Tokens(rest)) trial.tokens.emplace_back(t);
  // Rendered again from what was parsed, it must be the same line: one space between tokens,
  // nothing else on it.
  if (TrialHeader(trial) != content.substr(0, eol + 1)) return std::nullopt;
  return trial;
}

Result<std::string> BlsTrialEntry(std::string_view entry, std::optional<std::string_view> grubenv,
                                  const TrialBoot& trial) {
  if (auto ok = CheckTrialTokens(trial.tokens); !ok) return tl::unexpected(ok.error());
  if (TrialIdOf(trial.tokens) != trial.id)
    return Fail(ErrorCode::kInvalidArgument, fmt::format("the trial's id is not {}={}", kTrialIdKey, trial.id));
  std::vector<std::string> lines;
  int last_options = -1;
  bool has_linux = false;
  for (std::string_view raw : text::SplitLines(entry)) {
    std::string_view line = raw;
    if (line.ends_with('\r')) line.remove_suffix(1);
    std::string_view key = KeyOf(line);
    if (key == "title") {
      lines.push_back(fmt::format("title rocmtune trial {} ({})", trial.id, ValueOf(line)));
      continue;
    }
    if (key == "options") {
      std::string value = grubenv ? ExpandGrubVars(ValueOf(line), *grubenv) : std::string(ValueOf(line));
      lines.push_back(value.empty() ? std::string("options") : "options " + value);
      last_options = static_cast<int>(lines.size()) - 1;
      continue;
    }
    if (key == "linux" || key == "efi") has_linux = true;
    lines.emplace_back(line);
  }
  if (!has_linux) return Fail(ErrorCode::kInvalidData, "the default entry has no `linux` or `efi` line");
  if (last_options < 0) {
    lines.push_back("options");
    last_options = static_cast<int>(lines.size()) - 1;
  }
  lines[static_cast<size_t>(last_options)] += " " + Joined(trial.tokens);
  std::string out = TrialHeader(trial);
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

}  // namespace rocmtune::boot
