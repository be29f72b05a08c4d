// Reading amd-smi (libamd_smi) in this process, the child of ProbeRocmSmi, as sys/rocm_smi.cc
// reads rocm-smi-lib: dlopen, amdsmi_init(AMDSMI_INIT_AMD_GPUS), every GPU's few values,
// amdsmi_shut_down. amd-smi keeps its mutexes per thread since 6.4.0 (amdsmi CHANGELOG, "Changed
// to use thread local mutex by default"; third_party/shared_mutex/shared_mutex.cc), so it makes
// no /dev/shm file unless AMDSMI_MUTEX_CROSS_PROCESS=1, which the child does not set.
//
// What amd-smi gives of rocmtune's live facts (amdsmi.h, sys/amd_smi_api.h):
//   firmware       amdsmi_get_fw_info                 read
//   ECC blocks     amdsmi_get_gpu_ecc_enabled          read
//   ECC counts     amdsmi_get_gpu_ecc_count            read (the first two counters)
//   PCIe replays   amdsmi_get_gpu_pci_replay_counter   read
//   PCIe levels    amdsmi_get_gpu_pci_bandwidth        unknown: amdsmi_frequencies_t gained a
//                  leading `bool has_deep_sleep` between releases (absent in the 2023 header, present
//                  in 0ceca28), and the library does not say which layout it writes
//   throttling     amdsmi_get_gpu_metrics_info         unknown: amdsmi_gpu_metrics_t changes with
//                  every gpu_metrics format and ROCm 10.0 widened its accumulators (libamd_smi.so.27)
#include <dlfcn.h>

#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "sys/amd_smi_api.h"
#include "sys/dl_symbol.h"
#include "sys/rocm_smi.h"
#include "util/handle.h"

namespace rocmtune::sys {
namespace {

namespace a = amdsmi;

struct AmdFirmware {
  const char* name;  // rocmtune's block name (sys/rocm_smi.cc kFirmware)
  int id;
};
constexpr AmdFirmware kAmdFirmware[] = {
    {"mec", a::kFwCpMec1}, {"rlc", a::kFwRlc},       {"sdma", a::kFwSdma0},
    {"smc", a::kFwPm},     {"sos", a::kFwPspSosdrv}, {"vcn", a::kFwVcn},
};

struct AmdEcc {
  const char* name;
  uint64_t block;
};
constexpr AmdEcc kAmdEcc[] = {{"umc", a::kBlockUmc}, {"sdma", a::kBlockSdma}, {"gfx", a::kBlockGfx}};

struct AmdApi {
  a::InitFn init = nullptr;
  a::ShutDownFn shut_down = nullptr;
  a::StatusStringFn status_string = nullptr;
  a::LibVersionFn lib_version = nullptr;
  a::SocketHandlesFn sockets = nullptr;
  a::ProcessorHandlesFn processors = nullptr;
  a::BdfIdFn bdf_id = nullptr;
  a::FwInfoFn fw_info = nullptr;
  a::EccEnabledFn ecc_enabled = nullptr;
  a::EccCountFn ecc_count = nullptr;
  a::ReplayCounterFn replay = nullptr;
};

std::string ResolveAll(void* lib, AmdApi& api) {
  std::string missing;
  ResolveSymbol(lib, "amdsmi_init", api.init, missing);
  ResolveSymbol(lib, "amdsmi_shut_down", api.shut_down, missing);
  ResolveSymbol(lib, "amdsmi_status_code_to_string", api.status_string, missing);
  ResolveSymbol(lib, "amdsmi_get_lib_version", api.lib_version, missing);
  ResolveSymbol(lib, "amdsmi_get_socket_handles", api.sockets, missing);
  ResolveSymbol(lib, "amdsmi_get_processor_handles", api.processors, missing);
  ResolveSymbol(lib, "amdsmi_get_gpu_bdf_id", api.bdf_id, missing);
  ResolveSymbol(lib, "amdsmi_get_fw_info", api.fw_info, missing);
  ResolveSymbol(lib, "amdsmi_get_gpu_ecc_enabled", api.ecc_enabled, missing);
  ResolveSymbol(lib, "amdsmi_get_gpu_ecc_count", api.ecc_count, missing);
  ResolveSymbol(lib, "amdsmi_get_gpu_pci_replay_counter", api.replay, missing);
  return missing;
}

// amdsmi_init's reference count: amdsmi_shut_down once for a successful init.
class AmdSession {
 public:
  explicit AmdSession(const AmdApi& api) : api_(api), status_(api.init(a::kInitAmdGpus)) {}
  AmdSession(const AmdSession&) = delete;
  AmdSession& operator=(const AmdSession&) = delete;
  ~AmdSession() {
    if (status_ == a::kSuccess) api_.shut_down();
  }
  a::Status status() const { return status_; }

 private:
  const AmdApi& api_;
  a::Status status_;
};

class AmdReader {
 public:
  explicit AmdReader(const AmdApi& api) : api_(api) {}

  std::string Why(a::Status st) const {
    const char* text = nullptr;
    if (api_.status_string(st, &text) != a::kSuccess || text == nullptr) return fmt::format("amd-smi: status {}", st);
    return fmt::format("amd-smi: {}", std::string(text, strnlen(text, 256)));
  }

