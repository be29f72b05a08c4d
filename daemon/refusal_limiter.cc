#include "daemon/refusal_limiter.h"

namespace rocmtune::daemon {

std::optional<uint64_t> RefusalLimiter::Admit(uid_t uid) {
  const auto now = clock_();
  if (windows_.size() >= kMaxCallers && !windows_.contains(uid)) Prune(now);
  auto [it, fresh] = windows_.try_emplace(uid, Window{now, 0, 0});
  Window& w = it->second;
  if (!fresh && now - w.start >= kWindow) {
    w.start = now;
    w.logged = 0;  // `dropped` carries over: the next entry says how many were left out
  }
  if (w.logged >= kBurst) {
    ++w.dropped;
    return std::nullopt;
  }
  ++w.logged;
  const uint64_t dropped = w.dropped;
  w.dropped = 0;
  return dropped;
}

void RefusalLimiter::Prune(std::chrono::steady_clock::time_point now) {
  std::erase_if(windows_, [&](const auto& entry) { return now - entry.second.start >= kWindow; });
  // Every caller is within its window (a flood of uids): forget all, the bound matters more.
  if (windows_.size() >= kMaxCallers) windows_.clear();
}

}  // namespace rocmtune::daemon
