// The initramfs image reader behind sys/initramfs_image.h, in rocmtune-archive.so beside the
// snapshot's tar.gz writer (snapshot/tar_gz.h): libarchive is loaded with dlopen only when an
// image is read, never at a program's start (ctest `client.needed_libraries`). Both sides are
// built together from this header, so the interface is plain C data.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rocmtune::sys {

// Every bound the module keeps; a bound passed is an error (kLimit), never a partial answer.
struct InitrdLimits {
  uint64_t max_members;   // cpio members, over all archives
  uint64_t max_unpacked;  // bytes the members' headers declare, over all archives
  uint64_t ratio_floor;   // a compressed archive may unpack to max(ratio_floor, max_ratio * its size)
  uint64_t max_ratio;
  uint64_t max_read;      // bytes of one member handed to on_data
  uint32_t max_archives;  // cpio archives back to back
};

struct InitrdMember {
  const char* path;  // as stored, NUL-terminated ("./" and "/" not taken off)
  int64_t size;
  uint32_t mode;     // type and permission bits (AE_IFREG, ...)
  uint32_t archive;  // 0 for the first archive of the image
};

enum class InitrdAnswer : int { kSkip, kRead, kStop };

struct InitrdVisitor {
  void* ctx;
  // A new archive at `offset` of the file; `compression` is libarchive's filter name ("none",
  // "gzip", "xz", "lzma", "bzip2", "zstd", "lz4").
  void (*on_archive)(void* ctx, uint64_t offset, const char* compression);
  InitrdAnswer (*on_member)(void* ctx, const InitrdMember* member);
  // After kRead: the member's first bytes (at most max_read); `cut` when it holds more.
  void (*on_data)(void* ctx, const InitrdMember* member, const char* data, size_t size, int cut);
};

enum class InitrdStatus : int { kOk, kNoMemory, kFailed, kLimit };

inline constexpr const char* kReadInitrdSymbol = "RocmtuneReadInitrd";

extern "C" {
// Reads the image open on `fd` (`size` bytes, read with pread from offset 0) the way the kernel
// unpacks it. kOk: every archive read, or the visitor said kStop. kFailed / kLimit: a message
// (NUL-terminated, possibly cut) is in `error`.
InitrdStatus RocmtuneReadInitrd(int fd, uint64_t size, const InitrdLimits* limits, const InitrdVisitor* visitor,
                                char* error, size_t error_size);
}
using ReadInitrdFn = decltype(&RocmtuneReadInitrd);

}  // namespace rocmtune::sys
