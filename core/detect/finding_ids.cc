#include "detect/finding_ids.h"

#include <array>

namespace rocmtune::detect {
namespace {

using enum FindingId;

// In the order rocmtunectl(1) FINDINGS lists them: detection, files and settings, the caller's
// environment, the journal, the machine checks, ROCm support, live facts, a crash log.
constexpr std::array kTable = {
    FindingRow{kDetectReadError, "detect.read-error", Severity::kWarning, Severity::kWarning,
               "A file or directory detection reads could not be read; what it would have said is unknown."},
    FindingRow{kDetectIdMismatch, "detect.id-mismatch", Severity::kWarning, Severity::kWarning,
               "DRM and the KFD topology disagree on a GPU's device id; the DRM id is used."},
    FindingRow{kDetectKfdNoDomain, "detect.kfd-no-domain", Severity::kInfo, Severity::kInfo,
               "The kernel's KFD topology does not report a GPU's PCI domain; 0000 is assumed."},
    FindingRow{kDetectParametersUnreadable, "detect.parameters-unreadable", Severity::kInfo, Severity::kInfo,
               "Some parameters of the amdgpu or ttm module could not be read (some are root only)."},
    FindingRow{kGpuNotAmdgpu, "gpu.not-amdgpu", Severity::kInfo, Severity::kError,
               "An AMD GPU is not driven by amdgpu: rocmtune does not manage it and ROCm programs cannot use it. "
               "Info for a passthrough driver (vfio-pci), a warning for radeon or no driver, an error when Secure "
               "Boot refuses amdgpu-dkms's module (not signed with an enrolled key)."},
    FindingRow{kGpuNoRocmIsa, "gpu.no-rocm-isa", Severity::kWarning, Severity::kWarning,
               "The GPU's family has no ROCm code-object target at all."},
    FindingRow{kGpuGfxTargetUnknown, "gpu.gfx-target-unknown", Severity::kWarning, Severity::kWarning,
               "The GPU's gfx target could not be determined."},
    FindingRow{kGpuNotRocmFamily, "gpu.not-rocm-family", Severity::kInfo, Severity::kInfo,
               "The GPU's family is not one ROCm targets."},
    FindingRow{kGpuNoKfd, "gpu.no-kfd", Severity::kError, Severity::kError,
               "KFD does not list the GPU, or there is no KFD: ROCm programs cannot use it."},
    FindingRow{kGpuNone, "gpu.none", Severity::kWarning, Severity::kWarning,
               "No AMD GPU driven by amdgpu was found (none when gpu.not-amdgpu says why a GPU has no amdgpu)."},
    FindingRow{kFileUnreadable, "file.unreadable", Severity::kWarning, Severity::kError,
               "A file rocmtune reads or owns cannot be read (an error for its own files)."},
    FindingRow{kModuleUnknownParameter, "module.unknown-parameter", Severity::kWarning, Severity::kWarning,
               "A module option names a parameter the module does not have."},
    FindingRow{kModuleInvalidValue, "module.invalid-value", Severity::kWarning, Severity::kWarning,
               "A module option's value is one the parameter does not take."},
    FindingRow{kModuleNotInKernel, "module.not-in-kernel", Severity::kWarning, Severity::kWarning,
               "The parameter is not in this kernel's module."},
    FindingRow{kModuleWrongModule, "module.wrong-module", Severity::kWarning, Severity::kWarning,
               "The option is written for a module that is not the one loaded (ttm under amdgpu-dkms)."},
    FindingRow{kModuleNoEffect, "module.no-effect", Severity::kWarning, Severity::kWarning,
               "The parameter does nothing on the GPUs here."},
    FindingRow{kModuleDeprecated, "module.deprecated", Severity::kInfo, Severity::kWarning,
               "The parameter is deprecated and has a successor (info on a kernel before the one that deprecates "
               "it)."},
    FindingRow{kModuleSizeAboveRam, "module.size-above-ram", Severity::kWarning, Severity::kWarning,
               "A memory size parameter is above the machine's RAM."},
    FindingRow{kModuleSizeBelowDefault, "module.size-below-default", Severity::kWarning, Severity::kWarning,
               "A memory size parameter is below the kernel's default of half the RAM."},
    FindingRow{kModuleLockupTimeoutShort, "module.lockup-timeout-short", Severity::kInfo, Severity::kInfo,
               "From kernel 6.19 amdgpu resets a Vulkan, OpenGL or Mesa OpenCL job that runs over 2 s "
               "(lockup_timeout unset); ROCm's own queues are not timed."},
    FindingRow{kModuleGttTtmDisagree, "module.gtt-ttm-disagree", Severity::kWarning, Severity::kWarning,
               "amdgpu.gttsize differs from TTM's pages_limit: the smaller caps what ROCm allocates, the larger "
               "only looks like more."},
    FindingRow{kCmdlineInvalidValue, "cmdline.invalid-value", Severity::kWarning, Severity::kWarning,
               "A kernel command-line option has a value the kernel ignores."},
    FindingRow{kEnvNotRead, "env.not-read", Severity::kWarning, Severity::kWarning,
               "A ROCm-related variable is set that nothing reads."},
    FindingRow{kEnvInvalidValue, "env.invalid-value", Severity::kWarning, Severity::kError,
               "A variable's value is one its reader rejects (an error when the program fails)."},
    FindingRow{kEnvOverrideOtherIsa, "env.override-other-isa", Severity::kError, Severity::kError,
               "HSA_OVERRIDE_GFX_VERSION names a target of another ISA than the GPU's."},
    FindingRow{kEnvDebugSwitch, "env.debug-switch", Severity::kWarning, Severity::kWarning,
               "A debugging switch is left on (it slows or serializes every program)."},
    FindingRow{kJournalInterrupted, "journal.interrupted", Severity::kWarning, Severity::kWarning,
               "A transaction began and never finished: its files may be half-changed."},
    FindingRow{kJournalPendingRegeneration, "journal.pending-regeneration", Severity::kWarning, Severity::kWarning,
               "A regenerator (update-grub, initramfs) a change needs has not run."},
    FindingRow{kJournalLeftoverTemporary, "journal.leftover-temporary", Severity::kWarning, Severity::kWarning,
               "A temporary file of a write cut short is left beside the file."},
    FindingRow{kJournalUnreadable, "journal.unreadable", Severity::kError, Severity::kError,
               "rocmtune's journal cannot be read."},
    FindingRow{kJournalNotPermitted, "journal.not-permitted", Severity::kInfo, Severity::kInfo,
               "This user may not read rocmtune's journal (0640 root:rocmtune)."},
    FindingRow{kTrialPending, "trial.pending", Severity::kInfo, Severity::kInfo,
               "A --trial change waits for its trial boot: the next boot tries it once."},
    FindingRow{kTrialFailed, "trial.failed", Severity::kWarning, Severity::kWarning,
               "A trial boot failed (its check, a panic, a hang): the change was not kept; what was seen is shown."},
    FindingRow{kWriterPowerProfilesDaemon, "writer.power-profiles-daemon", Severity::kInfo, Severity::kWarning,
               "power-profiles-daemon's amdgpu_dpm action resets every GPU's performance level at each profile "
               "change (a warning; info when the action is blocked, disabled or absent, or tuned-ppd answers)."},
    FindingRow{kWriterTuned, "writer.tuned", Severity::kInfo, Severity::kWarning,
               "tuned's active profile writes GPU attributes ([sysfs] lines) whenever tuned applies it."},
    FindingRow{kWriterGameMode, "writer.gamemode", Severity::kInfo, Severity::kWarning,
               "GameMode sets a GPU's performance level while a game runs ([gpu] amd_performance_level)."},
    FindingRow{kWriterLact, "writer.lact", Severity::kInfo, Severity::kInfo,
               "LACT's daemon is enabled: it writes the GPU attributes its profiles set."},
    FindingRow{kWriterCoreCtrl, "writer.corectrl", Severity::kInfo, Severity::kInfo,
               "CoreCtrl is installed: its helper writes GPU attributes while a user runs it."},
    FindingRow{kPcieNoAtomics, "pcie.no-atomics", Severity::kInfo, Severity::kInfo,
               "The GPU's PCIe link does not support atomics (KFD io_link flags)."},
    FindingRow{kPcieSmallBar, "pcie.small-bar", Severity::kInfo, Severity::kInfo,
               "The GPU's BAR is small: the CPU sees only part of its memory."},
    FindingRow{kIommuTranslated, "iommu.translated", Severity::kWarning, Severity::kWarning,
               "The IOMMU translates DMA for an Instinct GPU."},
    FindingRow{kAccessKfd, "access.kfd", Severity::kError, Severity::kError,
               "The calling user cannot open /dev/kfd read-write."},
    FindingRow{kAccessUnknown, "access.unknown", Severity::kInfo, Severity::kInfo,
               "Whether the calling user can open /dev/kfd is unknown."},
    FindingRow{kRebootPending, "reboot.pending", Severity::kWarning, Severity::kWarning,
               "The system asks for a reboot."},
    FindingRow{kComputeHideGpus, "compute.hide-gpus", Severity::kInfo, Severity::kInfo,
               "ROCm programs can run on some GPUs here but not on others: hide those."},
    FindingRow{kComputeService, "compute.service", Severity::kInfo, Severity::kWarning,
               "A ROCm service's programs (ollama, a unit that sets HSA_, HIP_ or ROCR_ variables) cannot run safely "
               "on a GPU."},
    FindingRow{kRocmGpuSupported, "rocm.gpu-supported", Severity::kInfo, Severity::kInfo,
               "The installed ROCm release supports the GPU's gfx target."},
    FindingRow{kRocmGpuDeprecated, "rocm.gpu-deprecated", Severity::kInfo, Severity::kInfo,
               "The installed ROCm release marks the GPU's gfx target deprecated."},
    FindingRow{kRocmGpuNotSupported, "rocm.gpu-not-supported", Severity::kWarning, Severity::kWarning,
               "The installed ROCm release's GPU table does not list the GPU's gfx target."},
    FindingRow{kRocmNotInstalled, "rocm.not-installed", Severity::kInfo, Severity::kInfo,
               "There is an AMD GPU and no ROCm installation."},
    FindingRow{kRocmSupportUnknown, "rocm.support-unknown", Severity::kInfo, Severity::kInfo,
               "The installed ROCm release is outside rocmtune's support table."},
    FindingRow{kRuntimeCode, "runtime.code", Severity::kInfo, Severity::kInfo,
               "The ROCm runtime programs load carries code for the GPU's ISA."},
    FindingRow{kRuntimeNoCode, "runtime.no-code", Severity::kWarning, Severity::kWarning,
               "The ROCm runtime programs load carries no code for the GPU's ISA: its kernels cannot start."},
    FindingRow{kRuntimeUnknown, "runtime.unknown", Severity::kWarning, Severity::kWarning,
               "Which ROCm runtime programs load, or the GPU code it carries, could not be determined."},
    FindingRow{kRuntimeOverrideRedundant, "runtime.override-redundant", Severity::kInfo, Severity::kInfo,
               "An HSA_OVERRIDE_GFX_VERSION is set though the runtime carries native code for the GPU."},
    FindingRow{kLiveEccUncorrectable, "live.ecc-uncorrectable", Severity::kError, Severity::kError,
               "The GPU reports uncorrectable ECC errors."},
    FindingRow{kLiveEccCorrectable, "live.ecc-correctable", Severity::kInfo, Severity::kInfo,
               "The GPU reports correctable ECC errors."},
    FindingRow{kLivePcieBelowMax, "live.pcie-below-max", Severity::kInfo, Severity::kInfo,
               "The PCIe link runs below its maximum (DPM lowers it while idle)."},
    FindingRow{kLivePcieReplays, "live.pcie-replays", Severity::kWarning, Severity::kWarning,
               "The PCIe link replays many packets (100 or more)."},
    FindingRow{kLiveThrottling, "live.throttling", Severity::kInfo, Severity::kInfo,
               "The GPU's power management firmware reports throttling."},
    FindingRow{kLiveUnknown, "live.unknown", Severity::kInfo, Severity::kInfo,
               "rocm-smi-lib could not be asked, and why."},
    FindingRow{kLiveStaleSmiMutex, "live.stale-smi-mutex", Severity::kWarning, Severity::kWarning,
               "A world-writable rocm-smi-lib mutex file in /dev/shm that no running program holds."},
    FindingRow{kLogMissingCodeObject, "log.missing-code-object", Severity::kWarning, Severity::kWarning,
               "The crash log shows HIP found no code object for the GPU."},
    FindingRow{kLogOtherGpu, "log.other-gpu", Severity::kInfo, Severity::kInfo,
               "The crash log names only GPUs that are not on this machine."},
    FindingRow{kLogUnexplainedCrash, "log.unexplained-crash", Severity::kWarning, Severity::kWarning,
               "The crash log shows a crash no known issue explains."},
    FindingRow{kFaultThisBoot, "fault.this-boot", Severity::kInfo, Severity::kWarning,
               "The GPU faulted in this boot under the current configuration (the system's log; check-compute)."},
};

}  // namespace

std::span<const FindingRow> FindingTable() { return kTable; }

const FindingRow& RowOf(FindingId id) {
  for (const FindingRow& row : kTable)
    if (row.id == id) return row;
  return kTable.front();  // unreachable: every FindingId has a row (test FindingTable.EveryIdHasOneRow)
}

std::string FindingName(FindingId id) { return std::string(RowOf(id).name); }

std::optional<FindingId> ParseFindingId(std::string_view name) {
  for (const FindingRow& row : kTable)
    if (row.name == name) return row.id;
  return std::nullopt;
}

}  // namespace rocmtune::detect
