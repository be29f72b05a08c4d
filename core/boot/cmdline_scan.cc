#include "boot/cmdline_scan.h"

#include <algorithm>

#include "boot/cmdline_tokens.h"
#include "boot/grub_config.h"
#include "boot/next_boot.h"
#include "boot/setup.h"
#include "knowledge/kernel_options.h"
#include "util/text.h"

namespace rocmtune::boot {
namespace {

void AddTokens(std::string_view file, int line, std::string_view cmdline, std::vector<CmdlineTokenAt>& out) {
  for (std::string& token : SplitCmdline(cmdline)) {
    if (token == "--") return;
    if (token.find('$') != std::string::npos) continue;
    out.push_back({std::string(file), line, std::move(token)});
  }
}

// The value of `VAR=...` without its surrounding quotes; nullopt when the line assigns another name.
std::optional<std::string_view> GrubCmdlineValue(std::string_view line) {
  line = text::Trim(line);
  if (line.starts_with("export ")) line = text::Trim(line.substr(7));
  for (std::string_view var : {kGrubCmdlineLinuxDefault, kGrubCmdlineLinux}) {
    if (!line.starts_with(var) || line.size() <= var.size() || line[var.size()] != '=') continue;
    std::string_view value = line.substr(var.size() + 1);
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'')) {
      size_t close = value.find(value.front(), 1);
      value = value.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1);
    }
    return value;
  }
  return std::nullopt;
}

std::vector<std::string> Files(const sys::Root& root, std::string_view dir, std::string_view suffix) {
  std::vector<std::string> out;
  if (auto names = root.ListDir(dir))
    for (const std::string& n : *names)
      if (n.ends_with(suffix)) out.push_back(sys::JoinPath(dir, n));
  std::sort(out.begin(), out.end());
  return out;
}

template <typename PerLine>
void ScanFile(const sys::Root& root, std::string_view path, PerLine per_line) {
  auto content = ReadOptional(root, path);
  if (!content) return;
  int number = 0;
  for (std::string_view line : text::SplitLines(*content)) per_line(++number, line);
}

}  // namespace

std::vector<CmdlineTokenAt> ScanCmdlineTokens(const BootContext& ctx) {
  std::vector<CmdlineTokenAt> out;
  const sys::Root& root = ctx.root;
  auto grub_line = [&](std::string_view path) {
    return [&out, path](int n, std::string_view line) {
      if (auto value = GrubCmdlineValue(line)) AddTokens(path, n, *value, out);
    };
  };
  ScanFile(root, kGrubDefaultsPath, grub_line(kGrubDefaultsPath));
  for (const std::string& path : Files(root, "etc/default/grub.d", ".cfg")) ScanFile(root, path, grub_line(path));
  for (const std::string& path : Files(root, kBlsEntriesDir, ".conf"))
    ScanFile(root, path, [&](int n, std::string_view line) {
      line = text::Trim(line);
      if (line.starts_with("options") && (line.size() == 7 || line[7] == ' ' || line[7] == '\t'))
        AddTokens(path, n, line.substr(7), out);
    });
  ScanFile(root, kKernelCmdlinePath,
           [&](int n, std::string_view line) { AddTokens(kKernelCmdlinePath, n, line, out); });
  // The file the next boot's command line really comes from when it is none of the above (a
  // systemd-boot entry on the ESP, an ostree deployment's entry): its tokens are where the fix is.
  const NextBoot& next = ReadNextBoot(ctx);
  const size_t scanned = out.size();
  for (const CmdlineTokenAt& t : next.tokens)
    if (t.file != "proc/cmdline" && std::none_of(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(scanned),
                                                 [&](const CmdlineTokenAt& o) { return o.file == t.file; }))
      out.push_back(t);
  if (ctx.inventory.system.cmdline) AddTokens("proc/cmdline", 1, *ctx.inventory.system.cmdline, out);
  return out;
}

std::vector<std::string> KnownOptionsInUse(const BootContext& ctx) {
  std::vector<std::string> out;
  auto scan = [&](std::string_view cmdline) {
    for (const std::string& t : SplitCmdline(cmdline)) {
      if (t == "--") return;
      std::string key(TokenKey(t));
      if (knowledge::KernelOptions::Builtin().Find(key) && std::find(out.begin(), out.end(), key) == out.end())
        out.push_back(std::move(key));
    }
  };
  if (ctx.inventory.system.cmdline) scan(*ctx.inventory.system.cmdline);
  if (auto next = NextBootCmdline(ctx)) scan(*next);
  return out;
}

}  // namespace rocmtune::boot
