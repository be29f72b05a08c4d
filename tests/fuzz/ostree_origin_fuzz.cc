// An ostree deployment's .origin (detect/ostree_boot.h: GKeyFile text any tool or admin may
// edit) and an argument of `rpm-ostree kargs` as the helper checks it (helper/ostree_rules.cc).
// Invariants: an origin reads without crashing into values with no newline or NUL and list items
// that are non-empty and hold no ';'; an argument the helper accepts has an inverse
// (plan::InverseRpmOstree), which the helper accepts too unless it puts a deleted token back,
// and whose inverse is the argument again.
#include <cstddef>
#include <cstdint>
#include <string>

#include "detect/ostree_boot.h"
#include "fuzz_support.h"
#include "helper/rules.h"
#include "plan/rpm_ostree_argv.h"

using namespace rocmtune;

namespace {

bool Clean(const std::string& s) { return s.find('\n') == std::string::npos && s.find('\0') == std::string::npos; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parts = fuzz::SplitInput(fuzz::AsText(data, size), 2);
  detect::OstreeOrigin origin = detect::ParseOstreeOrigin(parts[0]);
  if (origin.refspec && !Clean(*origin.refspec)) __builtin_trap();
  if (origin.container_image && !Clean(*origin.container_image)) __builtin_trap();
  for (const std::string& f : origin.initramfs_etc)
    if (f.empty() || !Clean(f) || f.find(';') != std::string::npos) __builtin_trap();
  if (parts.size() < 2) return 0;
  const std::vector<std::string> argv = {"rpm-ostree", "kargs", std::string(parts[1])};
  if (!helper::RpmOstreeKargsArgs(std::span(argv).subspan(1))) return 0;
  auto inverse = plan::InverseRpmOstree(argv);
  if (!inverse) __builtin_trap();
  // A deletion may name a token rocmtune would not write (its value no longer valid): only
  // what rocmtune adds or replaces must come back through the helper.
  if (!parts[1].starts_with(plan::kKargsDelete) && !helper::RpmOstreeKargsArgs(std::span(*inverse).subspan(1)))
    __builtin_trap();
  if (plan::InverseRpmOstree(*inverse) != argv) __builtin_trap();
  return 0;
}
