#include "daemon/fault_log_reader.h"

#include <unistd.h>

#include <chrono>
#include <deque>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "daemon/helper_socket.h"
#include "daemon/log.h"
#include "sys/system_log_json.h"

namespace rocmtune::daemon {
namespace {

using Clock = std::chrono::steady_clock;

// Each ask starts a root helper and counts against the socket's trigger limit, which changes
// share (helper_socket.cc ConnectionRate: 50 in 5 s). Any user may call Describe and Faults: the
// same query within kReuse is answered from the last reply, and beyond kAsks in kInterval the
// log is Busy, so a user's loop leaves the changes their share.
class HelperLog {
 public:
  static constexpr std::chrono::seconds kReuse{2};
  static constexpr size_t kAsks = 10;
  static constexpr std::chrono::seconds kInterval{5};

  explicit HelperLog(std::string socket) : socket_(std::move(socket)) {}

  Result<sys::LogRead> Read(const sys::LogQuery& query) {
    std::lock_guard lock(mutex_);  // the loop (Faults, NoteFaults) and the change worker (export)
    const auto now = Clock::now();
    std::string key = sys::LogQueryJson(query);
    if (last_ && key == last_key_ && now - last_at_ < kReuse) return *last_;
    while (!asks_.empty() && now - asks_.front() >= kInterval) asks_.pop_front();
    if (asks_.size() >= kAsks)
      return Fail(ErrorCode::kBusy, fmt::format("rocmtuned asked rocmtune-helper for the log {} times in {} s; ask "
                                                "again shortly",
                                                asks_.size(), kInterval.count()));
    asks_.push_back(now);
    // A read: nothing is authorized by it.
    auto read = HelperSocketWriter(socket_, [] { return Result<void>{}; }).ReadLog(query);
    if (!read) {
      LogDropped("the journal's GPU lines (rocmtune-helper read-log)", read.error().message);
      return read;
    }
    last_key_ = std::move(key);
    last_at_ = now;
    last_ = *read;
    return read;
  }

 private:
  std::string socket_;
  std::mutex mutex_;
  std::deque<Clock::time_point> asks_;
  std::string last_key_;
  Clock::time_point last_at_;
  std::optional<sys::LogRead> last_;
};

}  // namespace

api::LogReader DaemonLogReader(std::string helper_socket) {
  auto helper = std::make_shared<HelperLog>(helper_socket);
  return [socket = std::move(helper_socket), helper](const sys::Root& root,
                                                     const sys::LogQuery& query) -> Result<sys::LogRead> {
    if (socket.empty() || ::geteuid() == 0) return sys::ReadSystemLog(root, query);
    if (root.IsLive()) {
      auto read = helper->Read(query);
      if (read || read.error().code == ErrorCode::kBusy) return read;
      return sys::ReadSystemLog(root, query);
    }
    auto own = sys::ReadSystemLog(root, query);
    if (own && own->files_not_permitted == 0) return own;
    auto read = helper->Read(query);
    if (read || read.error().code == ErrorCode::kBusy) return read;
    return own;
  };
}

}  // namespace rocmtune::daemon