  template <typename T, typename U>
  SmiFact<T> Fact(a::Status st, const U& value) const {
    if (st == a::kSuccess) return {static_cast<T>(value), {}};
    return {std::nullopt, Why(st)};
  }

  std::string Version() const {
    a::Version v{};
    if (api_.lib_version(&v) != a::kSuccess || v.build == nullptr) return {};
    return {v.build, strnlen(v.build, 64)};
  }

  // The GPUs of every socket; an error text when they cannot be listed.
  std::string Processors(std::vector<a::Handle>& out) const {
    uint32_t sockets = 0;
    if (a::Status st = api_.sockets(&sockets, nullptr); st != a::kSuccess)
      return fmt::format("amdsmi_get_socket_handles failed ({})", Why(st));
    std::vector<a::Handle> socket_handles(sockets);
    if (a::Status st = api_.sockets(&sockets, socket_handles.data()); st != a::kSuccess)
      return fmt::format("amdsmi_get_socket_handles failed ({})", Why(st));
    socket_handles.resize(std::min<size_t>(sockets, socket_handles.size()));
    for (a::Handle socket : socket_handles) {
      uint32_t n = 0;
      if (a::Status st = api_.processors(socket, &n, nullptr); st != a::kSuccess)
        return fmt::format("amdsmi_get_processor_handles failed ({})", Why(st));
      std::vector<a::Handle> handles(n);
      if (a::Status st = api_.processors(socket, &n, handles.data()); st != a::kSuccess)
        return fmt::format("amdsmi_get_processor_handles failed ({})", Why(st));
      handles.resize(std::min<size_t>(n, handles.size()));
      out.insert(out.end(), handles.begin(), handles.end());
    }
    return {};
  }

  std::optional<SmiDevice> Device(a::Handle h) const {
    SmiDevice d;
    if (api_.bdf_id(h, &d.bdfid) != a::kSuccess) return std::nullopt;
    auto info = std::make_unique<a::FwInfo>();
    a::Status fw_st = api_.fw_info(h, info.get());
    for (const AmdFirmware& fw : kAmdFirmware) d.firmware.push_back({fw.name, Firmware(fw_st, *info, fw.id)});
    uint64_t mask = 0;
    d.ecc_enabled = Fact<uint64_t>(api_.ecc_enabled(h, &mask), mask);
    for (const AmdEcc& b : kAmdEcc) {
      a::ErrorCount ec{};
      a::Status st = api_.ecc_count(h, b.block, &ec);
      d.ecc.push_back({b.name, Fact<SmiEccCount>(st, SmiEccCount{ec.correctable_count, ec.uncorrectable_count})});
    }
    uint64_t replay = 0;
    d.replay_count = Fact<uint64_t>(api_.replay(h, &replay), replay);
    d.pcie = {std::nullopt,
              "amd-smi: rocmtune does not read amdsmi_get_gpu_pci_bandwidth (its structure's layout differs "
              "between releases)"};
    d.throttle_status = {std::nullopt,
                         "amd-smi: rocmtune does not read amdsmi_get_gpu_metrics_info (its structure's layout "
                         "differs between releases)"};
    return d;
  }

 private:
  SmiFact<uint64_t> Firmware(a::Status st, const a::FwInfo& info, int id) const {
    if (st != a::kSuccess) return {std::nullopt, Why(st)};
    size_t n = std::min<size_t>(info.num_fw_info, std::size(info.fw_info_list));
    for (size_t i = 0; i < n; ++i)
      if (info.fw_info_list[i].fw_id == id) return {info.fw_info_list[i].fw_version, {}};
    return {std::nullopt, "amd-smi: the library does not list this firmware"};
  }

  const AmdApi& api_;
};

}  // namespace

SmiProbe ReadAmdSmi(const std::string& library, const SmiLoaded& loaded) {
  SmiProbe probe;
  Handle<void*, dlclose> lib(dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!lib) {
    const char* why = dlerror();
    probe.error = fmt::format("amd-smi is not installed ({}: {})", library, why ? why : "cannot load");
    return probe;
  }
  AmdApi api;
  if (std::string missing = ResolveAll(lib.get(), api); !missing.empty()) {
    probe.error = fmt::format("{} has no {}", library, missing);
    return probe;
  }
  probe.source = SmiKindName(SmiKind::kAmdSmi);
  probe.library = library;
  if (loaded) loaded(SmiKind::kAmdSmi);
  AmdSession session(api);
  AmdReader reader(api);
  if (session.status() != a::kSuccess) {
    probe.error = fmt::format("amdsmi_init failed ({})", reader.Why(session.status()));
    return probe;
  }
  probe.version = reader.Version();  // after init: 24.x answers AMDSMI_STATUS_NOT_INIT before it
  std::vector<a::Handle> handles;
  if (std::string why = reader.Processors(handles); !why.empty()) {
    probe.error = std::move(why);
    return probe;
  }
  for (a::Handle h : handles)
    if (auto d = reader.Device(h)) probe.devices.push_back(std::move(*d));
  return probe;
}

}  // namespace rocmtune::sys
