#include "sys/initramfs_image.h"

#include <sys/stat.h>

#include <array>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "sys/archive_module.h"
#include "sys/initrd_abi.h"

namespace rocmtune::sys {
namespace {

std::string_view Normalized(std::string_view path) {
  while (true) {
    if (path.starts_with("./")) {
      path.remove_prefix(2);
    } else if (path.starts_with('/')) {
      path.remove_prefix(1);
    } else {
      return path;
    }
  }
}

struct Visit {
  const ImageQuery* query = nullptr;
  InitramfsImage image;
};

void OnArchive(void* ctx, uint64_t offset, const char* compression) {
  static_cast<Visit*>(ctx)->image.archives.push_back({offset, compression});
}

InitrdAnswer OnMember(void* ctx, const InitrdMember* member) {
  auto* visit = static_cast<Visit*>(ctx);
  std::string_view path = Normalized(member->path);
  visit->image.members.push_back(
      {std::string(path), member->size > 0 ? static_cast<uint64_t>(member->size) : 0, member->mode, member->archive});
  const bool regular = (member->mode & S_IFMT) == S_IFREG;
  if (regular && visit->query->want_content && visit->query->want_content(path)) return InitrdAnswer::kRead;
  if (visit->query->stop_when && visit->query->stop_when(visit->image)) {
    visit->image.stopped = true;
    return InitrdAnswer::kStop;
  }
  return InitrdAnswer::kSkip;
}

void OnData(void* ctx, const InitrdMember* member, const char* data, size_t size, int cut) {
  auto* visit = static_cast<Visit*>(ctx);
  std::string path(Normalized(member->path));
  if (cut) visit->image.cut.push_back(path);
  visit->image.contents.insert_or_assign(std::move(path), std::string(data, size));
}

}  // namespace

const ImageMember* InitramfsImage::Find(std::string_view path) const {
  for (auto it = members.rbegin(); it != members.rend(); ++it)
    if (it->path == path) return &*it;
  return nullptr;
}

Result<InitramfsImage> ReadInitramfsImage(int fd, std::string_view path, const ImageQuery& query) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    return Fail(ErrorCode::kIo, fmt::format("{}: {}", path, std::strerror(err)), err);
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > query.limits.max_file)
    return Fail(ErrorCode::kTooLarge,
                fmt::format("{}: {} bytes, more than the {} read", path, size, query.limits.max_file));
  if (size == 0) return Fail(ErrorCode::kInvalidData, fmt::format("{}: empty", path));
  auto module = ArchiveModule::Load();
  if (!module) return Fail(ErrorCode::kIo, fmt::format("{}: {}", path, module.error().message));
  auto symbol = module->Symbol(kReadInitrdSymbol);
  if (!symbol) return tl::unexpected(symbol.error());
  auto read = reinterpret_cast<ReadInitrdFn>(*symbol);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
  const ImageLimits& l = query.limits;
  InitrdLimits limits{l.max_members, l.max_unpacked, l.ratio_floor, l.max_ratio == 0 ? 1 : l.max_ratio,
                      l.max_read,    l.max_archives};
  Visit visit{&query, {}};
  InitrdVisitor visitor{&visit, OnArchive, OnMember, OnData};
  std::array<char, 512> why{};
  switch (read(fd, size, &limits, &visitor, why.data(), why.size())) {
    case InitrdStatus::kOk: return std::move(visit.image);
    case InitrdStatus::kNoMemory: return Fail(ErrorCode::kIo, fmt::format("{}: libarchive: out of memory", path));
    case InitrdStatus::kLimit: return Fail(ErrorCode::kTooLarge, fmt::format("{}: {}", path, why.data()));
    case InitrdStatus::kFailed: break;
  }
  return Fail(ErrorCode::kInvalidData, fmt::format("{}: {}", path, why.data()));
}

Result<InitramfsImage> ReadInitramfsImage(const Root& root, std::string_view rel, const ImageQuery& query) {
  auto fd = root.OpenRegular(rel);
  if (!fd) return tl::unexpected(fd.error());
  return ReadInitramfsImage(fd->get(), root.Display(rel), query);
}

}  // namespace rocmtune::sys
