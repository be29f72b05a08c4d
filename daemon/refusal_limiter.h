// Refusals are logged to the system journal per caller at a bounded rate: any user can ask for
// changes polkit denies, and each denial is a WARNING entry in root's journal. Per uid, the first
// kBurst denials of a kWindow are logged; the rest are counted, and the next entry logged for
// that uid says how many were left out. (Requests refused before polkit is asked — an invalid
// or blocked plan, nothing to change — leave no change entry: they change nothing. The daemon's
// own line for every error it answers, daemon/log.cc, is bounded by a limiter of its own.)
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>

namespace rocmtune::daemon {

class RefusalLimiter {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  static constexpr int kBurst = 5;
  static constexpr std::chrono::seconds kWindow{60};
  // Callers remembered at most; older windows are forgotten first.
  static constexpr size_t kMaxCallers = 4096;

  explicit RefusalLimiter(Clock clock = std::chrono::steady_clock::now) : clock_(std::move(clock)) {}

  // nullopt: do not log this one. Otherwise log it, noting the count of refusals for `uid` that
  // were not logged before it (0: none).
  std::optional<uint64_t> Admit(uid_t uid);

 private:
  struct Window {
    std::chrono::steady_clock::time_point start;
    int logged = 0;
    uint64_t dropped = 0;
  };
  void Prune(std::chrono::steady_clock::time_point now);
  Clock clock_;
  std::map<uid_t, Window> windows_;
};

}  // namespace rocmtune::daemon
