// rocmtune-archive.so: the only code that links libarchive (snapshot/tar_gz.h). It uses libc and
// libarchive only, so the module loads nothing of the core a second time.
#include <archive.h>
#include <archive_entry.h>

#include <cstdio>
#include <memory>
#include <span>

#include "snapshot/tar_gz.h"
#include "util/handle.h"

namespace rocmtune::snapshot {
namespace {

using ArchivePtr = Handle<archive*, archive_write_free>;
using EntryPtr = Handle<archive_entry*, archive_entry_free>;

mode_t FileType(TarKind kind) {
  switch (kind) {
    case TarKind::kDirectory: return AE_IFDIR;
    case TarKind::kFile: return AE_IFREG;
    case TarKind::kSymlink: return AE_IFLNK;
  }
  return AE_IFREG;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) TarStatus RocmtuneWriteTarGz(int fd, const TarMember* members,
                                                                               size_t count, char* error,
                                                                               size_t error_size) {
  ArchivePtr a(archive_write_new());
  if (!a) return TarStatus::kNoMemory;
  auto failed = [&] {
    const char* why = archive_error_string(a.get());
    if (error_size > 0) std::snprintf(error, error_size, "%s", why ? why : "libarchive failed");
    return TarStatus::kFailed;
  };
  // pax_restricted: plain ustar headers unless a path is too long for them (sysfs paths are).
  // gzip without a timestamp in its header: the same snapshot gives the same bytes.
  if (archive_write_add_filter_gzip(a.get()) != ARCHIVE_OK ||
      archive_write_set_format_pax_restricted(a.get()) != ARCHIVE_OK ||
      archive_write_set_options(a.get(), "gzip:!timestamp") != ARCHIVE_OK ||
      archive_write_open_fd(a.get(), fd) != ARCHIVE_OK)
    return failed();
  for (const TarMember& m : std::span(members, count)) {
    EntryPtr entry(archive_entry_new());
    if (!entry) return TarStatus::kNoMemory;
    archive_entry_set_pathname(entry.get(), m.path);
    archive_entry_set_mtime(entry.get(), m.mtime, 0);
    archive_entry_set_uid(entry.get(), 0);
    archive_entry_set_gid(entry.get(), 0);
    archive_entry_set_filetype(entry.get(), FileType(m.kind));
    archive_entry_set_perm(entry.get(), m.mode);
    if (m.kind == TarKind::kFile) archive_entry_set_size(entry.get(), static_cast<la_int64_t>(m.size));
    if (m.kind == TarKind::kSymlink) archive_entry_set_symlink(entry.get(), m.data);
    if (archive_write_header(a.get(), entry.get()) != ARCHIVE_OK) return failed();
    if (m.kind == TarKind::kFile && m.size > 0 &&
        archive_write_data(a.get(), m.data, m.size) != static_cast<la_ssize_t>(m.size))
      return failed();
  }
  if (archive_write_close(a.get()) != ARCHIVE_OK) return failed();
  return TarStatus::kOk;
}

}  // namespace rocmtune::snapshot
