#include "daemon/wakeup.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

namespace rocmtune::daemon {

Result<void> WatchWakeup(sd_event* event, sd_event_io_handler_t handler, void* userdata, std::string_view what,
                         sys::UniqueFd& fd, bus::EventSourcePtr& source) {
  fd = sys::UniqueFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (fd.get() < 0) return Fail(ErrorCode::kIo, fmt::format("eventfd: {}", std::strerror(errno)), errno);
  sd_event_source* raw = nullptr;
  if (int r = sd_event_add_io(event, &raw, fd.get(), EPOLLIN, handler, userdata); r < 0)
    return Fail(ErrorCode::kIo, fmt::format("cannot watch the {}", what), -r);
  source.Reset(raw);
  return {};
}

void Wake(int fd) {
  uint64_t one = 1;
  while (::write(fd, &one, sizeof(one)) < 0 && errno == EINTR) {}
}

}  // namespace rocmtune::daemon
