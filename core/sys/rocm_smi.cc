// Reading rocm-smi-lib in this process (the child of ProbeRocmSmi): dlopen, rsmi_init, every
// device's few values, rsmi_shut_down. The types come from Debian 12's <rocm_smi/rocm_smi.h>
// (librocm-smi-dev 5.2.3); nothing links the library.
#include "sys/rocm_smi.h"

#include <dlfcn.h>

#include <array>
#include <memory>

#include <fmt/format.h>
#include <rocm_smi/rocm_smi.h>
#include <rocm_smi/rocm_smi64Config.h>

#include "sys/dl_symbol.h"
#include "util/handle.h"

namespace rocmtune::sys {
namespace {

struct FirmwareBlock {
  const char* name;  // as amdgpu names fw_version/<name>_fw_version
  rsmi_fw_block_t block;
};

// MEC runs compute queues, SMC is the power management firmware (PMFW), SOS the security OS,
// RLC, SDMA and VCN the engines whose firmware ROCm known issues name.
constexpr std::array<FirmwareBlock, 6> kFirmware = {{
    {"mec", RSMI_FW_BLOCK_MEC},
    {"rlc", RSMI_FW_BLOCK_RLC},
    {"sdma", RSMI_FW_BLOCK_SDMA},
    {"smc", RSMI_FW_BLOCK_SMC},
    {"sos", RSMI_FW_BLOCK_SOS},
    {"vcn", RSMI_FW_BLOCK_VCN},
}};

struct EccBlock {
  const char* name;  // amdgpu ras/<name>_err_count
  rsmi_gpu_block_t block;
};

// The blocks rsmi_dev_ecc_count_get answers in 5.2 (others are RSMI_STATUS_NOT_SUPPORTED).
constexpr std::array<EccBlock, 3> kEcc = {{
    {"umc", RSMI_GPU_BLOCK_UMC},
    {"sdma", RSMI_GPU_BLOCK_SDMA},
    {"gfx", RSMI_GPU_BLOCK_GFX},
}};

// The functions used, resolved by name; one missing leaves the library unusable.
struct Api {
  decltype(&rsmi_init) init = nullptr;
  decltype(&rsmi_shut_down) shut_down = nullptr;
  decltype(&rsmi_status_string) status_string = nullptr;
  decltype(&rsmi_version_get) version_get = nullptr;
  decltype(&rsmi_num_monitor_devices) num_devices = nullptr;
  decltype(&rsmi_dev_pci_id_get) pci_id = nullptr;
  decltype(&rsmi_dev_firmware_version_get) firmware = nullptr;
  decltype(&rsmi_dev_ecc_enabled_get) ecc_enabled = nullptr;
  decltype(&rsmi_dev_ecc_count_get) ecc_count = nullptr;
  decltype(&rsmi_dev_pci_bandwidth_get) pci_bandwidth = nullptr;
  decltype(&rsmi_dev_pci_replay_counter_get) replay = nullptr;
  decltype(&rsmi_dev_gpu_metrics_info_get) metrics = nullptr;
};

using Library = Handle<void*, dlclose>;

std::string ResolveAll(void* lib, Api& api) {
  std::string missing;
  ResolveSymbol(lib, "rsmi_init", api.init, missing);
  ResolveSymbol(lib, "rsmi_shut_down", api.shut_down, missing);
  ResolveSymbol(lib, "rsmi_status_string", api.status_string, missing);
  ResolveSymbol(lib, "rsmi_version_get", api.version_get, missing);
  ResolveSymbol(lib, "rsmi_num_monitor_devices", api.num_devices, missing);
  ResolveSymbol(lib, "rsmi_dev_pci_id_get", api.pci_id, missing);
  ResolveSymbol(lib, "rsmi_dev_firmware_version_get", api.firmware, missing);
  ResolveSymbol(lib, "rsmi_dev_ecc_enabled_get", api.ecc_enabled, missing);
  ResolveSymbol(lib, "rsmi_dev_ecc_count_get", api.ecc_count, missing);
  ResolveSymbol(lib, "rsmi_dev_pci_bandwidth_get", api.pci_bandwidth, missing);
  ResolveSymbol(lib, "rsmi_dev_pci_replay_counter_get", api.replay, missing);
  ResolveSymbol(lib, "rsmi_dev_gpu_metrics_info_get", api.metrics, missing);
  return missing;
}

// rsmi_init's reference count: rsmi_shut_down once for every successful init.
class Session {
 public:
  Session(const Api& api, uint64_t flags) : api_(api), status_(api.init(flags)) {}
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() {
    if (status_ == RSMI_STATUS_SUCCESS) api_.shut_down();
  }
  rsmi_status_t status() const { return status_; }

