// An initramfs image as the kernel unpacks it (init/initramfs.c): uncompressed newc cpio
// archives (early microcode, dracut's `early_cpio`) back to back with zero padding, then the
// compressed main archive (gzip, xz, lzma, bzip2, zstd, lz4 with the kernel's legacy frame).
// libarchive reads it in rocmtune-archive.so (sys/initrd_abi.h), loaded only when an image is
// read. Everything is bounded (ImageLimits); a corrupt image is an error, never a partial list.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::sys {

struct ImageLimits {
  uint64_t max_file = uint64_t{1} << 31;       // the image file itself
  uint64_t max_members = 200000;               // a Debian 12 image with firmware has ~2500
  uint64_t max_unpacked = uint64_t{4} << 30;   // what the members declare, in all
  uint64_t ratio_floor = uint64_t{256} << 20;  // a compressed archive may unpack to
  uint64_t max_ratio = 64;                     // max(floor, ratio * its bytes)
  uint64_t max_read = 64 << 10;                // of one member whose content is asked for
  uint32_t max_archives = 16;
};

struct ImageArchive {
  uint64_t offset = 0;
  std::string compression;  // "none", "gzip", "xz", "lzma", "bzip2", "zstd", "lz4"
};

struct ImageMember {
  std::string path;  // normalized: no leading "./" or "/" ("usr/lib/modules/...")
  uint64_t size = 0;
  uint32_t mode = 0;
  uint32_t archive = 0;  // index into InitramfsImage::archives
};

struct InitramfsImage {
  std::vector<ImageArchive> archives;
  std::vector<ImageMember> members;  // in the order stored (a path may repeat: the last one wins)
  // The content asked for (WantContent), at most max_read bytes each; a path cut there is in `cut`.
  std::map<std::string, std::string, std::less<>> contents;
  std::vector<std::string> cut;
  bool stopped = false;  // the caller's StopWhen said so before the end

  const ImageMember* Find(std::string_view path) const;
};

struct ImageQuery {
  std::function<bool(std::string_view path)> want_content;      // null: none
  std::function<bool(const InitramfsImage& so_far)> stop_when;  // null: read to the end
  ImageLimits limits;
};

// `path` as the image is named in messages. kInvalidData for a corrupt image, kTooLarge past a
// limit, kIo when rocmtune-archive.so cannot be loaded.
Result<InitramfsImage> ReadInitramfsImage(int fd, std::string_view path, const ImageQuery& query = {});
// The image beneath `root`; kNotFound / kIo (EACCES: errno_value) as Root::OpenRegular says.
Result<InitramfsImage> ReadInitramfsImage(const Root& root, std::string_view rel, const ImageQuery& query = {});

}  // namespace rocmtune::sys
