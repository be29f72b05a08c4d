// rocmtuned's life: take the bus name, serve, and exit once idle (D-Bus activation starts it
// again), without losing a request that arrived while it was deciding to go.
#pragma once

#include <cstdint>
#include <string>

namespace rocmtune::daemon {

struct ServiceOptions {
  std::string root = "/";                                   // the tree served; a world in tests
  std::string helper_socket = "/run/rocmtune/helper.sock";  // where rocmtune-helper.socket listens
  uint64_t idle_usec = 30'000'000;                          // 0: never exit when idle
  // /dev/shm is the daemon's own (the unit's TemporaryFileSystem=/dev/shm, which it says with
  // ROCMTUNED_PRIVATE_SHM=1): rocm-smi-lib's child may use it where it cannot unshare(2).
  bool shm_is_private = false;
};

// Returns the process exit status: 0 after an idle exit or SIGTERM, 1 when the bus or the name
// cannot be had (printed on stderr, which journald keeps).
int RunService(const ServiceOptions& options);

}  // namespace rocmtune::daemon
