#include "boot/next_boot.h"

#include <algorithm>

#include <fmt/format.h>

#include "boot/boot_context.h"
#include "boot/grub_config.h"
#include "boot/loader_entries.h"
#include "util/text.h"

namespace rocmtune::boot {

// Tokens holding '$' are GRUB variables expanded at boot ($tuned_params), not parameters.
void AddNextBootTokens(std::string_view file, int line, std::string_view text, std::vector<CmdlineTokenAt>& out) {
  size_t counted = 0;
  for (const TokenSpan& span : KernelTokenSpans(text)) {
    line += static_cast<int>(std::count(text.begin() + static_cast<std::ptrdiff_t>(counted),
                                        text.begin() + static_cast<std::ptrdiff_t>(span.begin), '\n'));
    counted = span.begin;
    std::string token(text.substr(span.begin, span.end - span.begin));
    if (token.find('$') == std::string::npos) out.push_back({std::string(file), line, std::move(token)});
  }
}

namespace {

NextBoot Unknown(std::string why) {
  NextBoot next;
  next.why_unknown = std::move(why);
  return next;
}

}  // namespace

NextBoot NextBootFromGrub(const BootContext& ctx, bool debian_dropins) {
  auto vars = EvaluateGrubDefaults(ctx.root, debian_dropins);
  if (!vars) return Unknown(vars.error().message);
  auto args = EffectiveLinuxArgs(*vars);
  auto tokens = EffectiveLinuxTokens(*vars);
  if (!args || !tokens)
    return Unknown(!vars->unsupported.empty() ? vars->unsupported.front()
                   : !vars->opaque.empty()    ? vars->opaque.front()
                                              : "a GRUB variable is unknown");
  return {std::move(args), "", std::move(*tokens), "", {}};
}

NextBoot NextBootFromBls(const BootContext& ctx) {
  // The entry of the running kernel, else the first one.
  std::vector<std::string> entries;
  if (auto names = ctx.root.ListDir(kBlsEntriesDir))
    for (const std::string& n : *names)
      if (n.ends_with(".conf")) entries.push_back(sys::JoinPath(kBlsEntriesDir, n));
  std::string chosen;
  for (const auto& e : entries)
    if (ctx.inventory.system.kernel && e.find(*ctx.inventory.system.kernel) != std::string::npos) chosen = e;
  if (chosen.empty() && !entries.empty()) chosen = entries.front();
  if (chosen.empty()) return Unknown("no BLS entry in /boot/loader/entries");
  return NextBootFromEntry(ctx, chosen);
}

NextBoot NextBootFromEntry(const BootContext& ctx, const std::string& chosen) {
  auto content = ReadOptional(ctx.root, chosen);
  if (!content) return Unknown(fmt::format("/{} is not readable", chosen));
  int number = 0;
  for (std::string_view line : text::SplitLines(*content)) {
    ++number;
    line = text::Trim(line);
    if (!line.starts_with("options")) continue;
    std::string_view value = line.substr(7);
    NextBoot next{std::string(text::Trim(value)), "", {}, "", {}};
    AddNextBootTokens(chosen, number, value, next.tokens);
    return next;
  }
  return {std::string(), "", {}, "", {}};
}

NextBoot NextBootFromKernelCmdline(const BootContext& ctx) {
  auto content = ReadOptional(ctx.root, kKernelCmdlinePath);
  if (!content) return Unknown("/etc/kernel/cmdline is missing (kernel-install would reuse /proc/cmdline)");
  NextBoot next{text::Clean(*content), "", {}, "", {}};
  AddNextBootTokens(kKernelCmdlinePath, 1, *content, next.tokens);
  return next;
}

NextBoot NextBootFromLoaderEntry(const BootContext& ctx) {
  auto def = FindDefaultLoaderEntry(ctx.root);
  if (!def && def.error().code == ErrorCode::kNotFound) return NextBootFromKernelCmdline(ctx);  // UKIs
  if (!def) return Unknown(def.error().message);
  auto content = ReadOptional(ctx.root, def->path);
  if (!content) return Unknown(fmt::format("/{} is not readable", def->path));
  NextBoot next{std::string(), "", {}, "", {}};
  for (const auto& [line, options] : LoaderEntryOptions(*content)) {
    next.cmdline->append(next.cmdline->empty() ? "" : " ").append(options);
    AddNextBootTokens(def->path, line, options, next.tokens);
  }
  if (auto later = ReadOptional(ctx.root, kKernelCmdlinePath)) {
    next.later_file = std::string(kKernelCmdlinePath);
    AddNextBootTokens(kKernelCmdlinePath, 1, *later, next.later_tokens);
  }
  return next;
}

const CmdlineTokenAt* DecidingToken(const NextBoot& next, std::string_view key) {
  auto it = std::find_if(next.tokens.rbegin(), next.tokens.rend(),
                         [&](const CmdlineTokenAt& t) { return SameKey(TokenKey(t.token), key); });
  return it == next.tokens.rend() ? nullptr : &*it;
}

std::string WhereText(std::string_view file, int line) {
  return line > 0 ? fmt::format("/{}:{}", file, line) : fmt::format("/{}", file);
}

}  // namespace rocmtune::boot
