// RpmHeader: one package's header as rpm stores it in its database (rpmdb.sqlite's
// Packages.blob): the "header blob" without the 8-byte magic of a package file. Big-endian:
//   int32 il, int32 dl, il index entries {int32 tag, type, offset, count}, dl bytes of data
// (rpm lib/header.cc hdrblobInit, hdrblobVerifyInfo; docs/manual/format_header.md). Every entry
// read is checked as rpm checks it: a known type, a count of at least 1 and at most dl, an offset
// within the data and aligned for its type, its data (strings NUL-terminated) within the data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace rocmtune::runtime {

// rpm include/rpm/rpmtag.h.
enum class RpmTag : uint32_t {
  kName = 1000,
  kVersion = 1001,
  kRelease = 1002,
  kEpoch = 1003,
  kDirIndexes = 1116,
  kBasenames = 1117,
  kDirNames = 1118,
};

struct RpmPackage {
  std::string name;
  std::string version;
  std::string release;
  std::optional<uint32_t> epoch;
  // "6.3.1-1.fc42", "1:6.3.1-1.fc42" with an epoch (as rpm -q --qf '%{EVR}' prints it).
  std::string Evr() const;
};

class RpmHeader {
 public:
  // rpm's own bounds (lib/header.cc HEADER_TAGS_MAX, HEADER_DATA_MAX): no more entries or data.
  static constexpr uint32_t kMaxEntries = 0xffff;
  static constexpr uint32_t kMaxData = 0x0fffffff;

  // Checks the blob's size (exactly 8 + 16 * il + dl) and every entry's type, count, offset and
  // alignment. `blob` must outlive the header: it is not copied.
  static Result<RpmHeader> Parse(std::string_view blob);

  // NAME, VERSION, RELEASE (printable, not empty) and EPOCH (when present).
  Result<RpmPackage> Package() const;
  // File `index` of the package: DIRNAMES[DIRINDEXES[index]] + BASENAMES[index]
  // ("/usr/lib64/" + "libamdhip64.so.6").
  Result<std::string> FilePath(uint32_t index) const;

 private:
  struct Entry {
    uint32_t tag = 0;
    uint32_t type = 0;
    uint32_t offset = 0;
    uint32_t count = 0;
  };
  explicit RpmHeader(std::string_view data, std::vector<Entry> entries) : data_(data), entries_(std::move(entries)) {}
  Result<const Entry*> Find(RpmTag tag) const;
  Result<std::string_view> String(RpmTag tag) const;
  Result<std::string_view> ArrayString(RpmTag tag, uint32_t index) const;
  Result<uint32_t> ArrayInt32(RpmTag tag, uint32_t index) const;

  std::string_view data_;  // the dl bytes after the index
  std::vector<Entry> entries_;
};

}  // namespace rocmtune::runtime
