// Who may talk to rocmtune-helper through rocmtune-helper.socket: root and rocmtuned's own user
// (daemon_account.h), nothing else. The socket's mode (0660 root:rocmtune) is the first fence,
// this the second: a socket whose mode an admin widened still serves no one else.
#pragma once

#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::helper {

// The peer of the connected socket `fd` (SO_PEERCRED: its credentials when it connected) is uid
// 0 or the uid `accounts`' etc/passwd gives the daemon's user; otherwise kNotAuthorized with a
// message that names the peer's uid and who is accepted. `accounts` is the running system's root
// ("/", also when the helper writes a --root tree): the peer's uid is a uid of this kernel.
Result<void> CheckPeer(int fd, const sys::Root& accounts);

}  // namespace rocmtune::helper
