// The sandbox rocm-smi-lib's child enters before it loads the library. rocm-smi-lib
// 5.2 keeps a process-shared robust mutex per card in /dev/shm/rocm_smi_cardN, opens one that
// exists read-write and creates a missing one mode 0777: any user who makes or holds that file
// stalls the probe, reads the robust-list pointers glibc writes into it and can make glibc's
// unlink write where they point. So the child gets a /dev/shm of its own (a fresh tmpfs in a new
// mount namespace) and keeps no privilege it does not need: an unprivileged uid, no supplementary
// groups, no capabilities in any set (the bounding set too, wherever the process may empty it),
// no_new_privs, not dumpable. Without a private /dev/shm the library is not loaded at all.
#pragma once

#include <sys/types.h>

#include <string>

#include "util/result.h"

namespace rocmtune::sys {

// The system account rocm-smi-lib's child runs as when root starts it (sysusers.d/rocmtune.conf):
// an account of its own, so no other service's processes, files or /dev/shm objects share its uid
// (round-3 review: "nobody" is shared by every service that drops to it).
inline constexpr const char* kProbeUser = "rocmtune-smi";

struct SandboxOptions {
  // The uid and gid root drops to (ProbeSandboxOptions: kProbeUser, else "nobody"). A caller
  // that is not root keeps its own uid.
  uid_t uid = 65534;
  gid_t gid = 65534;
  // The caller vouches that /dev/shm is already its own: rocmtuned under its unit
  // (TemporaryFileSystem=/dev/shm), where RestrictNamespaces= forbids unshare(2). Used only when
  // unshare fails; without it that failure is the error.
  bool shm_is_private = false;
};

// What the sandbox reads back from the kernel after entering it (and what the tests check).
struct SandboxState {
  uid_t ruid = 0, euid = 0, suid = 0;
  gid_t rgid = 0, egid = 0, sgid = 0;
  int supplementary_groups = 0;
  uint64_t effective = 0, permitted = 0, inheritable = 0, ambient = 0, bounding = 0;  // capability masks
  bool no_new_privs = false;
  bool private_shm = false;  // a tmpfs of our own was mounted on /dev/shm
};

// The options for rocm-smi-lib's child: kProbeUser's uid and gid when that account exists, else
// nobody's (65534; an install without the account, a test machine). Looked up in the parent:
// after fork() in a threaded process (rocmtuned) NSS may not be called.
SandboxOptions ProbeSandboxOptions(bool shm_is_private);

// Reads the current process's credentials and capability sets.
Result<SandboxState> ReadSandboxState();

// Enters the sandbox, for good: call it only in a child process that will _exit. The error says
// what could not be done, "no private /dev/shm for rocm-smi-lib: unshare: Operation not
// permitted"; the caller then must not load the library.
Result<SandboxState> EnterSandbox(const SandboxOptions& options = {});

}  // namespace rocmtune::sys
