// The cpio headers of an initramfs checked before libarchive reads them (sys/initrd_module.cc):
// libarchive 3.6's cpio reader reserves a member's declared name size, and a symlink's declared
// size, before it reads them (archive_read_support_format_cpio.c: __archive_read_ahead of
// namelength + name_pad, and of entry_bytes_remaining for a link target), so a corrupt header asks
// malloc for up to 4 GiB. NewcGuard sees the bytes of one archive as they are handed to
// libarchive, finds each header at the offset the previous one leads to, and refuses one whose
// name or data is larger than what the archive can still hold, or that is not the newc format the
// kernel unpacks (init/initramfs.c do_header: "070701"/"070702"; any other magic is an error
// there). After the TRAILER!!! member it looks no further (what follows is padding or the next
// archive). Part of rocmtune-archive.so: libc only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace rocmtune::sys {

class NewcGuard {
 public:
  // `capacity`: how many bytes this archive can hold in all (the file's bytes left for a plain
  // archive, the unpacking bound for a compressed one).
  explicit NewcGuard(uint64_t capacity) : capacity_(capacity) {}

  // The next `size` bytes of the archive; false when a header among them is refused (error()).
  bool Feed(const char* data, size_t size);
  // How many of `request` bytes may be skipped without reading: none past the next header.
  uint64_t SkippableOf(uint64_t request) const;
  // Bytes skipped (SkippableOf's answer at most).
  void Skipped(uint64_t n) { pos_ += n; }

  const std::string& error() const { return error_; }
  // The error is a size past the capacity (not a header that is not newc).
  bool over_capacity() const { return over_; }

 private:
  bool HeaderDone();

  uint64_t capacity_;
  uint64_t pos_ = 0;          // bytes of the archive seen
  uint64_t next_header_ = 0;  // where the next header starts
  std::string header_;        // the header (and a possible trailer's name) collected so far
  uint64_t want_ = 0;         // bytes of header_ needed: 110, then 110 + 11 for a trailer's name
  bool trailer_ = false;      // past TRAILER!!!: nothing more is checked
  std::string error_;
  bool over_ = false;
};

}  // namespace rocmtune::sys
