#include "knobs/file_findings.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
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

  // Whether the backends could read `rel` (same size limit), without reading its content a second
  // time in the request (the backends read it); a missing file is no finding.
  void Check(std::string_view rel, bool owned) {
    std::string subject = "/" + std::string(rel);
    if (std::any_of(out_.begin(), out_.end(), [&](const detect::Finding& f) { return f.subject == subject; })) return;
    auto content = Readable(rel);
    if (content || content.error().code == ErrorCode::kNotFound) return;
    out_.push_back(
        {.id = detect::FindingName(detect::FindingId::kFileUnreadable),
         .severity = owned ? detect::Severity::kError : detect::Severity::kWarning,
         .subject = std::move(subject),
         .what = fmt::format("{}; rocmtune cannot tell what it sets{}", content.error().message,
                             owned ? " (a file of rocmtune's own: its settings are unknown, not unset)" : "")});
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
  // ReadFile's answer without the content: opened for reading (not regular, not permitted) and
  // within the size limit by its size. A root with a supplement (rocmtuned's boot files, in
  // memory) is asked by reading, as its files are not on disk for this user.
  Result<void> Readable(std::string_view rel) const {
    if (root_.supplement()) {
      auto read = root_.ReadFile(rel, sys::Root::kDefaultMaxBytes);
      if (!read) return tl::unexpected(read.error());
      return {};
    }
    auto fd = root_.OpenRegular(rel);
    if (!fd) return tl::unexpected(fd.error());
    struct stat st {};
    if (::fstat(fd->get(), &st) != 0)
      return Fail(ErrorCode::kIo, fmt::format("{}: {}", root_.Display(rel), std::strerror(errno)), errno);
    if (static_cast<uint64_t>(st.st_size) > sys::Root::kDefaultMaxBytes)
      return Fail(ErrorCode::kTooLarge,
                  fmt::format("{}: larger than {} bytes, not read", root_.Display(rel), sys::Root::kDefaultMaxBytes));
    return {};
  }

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