 private:
  const Api& api_;
  rsmi_status_t status_;
};

class Reader {
 public:
  explicit Reader(const Api& api) : api_(api) {}

  std::string Why(rsmi_status_t st) const {
    const char* text = nullptr;
    if (api_.status_string(st, &text) != RSMI_STATUS_SUCCESS || text == nullptr)
      return fmt::format("rocm-smi-lib: status {}", static_cast<int>(st));
    return fmt::format("rocm-smi-lib: {}", text);
  }

  template <typename T, typename U>
  SmiFact<T> Fact(rsmi_status_t st, const U& value) const {
    if (st == RSMI_STATUS_SUCCESS) return {static_cast<T>(value), {}};
    return {std::nullopt, Why(st)};
  }

  // Nothing for a device without a PCI address: it could not be matched to a GPU.
  std::optional<SmiDevice> Device(uint32_t index, bool same_layout, const std::string& layout_why) const {
    SmiDevice d;
    if (api_.pci_id(index, &d.bdfid) != RSMI_STATUS_SUCCESS) return std::nullopt;
    for (const FirmwareBlock& fw : kFirmware) {
      uint64_t v = 0;
      d.firmware.push_back({fw.name, Fact<uint64_t>(api_.firmware(index, fw.block, &v), v)});
    }
    uint64_t mask = 0;
    d.ecc_enabled = Fact<uint64_t>(api_.ecc_enabled(index, &mask), mask);
    for (const EccBlock& b : kEcc) {
      rsmi_error_count_t ec{};
      rsmi_status_t st = api_.ecc_count(index, b.block, &ec);
      d.ecc.push_back({b.name, Fact<SmiEccCount>(st, SmiEccCount{ec.correctable_err, ec.uncorrectable_err})});
    }
    uint64_t replay = 0;
    d.replay_count = Fact<uint64_t>(api_.replay(index, &replay), replay);
    if (!same_layout) {
      d.pcie = {std::nullopt, layout_why};
      d.throttle_status = {std::nullopt, layout_why};
      return d;
    }
    d.pcie = Bandwidth(index);
    // A buffer larger than the structure: a library that writes a newer, longer layout does
    // not write past it.
    auto metrics = std::make_unique<std::array<unsigned char, 4 * sizeof(rsmi_gpu_metrics_t)>>();
    auto* m = reinterpret_cast<rsmi_gpu_metrics_t*>(metrics->data());  // NOLINT
    d.throttle_status = Fact<uint32_t>(api_.metrics(index, m), m->throttle_status);
    return d;
  }

 private:
  SmiFact<SmiPcie> Bandwidth(uint32_t index) const {
    auto buffer = std::make_unique<std::array<unsigned char, 4 * sizeof(rsmi_pcie_bandwidth_t)>>();
    auto* bw = reinterpret_cast<rsmi_pcie_bandwidth_t*>(buffer->data());  // NOLINT
    rsmi_status_t st = api_.pci_bandwidth(index, bw);
    if (st != RSMI_STATUS_SUCCESS) return {std::nullopt, Why(st)};
    const rsmi_frequencies_t& rate = bw->transfer_rate;
    if (rate.num_supported == 0 || rate.num_supported > RSMI_MAX_NUM_FREQUENCIES || rate.current >= rate.num_supported)
      return {std::nullopt, "rocm-smi-lib: no current PCIe level (pp_dpm_pcie)"};
    SmiPcie pcie;
    pcie.current = rate.current;
    for (uint32_t i = 0; i < rate.num_supported; ++i) pcie.levels.push_back({rate.frequency[i], bw->lanes[i]});
    return {std::move(pcie), {}};
  }

