// ArchiveOut: a snapshot as one tar.gz (`rocmtunectl snapshot --output FILE`). Entries are kept
// in memory (a snapshot is a few hundred small files) and written at Finish() sorted by path,
// each directory before its contents, with the source's mtimes and modes (at most kMaxMode),
// uid/gid 0 and no user or group names: the same source gives the same bytes. Every entry lies under one top directory,
// the world: `tar xzf FILE -C DIR && rocmtunectl --root DIR/TOP status`.
//
// The archive is written to a temporary file beside FILE and renamed to FILE only when complete,
// without replacing anything: an existing FILE is refused at Open() and, should one appear
// meanwhile, at the rename (renameat2 RENAME_NOREPLACE). A failed snapshot leaves no file.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "snapshot/sink.h"
#include "sys/unique_fd.h"

namespace rocmtune::snapshot {

class ArchiveOut final : public Sink {
 public:
  // kInvalidArgument: `path` exists (whatever it is) or names no file ("", "dir/").
  static Result<ArchiveOut> Open(const std::string& path);

  // The archive's top directory: FILE's name without .tar.gz/.tgz ("rocmtune-snapshot" when
  // nothing is left of it).
  const std::string& top() const { return top_; }

  Result<bool> WriteFile(std::string_view rel, std::string_view content, int64_t mtime, mode_t mode) override;
  Result<bool> Symlink(std::string_view rel, std::string_view target, int64_t mtime) override;
  Result<void> Directory(std::string_view rel, mode_t mode) override;
  Result<void> Finish() override;

 private:
  enum class Kind { kDirectory, kFile, kSymlink };
  struct Entry {
    Kind kind;
    std::string data;  // the content, or the link's target
    int64_t mtime;
    mode_t mode;  // permission bits
  };

  ArchiveOut(std::string path, sys::UniqueFd dir, std::string name, std::string top)
      : path_(std::move(path)), dir_(std::move(dir)), name_(std::move(name)), top_(std::move(top)) {}
  Result<bool> Add(std::string_view rel, Entry entry);
  // Writes the members to `fd`.
  Result<void> WriteTo(int fd) const;

  std::string path_;
  sys::UniqueFd dir_;  // FILE's directory: the temporary and the rename happen in it
  std::string name_;   // FILE's name in dir_
  std::string top_;
  std::map<std::string, Entry, std::less<>> entries_;  // by root-relative path
};

}  // namespace rocmtune::snapshot
