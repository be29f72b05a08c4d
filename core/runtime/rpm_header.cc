#include "runtime/rpm_header.h"

#include <cstring>

#include <fmt/format.h>

namespace rocmtune::runtime {
namespace {

// rpm include/rpm/rpmtag.h rpmTagType; alignment as lib/header.cc typeAlign.
constexpr uint32_t kInt32Type = 4;
constexpr uint32_t kStringType = 6;
constexpr uint32_t kStringArrayType = 8;
constexpr uint32_t kI18nStringType = 9;
constexpr uint32_t kMaxType = 9;
constexpr uint32_t kTypeAlign[kMaxType + 1] = {1, 1, 1, 2, 4, 8, 1, 1, 1, 1};
constexpr uint32_t kBinType = 7;
constexpr uint32_t kMaxArrayCount = 0x000fffff;  // lib/header.cc HEADER_ARRAY_MAX
constexpr size_t kEntrySize = 16;

uint32_t BigEndian32(std::string_view bytes, size_t at) {
  auto byte = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + i])); };
  return byte(0) << 24 | byte(1) << 16 | byte(2) << 8 | byte(3);
}

std::string TagName(RpmTag tag) {
  switch (tag) {
    case RpmTag::kName: return "NAME (1000)";
    case RpmTag::kVersion: return "VERSION (1001)";
    case RpmTag::kRelease: return "RELEASE (1002)";
    case RpmTag::kEpoch: return "EPOCH (1003)";
    case RpmTag::kDirIndexes: return "DIRINDEXES (1116)";
    case RpmTag::kBasenames: return "BASENAMES (1117)";
    case RpmTag::kDirNames: return "DIRNAMES (1118)";
  }
  return fmt::format("tag {}", static_cast<uint32_t>(tag));
}

tl::unexpected<Error> Bad(std::string message) {
  return Fail(ErrorCode::kInvalidData, "rpm header: " + std::move(message));
}

bool Printable(std::string_view text) {
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return false;
  }
  return !text.empty();
}

}  // namespace

std::string RpmPackage::Evr() const {
  std::string evr = epoch ? fmt::format("{}:", *epoch) : std::string();
  return evr + version + "-" + release;
}

Result<RpmHeader> RpmHeader::Parse(std::string_view blob) {
  if (blob.size() < 8) return Bad(fmt::format("{} bytes, shorter than its two lengths", blob.size()));
  uint32_t il = BigEndian32(blob, 0);
  uint32_t dl = BigEndian32(blob, 4);
  if (il < 1 || il > kMaxEntries) return Bad(fmt::format("{} index entries, not 1 to {}", il, kMaxEntries));
  if (dl > kMaxData) return Bad(fmt::format("{} bytes of data, more than {}", dl, kMaxData));
  uint64_t size = 8 + uint64_t{kEntrySize} * il + dl;
  if (size != blob.size()) {
    return Bad(fmt::format("{} bytes, but 8 + 16 * {} entries + {} bytes of data make {}", blob.size(), il, dl, size));
  }
  std::vector<Entry> entries;
  entries.reserve(il);
  for (uint32_t i = 0; i < il; ++i) {
    size_t at = 8 + kEntrySize * i;
    Entry entry{BigEndian32(blob, at), BigEndian32(blob, at + 4), BigEndian32(blob, at + 8),
                BigEndian32(blob, at + 12)};
    // lib/header.cc hdrblobVerifyInfo: hdrchkType, hdrchkCount, hdrchkRange, hdrchkAlign, hdrchkArray.
    if (entry.type > kMaxType) return Bad(fmt::format("entry {} (tag {}) has type {}", i, entry.tag, entry.type));
    if (entry.count < 1 || entry.count > dl) {
      return Bad(fmt::format("entry {} (tag {}) counts {} items in {} bytes", i, entry.tag, entry.count, dl));
    }
    if (entry.type != kBinType && entry.count > kMaxArrayCount) {
      return Bad(
          fmt::format("entry {} (tag {}) counts {} items, more than {}", i, entry.tag, entry.count, kMaxArrayCount));
    }
    if (entry.offset > dl)
      return Bad(fmt::format("entry {} (tag {}) at offset {}, past {}", i, entry.tag, entry.offset, dl));
    if (entry.offset % kTypeAlign[entry.type] != 0) {
      return Bad(fmt::format("entry {} (tag {}) at offset {}, not aligned for type {}", i, entry.tag, entry.offset,
                             entry.type));
    }
    entries.push_back(entry);
  }
  return RpmHeader(blob.substr(8 + kEntrySize * il), std::move(entries));
}

