// Findings about what the module settings do together on this kernel, beyond each option's own
// checks (knobs/module_param_checks.h): the job timeout a newer kernel gives the GPU's kernel
// queues when nobody set amdgpu.lockup_timeout, and an amdgpu.gttsize that disagrees with TTM's
// pages_limit.
#include <fmt/format.h>

#include "boot/cmdline_scan.h"
#include "detect/finding_ids.h"
#include "diagnose/checks.h"
#include "knobs/effective.h"
#include "knobs/kernel_rules.h"
#include "knowledge/catalog.h"
#include "util/byte_size.h"
#include "util/text.h"

namespace rocmtune::diagnose {

namespace {

// The value a key has by the knob table: configured for the next boot, else running now.
std::optional<std::string> SettingOf(const std::vector<knobs::KnobState>& states, std::string_view key) {
  for (const knobs::KnobState& s : states) {
    if (s.key.Text() != key) continue;
    if (s.configured && !s.configured->empty()) return s.configured;
    if (s.running && !s.running->empty()) return s.running;
  }
  return std::nullopt;
}

// The programs whose GPU work goes through the kernel's queues and is timed by lockup_timeout:
// Mesa's RADV and AMD's AMDVLK (Vulkan: llama.cpp's Vulkan backend, Blender, games) and Mesa's
// rusticl (OpenCL). ROCm's HIP and OpenCL run on KFD user queues, which the timeout does not cover.
std::vector<std::string> KernelQueueDrivers(const sys::Root& root) {
  std::vector<std::string> found;
  for (std::string_view dir : {"usr/share/vulkan/icd.d", "etc/vulkan/icd.d"}) {
    auto names = root.ListDir(dir);
    if (!names) continue;
    for (const std::string& n : *names)
      if ((n.starts_with("radeon_icd") || n.starts_with("amd_icd")) && n.ends_with(".json"))
        found.push_back(fmt::format("/{}/{}", dir, n));
  }
  if (root.TypeOf("etc/OpenCL/vendors/rusticl.icd") != sys::EntryType::kMissing)
    found.emplace_back("/etc/OpenCL/vendors/rusticl.icd");
  return found;
}

// From 6.19 an unset lockup_timeout means 2 s for every kernel queue, compute included: a Vulkan
// or Mesa OpenCL dispatch that runs longer is a "ring ... timeout", a GPU reset and a lost device.
void CheckLockupTimeout(const sys::Root& root, const detect::Inventory& inventory,
                        const std::vector<knobs::KnobState>& states, std::vector<Finding>& out) {
  if (inventory.gpus.empty() || !inventory.system.amdgpu.loaded) return;
  const auto kernel = knobs::KernelVersion(inventory.system.kernel);
  const auto defaults = knobs::LockupTimeoutDefaults(kernel);
  if (!defaults || !defaults->single_sets_all) return;
  if (SettingOf(states, "amdgpu.lockup_timeout") || SettingOf(states, "cmdline.amdgpu.lockup_timeout")) return;
  auto running = inventory.system.amdgpu.parameters.find("lockup_timeout");
  if (running != inventory.system.amdgpu.parameters.end() && running->second && !running->second->empty()) return;
  const std::vector<std::string> drivers = KernelQueueDrivers(root);
  if (drivers.empty()) return;  // no Vulkan or Mesa OpenCL driver: nothing here submits long kernel-queue jobs
  Finding f = MakeFinding(
      FindingName(FindingId::kModuleLockupTimeoutShort), Severity::kInfo, "amdgpu.lockup_timeout",
      fmt::format("Kernel {} resets a Vulkan, OpenGL or Mesa OpenCL job that runs over {} s on the GPU",
                  inventory.system.kernel.value_or("?"), defaults->compute / 1000),
      fmt::format(
          "amdgpu.lockup_timeout is unset, and from kernel 6.19 its default is {} ms for every kernel queue, "
          "compute included (6.17 and 6.18: 10 s; before: 10 s, 60 s for compute). A longer dispatch, such as "
          "a large prompt in llama.cpp's Vulkan backend or a Blender render, ends in \"ring gfx_0.0.0 timeout\" "
          "or \"ring comp_1.0.0 timeout\", a GPU reset and VK_ERROR_DEVICE_LOST. ROCm programs (HIP, ROCm's "
          "OpenCL) run on KFD user queues, which this timeout does not cover: they are not affected",
          defaults->compute),
      "If long Vulkan or Mesa OpenCL jobs fail with a lost device, give the kernel queues the 6.18 timeout back: "
      "sudo rocmtunectl set amdgpu.lockup_timeout=10000 (one value sets every queue from 6.19; takes effect at the "
      "next boot). A negative value disables the timeout and taints the kernel.",
      {knobs::kLockupTimeoutSource});
  f.kind = Kind::kSetting;
  f.fix.set.push_back("amdgpu.lockup_timeout=10000");
  for (const std::string& d : drivers) f.evidence.push_back(fmt::format("{} submits through the kernel's queues", d));
  f.evidence.push_back("/sys/module/amdgpu/parameters/lockup_timeout is empty: the kernel's default applies");
  out.push_back(std::move(f));
}

constexpr uint64_t kTtmPage = 4096;  // TTM's pages_limit counts PAGE_SIZE pages (x86-64, arm64 4K)

// amdgpu_ttm_init() (6.15, with the deprecation): GTT is amdgpu.gttsize MiB when it is set, and the
// driver warns "GTT size has been set as %llu but TTM size has been set as %llu, this is unusual"
// when that differs from ttm_tt_pages_limit(); KFD (amdgpu_amdkfd_gpuvm_init_mem_limits) still
// stops ROCm at pages_limit, and amdgpu's GTT manager at gttsize. Whichever is smaller caps what a
// ROCm program allocates in system memory; the larger one only looks like more. Since 6.5 GTT
// follows pages_limit without gttsize, so removing gttsize and sizing pages_limit makes them agree.
void CheckGttAgainstTtm(const knobs::KnobContext& ctx, const detect::Inventory& inventory,
                        const std::vector<knobs::KnobState>& states, const std::vector<RocmMemory>& memory,
                        std::vector<Finding>& out) {
  if (!inventory.system.amdgpu.loaded) return;
  const auto kernel = knobs::KernelVersion(inventory.system.kernel);
  if (!kernel || *kernel < knobs::KernelMinor{6, 5}) return;  // before 6.5 GTT had its own default
  std::optional<std::string> value;
  auto running = inventory.system.amdgpu.parameters.find("gttsize");
  if (running != inventory.system.amdgpu.parameters.end() && running->second) value = text::Trim(*running->second);
  else value = SettingOf(states, "amdgpu.gttsize");
  if (!value) return;
  const auto mib = text::ParseU64(*value);  // -1 (auto) does not parse; below 32 the driver ignores it
  if (!mib || *mib < 32) return;
  const RocmMemory* m = nullptr;
  for (size_t i = 0; i < memory.size() && i < inventory.gpus.size(); ++i)
    if (memory[i].ttm_limit_bytes && !m) m = &memory[i];
  if (!m) return;
  const uint64_t gtt = *mib << 20;
  const uint64_t ttm = *m->ttm_limit_bytes;
  if (gtt == ttm) return;
  const std::string pages_key = m->ttm_module + ".pages_limit";
  const uint64_t pages = gtt / kTtmPage;
  const std::string what =
      gtt > ttm ? fmt::format("amdgpu.gttsize={} makes amdgpu's GTT {}, but {} stops ROCm programs at {}", *mib,
                              util::FormatBytes(gtt), pages_key, util::FormatBytes(ttm))
                : fmt::format("amdgpu.gttsize={} caps amdgpu's GTT at {}, below the {} that {} allows", *mib,
                              util::FormatBytes(gtt), util::FormatBytes(ttm), pages_key);
  Finding f = MakeFinding(
      FindingName(FindingId::kModuleGttTtmDisagree), Severity::kWarning, "amdgpu.gttsize", what,
      fmt::format("amdgpu sizes its GTT domain from amdgpu.gttsize, KFD limits what ROCm allocates in system memory "
                  "to {} (kernels from 6.15 log \"GTT size has been set as {} but TTM size has been set as {}, this is "
                  "unusual\"). The smaller of the two is the limit, the larger only looks like more memory{}. "
                  "amdgpu.gttsize is deprecated (6.15); since 6.5 GTT follows {} when gttsize is not set",
                  pages_key, gtt, ttm,
                  m->gtt_allocatable_bytes
                      ? fmt::format(": ROCm programs can allocate {} of system memory here (limited by {})",
                                    util::FormatBytes(*m->gtt_allocatable_bytes), m->limited_by)
                      : "",
                  pages_key),
      gtt > ttm ? fmt::format("Set the size you meant where KFD counts it and drop gttsize: sudo rocmtunectl set "
                              "{}={} {}.page_pool_size={}, then remove amdgpu.gttsize where it is set; both take "
                              "effect at the next boot",
                              pages_key, pages, m->ttm_module, pages)
                : fmt::format("Remove amdgpu.gttsize where it is set: GTT then follows {} ({}); takes effect at the "
                              "next boot",
                              pages_key, util::FormatBytes(ttm)),
      {"linux drivers/gpu/drm/amd/amdgpu/amdgpu_ttm.c amdgpu_ttm_init() (\"GTT size has been set as %llu but TTM size "
       "has been set as %llu, this is unusual\"; gttsize deprecated, 6.15)",
       "linux drivers/gpu/drm/amd/amdgpu/amdgpu_amdkfd_gpuvm.c amdgpu_amdkfd_gpuvm_init_mem_limits() "
       "(max_ttm_mem_limit = ttm_tt_pages_limit() << PAGE_SHIFT)",
       "linux drivers/gpu/drm/ttm/ttm_tt.c module_param_named(pages_limit)"});
  f.kind = Kind::kSetting;
  if (gtt > ttm) {
    f.fix.set.push_back(fmt::format("{}={}", pages_key, pages));
    f.fix.set.push_back(fmt::format("{}.page_pool_size={}", m->ttm_module, pages));
  }
  // Where gttsize is set for the next boot: modprobe.d (the knob's row), else a boot
  // configuration file's command line; /proc/cmdline only when no file rocmtune reads has it.
  std::string unset_key = "amdgpu.gttsize";
  for (const knobs::KnobState& s : states)
    if (s.key.Text() == "amdgpu.gttsize" && s.configured_in) {
      f.file = *s.configured_in;
      f.line = s.configured_line;
    }
  if (f.file.empty()) {
    for (const boot::CmdlineTokenAt& t : boot::ScanCmdlineTokens(ctx)) {
      if (boot::TokenKey(t.token) != "amdgpu.gttsize") continue;
      if (f.file.empty() || (f.file == "proc/cmdline" && t.file != "proc/cmdline")) {
        f.file = t.file;
        f.line = t.line;
        unset_key = "cmdline.amdgpu.gttsize";
      }
    }
  }
  f.fix.unset.push_back(unset_key);
  f.evidence.push_back(fmt::format("amdgpu.gttsize is {} MiB ({})", *mib, util::FormatBytes(gtt)));
  f.evidence.push_back(fmt::format("{} is {} pages ({})", pages_key, ttm / kTtmPage, util::FormatBytes(ttm)));
  out.push_back(std::move(f));
}

}  // namespace

std::vector<Finding> SettingChecks(const knobs::KnobContext& ctx, const std::vector<knobs::KnobState>& states,
                                   const std::vector<RocmMemory>& memory) {
  std::vector<Finding> out;
  CheckLockupTimeout(ctx.root, ctx.inventory, states, out);
  CheckGttAgainstTtm(ctx, ctx.inventory, states, memory, out);
  return out;
}

}  // namespace rocmtune::diagnose
