// The reset as a purge plan (api/purge_plan.h).
#include "api/purge_plan.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "journal/history.h"
#include "journal/journal.h"
#include "plan/owned_paths.h"
#include "snapshot/out_dir.h"

namespace rocmtune::api {
namespace {

constexpr std::string_view kStateDir = "var/lib/rocmtune/";

// The characters the purge script's words may hold: no blank, quote, glob, '$', '`', '\' or '~'.
bool IsPlainWord(std::string_view word) {
  if (word.empty()) return false;
  return std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("._/+=,:@-").find(c) != std::string_view::npos;
  });
}

// A root-relative path of plain words with no empty, "." or ".." component.
bool IsPlainPath(std::string_view path) {
  if (!IsPlainWord(path) || path.front() == '/' || path.back() == '/') return false;
  for (size_t start = 0; start <= path.size();) {
    size_t end = std::min(path.find('/', start), path.size());
    std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

constexpr std::array<std::string_view, 8> kPurgeCommands = {
    "update-grub",
    "grub-mkconfig -o /boot/grub/grub.cfg",
    "kernel-install add-all",
    "update-initramfs -u -k all",
    "dracut --force --regenerate-all",
    "mkinitcpio -P",
    "booster build --force",
    "grubby --update-kernel=ALL --remove-args=*",
};

}  // namespace

std::span<const std::string_view> PurgeCommands() { return kPurgeCommands; }

bool IsPurgeCommand(std::string_view command) {
  return std::any_of(kPurgeCommands.begin(), kPurgeCommands.end(), [&](std::string_view form) {
    if (!form.ends_with('*')) return command == form;
    form.remove_suffix(1);
    return command.starts_with(form) && IsPlainWord(command.substr(form.size()));
  });
}

Result<PurgePlan> MakePurgePlan(const sys::Root& root, const ChangeReport& report) {
  const plan::Plan& reset = report.plan;
  if (!reset.refused.empty()) {
    std::string why;
    for (const plan::Message& m : reset.refused) why += fmt::format("{}{}", why.empty() ? "" : "; ", m.message);
    return Fail(ErrorCode::kInvalidArgument, fmt::format("the reset is refused, no purge plan: {}", why));
  }
  auto txns = journal::Load(root);
  if (!txns) return tl::unexpected(txns.error());

  PurgePlan out;
  std::string& text = out.text;
  text = fmt::format("{}\n", kPurgePlanHeader);
  size_t n = 0;
  for (const plan::Op& op : reset.ops) {
    switch (op.kind) {
      case plan::OpKind::kWriteFile:
      case plan::OpKind::kRemoveFile: {
        // rocmtune's state goes whole with /var/lib/rocmtune at purge.
        if (op.path.starts_with(kStateDir)) continue;
        if (!IsPlainPath(op.path)) {
          out.left.push_back(fmt::format("{}: not a plain path, left for the admin", op.path));
          continue;
        }
        // rocmtune's own file that someone else edited is theirs now: never clobbered, not even at purge.
        if (plan::IsOwnedFile(op.path) && journal::IsDrift(*txns, op.path, op.before)) {
          text += fmt::format("left {}\n", op.path);
          out.left.push_back(fmt::format("{}: edited by someone else since rocmtune wrote it; left as it is", op.path));
          continue;
        }
        ++n;
        if (op.before) out.files.emplace_back(fmt::format("{}.expect", n), *op.before);
        if (op.kind == plan::OpKind::kWriteFile) {
          out.files.emplace_back(fmt::format("{}.new", n), op.after.value_or(""));
          text += fmt::format("write {} {}\n", n, op.path);
        } else {
          text += fmt::format("remove {} {}\n", n, op.path);
        }
        break;
      }
      case plan::OpKind::kWriteSysfs:
        // A runtime attribute: the next boot (or driver reload) resets it; nothing on disk to undo.
        out.left.push_back(
            fmt::format("{}: a runtime setting, back to the driver's default at the next boot", op.path));
        break;
      case plan::OpKind::kRegenerate: {
        bool plain = !op.argv.empty() && std::all_of(op.argv.begin(), op.argv.end(), IsPlainWord);
        std::string command = fmt::format("{}", fmt::join(op.argv, " "));
        if (!plain || !IsPurgeCommand(command)) {
          out.left.push_back(fmt::format("{}: `{}` is not a command the purge script runs; run it by hand after purge",
                                         op.path, command));
          continue;
        }
        text += fmt::format("run {}\n", command);
        break;
      }
    }
  }
  // Directories rocmtune made for its files, deepest first: the script removes each only when empty.
  std::vector<std::string> dirs = journal::CreatedDirs(*txns);
  std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const std::string& d : dirs)
    if (IsPlainPath(d)) text += fmt::format("rmdir {}\n", d);
  return out;
}

Result<void> WritePurgePlan(const PurgePlan& plan, const std::string& dir) {
  auto out = snapshot::OutDir::Open(dir);
  if (!out) return tl::unexpected(out.error());
  for (const auto& [name, content] : plan.files)
    if (auto r = out->WriteFile(name, content, 0, 0644); !r) return tl::unexpected(r.error());
  // The plan last: a cut-short write leaves no plan, and the purge script then changes nothing.
  if (auto r = out->WriteFile("plan", plan.text, 0, 0644); !r) return tl::unexpected(r.error());
  return {};
}

}  // namespace rocmtune::api
