// The offload bundle formats, from clang/lib/Driver/OffloadBundler.cpp and
// llvm/lib/Object/OffloadBundle.cpp (LLVM main):
//   uncompressed: "__CLANG_OFFLOAD_BUNDLE__", u64 entry count, then per entry u64 offset (from the
//     bundle's start), u64 size, u64 id length and the id; all little-endian.
//   compressed ("CCOB"): u16 version, u16 method (llvm::compression::Format: 0 zlib, 1 zstd), then
//     v1: u32 uncompressed size, u64 hash; v2: u32 total size, u32 uncompressed size, u64 hash;
//     v3: u64 total size, u64 uncompressed size, u64 hash; then the compressed uncompressed bundle.
//     The hash (truncated MD5 of the uncompressed bundle) is not checked: only a prefix is inflated.
// In a linked .hip_fatbin each translation unit's bundle starts 4096-aligned (the section's
// alignment in every object clang writes).
#include "runtime/bundle.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "runtime/code_names.h"
#include "util/handle.h"

namespace rocmtune::runtime {
namespace {

constexpr std::string_view kBundleMagic = "__CLANG_OFFLOAD_BUNDLE__";
constexpr std::string_view kCompressedMagic = "CCOB";
constexpr uint64_t kBundleAlignment = 4096;
// A HIP bundle holds the host entry and one per --offload-arch; thousands are no real bundle.
constexpr uint64_t kMaxBundleEntries = 1024;
constexpr uint64_t kMaxBundleIdLength = 1024;
constexpr size_t kBundleReadChunk = 64 << 10;

uint64_t LoadLe(std::string_view bytes, size_t at, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) value |= uint64_t{static_cast<unsigned char>(bytes[at + i])} << (8 * i);
  return value;
}

struct BundleHeader {
  bool complete = false;  // false: `bytes` ends within the header
  std::vector<std::string> ids;
  uint64_t end = 0;  // where the bundle's last entry ends, from its start
};

Result<BundleHeader> ParseBundleHeader(std::string_view bytes) {
  constexpr size_t kFixed = kBundleMagic.size() + 8;
  if (bytes.size() < kFixed) return BundleHeader{};
  uint64_t count = LoadLe(bytes, kBundleMagic.size(), 8);
  if (count == 0 || count > kMaxBundleEntries) {
    return Fail(ErrorCode::kInvalidData, fmt::format("its header claims {} entries", count));
  }
  BundleHeader header;
  size_t at = kFixed;
  for (uint64_t i = 0; i < count; ++i) {
    if (bytes.size() - at < 24) return BundleHeader{};
    uint64_t offset = LoadLe(bytes, at, 8);
    uint64_t size = LoadLe(bytes, at + 8, 8);
    uint64_t id_length = LoadLe(bytes, at + 16, 8);
    at += 24;
    if (id_length == 0 || id_length > kMaxBundleIdLength) {
      return Fail(ErrorCode::kInvalidData, fmt::format("entry {} has an id of {} bytes", i, id_length));
    }
    if (bytes.size() - at < id_length) return BundleHeader{};
    header.ids.emplace_back(bytes.substr(at, id_length));
    at += id_length;
    if (offset > std::numeric_limits<uint64_t>::max() - size) {
      return Fail(ErrorCode::kInvalidData, fmt::format("entry {} ends past 2^64 bytes", i));
    }
    header.end = std::max(header.end, offset + size);
  }
  header.end = std::max<uint64_t>(header.end, at);
  header.complete = true;
  return header;
}

struct Bundle {
  std::vector<std::string> ids;
  uint64_t size = 0;  // 0: unknown (a v1 compressed bundle does not say)
};

Result<Bundle> ReadUncompressedBundle(const ReadAt& read, uint64_t start, uint64_t size, const BundleLimits& limits) {
  const uint64_t room = size - start;
  size_t want = kBundleReadChunk;
  for (;;) {
    size_t length = static_cast<size_t>(std::min<uint64_t>({want, room, limits.max_header_bytes}));
    auto bytes = read(start, length);
    if (!bytes) return tl::unexpected(bytes.error());
    auto header = ParseBundleHeader(*bytes);
    if (!header) return tl::unexpected(header.error());
    if (header->complete) {
      if (header->end > room) {
        return Fail(ErrorCode::kInvalidData,
                    fmt::format("its entries reach byte {}, past the section's end {} bytes on (truncated)",
                                header->end, room));
      }
      return Bundle{std::move(header->ids), header->end};
    }
    if (bytes->size() < length || length == room) {
      return Fail(ErrorCode::kInvalidData, "it ends within its header: truncated");
    }
    if (length >= limits.max_header_bytes) {
      return Fail(ErrorCode::kTooLarge, fmt::format("its header is over {} bytes", limits.max_header_bytes));
    }
    want *= 2;
  }
}

class Decompressor {
 public:
  virtual ~Decompressor() = default;
  // Inflates `in` into `out` (at most up to `out_limit` bytes); true when the stream has ended.
  virtual Result<bool> Feed(std::string_view in, std::string& out, size_t out_limit) = 0;
};

class ZstdDecompressor final : public Decompressor {
 public:
  ZstdDecompressor() : context_(ZSTD_createDCtx()) {}
  Result<bool> Feed(std::string_view in, std::string& out, size_t out_limit) override {
    if (!context_) return Fail(ErrorCode::kIo, "cannot make a zstd context");
    ZSTD_inBuffer input{in.data(), in.size(), 0};
    while (out.size() < out_limit) {
      size_t old = out.size();
      size_t room = std::min(kBundleReadChunk, out_limit - old);
      out.resize(old + room);
      ZSTD_outBuffer output{out.data() + old, room, 0};
      size_t status = ZSTD_decompressStream(context_.get(), &output, &input);
      out.resize(old + output.pos);
      if (ZSTD_isError(status))
        return Fail(ErrorCode::kInvalidData, fmt::format("zstd: {}", ZSTD_getErrorName(status)));
      if (status == 0) return true;
      if (input.pos == input.size && output.pos < room) break;
    }
    return false;
  }

