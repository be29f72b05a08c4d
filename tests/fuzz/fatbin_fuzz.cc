// The offload bundle reader (runtime/bundle.h): the bytes of a .hip_fatbin section, uncompressed
// or compressed bundles back to back. Invariants: it never reads more than it may (a compressed
// bundle's header is inflated up to the limit, no further), and what it accepts are targets
// sorted and unique, each a whole target name (runtime::TargetAtStart gives it back), read from
// entry ids the same call lists.
#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/bundle.h"
#include "runtime/code_names.h"

using namespace rocmtune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string section(reinterpret_cast<const char*>(data), size);
  runtime::BundleLimits limits;
  limits.max_bundles = 4;
  limits.max_header_bytes = 64 << 10;
  limits.max_compressed_read = 256 << 10;
  uint64_t asked = 0;
  runtime::ReadAt read = [&](uint64_t offset, size_t length) -> Result<std::string> {
    if (offset > section.size()) __builtin_trap();  // the reader asks only within the section
    asked += length;
    return section.substr(offset, length);
  };
  auto targets = runtime::BundleTargets(read, section.size(), limits);
  // Per bundle: the magic, a header read doubling up to the limit, or the compressed data up to its bound.
  if (asked > limits.max_bundles * (64 + 2 * limits.max_header_bytes + limits.max_compressed_read + (64 << 10))) {
    __builtin_trap();
  }
  if (!targets) {
    if (targets.error().message.empty()) __builtin_trap();
    return 0;
  }
  for (size_t i = 0; i < targets->size(); ++i) {
    const std::string& target = (*targets)[i];
    if (i > 0 && !((*targets)[i - 1] < target)) __builtin_trap();
    auto again = runtime::TargetAtStart(target);
    if (!again || *again != target) __builtin_trap();
  }
  auto ids = runtime::BundleEntryIds(read, section.size(), limits);
  if (!ids) __builtin_trap();  // the same bytes read the same way
  size_t with_targets = 0;
  for (const std::string& id : *ids) with_targets += runtime::BundleEntryTarget(id).has_value();
  if (with_targets < targets->size()) __builtin_trap();
  return 0;
}
