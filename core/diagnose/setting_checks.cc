// Findings about what the module settings do together on this kernel, beyond each option's own
// checks (knobs/module_param_checks.h): the job timeout a newer kernel gives the GPU's kernel
// queues when nobody set amdgpu.lockup_timeout.
#include <fmt/format.h>

#include "detect/finding_ids.h"
#include "diagnose/checks.h"
#include "knobs/effective.h"
#include "knobs/kernel_rules.h"

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

}  // namespace

std::vector<Finding> SettingChecks(const sys::Root& root, const detect::Inventory& inventory,
                                   const std::vector<knobs::KnobState>& states) {
  std::vector<Finding> out;
  CheckLockupTimeout(root, inventory, states, out);
  return out;
}

}  // namespace rocmtune::diagnose
