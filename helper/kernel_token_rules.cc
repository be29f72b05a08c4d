// Which kernel command-line tokens rocmtune may add or remove. The command line reaches the
// kernel, every module and init (unknown options become init's arguments or environment), so an
// added token must be one the knowledge knows and accepts, exactly as a request's would be.
#include <map>
#include <string>

#include <fmt/format.h>

#include "boot/cmdline_tokens.h"
#include "helper/allow_list.h"
#include "helper/rules.h"
#include "knowledge/catalog.h"
#include "knowledge/kernel_options.h"

namespace rocmtune::helper {
namespace {

// "amdgpu.noretry" -> amdgpu's noretry: module parameters given on the command line.
bool IsModuleKey(std::string_view key, std::string_view* module, std::string_view* name) {
  size_t dot = key.find('.');
  if (dot == std::string_view::npos) return false;
  *module = key.substr(0, dot);
  *name = key.substr(dot + 1);
  return *module == "amdgpu" || *module == "ttm" || *module == "amdttm";
}

}  // namespace

Result<void> CheckAddedToken(std::string_view token) {
  if (auto ok = boot::ValidateToken(token); !ok)
    return Refuse(rule::kKernelToken, fmt::format("'{}': {}", token, ok.error().message));
  std::string key = boot::UnderscoredKey(boot::TokenKey(token));
  size_t eq = token.find('=');
  std::string_view value = eq == std::string_view::npos ? std::string_view() : token.substr(eq + 1);
  std::string_view module, name;
  if (IsModuleKey(key, &module, &name)) {
    const knowledge::ModuleParam* param = knowledge::Catalog::Builtin().Find(module, name);
    if (!param)
      return Refuse(rule::kKernelToken, fmt::format("'{}': {} is not a parameter of {}", token, name, module));
    if (auto ok = knowledge::ValidateValue(*param, value); !ok)
      return Refuse(rule::kKernelToken, fmt::format("'{}': {}", token, ok.error().message));
    return {};
  }
  const knowledge::KernelOption* option = knowledge::KernelOptions::Builtin().Find(key);
  if (!option)
    return Refuse(rule::kKernelToken,
                  fmt::format("'{}' is not a kernel option rocmtune knows (the kernel hands unknown "
                              "options to init)",
                              token));
  if (std::string why = knowledge::CheckKernelOptionValue(*option, value); !why.empty())
    return Refuse(rule::kKernelToken, fmt::format("'{}': {}", token, why));
  return {};
}

Result<void> CheckRemovedToken(std::string_view token) {
  std::string key = boot::UnderscoredKey(boot::TokenKey(token));
  std::string_view module, name;
  bool managed = IsModuleKey(key, &module, &name) ? knowledge::Catalog::Builtin().Find(module, name) != nullptr
                                                  : knowledge::KernelOptions::Builtin().Find(key) != nullptr;
  if (managed) return {};
  return Refuse(rule::kRemovedToken, fmt::format("'{}' is not an option rocmtune sets, so it never removes it "
                                                 "(root=, ro, quiet and the like are the system's)",
                                                 token));
}

Result<void> CheckTokenChange(std::string_view before_cmdline, std::string_view after_cmdline,
                              std::vector<std::string>* removed) {
  // Multisets: a token present twice before and once after was removed once.
  std::map<std::string, int> balance;
  for (std::string& t : boot::SplitCmdline(before_cmdline)) ++balance[std::move(t)];
  for (std::string& t : boot::SplitCmdline(after_cmdline)) --balance[std::move(t)];
  for (const auto& [token, n] : balance) {
    if (n < 0)
      if (auto ok = CheckAddedToken(token); !ok) return ok;
    if (n > 0) {
      if (auto ok = CheckRemovedToken(token); !ok) return ok;
      if (removed) removed->insert(removed->end(), static_cast<size_t>(n), token);
    }
  }
  return {};
}

}  // namespace rocmtune::helper
