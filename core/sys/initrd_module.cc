// The initramfs image reader in rocmtune-archive.so (sys/initrd_abi.h): libc and libarchive only.
//
// The layout is the kernel's (init/initramfs.c, unpack_to_rootfs): archives back to back, each a
// newc cpio ("070701", at an offset that is a multiple of 4) or compressed data whose decompressed
// stream is cpio; zero bytes between them are skipped. The tools write exactly that: dracut
// (dracut.sh, `--early-microcode`) and mkinitcpio's microcode hook write an uncompressed early cpio
// (kernel/x86/microcode/AuthenticAMD.bin, dracut's `early_cpio` marker) and append the compressed
// main archive; initramfs-tools' mkinitramfs writes the hooks' prepend_earlyinitramfs files, then
// `find . | cpio -o -H newc | $compress >> $outfile`. cpio pads each archive with zeros to a
// 512-byte block.
//
// Reading stops after the first compressed archive: libarchive does not say how many compressed
// bytes its decompressor used, so where a next archive would start is not known. Only
// initramfs-tools' catenate_cpiogz appends anything there, and no hook of Debian 12 calls it.
// Every cpio header passes a NewcGuard (sys/newc_guard.h) before libarchive parses it: a plain
// archive's bytes on their way from the file, a compressed one's as libarchive's "raw" format
// decompresses them for the cpio reader, so a declared name or size larger than the archive can
// hold is refused before libarchive reserves memory for it.
//
// libarchive's own decompressors only (zlib, liblzma, libbz2, liblz4, libzstd; lz4's legacy
// frame, which the kernel and `lz4 -l` use, included): a filter libarchive would run as an
// external program is never registered.
#include <archive.h>
#include <archive_entry.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

#include "sys/initrd_abi.h"
#include "sys/newc_guard.h"
#include "util/handle.h"

namespace rocmtune::sys {
namespace {

using ReadArchive = Handle<archive*, archive_read_free>;

constexpr size_t kChunk = 64 << 10;

// The file from `pos`; a plain archive's bytes pass its NewcGuard on the way to libarchive.
struct Source {
  int fd;
  uint64_t pos;  // the next byte to hand to libarchive
  uint64_t end;
  std::vector<char> buf;
  NewcGuard* guard = nullptr;
};

la_ssize_t ReadSource(archive* a, void* client, const void** out) {
  auto* s = static_cast<Source*>(client);
  if (s->pos >= s->end) return 0;
  size_t want = static_cast<size_t>(std::min<uint64_t>(s->buf.size(), s->end - s->pos));
  ssize_t n;
  do {
    n = ::pread(s->fd, s->buf.data(), want, static_cast<off_t>(s->pos));
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    archive_set_error(a, errno, "read at %llu: %s", static_cast<unsigned long long>(s->pos), std::strerror(errno));
    return -1;
  }
  if (s->guard && !s->guard->Feed(s->buf.data(), static_cast<size_t>(n))) {
    archive_set_error(a, EINVAL, "%s", s->guard->error().c_str());
    return -1;
  }
  s->pos += static_cast<uint64_t>(n);
  *out = s->buf.data();
  return n;
}

la_int64_t SkipSource(archive*, void* client, la_int64_t request) {
  auto* s = static_cast<Source*>(client);
  if (request <= 0) return 0;
  uint64_t n = std::min<uint64_t>(static_cast<uint64_t>(request), s->end - s->pos);
  if (s->guard) {
    n = s->guard->SkippableOf(n);  // never past a header the guard has not seen
    s->guard->Skipped(n);
  }
  s->pos += n;
  return static_cast<la_int64_t>(n);
}

// A compressed archive's decompressed bytes (libarchive's "raw" format over its filters), passed
// through its NewcGuard to the cpio reader.
struct Unpacked {
  archive* raw;
  NewcGuard* guard;
  std::vector<char> buf;
};

la_ssize_t ReadUnpacked(archive* a, void* client, const void** out) {
  auto* u = static_cast<Unpacked*>(client);
  la_ssize_t n = archive_read_data(u->raw, u->buf.data(), u->buf.size());
  if (n < 0) {
    const char* why = archive_error_string(u->raw);
    archive_set_error(a, EINVAL, "%s", why ? why : "decompression failed");
    return -1;
  }
  if (!u->guard->Feed(u->buf.data(), static_cast<size_t>(n))) {
    archive_set_error(a, EINVAL, "%s", u->guard->error().c_str());
    return -1;
  }
  *out = u->buf.data();
  return n;
}

class Reader {
 public:
  Reader(int fd, uint64_t size, const InitrdLimits& limits, const InitrdVisitor& visitor, char* error,
         size_t error_size)
      : fd_(fd), size_(size), limits_(limits), visitor_(visitor), error_(error), error_size_(error_size) {}

