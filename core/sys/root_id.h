// Which directory a root is, as the kernel knows it: a path can be pointed elsewhere between two
// opens, the (device, inode) pair of a directory held open cannot. A plan carries the id of the
// root it was made for, and the helper writes only into that one.
#pragma once

#include <cstdint>

namespace rocmtune::sys {

struct RootId {
  uint64_t dev = 0;
  uint64_t ino = 0;
  bool operator==(const RootId&) const = default;
};

}  // namespace rocmtune::sys
