// The object /org/rocmtune1 with the interface org.rocmtune1.Manager, as
// dbus/org.rocmtune1.Manager.xml declares it (a test compares that file with Introspect).
// Every method is one call into core/api; reads need no authorization, changes run on the
// change worker and are authorized by polkit there.
#pragma once

#include <systemd/sd-bus.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "api/faults.h"
#include "api/system.h"
#include "bus/contract.h"
#include "bus/handles.h"
#include "daemon/authorizer.h"
#include "daemon/boot_files_cache.h"
#include "daemon/callers.h"
#include "daemon/change_worker.h"
#include "daemon/doctor_worker.h"
#include "daemon/gpu_watch.h"
#include "daemon/live_facts_worker.h"
#include "daemon/refusal_limiter.h"
#include "detect/inventory.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::daemon {

using bus::kBusName;
using bus::kInterface;
using bus::kObjectPath;

// How long Describe shows the same live facts (ECC counts, throttling, the PCIe link).
inline constexpr std::chrono::milliseconds kLiveFactsMaxAge{2000};

class Manager {
 public:
  // `root`: the tree served ("/" in production, a world in tests); `helper_socket`: where
  // rocmtune-helper.socket listens.
  // `shm_is_private`: the unit gave the daemon a /dev/shm of its own (sys::SmiOptions).
  Manager(sys::Root root, std::string helper_socket, bool shm_is_private = false);
  ~Manager() = default;
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;
  Manager(Manager&&) = delete;
  Manager& operator=(Manager&&) = delete;

  // Adds the object to `bus` and the change worker to `event` (both live as long as this Manager).
  Result<void> Attach(sd_bus* bus, sd_event* event);

  const sys::Root& root() const { return root_; }
  const std::string& helper_socket() const { return helper_socket_; }
  // How Faults and FaultsSeen read the log (daemon/fault_log_reader.h).
  const api::LogReader& read_log() const { return read_log_; }
  ChangeWorker& worker() { return worker_; }
  DoctorWorker& doctor() { return doctor_; }
  Authorizer& authorizer() { return authorizer_; }
  Callers& callers() { return callers_; }
  BootFilesCache& boot_files() { return boot_files_; }
  RefusalLimiter& refusals() { return refusals_; }
  sd_bus* bus() const { return bus_; }
  // A change is running: a second one is refused.
  bool Busy() const { return worker_.Busy(); }
  // A change, a live-facts probe, a Doctor request, a question to polkit or to the bus (who is
  // calling) is running: the daemon must not exit before answering it.
  bool Pending() const {
    return worker_.Busy() || live_.Busy() || doctor_.Busy() || authorizer_.Pending() || callers_.Waiting() > 0;
  }

  // The inventory, detected once and then kept: udev's drm events and committed transactions
  // refresh it (no polling). Without udev's monitor every call detects.
  detect::Inventory Inventory();
  // Detects again now; emits GpusChanged when the GPUs differ from the ones known before.
  void RefreshInventory();
  // The served root as reads see it: where the daemon's user cannot list an ESP that decides the
  // boot setup or the next boot (boot::BootFilesDecide), with the loader files rocmtune-helper
  // read as root (BootFilesCache, not admitted: at most one read a minute, else what is kept).
  Result<sys::Root> ReadRoot();
  // The kept inventory with the boot setup as `read_root` (ReadRoot) shows it.
  detect::Inventory InventoryFor(const sys::Root& read_root);
  // The system of the served root with the kept inventory: what every read method answers from.
  Result<api::System> LoadSystem();
  // rocm-smi-lib's facts for `gpus` (live root only), kept for kLiveFactsMaxAge: Describe's
  // callers (status pollers, the Ansible fact) do not start rocm-smi-lib's child every time.
  // Never on the event loop: `done` runs on the loop when the facts are there (LiveFactsWorker).
  void LiveFacts(const std::vector<detect::Gpu>& gpus, LiveFactsWorker::Done done);
  // When /etc/rocmtune/export.toml exists: renders the export with the kept inventory and live
  // facts and has the helper publish it (api/publish.h), after the live facts came (never on
  // the loop while rocm-smi-lib is asked). At the daemon's start, after each committed
  // transaction and each change of the GPUs; a failure is logged, never a caller's error.
  void PublishExports(std::string_view why);
  // Reads this boot's log after the saved cursor and emits FaultsSeen(n) for n new fault records
  // (daemon/fault_methods.h): at start, on Describe and on Faults. The cursor is kept across
  // restarts (sys::kFaultsCursorPath): a fault is announced once, not at every start.
  void NoteFaults();

 private:
  sys::Root root_;
  std::string helper_socket_;
  api::LogReader read_log_;
  std::string faults_cursor_;  // the last log entry NoteFaults looked at (saved)
  bool faults_cursor_loaded_ = false;
  uint64_t faults_last_usec_ = 0;  // the newest fault record NoteFaults counted
  // Before the workers, which use it: it outlives them.
  BootFilesCache boot_files_;
  Callers callers_;
  ChangeWorker worker_;
  DoctorWorker doctor_;
  Authorizer authorizer_;
  RefusalLimiter refusals_;
  sd_bus* bus_ = nullptr;
  bus::SlotPtr slot_;
  GpuWatch watch_;
  LiveFactsWorker live_;
  bool watching_ = false;
  std::optional<detect::Inventory> inventory_;
};

}  // namespace rocmtune::daemon
