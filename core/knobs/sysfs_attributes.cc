#include "knobs/sysfs_attributes.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "knobs/power_profiles.h"
#include "util/text.h"

namespace rocmtune::knobs {
namespace {

std::string_view WithoutPadding(std::string_view raw) {
  while (!raw.empty() && raw.back() == '\0') raw.remove_suffix(1);
  return raw;
}

// An attribute that reads back one word from a fixed list and takes the same word. The word it
// read, with its newline as `echo` writes it, puts it back (never other raw bytes: a read with a
// stray '\r' or blanks would be a value the helper refuses, and the revert would be stuck).
class WordCodec final : public SysfsCodec {
 public:
  explicit WordCodec(std::vector<std::string_view> values) : values_(std::move(values)) {}

  std::optional<std::string> Current(std::string_view raw) const override {
    std::string v = text::Clean(raw);
    return v.empty() ? std::nullopt : std::optional(v);
  }
  std::optional<std::string> Restorable(std::string_view raw) const override {
    std::string_view shown = WithoutPadding(raw);
    std::string word = text::Clean(shown);
    if (!Listed(word)) return std::nullopt;
    // sysfs reads end in a newline; a world's file written by rocmtune may not, and gets back
    // exactly what it held.
    return shown.ends_with('\n') ? word + "\n" : word;
  }
  std::span<const std::string_view> FixedValues() const override { return values_; }
  Result<std::string> Encode(std::string_view, std::string_view wanted) const override {
    if (Listed(wanted)) return std::string(wanted);
    return Fail(ErrorCode::kInvalidArgument, fmt::format("'{}' is not accepted (values: {})", wanted, Joined()));
  }
  Result<std::string> EncodeRestore(std::string_view raw, std::string_view wanted) const override {
    auto encoded = Encode(raw, wanted);
    if (encoded) *encoded += '\n';
    return encoded;
  }
  Result<void> CheckWrite(std::string_view, std::string_view written) const override {
    if (Listed(written)) return {};
    return Fail(ErrorCode::kInvalidArgument, fmt::format("'{}' is not a value this attribute takes", written));
  }
  bool Holds(std::string_view raw, std::string_view written) const override {
    return text::Clean(raw) == text::Clean(written);
  }
  // A captured world file may be NUL-padded to the page the capture read; it stays so.
  std::string Emulate(std::string_view raw, std::string_view written) const override {
    std::string out(written);
    if (WithoutPadding(raw).size() < raw.size() && out.size() < raw.size()) out.resize(raw.size(), '\0');
    return out;
  }

 private:
  bool Listed(std::string_view v) const { return std::find(values_.begin(), values_.end(), v) != values_.end(); }
  std::string Joined() const {
    std::string out;
    for (auto v : values_) out += (out.empty() ? "" : ", ") + std::string(v);
    return out;
  }
  std::vector<std::string_view> values_;
};

const std::array<SysfsAttribute, 3>& Attributes() {
  // drivers/gpu/drm/amd/pm/amdgpu_pm.c amdgpu_get_power_dpm_force_performance_level() prints
  // these names, and the store takes the same ones.
  static const WordCodec kPerformanceLevel({"auto", "low", "high", "manual", "profile_standard", "profile_min_sclk",
                                            "profile_min_mclk", "profile_peak", "perf_determinism"});
  static const WordCodec kDpmState({"battery", "balanced", "performance"});
  static const std::array<SysfsAttribute, 3> kAttributes = {{
      {"power_dpm_force_performance_level", &kPerformanceLevel,
       "DPM performance level: auto lets the SMU choose; high/profile_peak pin clocks (profile_* also disable clock "
       "and power gating); manual is needed before pp_dpm_* writes.",
       "drivers/gpu/drm/amd/pm/amdgpu_pm.c amdgpu_set_power_dpm_force_performance_level(); "
       "Documentation/gpu/amdgpu/thermal.rst"},
      {"pp_power_profile_mode", &PowerProfileCodec(),
       "Workload profile the SMU optimises for, by name (BOOTUP_DEFAULT, 3D_FULL_SCREEN, POWER_SAVING, VIDEO, VR, "
       "COMPUTE); rocmtune writes the index this device lists for the name.",
       "drivers/gpu/drm/amd/pm/amdgpu_pm.c amdgpu_set_pp_power_profile_mode(); Documentation/gpu/amdgpu/thermal.rst"},
      {"power_dpm_state", &kDpmState, "Legacy DPM state; ignored by SMU-based (Vega and newer) parts.",
       "drivers/gpu/drm/amd/pm/amdgpu_pm.c amdgpu_set_power_dpm_state()"},
  }};
  return kAttributes;
}

}  // namespace

std::span<const SysfsAttribute> SysfsAttributes() { return Attributes(); }

const SysfsAttribute* FindSysfsAttribute(std::string_view name) {
  for (const SysfsAttribute& a : Attributes())
    if (a.name == name) return &a;
  return nullptr;
}

const SysfsAttribute* FindSysfsAttributeOfPath(std::string_view path) {
  size_t slash = path.rfind('/');
  return FindSysfsAttribute(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace rocmtune::knobs
