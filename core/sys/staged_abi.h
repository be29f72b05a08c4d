// The reader of ostree's staged deployment (/run/ostree/staged-deployment, sys/staged_deployment.h)
// in rocmtune-archive.so: GLib's GVariant is loaded with dlopen only when a staged deployment is
// read, never at a program's start (ctest `client.needed_libraries`). Both sides are built
// together from this header, so the interface is plain C data.
#pragma once

#include <cstddef>

namespace rocmtune::sys {

// What the module hands back, one call each: a string of the variant (`key` is the
// bootconfig-extra key for kExtra, null otherwise) or a flag (value null).
enum class StagedField : int {
  kTargetName,    // "target" {"name": "CSUM.SERIAL"}
  kTargetOsname,  // "target" {"osname": ...}
  kMergeName,     // "merge-deployment" {"name": ...}
  kMergeOsname,   // "merge-deployment" {"osname": ...}
  kKargs,         // "kargs" is there (value null), then once per argument
  kExtra,         // "bootconfig-extra" {key: value}
  kLocked,        // "locked" is true (value null)
};

struct StagedVisitor {
  void* ctx;
  void (*on_value)(void* ctx, StagedField field, const char* key, const char* value);
};

enum class StagedStatus : int { kOk, kNoMemory, kInvalid };

inline constexpr const char* kReadStagedSymbol = "RocmtuneReadStagedDeployment";

extern "C" {
// Reads `size` bytes as the GVariant ostree serialized. kInvalid: a message (NUL-terminated,
// possibly cut) is in `error` and the visitor may have been called for part of it.
StagedStatus RocmtuneReadStagedDeployment(const void* data, size_t size, const StagedVisitor* visitor, char* error,
                                          size_t error_size);
}
using ReadStagedFn = decltype(&RocmtuneReadStagedDeployment);

}  // namespace rocmtune::sys
