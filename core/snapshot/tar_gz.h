// The tar.gz writer behind ArchiveOut, in a module of its own (rocmtune-archive.so) that
// ArchiveOut loads with dlopen only when an archive is written: libarchive and what it loads
// (libxml2, ICU, libcrypto, nettle, acl, bz2, zlib) are then not among the libraries every
// rocmtunectl and rocmtuned start loads (ctest `client.needed_libraries` checks it).
// Both sides are built together from this header, so the interface is plain C data.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace rocmtune::snapshot {

enum class TarKind : int { kDirectory, kFile, kSymlink };

// One member, in the order it is written.
struct TarMember {
  const char* path;  // in the archive, NUL-terminated
  TarKind kind;
  const char* data;  // the file's content (`size` bytes), or the link's NUL-terminated target
  size_t size;
  int64_t mtime;  // seconds since the epoch
  mode_t mode;    // permission bits
};

enum class TarStatus : int { kOk, kNoMemory, kFailed };

// The module's name and its one function, found with dlsym.
inline constexpr const char* kArchiveModuleName = "rocmtune-archive.so";
inline constexpr const char* kWriteTarGzSymbol = "RocmtuneWriteTarGz";

extern "C" {
// Writes `members` as one gzip-compressed pax_restricted tar to `fd`, uid/gid 0, no user or
// group names, no timestamp in the gzip header: the same members give the same bytes.
// kFailed: libarchive's message (NUL-terminated, possibly cut) is in `error`.
TarStatus RocmtuneWriteTarGz(int fd, const TarMember* members, size_t count, char* error, size_t error_size);
}
using WriteTarGzFn = decltype(&RocmtuneWriteTarGz);

}  // namespace rocmtune::snapshot
