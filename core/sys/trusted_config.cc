#include "sys/trusted_config.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <fmt/format.h>

namespace rocmtune::sys {

Result<void> CheckTrusted(const Root& root, std::string_view rel, std::string_view why) {
  struct stat top {};
  if (::fstat(root.fd(), &top) != 0) return Fail(ErrorCode::kIo, fmt::format("{}: cannot stat the root", root.path()));
  auto fd = root.Open(rel, O_PATH | O_CLOEXEC);
  if (!fd) return tl::unexpected(fd.error());
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return Fail(ErrorCode::kIo, fmt::format("{}: cannot stat", root.Display(rel)));
  bool owner_ok = st.st_uid == 0 || (!root.IsLive() && st.st_uid == top.st_uid);
  if (!owner_ok)
    return Fail(ErrorCode::kInvalidData,
                fmt::format("{}: not used: owned by uid {}, not root ({})", root.Display(rel), st.st_uid, why));
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return Fail(ErrorCode::kInvalidData,
                fmt::format("{}: not used: group or others may write it (mode {:04o}); chmod go-w", root.Display(rel),
                            st.st_mode & 07777));
  return {};
}

Result<void> CheckTrustedFile(const Root& root, std::string_view rel, std::string_view why) {
  size_t slash = rel.rfind('/');
  if (slash != std::string_view::npos)
    if (auto dir = CheckTrusted(root, rel.substr(0, slash), why); !dir) return dir;
  return CheckTrusted(root, rel, why);
}

}  // namespace rocmtune::sys