 private:
  Handle<ZSTD_DCtx*, ZSTD_freeDCtx> context_;
};

class ZlibDecompressor final : public Decompressor {
 public:
  ZlibDecompressor() : ready_(inflateInit(&stream_) == Z_OK) {}
  ~ZlibDecompressor() override {
    if (ready_) inflateEnd(&stream_);
  }
  ZlibDecompressor(const ZlibDecompressor&) = delete;
  ZlibDecompressor& operator=(const ZlibDecompressor&) = delete;

  Result<bool> Feed(std::string_view in, std::string& out, size_t out_limit) override {
    if (!ready_) return Fail(ErrorCode::kIo, "cannot make a zlib stream");
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    stream_.avail_in = static_cast<uInt>(in.size());
    while (out.size() < out_limit) {
      size_t old = out.size();
      size_t room = std::min(kBundleReadChunk, out_limit - old);
      out.resize(old + room);
      stream_.next_out = reinterpret_cast<Bytef*>(out.data() + old);
      stream_.avail_out = static_cast<uInt>(room);
      int status = inflate(&stream_, Z_NO_FLUSH);
      size_t produced = room - stream_.avail_out;
      out.resize(old + produced);
      if (status == Z_STREAM_END) return true;
      if (status != Z_OK && status != Z_BUF_ERROR) {
        return Fail(ErrorCode::kInvalidData, fmt::format("zlib: {}", stream_.msg ? stream_.msg : "inflate failed"));
      }
      if (stream_.avail_in == 0 && produced < room) break;
      if (produced == 0) break;  // no progress (Z_BUF_ERROR): wants input we do not have yet
    }
    return false;
  }

