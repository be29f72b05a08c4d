// Symlinks followed by hand beneath the root. sys::Root resolves them itself (openat2
// RESOLVE_IN_ROOT, an absolute target taken from the root), but it does not say where a path
// leads: a runtime's prefix is named by its real directory ("/opt/rocm -> /opt/rocm-6.3.1",
// "/opt/rocm/core -> /etc/alternatives/core -> /opt/rocm/core-7.15").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sys/root.h"

namespace rocmtune::runtime {

struct Resolved {
  std::string rel;                 // root-relative, no symlink left in it ("opt/rocm-6.3.1")
  std::vector<std::string> links;  // each link followed, absolute: "/opt/rocm -> /opt/rocm-6.3.1"
};

// `rel` (root-relative) with every symlink in it followed beneath the root: an absolute target is
// taken from the root, ".." stops at it. At most 40 links (the kernel's MAXSYMLINKS); kNotFound
// for a path that does not exist, kInvalidData for a loop.
Result<Resolved> ResolveInRoot(const sys::Root& root, std::string_view rel);

// "/" + rel: a root-relative path as the machine names it.
std::string Absolute(std::string_view rel);

}  // namespace rocmtune::runtime