  InitrdStatus Run() {
    uint64_t offset = 0;
    for (uint32_t index = 0;; ++index) {
      auto next = SkipZeros(offset);
      if (!next) return InitrdStatus::kFailed;
      offset = *next;
      if (offset >= size_) return InitrdStatus::kOk;
      if (index >= limits_.max_archives)
        return Fail(InitrdStatus::kLimit, "more than %u archives back to back", limits_.max_archives);
      char first = 0;
      if (::pread(fd_, &first, 1, static_cast<off_t>(offset)) != 1)
        return Fail(InitrdStatus::kFailed, "read at %llu: %s", Ull(offset), std::strerror(errno));
      // The kernel takes a '0' at a multiple of 4 for a cpio header; anything else is compressed.
      const bool plain = first == '0' && offset % 4 == 0;
      uint64_t used = 0;
      InitrdStatus status = ReadArchiveAt(offset, index, plain, used);
      if (status != InitrdStatus::kOk || stopped_ || !plain) return status;
      if (used == 0) return Fail(InitrdStatus::kFailed, "archive at offset %llu: empty", Ull(offset));
      offset += used;
    }
  }

 private:
  template <typename... Args>
  InitrdStatus Fail(InitrdStatus status, const char* format, Args... args) {
    if (error_size_ > 0) std::snprintf(error_, error_size_, format, args...);
    return status;
  }
  static unsigned long long Ull(uint64_t v) { return static_cast<unsigned long long>(v); }

  // The first byte at or after `offset` that is not zero (size_ when none is).
  std::optional<uint64_t> SkipZeros(uint64_t offset) {
    std::vector<char> buf(kChunk);
    while (offset < size_) {
      size_t want = static_cast<size_t>(std::min<uint64_t>(buf.size(), size_ - offset));
      ssize_t n = ::pread(fd_, buf.data(), want, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        Fail(InitrdStatus::kFailed, "read at %llu: %s", Ull(offset), n < 0 ? std::strerror(errno) : "file shrank");
        return std::nullopt;
      }
      auto* nonzero = std::find_if(buf.data(), buf.data() + n, [](char c) { return c != 0; });
      if (nonzero != buf.data() + n) return offset + static_cast<uint64_t>(nonzero - buf.data());
      offset += static_cast<uint64_t>(n);
    }
    return size_;
  }

  // Only decompressors libarchive links: a missing library would make it run an external program.
  static void AddFilters(archive* a) {
    if (archive_zlib_version()) archive_read_support_filter_gzip(a);
    if (archive_liblzma_version()) {
      archive_read_support_filter_xz(a);
      archive_read_support_filter_lzma(a);
    }
    if (archive_bzlib_version()) archive_read_support_filter_bzip2(a);
    if (archive_liblz4_version()) archive_read_support_filter_lz4(a);
    if (archive_libzstd_version()) archive_read_support_filter_zstd(a);
  }

  // Past the file's end a plain archive is corrupt; past what a compressed one may unpack to
  // (ratio_floor, max_ratio), a limit.
  InitrdStatus GuardFailed(uint64_t offset, const NewcGuard& guard, bool plain) {
    if (plain || !guard.over_capacity())
      return Fail(InitrdStatus::kFailed, "archive at offset %llu: %s", Ull(offset), guard.error().c_str());
    return Fail(InitrdStatus::kLimit,
                "archive at offset %llu: %s, which a compressed archive may unpack to (%llu times its %llu bytes, "
                "at least %llu)",
                Ull(offset), guard.error().c_str(), Ull(limits_.max_ratio), Ull(size_ - offset),
                Ull(limits_.ratio_floor));
  }

  InitrdStatus LibarchiveFailed(archive* a, uint64_t offset, const char* what) {
    const char* why = archive_error_string(a);
    return Fail(InitrdStatus::kFailed, "archive at offset %llu: %s: %s", Ull(offset), what,
                why ? why : "libarchive failed");
  }

