// The boot loader's files on a root-only ESP, as rocmtune-helper read them for the daemon
// (`read-boot`, boot/boot_files.h), kept. Before, every Plan() and check-only Set/Apply on such
// a machine (Debian/Ubuntu UEFI, umask=0077) started a root helper first: ~1000 calls of one user
// in 10 s started ~1000 (round-3 review), and under systemd each is a unit start that counts
// against the socket's trigger limit, past which no change can be made at all. Now:
//   - the files are read only when a plan needs them (a trial, or a trial's state: core/api/
//     change.cc PrepareChange), then kept until a transaction commits, until what the daemon can
//     see of the boot files changes (the ESP's and /boot's directories, the kernel's command-line
//     files, the installed kernels: Fingerprint()), or kMaxAge;
//   - root's and polkit-admitted requests read them again when they are not kept;
//   - a request polkit has not admitted (a check, a Plan, the plan polkit is asked about) is
//     answered from what is kept; when nothing is, the daemon reads them itself at most once per
//     kUnadmittedInterval, whoever asks and however often.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::daemon {

class BootFilesCache {
 public:
  using Read = std::function<Result<std::optional<sys::RootSupplement>>()>;
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::minutes kMaxAge{10};
  static constexpr std::chrono::seconds kUnadmittedInterval{60};

  using Now = std::function<Clock::time_point()>;
  // `read` asks rocmtune-helper (HelperSocketWriter::AskBootFiles in the daemon); `now`: tests.
  explicit BootFilesCache(Read read, Now now = Clock::now) : read_(std::move(read)), now_(std::move(now)) {}

  // The files for a plan of `root`. `admitted`: root's request, or one polkit allowed.
  // Thread-safe: the loop plans checks, the change worker plans what polkit allowed.
  Result<std::optional<sys::RootSupplement>> Get(const sys::Root& root, bool admitted);
  // A transaction committed: the next plan that needs the files reads them again.
  void Invalidate();
  // How often the helper was asked (tests, the log).
  unsigned Reads() const;

  // What the daemon's user can see change when the boot files change: device, inode, change and
  // modification times of the ESP candidates, /boot and its loader directories, /etc/kernel and
  // its cmdline, /etc/default/grub and the installed kernels' directories.
  static std::string Fingerprint(const sys::Root& root);

 private:
  Read read_;
  Now now_;
  mutable std::mutex mutex_;
  std::optional<sys::RootSupplement> files_;  // guarded by mutex_
  std::string fingerprint_;
  Clock::time_point read_at_{};
  std::optional<Clock::time_point> unadmitted_read_at_;
  bool valid_ = false;
  unsigned reads_ = 0;
};

}  // namespace rocmtune::daemon
