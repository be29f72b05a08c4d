// The rpm header reader (runtime/rpm_header.h): one package's header blob as rpmdb.sqlite's
// Packages table holds it. Invariants: what is accepted is exactly 8 + 16 * il + dl bytes; a
// package it reads has a printable, non-empty name, version and release whose EVR ends in
// "version-release"; a file path it reads is a directory name followed by a base name, each a
// string of the blob; and nothing reads outside the input (ASan in the fuzz build).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "runtime/rpm_header.h"

using namespace rocmtune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A copy of exactly the input's bytes, so that ASan sees any read past them.
  const std::string blob(fuzz::AsText(data, size));
  auto header = runtime::RpmHeader::Parse(blob);
  if (!header) {
    if (header.error().message.empty()) __builtin_trap();
    return 0;
  }
  auto be32 = [&](size_t at) {
    return uint64_t{static_cast<unsigned char>(blob[at])} << 24 |
           uint64_t{static_cast<unsigned char>(blob[at + 1])} << 16 |
           uint64_t{static_cast<unsigned char>(blob[at + 2])} << 8 | uint64_t{static_cast<unsigned char>(blob[at + 3])};
  };
  if (blob.size() < 8 || 8 + 16 * be32(0) + be32(4) != blob.size()) __builtin_trap();
  auto package = header->Package();
  if (package) {
    for (const std::string* field : {&package->name, &package->version, &package->release}) {
      if (field->empty() || blob.find(*field) == std::string::npos) __builtin_trap();
      for (char c : *field) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) __builtin_trap();
      }
    }
    if (!package->Evr().ends_with(package->version + "-" + package->release)) __builtin_trap();
  } else if (package.error().message.empty()) {
    __builtin_trap();
  }
  for (uint32_t index : {0u, 1u, 2u, 7u, 0xfffffu, 0xffffffffu}) {
    auto path = header->FilePath(index);
    if (!path) {
      if (path.error().message.empty()) __builtin_trap();
      continue;
    }
    if (path->size() > blob.size()) __builtin_trap();  // two strings of the blob
  }
  return 0;
}
