#include "daemon/boot_files_cache.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <string_view>

#include <fmt/format.h>

namespace rocmtune::daemon {
namespace {

constexpr std::string_view kWatched[] = {
    "efi",
    "boot/efi",
    "boot",
    "efi/loader",
    "boot/efi/loader",
    "boot/loader",
    "boot/loader/entries",
    "etc/kernel",
    "etc/kernel/cmdline",
    "etc/default/grub",
    "usr/lib/modules",
};

}  // namespace

std::string BootFilesCache::Fingerprint(const sys::Root& root) {
  std::string out;
  for (std::string_view rel : kWatched) {
    struct stat st {};
    auto fd = root.Open(rel, O_PATH | O_NOFOLLOW);
    if (!fd || ::fstat(fd->get(), &st) != 0) {
      out += fmt::format("{}:-;", rel);
      continue;
    }
    out += fmt::format("{}:{}:{}:{}.{}:{}.{};", rel, st.st_dev, st.st_ino, st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                       st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
  }
  return out;
}

Result<std::optional<sys::RootSupplement>> BootFilesCache::Get(const sys::Root& root, bool admitted) {
  const std::string now_seen = Fingerprint(root);
  std::lock_guard lock(mutex_);
  const Clock::time_point now = now_();
  if (valid_ && now_seen == fingerprint_ && now - read_at_ < kMaxAge) return files_;
  if (!admitted) {
    // Not admitted and nothing current kept: the daemon's own read, at most once an interval.
    if (unadmitted_read_at_ && now - *unadmitted_read_at_ < kUnadmittedInterval) {
      if (files_) return files_;  // older than the files may be, but what root last saw
      return Fail(ErrorCode::kBusy,
                  fmt::format("rocmtuned reads the root-only ESP for requests polkit has not admitted at most once "
                              "in {} s; ask again shortly, or as root",
                              kUnadmittedInterval.count()));
    }
    unadmitted_read_at_ = now;
  }
  ++reads_;
  auto files = read_();
  if (!files) return files;
  files_ = *files;
  fingerprint_ = now_seen;
  read_at_ = now;
  valid_ = true;
  return files_;
}

void BootFilesCache::Invalidate() {
  std::lock_guard lock(mutex_);
  valid_ = false;
}

unsigned BootFilesCache::Reads() const {
  std::lock_guard lock(mutex_);
  return reads_;
}

}  // namespace rocmtune::daemon
