// The admin's kernel command-line tokens: an edit of a shared file (etc/default/grub, a BLS
// entry, etc/kernel/cmdline) may take a token off only when it is rocmtune's, as the state file
// recorded it before the plan, or when the state file after the plan remembers it as the admin's
// token rocmtune's took the place of (so unset/reset/revert can put it back). Whole plan, because
// the edit and the record are two ops; a rollback restores bytes the journal recorded instead.
#include <algorithm>

#include <fmt/format.h>

#include "boot/cmdline_owned.h"
#include "helper/allow_list.h"
#include "helper/rules.h"
#include "plan/owned_paths.h"

namespace rocmtune::helper {

Result<void> CheckAdminTokens(const sys::Root& root, const plan::Plan& plan) {
  std::optional<std::string> before, after;
  auto state_op = std::find_if(plan.ops.begin(), plan.ops.end(), [](const plan::Op& op) {
    return op.path == plan::kCmdlineTokensState &&
           (op.kind == plan::OpKind::kWriteFile || op.kind == plan::OpKind::kRemoveFile);
  });
  if (state_op != plan.ops.end()) {
    before = state_op->before;
    after = state_op->kind == plan::OpKind::kWriteFile ? state_op->after : std::nullopt;
  } else if (auto on_disk = root.ReadFile(plan::kCmdlineTokensState)) {
    before = after = *on_disk;
  }
  std::vector<boot::OwnedToken> ours = boot::ParseTokensState(before.value_or(""));
  std::vector<boot::OwnedToken> remembered = boot::ParseTokensState(after.value_or(""));
  for (const plan::Op& op : plan.ops) {
    std::optional<SharedFile> kind = SharedFileOf(op.path);
    if (!kind || op.kind != plan::OpKind::kWriteFile || !op.before || !op.after) continue;
    std::vector<std::string> removed;
    if (auto ok = CheckSharedEdit(*kind, *op.before, *op.after, &removed); !ok) return ok;
    for (const std::string& token : removed) {
      bool rocmtunes = std::any_of(ours.begin(), ours.end(), [&](const auto& t) { return t.token == token; });
      bool kept = std::any_of(remembered.begin(), remembered.end(),
                              [&](const auto& t) { return t.replaced && *t.replaced == token; });
      if (!rocmtunes && !kept)
        // "<path>: <rule>: <why>", as CheckOp's messages read.
        return Fail(ErrorCode::kInvalidArgument,
                    fmt::format("{}: {}: '{}' is the admin's: rocmtune takes off only its own tokens, and replaces "
                                "the admin's only where /{} remembers them",
                                op.path, rule::kAdminToken, token, plan::kCmdlineTokensState));
    }
  }
  return {};
}

}  // namespace rocmtune::helper
