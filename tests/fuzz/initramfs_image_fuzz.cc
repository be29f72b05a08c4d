// The initramfs image reader (sys/initramfs_image.h: rocmtune-archive.so, libarchive): any bytes
// as an image file. Invariants: it answers (an image or an error, never a crash); what it lists
// stays within its limits; archives start at increasing offsets inside the file, a cpio one on
// the kernel's 4-byte grid; every member names one of them; content is given only for members
// asked for, at most max_read bytes, and `cut` names only those.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

#include "sys/initramfs_image.h"
#include "sys/unique_fd.h"

using namespace rocmtune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sys::UniqueFd fd(::memfd_create("initramfs-fuzz", MFD_CLOEXEC));
  if (!fd.valid()) __builtin_trap();
  for (size_t done = 0; done < size;) {
    ssize_t n = ::write(fd.get(), data + done, size - done);
    if (n <= 0) __builtin_trap();
    done += static_cast<size_t>(n);
  }
  sys::ImageQuery query;
  query.limits.max_members = 512;
  query.limits.max_unpacked = 8 << 20;
  query.limits.ratio_floor = 1 << 20;
  query.limits.max_ratio = 16;
  query.limits.max_read = 256;
  query.limits.max_archives = 8;
  query.want_content = [](std::string_view path) { return path.starts_with("etc/"); };
  auto image = sys::ReadInitramfsImage(fd.get(), "fuzz.img", query);
  if (!image) {
    if (image.error().message.empty()) __builtin_trap();
    return 0;
  }
  if (image->members.size() > query.limits.max_members || image->archives.size() > query.limits.max_archives)
    __builtin_trap();
  uint64_t total = 0;
  for (size_t i = 0; i < image->archives.size(); ++i) {
    const sys::ImageArchive& a = image->archives[i];
    if (a.offset >= size || (i > 0 && a.offset <= image->archives[i - 1].offset)) __builtin_trap();
    if (a.compression == "none" && a.offset % 4 != 0) __builtin_trap();
    if (a.compression != "none" && i + 1 != image->archives.size()) __builtin_trap();  // reading stops after it
  }
  for (const sys::ImageMember& m : image->members) {
    if (m.archive >= image->archives.size() || m.path.starts_with('/') || m.path.starts_with("./")) __builtin_trap();
    total += m.size;
  }
  if (total > query.limits.max_unpacked) __builtin_trap();
  for (const auto& [path, content] : image->contents)
    if (!path.starts_with("etc/") || content.size() > query.limits.max_read || !image->Find(path)) __builtin_trap();
  for (const std::string& path : image->cut)
    if (!image->contents.count(path)) __builtin_trap();
  return 0;
}