 private:
  z_stream stream_{};
  bool ready_ = false;
};

Result<Bundle> ReadCompressedBundle(const ReadAt& read, uint64_t start, uint64_t size, const BundleLimits& limits) {
  auto head = read(start, 32);
  if (!head) return tl::unexpected(head.error());
  if (head->size() < 8) return Fail(ErrorCode::kInvalidData, "it ends within its header: truncated");
  uint64_t version = LoadLe(*head, 4, 2);
  uint64_t method = LoadLe(*head, 6, 2);
  size_t header_size = 0;
  uint64_t total = 0;
  uint64_t uncompressed = 0;
  switch (version) {
    case 1: header_size = 20; break;
    case 2: header_size = 24; break;
    case 3: header_size = 32; break;
    default: return Fail(ErrorCode::kUnsupported, fmt::format("compressed bundle version {} is unknown", version));
  }
  if (head->size() < header_size) return Fail(ErrorCode::kInvalidData, "it ends within its header: truncated");
  if (version == 1) {
    uncompressed = LoadLe(*head, 8, 4);
  } else if (version == 2) {
    total = LoadLe(*head, 8, 4);
    uncompressed = LoadLe(*head, 12, 4);
  } else {
    total = LoadLe(*head, 8, 8);
    uncompressed = LoadLe(*head, 16, 8);
  }
  if (uncompressed < kBundleMagic.size() + 8) {
    return Fail(ErrorCode::kInvalidData,
                fmt::format("its uncompressed size of {} bytes holds no bundle", uncompressed));
  }
  std::unique_ptr<Decompressor> decompressor;
  if (method == 0) decompressor = std::make_unique<ZlibDecompressor>();
  if (method == 1) decompressor = std::make_unique<ZstdDecompressor>();
  if (!decompressor) return Fail(ErrorCode::kUnsupported, fmt::format("compression method {} is unknown", method));
  const uint64_t room = size - start;
  if (version > 1 && (total < header_size || total > room)) {
    return Fail(ErrorCode::kInvalidData,
                fmt::format("its header says {} bytes but the section has {} from there: truncated", total, room));
  }
  const uint64_t data_end = version > 1 ? start + total : size;
  const size_t out_limit = static_cast<size_t>(std::min<uint64_t>(limits.max_header_bytes, uncompressed));
  std::string out;
  uint64_t at = start + header_size;
  for (;;) {
    if (at >= data_end)
      return Fail(ErrorCode::kInvalidData, "its compressed data ends within the bundle header: truncated");
    if (at - start > limits.max_compressed_read) {
      return Fail(ErrorCode::kTooLarge,
                  fmt::format("no header in its first {} compressed bytes", limits.max_compressed_read));
    }
    auto chunk = read(at, static_cast<size_t>(std::min<uint64_t>(kBundleReadChunk, data_end - at)));
    if (!chunk) return tl::unexpected(chunk.error());
    if (chunk->empty()) return Fail(ErrorCode::kInvalidData, "its compressed data is cut short: truncated");
    at += chunk->size();
    auto ended = decompressor->Feed(*chunk, out, out_limit);
    if (!ended) return tl::unexpected(ended.error());
    if (!out.starts_with(kBundleMagic.substr(0, std::min(out.size(), kBundleMagic.size())))) {
      return Fail(ErrorCode::kInvalidData, "it does not inflate to an offload bundle");
    }
    auto header = ParseBundleHeader(out);
    if (!header) return tl::unexpected(header.error());
    if (header->complete) {
      if (header->end > uncompressed) {
        return Fail(ErrorCode::kInvalidData,
                    fmt::format("its entries reach byte {} of an uncompressed size of {}", header->end, uncompressed));
      }
      return Bundle{std::move(header->ids), total};
    }
    if (*ended) return Fail(ErrorCode::kInvalidData, "it inflates to less than its own header");
    if (out.size() >= out_limit) {
      return Fail(ErrorCode::kTooLarge, fmt::format("its header is over {} bytes", out_limit));
    }
  }
}

uint64_t AlignUp(uint64_t value, uint64_t alignment) {
  if (value > std::numeric_limits<uint64_t>::max() - alignment) return std::numeric_limits<uint64_t>::max();
  return (value + alignment - 1) / alignment * alignment;
}

}  // namespace

Result<std::vector<std::string>> BundleEntryIds(const ReadAt& read, uint64_t size, const BundleLimits& limits) {
  if (size == 0) return Fail(ErrorCode::kInvalidData, "the section is empty");
  std::vector<std::string> ids;
  uint64_t at = 0;
  for (size_t n = 0; n < limits.max_bundles && at < size; ++n) {
    auto magic = read(at, kBundleMagic.size());
    if (!magic) return tl::unexpected(magic.error());
    Result<Bundle> bundle;
    if (magic->starts_with(kBundleMagic)) {
      bundle = ReadUncompressedBundle(read, at, size, limits);
    } else if (magic->starts_with(kCompressedMagic)) {
      bundle = ReadCompressedBundle(read, at, size, limits);
    } else if (n == 0) {
      return Fail(ErrorCode::kInvalidData, "no offload bundle at the start of the section");
    } else {
      break;  // padding or something else: the bundles read so far are what is known
    }
    if (!bundle) {
      Error error = bundle.error();
      error.message = fmt::format("offload bundle at offset {}: {}", at, error.message);
      return tl::unexpected(std::move(error));
    }
    ids.insert(ids.end(), bundle->ids.begin(), bundle->ids.end());
    if (bundle->size == 0) break;
    at = AlignUp(at + bundle->size, kBundleAlignment);
  }
  return ids;
}

Result<std::vector<std::string>> BundleTargets(const ReadAt& read, uint64_t size, const BundleLimits& limits) {
  auto ids = BundleEntryIds(read, size, limits);
  if (!ids) return tl::unexpected(ids.error());
  std::set<std::string> targets;
  for (const std::string& id : *ids) {
    if (auto target = BundleEntryTarget(id)) targets.insert(std::move(*target));
  }
  return std::vector<std::string>(targets.begin(), targets.end());
}

Result<std::vector<std::string>> BundleTargets(std::string_view section, const BundleLimits& limits) {
  ReadAt read = [section](uint64_t offset, size_t length) -> Result<std::string> {
    if (offset >= section.size()) return std::string();
    return std::string(section.substr(offset, length));
  };
  return BundleTargets(read, section.size(), limits);
}

}  // namespace rocmtune::runtime
