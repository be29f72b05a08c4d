#include "daemon/manager.h"

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/change.h"
#include "api/check_compute.h"
#include "api/explain.h"
#include "api/export.h"
#include "api/history.h"
#include "api/publish.h"
#include "api/status.h"
#include "api/system.h"
#include "api/trial.h"
#include "api/verify.h"
#include "boot/boot_files.h"
#include "daemon/bus_errors.h"
#include "daemon/bus_options.h"
#include "daemon/change_methods.h"
#include "daemon/fault_log_reader.h"
#include "daemon/fault_methods.h"
#include "daemon/guard.h"
#include "daemon/helper_socket.h"
#include "daemon/log.h"
#include "daemon/read_methods.h"
#include "detect/boot_setup.h"
#include "detect/other_writers.h"
#include "faults/records.h"
#include "plan/publish.h"
#include "util/json_text.h"

namespace rocmtune::daemon {
namespace {

Manager& Self(void* userdata) { return *static_cast<Manager*>(userdata); }

// No exception may unwind through sd-bus's C frames, and every error a handler returns is
// logged with its caller: the guard (daemon/guard.h) around each. A handler that throws (out of
// memory, a bug) answers org.rocmtune1.Error.Failed and the daemon goes on serving.
using MethodFn = int (*)(sd_bus_message*, Manager&, sd_bus_error*);
template <MethodFn Fn>
int Method(sd_bus_message* call, void* userdata, sd_bus_error* ret) noexcept {
  return Guard("a method", call, {}, ret, [&] { return Fn(call, Self(userdata), ret); });
}

// A property's reader: the call logged is the Get (or GetAll) that asked for it.
using GetterFn = int (*)(sd_bus_message*, Manager&, sd_bus_error*);
template <GetterFn Fn>
int Getter(sd_bus* bus, const char*, const char*, const char* property, sd_bus_message* reply, void* userdata,
           sd_bus_error* ret) noexcept {
  return Guard("a property", sd_bus_get_current_message(bus), property, ret,
               [&] { return Fn(reply, Self(userdata), ret); });
}

// Status's document of `root` (Manager::ReadRoot); `live`: rocm-smi-lib's facts (the live root),
// else none are asked.
int ReplyDescribe(sd_bus_message* call, const sys::Root& root, detect::Inventory inventory,
                  const std::vector<detect::LiveFacts>* live, sd_bus_error* ret) {
  api::StatusOptions options;
  options.known_live = live;
  options.caller = false;  // rocmtuned answers for no one user
  auto doc = api::DescribeSystem(root, std::move(inventory), options);
  if (!doc) return SetError(ret, doc.error());
  return ReplyJson(call, *doc);
}

// On the live root the reply waits for the live facts off the loop (History, properties and
// other Describes are answered meanwhile); the call is held until then.
int Describe(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  self.NoteFaults();
  auto read_root = self.ReadRoot();
  if (!read_root) return SetError(ret, read_root.error());
  auto root = std::make_shared<sys::Root>(std::move(*read_root));
  detect::Inventory inventory = self.InventoryFor(*root);
  if (!self.root().IsLive()) return ReplyDescribe(call, *root, std::move(inventory), nullptr, ret);
  std::shared_ptr<sd_bus_message> held(sd_bus_message_ref(call), sd_bus_message_unref);
  std::vector<detect::Gpu> gpus = inventory.gpus;
  self.LiveFacts(gpus, [root, held, inventory = std::move(inventory)](const std::vector<detect::LiveFacts>& facts) {
    // Answered later, so guarded here as a method is (the guard logs a failure with the caller).
    bus::BusError error;
    int r = Guard("a method", held.get(), {}, error.get(),
                  [&] { return ReplyDescribe(held.get(), *root, inventory, &facts, error.get()); });
    if (r < 0 && sd_bus_error_is_set(error.get())) (void)sd_bus_reply_method_error(held.get(), error.get());
  });
  return 1;  // answered later (or already, from kept facts)
}

int History(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  auto system = self.LoadSystem();
  if (!system) return SetError(ret, system.error());
  return ReplyText(call, JsonText(api::HistoryJson(api::History(*system))));
}

int Verify(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  auto system = self.LoadSystem();
  if (!system) return SetError(ret, system.error());
  return ReplyText(call, JsonText(api::VerifyJson(api::Verify(*system))));
}

// The trial boot a `trial` change prepared (`rocmtunectl trial --json`); no authorization.
int Trial(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  auto state = api::ReadTrial(self.root());
  if (!state) return SetError(ret, state.error());
  return ReplyText(call, JsonText(api::TrialJson(*state)));
}

int Explain(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  const char* key = nullptr;
  if (int r = sd_bus_message_read(call, "s", &key); r < 0) return r;
  auto system = self.LoadSystem();
  if (!system) return SetError(ret, system.error());
  auto report = api::Explain(*system, key);
  if (!report) return SetError(ret, report.error());
  return ReplyText(call, JsonText(api::ExplainJson(*report)));
}

// Read-only, for any caller (a program asking before it starts HIP); the same document as
// `rocmtunectl check-compute --json`. "" means any workload, every GPU.
int CheckCompute(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  const char* workload = nullptr;
  const char* device = nullptr;
  if (int r = sd_bus_message_read(call, "ss", &workload, &device); r < 0) return r;
  // For every caller alike: no one user's access to /dev/kfd decides it (diagnose/assess.h).
  auto report = api::CheckCompute(self.root(), self.Inventory(), workload, device, /*caller=*/false);
  if (!report) return SetError(ret, report.error());
  return ReplyText(call, JsonText(api::CheckComputeJson(*report)));
}

int Plan(sd_bus_message* call, Manager& self, sd_bus_error* ret) {
  const char* profile = nullptr;
  if (int r = sd_bus_message_read(call, "s", &profile); r < 0) return r;
  auto options = ReadOptions(call, {kOptionWith, kOptionForce});
  if (!options) return SetError(ret, options.error());
  // Any caller, not asked who: what a root-only ESP holds comes from what the daemon kept
  // (BootFilesCache), never from a helper started for this call.
  CheckOnlyWriter writer(self.boot_files(), /*admitted=*/false);
  api::ChangeOptions change{.check = true, .force = options->force, .on_planned = {}};
  auto report = api::Apply(self.root(), profile, options->with, change, writer);
  if (!report) return SetError(ret, report.error());
  return ReplyText(call, JsonText(api::ResultJson(*report)));
}

int GetVersion(sd_bus_message* reply, Manager&, sd_bus_error*) {
  return sd_bus_message_append(reply, "s", ROCMTUNE_VERSION);
}

int GetActiveProfile(sd_bus_message* reply, Manager& self, sd_bus_error* ret) {
  auto profile = api::ReadActiveProfile(self.root());
  if (!profile) return SetError(ret, profile.error());
  return sd_bus_message_append(reply, "s", profile->c_str());
}

int GetPendingReboot(sd_bus_message* reply, Manager& self, sd_bus_error* ret) {
  // The knobs only: reading a property must not start rocm-smi-lib's child on a live root.
  auto report =
      api::Status(self.root(), self.Inventory(), {.live_facts = false, .known_live = nullptr, .caller = false});
  if (!report) return SetError(ret, report.error());
  int pending = 0;
  for (const knobs::KnobState& k : report->knobs) pending |= k.pending_reboot ? 1 : 0;
  return sd_bus_message_append(reply, "b", pending);
}

// Names match dbus/org.rocmtune1.Manager.xml (DaemonBusTest.IntrospectionMatchesTheContract).
const sd_bus_vtable kVTable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD_WITH_NAMES("Describe", "", , "s", SD_BUS_PARAM(status_json), Method<Describe>,
                             SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("ListProfiles", "", , "s", SD_BUS_PARAM(profiles_json), Method<ListProfilesMethod>,
                             SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("ShowProfile", "s", SD_BUS_PARAM(name), "s", SD_BUS_PARAM(profile_json),
                             Method<ShowProfileMethod>, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Plan", "sa{sv}", SD_BUS_PARAM(profile) SD_BUS_PARAM(options), "s",
                             SD_BUS_PARAM(plan_json), Method<Plan>, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Apply", "sa{sv}", SD_BUS_PARAM(profile) SD_BUS_PARAM(options), "s",
                             SD_BUS_PARAM(result_json), Method<ApplyMethod>, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Set", "a{ss}a{sv}", SD_BUS_PARAM(knobs) SD_BUS_PARAM(options), "s",
                             SD_BUS_PARAM(result_json), Method<SetMethod>, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Unset", "asa{sv}", SD_BUS_PARAM(keys) SD_BUS_PARAM(options), "s",
                             SD_BUS_PARAM(result_json), Method<UnsetMethod>, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Revert", "s", SD_BUS_PARAM(id), "s", SD_BUS_PARAM(result_json), Method<RevertMethod>,
                             SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Reset", "", , "s", SD_BUS_PARAM(result_json), Method<ResetMethod>,
                             SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Reapply", "s", SD_BUS_PARAM(card), "s", SD_BUS_PARAM(result_json), Method<ReapplyMethod>,
                             SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Trial", "", , "s", SD_BUS_PARAM(trial_json), Method<Trial>, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("CancelTrial", "", , "s", SD_BUS_PARAM(result_json), Method<CancelTrialMethod>,
                             SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("History", "", , "s", SD_BUS_PARAM(history_json), Method<History>,
                             SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Verify", "", , "s", SD_BUS_PARAM(verify_json), Method<Verify>,
                             SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Explain", "s", SD_BUS_PARAM(key), "s", SD_BUS_PARAM(explain_json), Method<Explain>,
                             SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Doctor", "s", SD_BUS_PARAM(log), "s", SD_BUS_PARAM(doctor_json), Method<DoctorMethod>,
                             SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Faults", "it", SD_BUS_PARAM(boot) SD_BUS_PARAM(since_usec), "s",
                             SD_BUS_PARAM(faults_json), Method<FaultsMethod>, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("CheckCompute", "ss", SD_BUS_PARAM(workload) SD_BUS_PARAM(device), "s",
                             SD_BUS_PARAM(check_json), Method<CheckCompute>, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_SIGNAL_WITH_NAMES("TransactionCommitted", "s", SD_BUS_PARAM(id), 0),
    SD_BUS_SIGNAL_WITH_NAMES("GpusChanged", "as", SD_BUS_PARAM(gpus), 0),
    SD_BUS_SIGNAL_WITH_NAMES("FaultsSeen", "u", SD_BUS_PARAM(count), 0),
    SD_BUS_PROPERTY("Version", "s", Getter<GetVersion>, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("ActiveProfile", "s", Getter<GetActiveProfile>, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("PendingReboot", "b", Getter<GetPendingReboot>, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_VTABLE_END,
};

}  // namespace

Result<void> Manager::Attach(sd_bus* bus, sd_event* event) {
  if (auto attached = worker_.Attach(event); !attached) return attached;
  if (auto attached = live_.Attach(event); !attached) return attached;
  if (auto attached = doctor_.Attach(event); !attached) return attached;
  bus_ = bus;
  authorizer_.Attach(bus);
  callers_.Attach(bus);
  sd_bus_slot* slot = nullptr;
  if (int r = sd_bus_add_object_vtable(bus, &slot, kObjectPath, kInterface, kVTable, this); r < 0)
    return Fail(ErrorCode::kIo, fmt::format("cannot add {} to the bus", kObjectPath), -r);
  slot_.Reset(slot);
  // Without the monitor (no netlink here) the daemon still serves, detecting on every request.
  auto started = watch_.Start(event, [this](const std::string&, const std::string&) {
    RefreshInventory();
    PublishExports("a GPU changed");
  });
  watching_ = started.has_value();
  if (!started) fmt::print(stderr, "rocmtuned: {}; detecting on every request\n", started.error().message);
  NoteFaults();
  return {};
}

void Manager::NoteFaults() {
  if (!faults_cursor_loaded_) {
    faults_cursor_loaded_ = true;
    auto saved = sys::LoadCursor(root_);
    if (saved) faults_cursor_ = *saved;
    else LogDropped("the saved cursor of the faults already announced", saved.error().message);
  }
  sys::LogQuery query;
  query.boot = 0;
  query.after_cursor = faults_cursor_;
  auto read = read_log_(root_, query);
  if (!read || read->source == sys::LogSource::kNone) return;
  if (!read->last_cursor.empty() && read->last_cursor != faults_cursor_) {
    faults_cursor_ = read->last_cursor;
    if (auto saved = sys::SaveCursor(root_, faults_cursor_); !saved)
      LogDropped("the cursor of the faults announced", saved.error().message);
  }
  // Newer than the newest one counted before, too: a cursor of another journal file may place
  // the read at its own entry again (two files, two sequence number spaces).
  size_t seen = 0;
  for (const faults::FaultRecord& r : faults::RecordsFromLog(read->entries, Inventory()))
    if (r.realtime_usec > faults_last_usec_) {
      ++seen;
      faults_last_usec_ = r.realtime_usec;
    }
  if (seen == 0 || !bus_) return;
  if (int r = sd_bus_emit_signal(bus_, kObjectPath, kInterface, "FaultsSeen", "u", static_cast<uint32_t>(seen)); r < 0)
    LogDropped("the signal FaultsSeen", std::strerror(-r));
}

detect::Inventory Manager::Inventory() {
  if (!watching_) return detect::Detect(root_);
  if (!inventory_) return *(inventory_ = detect::Detect(root_));
  // Other daemons change what they do without a udev event (power-profiles-daemon's actions).
  detect::Inventory kept = *inventory_;
  detect::RefreshOtherWriters(root_, kept.findings);
  return kept;
}

namespace {

std::vector<std::string> GpuIds(const detect::Inventory& inventory) {
  std::vector<std::string> ids;
  for (const detect::Gpu& g : inventory.gpus) ids.push_back(g.id);
  return ids;
}

}  // namespace

Manager::Manager(sys::Root root, std::string helper_socket, bool shm_is_private)
    : root_(std::move(root)),
      helper_socket_(std::move(helper_socket)),
      read_log_(DaemonLogReader(helper_socket_)),
      boot_files_([socket = helper_socket_]() {
        // The helper reads as root; nothing is authorized by it (a read, no write).
        auto files = HelperSocketWriter(socket, [] { return Result<void>{}; }).AskBootFiles();
        if (!files) return Result<std::optional<sys::RootSupplement>>(tl::unexpected(files.error()));
        return Result<std::optional<sys::RootSupplement>>(std::move(*files));
      }),
      live_(kLiveFactsMaxAge, [shm_is_private](const std::vector<detect::Gpu>& gpus) {
        return detect::ReadLiveFacts(gpus, {.shm_is_private = shm_is_private, .reexec = true});
      }) {}

void Manager::LiveFacts(const std::vector<detect::Gpu>& gpus, LiveFactsWorker::Done done) {
  live_.Get(gpus, std::move(done));
}

Result<sys::Root> Manager::ReadRoot() {
  auto root = root_.Duplicate();
  if (!root) return root;
  if (!boot::BootFilesHidden(*root) || !boot::BootFilesDecide(*root)) return root;
  // Not admitted: anyone may read. When nothing is kept and the helper may not be asked yet, the
  // read goes on without: the boot setup is then unknown with its reason, never another one.
  auto files = boot_files_.Get(*root, /*admitted=*/false);
  if (files && *files) root->Supplement(std::make_shared<const sys::RootSupplement>(std::move(**files)));
  else if (!files) LogDropped("the ESP's boot loader files (rocmtune-helper read-boot)", files.error().message);
  return root;
}

detect::Inventory Manager::InventoryFor(const sys::Root& read_root) {
  detect::Inventory inventory = Inventory();
  if (read_root.supplement()) inventory.system.boot = detect::DetectBootSetup(read_root);
  return inventory;
}

Result<api::System> Manager::LoadSystem() {
  auto root = ReadRoot();
  if (!root) return tl::unexpected(root.error());
  detect::Inventory inventory = InventoryFor(*root);
  return api::LoadSystem(std::move(*root), std::move(inventory));
}

void Manager::PublishExports(std::string_view why) {
  auto config = plan::ReadExportConfig(root_);
  if (!config) {
    LogDropped(fmt::format("the fleet export ({})", why), config.error().message);
    return;
  }
  if (!config->present) return;
  detect::Inventory inventory = Inventory();
  std::vector<detect::Gpu> gpus = inventory.gpus;
  live_.Get(gpus, [this, config = *config, inventory = std::move(inventory),
                   why = std::string(why)](const std::vector<detect::LiveFacts>& facts) mutable {
    api::ExportOptions options;
    options.version = ROCMTUNE_VERSION;
    options.known_live = &facts;
    options.read_faults = read_log_;  // through the helper when the journal is closed to user rocmtune
    auto report = api::Export(root_, inventory, options);
    if (!report) {
      LogDropped(fmt::format("the fleet export ({})", why), report.error().message);
      return;
    }
    HelperSocketWriter writer(helper_socket_, [] { return Result<void>(); });
    auto reply = api::PublishExports(*report, config, writer);
    if (!reply) {
      LogDropped(fmt::format("the fleet export ({})", why), reply.error().message);
    } else if (reply->status != plan::HelperStatus::kCommitted && reply->status != plan::HelperStatus::kUnchanged) {
      std::string message = reply->messages.empty() ? "" : reply->messages.front();
      LogDropped(fmt::format("the fleet export ({})", why),
                 fmt::format("{}: {}", plan::HelperStatusName(reply->status), message));
    }
  });
}

void Manager::RefreshInventory() {
  live_.Forget();
  std::optional<std::vector<std::string>> before;
  if (inventory_) before = GpuIds(*inventory_);
  inventory_ = detect::Detect(root_);
  std::vector<std::string> now = GpuIds(*inventory_);
  if (!bus_ || (before && *before == now)) return;
  sd_bus_message* raw = nullptr;
  int r = sd_bus_message_new_signal(bus_, &raw, kObjectPath, kInterface, "GpusChanged");
  bus::MessagePtr signal(raw);
  if (r >= 0) r = sd_bus_message_append_strv(signal.get(), const_cast<char**>(bus::Strv(now).data()));
  if (r >= 0) r = sd_bus_send(bus_, signal.get(), nullptr);
  if (r < 0) LogDropped("the signal GpusChanged", std::strerror(-r));
}

}  // namespace rocmtune::daemon
