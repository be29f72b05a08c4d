#include "daemon/helper_socket.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <mutex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "boot/boot_files.h"
#include "plan/helper_status.h"
#include "plan/plan_json.h"
#include "plan/publish.h"
#include "sys/system_log_json.h"
#include "sys/unique_fd.h"
#include "util/json_text.h"

namespace rocmtune::daemon {
namespace {

// A reply is a few KiB; anything near this is not a helper talking.
constexpr size_t kMaxReplyBytes = 4 << 20;

Result<void> SendAll(int fd, std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::send(fd, text.data(), text.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Fail(ErrorCode::kIo, fmt::format("sending to rocmtune-helper: {}", std::strerror(errno)), errno);
    text.remove_prefix(static_cast<size_t>(n));
  }
  return {};
}

// Each connection starts a rocmtune-helper (a unit start under systemd); the socket stops
// listening after TriggerLimitBurst= of them in TriggerLimitIntervalSec= (systemd/
// rocmtune-helper.socket: 100 in 5 s), and then no change can be made until it is restarted.
// The daemon stays at half of that whatever its callers do: beyond, a request is Busy.
class ConnectionRate {
 public:
  static constexpr size_t kBurst = 50;
  static constexpr std::chrono::seconds kInterval{5};
  Result<void> Admit() {
    std::lock_guard lock(mutex_);  // the loop (checks) and the change worker
    const auto now = std::chrono::steady_clock::now();
    while (!recent_.empty() && now - recent_.front() >= kInterval) recent_.pop_front();
    if (recent_.size() >= kBurst)
      return Fail(ErrorCode::kBusy, fmt::format("rocmtuned started rocmtune-helper {} times in {} s; ask again shortly",
                                                recent_.size(), kInterval.count()));
    recent_.push_back(now);
    return {};
  }

 private:
  std::mutex mutex_;
  std::deque<std::chrono::steady_clock::time_point> recent_;
};

ConnectionRate& Rate() {
  static ConnectionRate rate;
  return rate;
}

}  // namespace

Result<void> HelperSocketWriter::MayWrite(const sys::Root&) const {
  if (!answer_) answer_ = authorize_();
  return *answer_;
}

Result<std::string> HelperSocketWriter::Talk(const std::string& request) const {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path_.size() >= sizeof(addr.sun_path))
    return Fail(ErrorCode::kInvalidArgument, fmt::format("helper socket path too long: {}", socket_path_));
  std::memcpy(addr.sun_path, socket_path_.c_str(), socket_path_.size() + 1);
  if (auto admitted = Rate().Admit(); !admitted) return tl::unexpected(admitted.error());
  sys::UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return Fail(ErrorCode::kIo, fmt::format("socket: {}", std::strerror(errno)), errno);
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0)
    return Fail(ErrorCode::kIo,
                fmt::format("cannot reach rocmtune-helper at {}: {} (is rocmtune-helper.socket running?)", socket_path_,
                            std::strerror(errno)),
                errno);
  auto sent = SendAll(fd.get(), request);
  ::shutdown(fd.get(), SHUT_WR);
  std::string reply;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reply.append(buf, static_cast<size_t>(n));
    if (reply.size() > kMaxReplyBytes) return Fail(ErrorCode::kTooLarge, "rocmtune-helper's reply is too large");
  }
  if (reply.empty() && !sent) return tl::unexpected(sent.error());
  return reply;
}

Result<plan::HelperReply> HelperSocketWriter::Exchange(const std::string& request) const {
  auto reply = Talk(request);
  if (!reply) return tl::unexpected(reply.error());
  auto parsed = plan::ParseHelperReply(*reply);
  if (!parsed)
    return Fail(ErrorCode::kInvalidData,
                reply->empty() ? std::string("rocmtune-helper closed the connection without a result (see its journal)")
                               : fmt::format("rocmtune-helper's reply cannot be read: {}", parsed.error().message));
  return parsed;
}

Result<sys::RootSupplement> HelperSocketWriter::AskBootFiles() const {
  auto reply = Talk("read-boot\n");
  if (!reply) return tl::unexpected(reply.error());
  if (reply->empty()) return Fail(ErrorCode::kIo, "rocmtune-helper closed the connection without the boot files");
  return boot::BootFilesFromJson(*reply);
}

Result<sys::LogRead> HelperSocketWriter::ReadLog(const sys::LogQuery& query) const {
  auto reply = Talk(fmt::format("read-log\n{}\n", sys::LogQueryJson(query)));
  if (!reply) return tl::unexpected(reply.error());
  if (reply->empty())
    return Fail(ErrorCode::kIo, "rocmtune-helper closed the connection without the log (see its journal)");
  return sys::LogReadFromJson(*reply);
}

Result<std::optional<sys::RootSupplement>> HelperSocketWriter::ReadBootFiles(const sys::Root&) const {
  auto files = AskBootFiles();
  if (!files) return tl::unexpected(files.error());
  return std::optional<sys::RootSupplement>(std::move(*files));
}

Result<plan::HelperReply> HelperSocketWriter::Apply(const plan::Plan& plan, bool force) {
  return Exchange(fmt::format("{}\n{}", force ? "apply --force" : "apply", JsonText(plan::PlanToJson(plan), -1)));
}

Result<plan::HelperReply> HelperSocketWriter::Recover() { return Exchange("recover\n"); }

Result<plan::HelperReply> HelperSocketWriter::Publish(const std::vector<plan::PublishFile>& files) {
  return Exchange(fmt::format("publish\n{}", JsonText(plan::PublishRequestJson(files), -1)));
}

}  // namespace rocmtune::daemon