  const Api& api_;
};

// The `name`s of a block table, in its order.
template <typename Table>
std::vector<std::string> Names(const Table& table) {
  std::vector<std::string> names;
  names.reserve(table.size());
  for (const auto& entry : table) names.emplace_back(entry.name);
  return names;
}

}  // namespace

const std::vector<std::string>& SmiFirmwareBlocks() {
  static const std::vector<std::string> kNames = Names(kFirmware);
  return kNames;
}

const std::vector<std::string>& SmiEccBlocks() {
  static const std::vector<std::string> kNames = Names(kEcc);
  return kNames;
}

std::vector<std::string> SmiBlockNames(uint64_t mask) {
  // rsmi_gpu_block_t, lowest bit first.
  static constexpr std::array<const char*, 14> kBits = {
      "umc", "sdma", "gfx", "mmhub", "athub", "pcie_bif", "hdp", "xgmi_wafl", "df", "smn", "sem", "mp0", "mp1", "fuse"};
  static_assert(RSMI_GPU_BLOCK_FUSE == 1ULL << 13);
  std::vector<std::string> names;
  for (unsigned bit = 0; bit < 64; ++bit)
    if (mask & (1ULL << bit)) names.emplace_back(bit < kBits.size() ? kBits[bit] : fmt::format("bit {}", bit));
  return names;
}

SmiProbe ReadRocmSmi(const std::string& library, const SmiLoaded& loaded) {
  SmiProbe probe;
  Library lib(dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!lib) {
    const char* why = dlerror();
    probe.error = fmt::format("rocm-smi-lib is not installed ({}: {})", library, why ? why : "cannot load");
    return probe;
  }
  Api api;
  if (std::string missing = ResolveAll(lib.get(), api); !missing.empty()) {
    probe.error = fmt::format("{} has no {}", library, missing);
    return probe;
  }
  probe.source = SmiKindName(SmiKind::kRocmSmi);
  probe.library = library;
  if (loaded) loaded(SmiKind::kRocmSmi);
  rsmi_version_t v{};
  bool same_layout = false;
  uint64_t flags = 0;
  if (api.version_get(&v) == RSMI_STATUS_SUCCESS) {
    probe.version = fmt::format("{}.{}.{}", v.major, v.minor, v.patch);
    same_layout = v.major == rocm_smi_VERSION_MAJOR && v.minor == rocm_smi_VERSION_MINOR;
    flags = RsmiInitFlags(v.major, v.minor);
  }
  // Structures whose size changed across releases (RSMI_MAX_NUM_FREQUENCIES, gpu_metrics) are read
  // only from the release rocmtune was built against.
  std::string layout_why = fmt::format(
      "rocm-smi-lib {} is not the release rocmtune was built with ({}.{}); its "
      "structure layout is not known",
      probe.version.empty() ? "(unknown version)" : probe.version, rocm_smi_VERSION_MAJOR, rocm_smi_VERSION_MINOR);
  Session session(api, flags);
  Reader reader(api);
  if (session.status() != RSMI_STATUS_SUCCESS) {
    probe.error = fmt::format("rsmi_init failed ({})", reader.Why(session.status()));
    return probe;
  }
  uint32_t n = 0;
  if (rsmi_status_t st = api.num_devices(&n); st != RSMI_STATUS_SUCCESS) {
    probe.error = fmt::format("rsmi_num_monitor_devices failed ({})", reader.Why(st));
    return probe;
  }
  for (uint32_t i = 0; i < n; ++i)
    if (auto d = reader.Device(i, same_layout, layout_why)) probe.devices.push_back(std::move(*d));
  return probe;
}

}  // namespace rocmtune::sys
