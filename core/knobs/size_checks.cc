#include "knobs/size_checks.h"

#include <fmt/format.h>

#include "knowledge/param_size.h"
#include "sys/meminfo.h"
#include "util/byte_size.h"

namespace rocmtune::knobs {
namespace {

using knowledge::ParamSize;

// What a size below the default takes away, and where the default comes from, per effective
// rule: only parameters whose default is half the RAM are checked against it.
struct DefaultRule {
  std::string_view rule;
  std::string_view limits;  // "... limits <this> to <size>"
  std::string_view source;
};

constexpr DefaultRule kHalfOfRam[] = {
    {"ttm-half-of-ram", "what TTM lets GPUs take from system memory (amdgpu's GTT follows pages_limit since 6.5)",
     "drivers/gpu/drm/ttm/ttm_device.c ttm_global_init() (num_pages = totalram / 2), ttm_tt.c ttm_tt_mgr_init(), "
     "ttm_pool.c ttm_pool_mgr_init() (a value of 0 takes num_pages)"},
    {"gttsize-follows-ttm", "amdgpu's GTT (the system memory a GPU can map)",
     "drivers/gpu/drm/amd/amdgpu/amdgpu_ttm.c amdgpu_ttm_init() (GTT = ttm_tt_pages_limit() since 6.5, which "
     "defaults to totalram / 2: drivers/gpu/drm/ttm/ttm_device.c ttm_global_init())"},
};

const DefaultRule* HalfOfRamRule(const knowledge::ModuleParam& param) {
  if (!param.effective_rule) return nullptr;
  for (const DefaultRule& r : kHalfOfRam)
    if (r.rule == *param.effective_rule) return &r;
  return nullptr;
}

// "8 GiB is 2097152": the count that means 8 GiB, for the message that explains the unit.
std::string EightGib(knowledge::SizeUnit unit) {
  return fmt::format("8 GiB is {}", (8ULL << 30) / knowledge::UnitBytes(unit));
}

}  // namespace

std::vector<SettingIssue> CheckSize(const KnobContext& ctx, std::string_view key_text,
                                    const knowledge::ModuleParam& param, std::string_view value) {
  std::vector<SettingIssue> out;
  auto size = knowledge::SizeOf(param, value);
  if (!size || size->kind == ParamSize::Kind::kAuto) return out;  // not a size, or the kernel's own
  const knowledge::SizeUnit unit = *param.unit;
  const std::string typed = fmt::format("{}={}", key_text, value);
  if (size->kind == ParamSize::Kind::kNegative) {
    out.push_back(
        {"invalid-value", IssueLevel::kRefuse,
         fmt::format("{}: a size cannot be negative; {} (the default) is automatic", typed, param.default_value),
         fmt::format("use a size in {} or leave it unset", knowledge::UnitPhrase(unit)), param.source});
    return out;
  }
  const std::string in_bytes =
      size->kind == ParamSize::Kind::kOverflow
          ? "more than 16 EiB"
          : fmt::format(
                "{} ({} {})", util::FormatBytes(size->bytes), value,
                value == "1" && unit == knowledge::SizeUnit::kPage ? "page of 4 KiB" : knowledge::UnitPhrase(unit));
  const std::optional<uint64_t> ram_kib = sys::MemTotalKib(ctx.root);
  if (!ram_kib) {
    // No refusal without the RAM to compare with, but the size is said.
    out.push_back({"cannot-check", IssueLevel::kNote,
                   fmt::format("{} is {}; it cannot be checked against the RAM: no usable MemTotal line in {}", typed,
                               in_bytes, ctx.root.Display("proc/meminfo")),
                   "", ""});
    return out;
  }
  const uint64_t ram = *ram_kib * 1024;
  const std::string ram_text =
      fmt::format("{} (MemTotal in {})", util::FormatBytes(ram), ctx.root.Display("proc/meminfo"));
  if (size->kind == ParamSize::Kind::kOverflow || size->bytes > ram) {
    out.push_back({"size-above-ram", IssueLevel::kRefuseUnlessForced,
                   fmt::format("{} is {}, more than this machine's RAM of {}: a limit the memory can never reach. "
                               "The unit is {}: {}. --force sets it anyway",
                               typed, in_bytes, ram_text, knowledge::UnitPhrase(unit), EightGib(unit)),
                   fmt::format("use a size in {} up to the RAM ({})", knowledge::UnitPhrase(unit), EightGib(unit)),
                   param.source});
    return out;
  }
  // A limit under 1 GiB (pages_limit=1: one page) leaves the GPU no memory to work with: a unit
  // mistake as surely as a size above the RAM, refused the same way.
  if (const DefaultRule* rule = HalfOfRamRule(param); rule && size->bytes < (1ULL << 30) && ram / 2 >= (1ULL << 30)) {
    out.push_back({"size-below-default", IssueLevel::kRefuseUnlessForced,
                   fmt::format("{} limits {} to {}, under 1 GiB: the GPU could hardly allocate anything. The unit is "
                               "{}: {}. --force sets it anyway",
                               typed, rule->limits, in_bytes, knowledge::UnitPhrase(unit), EightGib(unit)),
                   fmt::format("leave it unset for the default ({}), or use a size in {} ({})",
                               util::FormatBytes(ram / 2), knowledge::UnitPhrase(unit), EightGib(unit)),
                   std::string(rule->source)});
    return out;
  }
  if (const DefaultRule* rule = HalfOfRamRule(param); rule && size->bytes < ram / 2) {
    out.push_back({"size-below-default", IssueLevel::kWarn,
                   fmt::format("{} limits {} to {}, below the kernel's default of half the RAM: {} of {}", typed,
                               rule->limits, in_bytes, util::FormatBytes(ram / 2), ram_text),
                   fmt::format("leave it unset for the default, or raise it (the unit is {}: {})",
                               knowledge::UnitPhrase(unit), EightGib(unit)),
                   std::string(rule->source)});
    return out;
  }
  out.push_back({"size", IssueLevel::kNote, fmt::format("{} is {}", typed, in_bytes), "", ""});
  return out;
}

}  // namespace rocmtune::knobs

namespace rocmtune::knobs {

const knowledge::ModuleParam* SizeParam(const knowledge::Catalog& catalog, const KnobKey& key) {
  const knowledge::ModuleParam* param = nullptr;
  if (key.kind == KnobKind::kModuleParam) {
    param = catalog.Find(key.module, key.name);
  } else if (key.kind == KnobKind::kCmdline) {
    size_t dot = key.name.find('.');
    if (dot != std::string::npos) param = catalog.Find(key.name.substr(0, dot), key.name.substr(dot + 1));
  }
  return param && param->unit ? param : nullptr;
}

}  // namespace rocmtune::knobs