  InitrdStatus ReadArchiveAt(uint64_t offset, uint32_t index, bool plain, uint64_t& used) {
    // A compressed archive unpacks to at most ratio times what is left of the file.
    const uint64_t left = size_ - offset;
    const uint64_t bound =
        plain ? left
              : std::max(limits_.ratio_floor,
                         left > UINT64_MAX / limits_.max_ratio ? UINT64_MAX : left * limits_.max_ratio);
    NewcGuard guard(bound);
    Source source{fd_, offset, size_, std::vector<char>(kChunk), plain ? &guard : nullptr};
    // Compressed: libarchive's "raw" format decompresses, the cpio reader below reads its bytes.
    ReadArchive raw;
    std::optional<Unpacked> unpacked_source;
    const char* compression = "none";
    if (!plain) {
      raw = ReadArchive(archive_read_new());
      if (!raw) return InitrdStatus::kNoMemory;
      archive_read_support_format_raw(raw.get());
      AddFilters(raw.get());
      archive_read_set_callback_data(raw.get(), &source);
      archive_read_set_read_callback(raw.get(), ReadSource);
      archive_read_set_skip_callback(raw.get(), SkipSource);
      archive_entry* entry = nullptr;
      if (archive_read_open1(raw.get()) != ARCHIVE_OK || archive_read_next_header(raw.get(), &entry) != ARCHIVE_OK)
        return LibarchiveFailed(raw.get(), offset, "not compressed cpio libarchive reads");
      // libarchive reads uncompressed data through its "none" filter; the kernel takes data that
      // is not a header on the grid for compressed, and fails on it when no decompressor knows it.
      if (archive_filter_code(raw.get(), 0) == ARCHIVE_FILTER_NONE)
        return Fail(InitrdStatus::kFailed,
                    "archive at offset %llu: neither a cpio header at a multiple of 4 nor "
                    "compressed data",
                    Ull(offset));
      compression = archive_filter_name(raw.get(), 0);
      unpacked_source.emplace(Unpacked{raw.get(), &guard, std::vector<char>(kChunk)});
    }
    ReadArchive a(archive_read_new());
    if (!a) return InitrdStatus::kNoMemory;
    archive_read_support_format_cpio(a.get());
    if (plain) {
      archive_read_set_callback_data(a.get(), &source);
      archive_read_set_read_callback(a.get(), ReadSource);
      archive_read_set_skip_callback(a.get(), SkipSource);
    } else {
      archive_read_set_callback_data(a.get(), &*unpacked_source);
      archive_read_set_read_callback(a.get(), ReadUnpacked);
    }
    if (archive_read_open1(a.get()) != ARCHIVE_OK) {
      if (!guard.error().empty()) return GuardFailed(offset, guard, plain);
      return LibarchiveFailed(a.get(), offset, plain ? "not a cpio archive" : "not compressed cpio libarchive reads");
    }
    visitor_.on_archive(visitor_.ctx, offset, compression ? compression : "unknown");
    uint64_t unpacked = 0;
    std::vector<char> data;
    for (;;) {
      archive_entry* entry = nullptr;
      int r = archive_read_next_header(a.get(), &entry);
      if (r == ARCHIVE_EOF) break;
      // ARCHIVE_WARN too: libarchive skipped bytes to find a header, which the kernel never does.
      if (r != ARCHIVE_OK) {
        if (!guard.error().empty()) return GuardFailed(offset, guard, plain);
        return LibarchiveFailed(a.get(), offset, "corrupt");
      }
      if (++members_ > limits_.max_members)
        return Fail(InitrdStatus::kLimit, "more than %llu members", Ull(limits_.max_members));
      const la_int64_t size = archive_entry_size(entry);
      const uint64_t declared = size > 0 ? static_cast<uint64_t>(size) : 0;
      unpacked += declared;
      total_ += declared;
      if (total_ > limits_.max_unpacked)
        return Fail(InitrdStatus::kLimit, "members larger than %llu bytes in all", Ull(limits_.max_unpacked));
      if (unpacked > bound)
        return Fail(InitrdStatus::kLimit, "archive at offset %llu: members of %llu bytes from %llu bytes", Ull(offset),
                    Ull(unpacked), Ull(left));
      const char* path = archive_entry_pathname(entry);
      InitrdMember member{path ? path : "", size, static_cast<uint32_t>(archive_entry_mode(entry)), index};
      InitrdAnswer answer = visitor_.on_member(visitor_.ctx, &member);
      if (answer == InitrdAnswer::kStop) {
        stopped_ = true;
        return InitrdStatus::kOk;
      }
      if (answer != InitrdAnswer::kRead) continue;
      data.resize(static_cast<size_t>(std::min<uint64_t>(declared, limits_.max_read)));
      size_t got = 0;
      while (got < data.size()) {
        la_ssize_t n = archive_read_data(a.get(), data.data() + got, data.size() - got);
        if (n < 0) {
          if (!guard.error().empty()) return GuardFailed(offset, guard, plain);
          return LibarchiveFailed(a.get(), offset, "corrupt member");
        }
        if (n == 0) break;
        got += static_cast<size_t>(n);
      }
      if (got < data.size()) return Fail(InitrdStatus::kFailed, "%s: cut short", member.path);
      visitor_.on_data(visitor_.ctx, &member, data.data(), got, declared > got ? 1 : 0);
    }
    used = static_cast<uint64_t>(archive_filter_bytes(a.get(), -1));
    return InitrdStatus::kOk;
  }

  int fd_;
  uint64_t size_;
  const InitrdLimits& limits_;
  const InitrdVisitor& visitor_;
  char* error_;
  size_t error_size_;
  uint64_t members_ = 0;
  uint64_t total_ = 0;
  bool stopped_ = false;
};

}  // namespace

extern "C" __attribute__((visibility("default"))) InitrdStatus RocmtuneReadInitrd(int fd, uint64_t size,
                                                                                  const InitrdLimits* limits,
                                                                                  const InitrdVisitor* visitor,
                                                                                  char* error, size_t error_size) {
  if (error_size > 0) error[0] = '\0';
  return Reader(fd, size, *limits, *visitor, error, error_size).Run();
}

}  // namespace rocmtune::sys
