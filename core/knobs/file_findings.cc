#include "knobs/file_findings.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "boot/setup.h"
#include "detect/finding_ids.h"
#include "knobs/env_sources.h"
#include "knobs/registry.h"
#include "plan/owned_paths.h"

namespace rocmtune::knobs {
namespace {

class Checker {
 public:
  explicit Checker(const sys::Root& root) : root_(root) {}

  // Reads `rel` the way the backends do (same size limit); a missing file is no finding.
  void Check(std::string_view rel, bool owned) {
    std::string subject = "/" + std::string(rel);
    if (std::any_of(out_.begin(), out_.end(), [&](const detect::Finding& f) { return f.subject == subject; })) return;
    auto content = root_.ReadFile(rel, sys::Root::kDefaultMaxBytes);
    if (content || content.error().code == ErrorCode::kNotFound) return;
    out_.push_back({detect::FindingName(detect::FindingId::kFileUnreadable),
                    owned ? detect::Severity::kError : detect::Severity::kWarning,
                    fmt::format("{}; rocmtune cannot tell what it sets{}", content.error().message,
                                owned ? " (a file of rocmtune's own: its settings are unknown, not unset)" : ""),
                    std::move(subject)});
  }

  void CheckDirectory(std::string_view dir, std::string_view suffix) {
    auto names = root_.ListDir(dir);
    if (!names) return;  // absent (or not a directory): nothing is read from it either
    for (const std::string& name : *names)
      if (name.ends_with(suffix)) {
        std::string rel = sys::JoinPath(dir, name);
        Check(rel, plan::IsOwnedFile(rel));
      }
  }

  std::vector<detect::Finding> Take() { return std::move(out_); }

 private:
  const sys::Root& root_;
  std::vector<detect::Finding> out_;
};

}  // namespace

std::vector<detect::Finding> UnreadableFileFindings(const KnobContext& ctx) {
  Checker checker(ctx.root);
  for (std::string_view path : plan::OwnedFiles()) checker.Check(path, true);
  // What the backends read: libkmod's modprobe.d directories, the environment sources, GRUB's defaults.
  for (std::string_view dir : sys::kModprobeDirs) checker.CheckDirectory(dir, ".conf");
  for (const EnvSource& source : ForeignEnvSources(ctx.root)) checker.Check(source.path, false);
  if (const boot::Setup* setup = boot::SetupFor(ctx.inventory.system.boot.kind))
    for (const boot::SetupFile& file : setup->FilesRead()) {
      if (file.dir_suffix.empty()) checker.Check(file.path, false);
      else checker.CheckDirectory(file.path, file.dir_suffix);
    }
  return checker.Take();
}

}  // namespace rocmtune::knobs
