// Where an in-place edit of a key goes on a boot setup (setup.h ReplacedAdminToken): the admin's
// token it replaces, and whether rocmtune could put that token back.
#include <fmt/format.h>

#include "boot/cmdline_owned.h"
#include "boot/cmdline_tokens.h"
#include "boot/setup.h"
#include "knowledge/kernel_options.h"
#include "util/text.h"

namespace rocmtune::boot {
namespace {

// What the helper's CheckAddedToken asks of a token it writes: a known option, a valid value.
bool Writable(const BootContext& ctx, std::string_view token) {
  if (!ValidateToken(token)) return false;
  std::string key = UnderscoredKey(TokenKey(token));
  size_t eq = token.find('=');
  std::string_view value = eq == std::string_view::npos ? std::string_view() : token.substr(eq + 1);
  size_t dot = key.find('.');
  std::string module = dot == std::string::npos ? "" : key.substr(0, dot);
  if (module == "amdgpu" || module == "ttm" || module == "amdttm") {
    const knowledge::ModuleParam* p = ctx.catalog.Find(module, key.substr(dot + 1));
    return p && knowledge::ValidateValue(*p, value).has_value();
  }
  const auto* option = knowledge::KernelOptions::Builtin().Find(key);
  return option && knowledge::CheckKernelOptionValue(*option, value).empty();
}

}  // namespace

Result<std::optional<std::string>> ReplacedAdminToken(const BootContext& ctx, const Setup& setup,
                                                      std::string_view key) {
  std::optional<std::string> spelling;
  std::string files;
  bool disagree = false, absent = false;
  for (const auto& [file, cmdline] : setup.EditedCmdlines(ctx)) {
    files += (files.empty() ? "/" : ", /") + file;
    std::optional<std::string> last = LastToken(SplitCmdline(cmdline), key);
    if (!last) absent = true;
    else if (spelling && *spelling != *last) disagree = true;
    else spelling = last;
  }
  if (!spelling) return std::optional<std::string>();
  if (absent || disagree)
    return Fail(ErrorCode::kUnsupported,
                fmt::format("the admin's {} is not the same in every file rocmtune would edit ({}): rocmtune could "
                            "not put each back exactly, so it leaves them; make them agree or set it by hand",
                            key, files));
  if (auto why = setup.RefuseReplacing(ctx, *spelling)) return Fail(ErrorCode::kUnsupported, *why);
  if (!Writable(ctx, *spelling))
    return Fail(ErrorCode::kUnsupported,
                fmt::format("the command line has the admin's {}, which is not a token rocmtune may write, so it "
                            "could not put it back: change it by hand",
                            *spelling));
  return spelling;
}

}  // namespace rocmtune::boot
