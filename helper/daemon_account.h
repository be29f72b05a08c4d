// rocmtuned's system account (sysusers.d/rocmtune.conf): the one user besides root the helper's
// socket serves, and the group that may read the helper's journal and lock. Both are looked up
// in account files (etc/passwd, etc/group as passwd(5) and group(5) lay them out) read through a
// Root: the user in the running system's (a peer's uid is this kernel's; peer_check.h), the
// group in those of the tree whose files get it (an image carries its own). On the live system
// that is what systemd-sysusers wrote. No NSS: an LDAP or NIS name must not decide who may hand
// the helper a plan.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string_view>

#include "sys/root.h"

namespace rocmtune::helper {

// The daemon's user and group name (User=, Group= in rocmtuned.service).
inline constexpr std::string_view kDaemonAccount = "rocmtune";

// The id (third field) of `name` in the text of a passwd(5) or group(5) file; nullopt when no
// line names it or its id is not a plain decimal number. The first line that names it wins, as
// getpwnam(3) reads the file.
std::optional<uint32_t> AccountIdIn(std::string_view text, std::string_view name);

// The daemon user's uid in `root`'s etc/passwd; nullopt when the file cannot be read or names no
// such user.
std::optional<uid_t> DaemonUid(const sys::Root& root);
// The daemon group's gid in `root`'s etc/group; nullopt likewise.
std::optional<gid_t> DaemonGid(const sys::Root& root);

}  // namespace rocmtune::helper
