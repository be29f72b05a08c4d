// clang's offload bundles, as the .hip_fatbin section of a HIP program or library holds them:
// one bundle per translation unit, back to back, each uncompressed ("__CLANG_OFFLOAD_BUNDLE__")
// or compressed ("CCOB", zstd or zlib). Only the headers are read: the entry ids name the targets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace rocmtune::runtime {

// Up to `length` bytes of the section at `offset` (fewer at its end).
using ReadAt = std::function<Result<std::string>(uint64_t offset, size_t length)>;

struct BundleLimits {
  size_t max_bundles = 16;                // bundles looked at: every translation unit names the same targets
  size_t max_header_bytes = 1 << 20;      // of one bundle's header, decompressed
  size_t max_compressed_read = 16 << 20;  // compressed bytes fed to the decompressor for one header
};

// The entry ids of the bundles in a section of `size` bytes, in order, host entries included.
// Fails when the section does not start with a bundle or a bundle's header cannot be read.
Result<std::vector<std::string>> BundleEntryIds(const ReadAt& read, uint64_t size, const BundleLimits& limits = {});

// The GPU targets of the bundles in `section` (a whole .hip_fatbin), sorted, unique.
Result<std::vector<std::string>> BundleTargets(std::string_view section, const BundleLimits& limits = {});
// The same through `read`.
Result<std::vector<std::string>> BundleTargets(const ReadAt& read, uint64_t size, const BundleLimits& limits = {});

}  // namespace rocmtune::runtime
