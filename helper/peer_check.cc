#include "helper/peer_check.h"

#include <sys/socket.h>

#include <cerrno>

#include <fmt/format.h>

#include "helper/daemon_account.h"

namespace rocmtune::helper {

Result<void> CheckPeer(int fd, const sys::Root& accounts) {
  struct ucred peer {};
  socklen_t len = sizeof(peer);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0)
    return Fail(ErrorCode::kNotAuthorized, "socket mode: stdin is not a connected socket", errno);
  if (peer.uid == 0) return {};
  // Looked up per connection, not cached: the helper serves one connection and exits.
  std::optional<uid_t> daemon = DaemonUid(accounts);
  if (daemon && peer.uid == *daemon) return {};
  std::string accepted =
      daemon
          ? fmt::format("the daemon's user {} (uid {} in {})", kDaemonAccount, *daemon, accounts.Display("etc/passwd"))
          : fmt::format("the daemon's user {} ({} names no such user)", kDaemonAccount, accounts.Display("etc/passwd"));
  return Fail(ErrorCode::kNotAuthorized,
              fmt::format("socket mode: refused: the peer (uid {}) is not root and not {}", peer.uid, accepted));
}

}  // namespace rocmtune::helper
