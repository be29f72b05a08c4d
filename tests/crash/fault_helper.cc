// rocmtune-fault-helper: rocmtune-helper built with a StepHook that makes crashes and I/O
// errors happen on purpose, for the crash tests (never installed). Configured from the
// environment so the tests drive it exactly like the real helper:
//   ROCMTUNE_FAULT=kill:N           raise SIGKILL just before step N (1-based)
//   ROCMTUNE_FAULT=errno:N:ENOSPC   step N fails with that errno (ENOSPC, EIO, EROFS, EACCES), once
//   ROCMTUNE_FAULT=stop:N           raise SIGSTOP just before step N: a test kills or continues it
//                                   (tests/daemon: the daemon or its caller dies mid-transaction)
//   (unset)                         only count
//   ROCMTUNE_FAULT_LOG=FILE         append "N step-name path" per step, written before the step
//                                   runs, so the log of a killed run ends with the step it died at
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "helper/helper_main.h"
#include "util/text.h"

namespace {

using rocmtune::helper::Step;

struct Fault {
  enum class Kind { kNone, kKill, kErrno, kStop } kind = Kind::kNone;
  uint64_t step = 0;
  int err = 0;
};

std::optional<int> ErrnoNamed(std::string_view name) {
  if (name == "ENOSPC") return ENOSPC;
  if (name == "EIO") return EIO;
  if (name == "EROFS") return EROFS;
  if (name == "EACCES") return EACCES;
  return std::nullopt;
}

// A fault the helper cannot understand must stop the test, not quietly count only.
std::optional<Fault> ParseFault(const char* spec) {
  Fault fault;
  if (!spec || !*spec) return fault;
  std::string_view s = spec;
  if (s.starts_with("kill:") || s.starts_with("stop:")) {
    auto n = rocmtune::text::ParseU64(s.substr(5));
    if (!n || *n == 0) return std::nullopt;
    return Fault{s.starts_with("kill:") ? Fault::Kind::kKill : Fault::Kind::kStop, *n, 0};
  }
  if (s.starts_with("errno:")) {
    s.remove_prefix(6);
    size_t colon = s.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    auto n = rocmtune::text::ParseU64(s.substr(0, colon));
    auto err = ErrnoNamed(s.substr(colon + 1));
    if (!n || *n == 0 || !err) return std::nullopt;
    return Fault{Fault::Kind::kErrno, *n, *err};
  }
  return std::nullopt;
}

class FaultHook final : public rocmtune::helper::StepHook {
 public:
  FaultHook(Fault fault, int log_fd) : fault_(fault), log_fd_(log_fd) {}

  rocmtune::Result<void> Before(Step step, std::string_view path) override {
    ++count_;
    if (log_fd_ >= 0) {
      std::string line = fmt::format("{} {} {}\n", count_, rocmtune::helper::StepName(step), path);
      // One write(2) per line on an O_APPEND file: the line is there even if we die next.
      if (::write(log_fd_, line.data(), line.size()) != static_cast<ssize_t>(line.size())) std::abort();
    }
    if (count_ != fault_.step) return {};
    if (fault_.kind == Fault::Kind::kKill) ::raise(SIGKILL);
    if (fault_.kind == Fault::Kind::kStop) ::raise(SIGSTOP);
    if (fault_.kind == Fault::Kind::kErrno)
      return rocmtune::Fail(rocmtune::ErrorCode::kIo, "injected fault", fault_.err);
    return {};
  }

 private:
  Fault fault_;
  int log_fd_;
  uint64_t count_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  auto fault = ParseFault(std::getenv("ROCMTUNE_FAULT"));
  if (!fault) {
    fmt::print(stderr, "rocmtune-fault-helper: bad ROCMTUNE_FAULT={}\n", std::getenv("ROCMTUNE_FAULT"));
    return 2;
  }
  int log_fd = -1;
  if (const char* log = std::getenv("ROCMTUNE_FAULT_LOG"); log && *log) {
    log_fd = ::open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (log_fd < 0) {
      fmt::print(stderr, "rocmtune-fault-helper: {}: {}\n", log, std::strerror(errno));
      return 2;
    }
  }
  FaultHook hook(*fault, log_fd);
  return rocmtune::helper::HelperMain(argc, argv, hook);
}
