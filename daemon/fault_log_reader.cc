#include "daemon/fault_log_reader.h"

#include <unistd.h>

#include "daemon/helper_socket.h"
#include "daemon/log.h"

namespace rocmtune::daemon {

api::LogReader DaemonLogReader(std::string helper_socket) {
  return [socket = std::move(helper_socket)](const sys::Root& root,
                                             const sys::LogQuery& query) -> Result<sys::LogRead> {
    if (socket.empty() || ::geteuid() == 0) return sys::ReadSystemLog(root, query);
    auto ask = [&socket, &query] {
      // A read: nothing is authorized by it.
      auto read = HelperSocketWriter(socket, [] { return Result<void>{}; }).ReadLog(query);
      if (!read) LogDropped("the journal's GPU lines (rocmtune-helper read-log)", read.error().message);
      return read;
    };
    if (root.IsLive()) {
      auto read = ask();
      if (read) return read;
      return sys::ReadSystemLog(root, query);
    }
    auto own = sys::ReadSystemLog(root, query);
    if (own && own->files_not_permitted == 0) return own;
    auto read = ask();
    if (read) return read;
    return own;
  };
}

}  // namespace rocmtune::daemon
