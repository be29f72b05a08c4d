// ostree's staged deployment (/run/ostree/staged-deployment, sys/staged_deployment.h: a GVariant
// read by GLib in rocmtune-archive.so). Invariants: any bytes give a deployment or an error naming
// the file, never a crash; a deployment read has a name and OS that are one path component each,
// strings without NUL, and its arguments are the ones the same bytes hold.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "sys/staged_deployment.h"

using namespace rocmtune;

namespace {

bool Component(const std::string& s) {
  return !s.empty() && s != "." && s != ".." && s.find('/') == std::string::npos && s.find('\0') == std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(fuzz::AsText(data, size));
  auto staged = sys::ParseStagedDeployment(bytes, "/run/ostree/staged-deployment");
  if (!staged) {
    if (staged.error().message.find("/run/ostree/staged-deployment") == std::string::npos) __builtin_trap();
    return 0;
  }
  if (size > sys::kMaxStagedBytes) __builtin_trap();
  if (!Component(staged->name) || !Component(staged->osname)) __builtin_trap();
  if (!staged->merge_name.empty() && (!Component(staged->merge_name) || !Component(staged->merge_osname)))
    __builtin_trap();
  // GVariant strings in normal form are NUL-terminated with no NUL inside, and are bytes of the input.
  if (staged->kargs)
    for (const std::string& k : *staged->kargs)
      if (k.find('\0') != std::string::npos || (!k.empty() && bytes.find(k) == std::string::npos)) __builtin_trap();
  for (const auto& [key, value] : staged->bootconfig_extra)
    if (key.find('\0') != std::string::npos || value.find('\0') != std::string::npos) __builtin_trap();
  return 0;
}
