// The checks of the assessment that are neither detection's nor the knobs' findings nor known
// issues: the machine (PCIe atomics, BAR, IOMMU, device access, pending reboot), GPU support by
// the installed ROCm release, and rocm-smi-lib's live facts.
#pragma once

#include <cstdint>
#include <vector>

#include "detect/inventory.h"
#include "detect/live_facts.h"
#include "diagnose/assess.h"
#include "diagnose/finding.h"
#include "diagnose/rocm_memory.h"
#include "knobs/backend.h"
#include "sys/root.h"

namespace rocmtune::diagnose {

// machine_checks.cc. `caller`: also whether the user running this may open /dev/kfd (not for
// rocmtuned, whose own user says nothing about the users asking it).
std::vector<Finding> MachineChecks(const sys::Root& root, const detect::Inventory& inventory, bool caller = true);
// support_checks.cc: each GPU's gfx target against the installed ROCm release's GPU table.
std::vector<Finding> SupportChecks(const detect::Inventory& inventory);

// code_checks.cc: whether the runtime the program loads carries code for each GPU's ISA (its
// effective one under an override): runtime.code, runtime.no-code (effect unsupported, with the
// fix that works here), runtime.override-redundant, runtime.unknown.
std::vector<Finding> CodeChecks(const detect::Inventory& inventory, const ProgramView& view);

// services.cc: the machine's ROCm services, each judged with its own environment (compute.service).
std::vector<Finding> ServiceChecks(const sys::Root& root, const detect::Inventory& inventory);

// live_checks.cc: uncorrectable (error) and correctable (info) ECC errors, a PCIe link below its
// fastest level (info), many PCIe replays (warning), throttling (info), and an info finding when
// the facts are unknown altogether.
inline constexpr uint64_t kReplayWarning = 100;
std::vector<Finding> LiveChecks(const std::vector<detect::LiveFacts>& live);

// setting_checks.cc: what the module settings do together on this kernel: the 2 s job timeout of the
// kernel queues from 6.19 where a Vulkan or Mesa OpenCL driver uses them (module.lockup-timeout-short),
// and an amdgpu.gttsize other than TTM's pages_limit (module.gtt-ttm-disagree). `states`: the knob
// table (knobs::ReportKnobs); `memory`: each GPU's (rocm_memory.h), in the inventory's order.
// `ctx`: the request's (Facts::Knobs), whose command line and modprobe.d are read once.
std::vector<Finding> SettingChecks(const knobs::KnobContext& ctx, const std::vector<knobs::KnobState>& states,
                                   const std::vector<RocmMemory>& memory);

// shm_checks.cc: every world-writable /dev/shm/rocm_smi_* file no running process holds (warning).
std::vector<Finding> ShmChecks(const sys::Root& root);

}  // namespace rocmtune::diagnose