Result<const RpmHeader::Entry*> RpmHeader::Find(RpmTag tag) const {
  const Entry* found = nullptr;
  for (const Entry& entry : entries_) {
    if (entry.tag != static_cast<uint32_t>(tag)) continue;
    if (found) return Bad(fmt::format("{} twice", TagName(tag)));
    found = &entry;
  }
  if (!found) return Fail(ErrorCode::kNotFound, fmt::format("rpm header: no {}", TagName(tag)));
  return found;
}

Result<std::string_view> RpmHeader::String(RpmTag tag) const {
  auto entry = Find(tag);
  if (!entry) return tl::unexpected(entry.error());
  uint32_t type = (*entry)->type;
  // STRING; some string tags are I18NSTRING (rpm lib/header.cc hdrchkTagType): its first string.
  if (type != kStringType && type != kI18nStringType) return Bad(fmt::format("{} has type {}", TagName(tag), type));
  if (type == kStringType && (*entry)->count != 1)
    return Bad(fmt::format("{} counts {} strings", TagName(tag), (*entry)->count));
  return ArrayString(tag, 0);
}

Result<std::string_view> RpmHeader::ArrayString(RpmTag tag, uint32_t index) const {
  auto entry = Find(tag);
  if (!entry) return tl::unexpected(entry.error());
  const Entry& e = **entry;
  if (e.type != kStringType && e.type != kStringArrayType && e.type != kI18nStringType) {
    return Bad(fmt::format("{} has type {}, not strings", TagName(tag), e.type));
  }
  if (index >= e.count) return Bad(fmt::format("{} has {} strings, no string {}", TagName(tag), e.count, index));
  size_t at = e.offset;
  for (uint32_t i = 0;; ++i) {
    const void* nul = at < data_.size() ? std::memchr(data_.data() + at, '\0', data_.size() - at) : nullptr;
    if (nul == nullptr) return Bad(fmt::format("{}: string {} has no NUL before the end of the data", TagName(tag), i));
    size_t end = static_cast<size_t>(static_cast<const char*>(nul) - data_.data());
    if (i == index) return data_.substr(at, end - at);
    at = end + 1;
  }
}

Result<uint32_t> RpmHeader::ArrayInt32(RpmTag tag, uint32_t index) const {
  auto entry = Find(tag);
  if (!entry) return tl::unexpected(entry.error());
  const Entry& e = **entry;
  if (e.type != kInt32Type) return Bad(fmt::format("{} has type {}, not INT32", TagName(tag), e.type));
  if (uint64_t{e.offset} + 4 * uint64_t{e.count} > data_.size()) {
    return Bad(fmt::format("{}: {} numbers at offset {} run past the data ({} bytes)", TagName(tag), e.count, e.offset,
                           data_.size()));
  }
  if (index >= e.count) return Bad(fmt::format("{} has {} numbers, no number {}", TagName(tag), e.count, index));
  return BigEndian32(data_, e.offset + 4 * size_t{index});
}

Result<RpmPackage> RpmHeader::Package() const {
  RpmPackage package;
  for (auto [tag, field] : {std::pair{RpmTag::kName, &package.name}, std::pair{RpmTag::kVersion, &package.version},
                            std::pair{RpmTag::kRelease, &package.release}}) {
    auto value = String(tag);
    if (!value) return tl::unexpected(value.error());
    if (!Printable(*value)) return Bad(fmt::format("{} is empty or holds a control byte", TagName(tag)));
    *field = std::string(*value);
  }
  auto epoch = ArrayInt32(RpmTag::kEpoch, 0);
  if (epoch) {
    package.epoch = *epoch;
  } else if (epoch.error().code != ErrorCode::kNotFound) {
    return tl::unexpected(epoch.error());
  }
  return package;
}

Result<std::string> RpmHeader::FilePath(uint32_t index) const {
  auto base = ArrayString(RpmTag::kBasenames, index);
  if (!base) return tl::unexpected(base.error());
  auto dir_index = ArrayInt32(RpmTag::kDirIndexes, index);
  if (!dir_index) return tl::unexpected(dir_index.error());
  auto dir = ArrayString(RpmTag::kDirNames, *dir_index);
  if (!dir) return tl::unexpected(dir.error());
  return std::string(*dir) + std::string(*base);
}

}  // namespace rocmtune::runtime
