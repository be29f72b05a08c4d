#!/usr/bin/python3
"""Generates data/catalog.toml, rocmtune's amdgpu/ttm module parameter catalog.

Input: the research folder's amdgpu_params.csv (one row per parameter, from the kernel's
amdgpu_drv.c across versions, plus ttm's; not in this repository, see data/PROVENANCE.md),
merged with CURATED below: the parameters that matter to ROCm, with ranges, effective-default
rules and notes checked against the kernel source each entry names.

Regenerate (stdlib only, deterministic; the output is committed so the build does not need
the CSV):
    /usr/bin/python3 data/make-catalog.py [path/to/amdgpu_params.csv]
Check that the committed file is current:
    /usr/bin/python3 data/make-catalog.py --check
"""
import csv
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
DEFAULT_CSV = HERE.parent.parent / "shared" / "facts" / "amdgpu_params.csv"
OUT = HERE / "catalog.toml"

TYPES = {"int", "uint", "ulong", "ullong", "hexint", "bool", "bint", "charp", "string"}
RULES = {"noretry-by-gc", "vm-update-mode-by-large-bar", "mtype-local-by-gc", "gttsize-follows-ttm",
         "ttm-half-of-ram"}
UNITS = {"page", "MiB"}
UINT_MAX = 2**32 - 1
ULLONG_MAX = 2**64 - 1

DRV = "drivers/gpu/drm/amd/amdgpu/amdgpu_drv.c"

# ---------------------------------------------------------------------------------------
# Hand-curated overlay. Keys replace what the CSV row gives. Bounds (min/max/values) only
# where the kernel's description or code states them.
CURATED = {
    "noretry": dict(
        min=-1, max=1, values=[-1, 0, 1],
        value_names={"-1": "auto, per GC version", "0": "retry enabled", "1": "retry disabled"},
        effective_rule="noretry-by-gc",
        note=("Controls retry (XNACK) on GPU page faults, nothing else. 0 ENABLES retry and 1 disables it; "
              "guides that set noretry=0 to 'fix' memory faults on RDNA have it backwards. With -1 the driver "
              "picks per GC version in amdgpu_gmc_noretry_set(): 1 on GC 9.0.1, 9.4.0-9.4.4, 9.5.0 and "
              "GC >= 10.3.0; 0 elsewhere (Raven 9.1.0/9.2.2, Vega12 9.2.1, Renoir 9.3.0 since 6.11, Navi1x "
              "10.1.x). A 2026 change (upstream e47b0056a08d, backported to 6.18-stable) lowers the threshold "
              "to GC >= 10.1.0 because noretry=0 on Navi1x makes permission faults loop until a 10 s scheduler "
              "timeout. SR-IOV VFs on GC 9.4.2 always use 1. XNACK exists only on GFX9-class parts: "
              "gfx900/906/908/90c need noretry=0 for HSA_XNACK=1, gfx90a and GC 9.4.3+ switch XNACK per "
              "process; GC >= 10.1.1 never supports XNACK, so noretry=0 gains nothing there. sysfs shows the raw -1, never the effective value. "
              "The file is 0644 but the driver reads it only at device init."),
        source=(f"{DRV} MODULE_PARM_DESC(noretry); drivers/gpu/drm/amd/amdgpu/amdgpu_gmc.c "
                "amdgpu_gmc_noretry_set(); drivers/gpu/drm/amd/amdkfd/kfd_process.c kfd_process_xnack_mode()"),
    ),
    "mtype_local": dict(
        min=-1, max=2, values=[-1, 0, 1, 2],
        value_names={"-1": "ASIC dependent (2026+ kernels)", "0": "MTYPE_RW", "1": "MTYPE_NC", "2": "MTYPE_CC"},
        effective_rule="mtype-local-by-gc",
        affects_gc=["9.4.3", "9.4.4", "9.5.0", "12.1.0"],
        # module_param_named() before: drm/amdgpu "Mark debug KFD module params as unsafe" (f2935a3019ea,
        # amd-drm-next-6.14-2025-01-17).
        taints_since="6.14",
        note=("Memory type for local memory, read only on GC 9.4.3/9.4.4 (gfx942: MI300A, MI300X, MI308X, "
              "MI325X), GC 9.5.0 (gfx950: MI350X/MI355X) and, from 2026 kernels, GC 12.1.0 (gfx1250). It has "
              "no effect on RDNA, Vega, MI100 or MI200, and shader code cannot request an MTYPE. Declared "
              "unsafe: setting it taints the kernel (TAINT_USER, 'Setting dangerous option mtype_local'). "
              "Added in 6.5 replacing use_mtype_cc_wa; 6.5-6.19 default 0 = RW; 2026 kernels default -1 "
              "(ASIC dependent) and 0 forces RW. The CC->RW default change was a 2023 kernel change for "
              "MI300, not a 'ROCm 6.2' change for consumer GPUs."),
        source=(f"{DRV} module_param_named_unsafe(mtype_local); gmc_v9_0.c gmc_v9_0_get_coherence_flags() and "
                "gmc_v9_0_override_vm_pte_flags(); amdkfd/kfd_svm.c svm_range_get_pte_flags(); gmc_v12_1.c (2026)"),
    ),
    "gttsize": dict(
        # amdgpu_ttm.c amdgpu_ttm_init(): gtt_size = (uint64_t)amdgpu_gtt_size << 20.
        unit="MiB",
        deprecated_by="ttm.pages_limit",
        # amdgpu_device_check_arguments(): "Configuring gttsize via module parameter is deprecated" (6.15).
        deprecated_since="6.15",
        effective_rule="gttsize-follows-ttm",
        note=("Size of the GTT domain (system memory the GPU can map) in MiB. Since 6.5 the default follows "
              "ttm.pages_limit (half of RAM unless set); before: 6.1-6.4 half of RAM, <= 6.0 "
              "min(max(3 GiB, VRAM), 3/4 RAM). Deprecated since 6.15 ('Configuring gttsize via module "
              "parameter is deprecated'): raise ttm.pages_limit and ttm.page_pool_size instead "
              "(amdttm.* with amdgpu-dkms). Values below 32 other than -1 are ignored with a warning. "
              "'gtt_size' is not a parameter: amdgpu ignores it with 'unknown parameter'."),
        source=(f"{DRV} MODULE_PARM_DESC(gttsize) and DOC: gttsize; amdgpu_ttm.c amdgpu_ttm_init() "
                "(GTT = ttm_tt_pages_limit() since 6.5); amdgpu_device.c amdgpu_device_check_arguments()"),
    ),
    "vm_update_mode": dict(
        min=-1, max=3, values=[-1, 0, 1, 2, 3],
        value_names={"-1": "auto", "0": "never (SDMA)", "1": "graphics only", "2": "compute only",
                     "3": "graphics and compute"},
        effective_rule="vm-update-mode-by-large-bar",
        note=("Whether the CPU instead of SDMA writes GPU page tables. With -1, on x86_64 when all VRAM is "
              "CPU-visible (large BAR / ReBAR) and the GPU is not an SR-IOV VF with MMIO protection, the "
              "driver uses 2 (CPU for compute VMs), else 0; other architectures always 0. 0 is simply the "
              "small-BAR default, not a fix for memory faults."),
        source=f"{DRV} MODULE_PARM_DESC(vm_update_mode); amdgpu_vm.c amdgpu_vm_manager_init()",
    ),
    "ppfeaturemask": dict(
        note=("PowerPlay feature bits (enum PP_FEATURE_MASK, amd_shared.h). The default 0xfff7bfff has every "
              "bit except 0x4000 OVERDRIVE and 0x80000 GFX_DCS. Set 0x4000 to unlock pp_od_clk_voltage "
              "(e.g. 0xfff7ffff); clearing 0x8000 disables GFXOFF. Older kernels defaulted to 0xffffbfff, "
              "0xfffd3fff or 0xffffffff. sysfs shows it as hex."),
        source=f"{DRV} MODULE_PARM_DESC(ppfeaturemask); include/amd_shared.h enum PP_FEATURE_MASK",
    ),
    "sg_display": dict(
        min=-1, max=0, values=[-1, 0],
        value_names={"-1": "auto", "0": "disable"},
        affects_apu_only=True,
        note=("Scatter/gather display (scanout from system memory) on APUs; ignored on dGPUs. 0 is the "
              "workaround for flicker or white screens under memory pressure."),
        source=f"{DRV} MODULE_PARM_DESC(sg_display); amdgpu_display.c amdgpu_display_supported_domains()",
    ),
    "runpm": dict(
        min=-2, max=2, values=[-2, -1, 0, 1, 2],
        value_names={"-2": "auto, also with displays", "-1": "auto", "0": "disable",
                     "1": "force BACO", "2": "force BAMACO"},
        note=("Runtime power management of dGPUs (BOCO/BACO/BAMACO). 0 is the usual workaround for resume "
              "or hot-plug problems; -2 exists in newer kernels only."),
        source=f"{DRV} MODULE_PARM_DESC(runpm)",
    ),
    "cwsr_enable": dict(
        min=0, max=1, values=[0, 1],
        value_names={"0": "off", "1": "on"},
        note=("Compute wave save/restore, which lets KFD preempt running compute waves. 0 is a debugging "
              "workaround seen in some gfx1010/gfx1151 hang reports, not a tuning knob."),
        source=f"{DRV} MODULE_PARM_DESC(cwsr_enable) (KFD, CONFIG_HSA_AMD)",
    ),
    "gpu_recovery": dict(
        min=-1, max=1, values=[-1, 0, 1],
        value_names={"-1": "auto", "0": "disable", "1": "enable"},
        note=("Whether the driver resets the GPU after a hang. Declared unsafe in current kernels: setting "
              "it taints the kernel."),
        source=f"{DRV} MODULE_PARM_DESC(gpu_recovery) (module_param_named_unsafe in current kernels)",
    ),
    "reset_method": dict(
        min=-1, max=4, values=[-1, 0, 1, 2, 3, 4],
        value_names={"-1": "auto", "0": "legacy", "1": "mode0", "2": "mode1", "3": "mode2",
                     "4": "baco/bamaco"},
        note=("Forces a GPU reset method; the driver falls back to its own choice when the ASIC does not "
              "support the one asked for. Declared unsafe in current kernels: setting it taints the kernel. "
              "The file is 0644, but rocmtune sets it only through modprobe.d."),
        source=f"{DRV} MODULE_PARM_DESC(reset_method) (module_param_named_unsafe in current kernels)",
    ),
    "lockup_timeout": dict(
        default="",
        # Defaults by kernel (bare metal), amdgpu_device.c amdgpu_device_get_job_timeout_settings():
        # ec8fbb44b51e "drm/amdgpu: make compute timeouts consistent" (amd-drm-next-6.17-2025-07-17)
        # and 1bea57ea7544 "drm/amdgpu: reduce queue timeout to 2 seconds v2"
        # (amd-drm-next-6.19-2025-10-24). knobs/kernel_rules.cc LockupTimeoutDefaults() holds them.
        note=("Job timeouts in ms of the kernel's own queues (drm_sched jobs: Vulkan, OpenGL, VA-API, Mesa's "
              "OpenCL; not ROCm/HIP, whose KFD user queues have no such timeout): one value, or up to four for "
              "GFX,Compute,SDMA,Video. 0 keeps the default, a negative value means no timeout (and taints the "
              "kernel). Defaults on bare metal: 2000 ms for every queue from 6.19; 10000 ms for every queue in "
              "6.17 and 6.18; 10000 ms and 60000 ms for compute in 6.11-6.16. Before 6.19 a single value set the "
              "non-compute queues only. A field the kernel cannot read keeps the GPU from initializing "
              "('invalid lockup_timeout parameter syntax'). A string of at most 255 characters (a 256-byte "
              "buffer)."),
        source=(f"{DRV} module_param_string(lockup_timeout); amdgpu_device.c "
                "amdgpu_device_get_job_timeout_settings(), amdgpu_device_init(); commits ec8fbb44b51e (6.17) and "
                "1bea57ea7544 (6.19)"),
    ),
    "mes": dict(
        min=0, max=1, values=[0, 1],
        value_names={"0": "disabled", "1": "enabled"},
        removed="2026 drm-next",
        note=("GFX11 and newer use the Micro Engine Scheduler regardless; the parameter was ignored for most "
              "ASICs and a 2026 patch removes it (with mes_kiq). On a kernel without it, an 'options amdgpu "
              "mes=' line is ignored with an 'unknown parameter' warning."),
        source=f"{DRV} MODULE_PARM_DESC(mes); 2026 amd-gfx patch removing amdgpu_mes/amdgpu_mes_kiq",
    ),
    "sched_policy": dict(
        default="0",
        min=0, max=2, values=[0, 1, 2],
        value_names={"0": "HWS", "1": "HWS without over-subscription", "2": "no HWS (debugging only)"},
        note=("KFD queue scheduling policy. Anything but 0 is for debugging. Declared unsafe in 2024+ "
              "kernels: setting it taints the kernel."),
        source=f"{DRV} MODULE_PARM_DESC(sched_policy) (KFD, CONFIG_HSA_AMD; module_param_unsafe since 2024)",
    ),
    "hws_max_conc_proc": dict(
        note=("Processes the hardware scheduler runs at once with sched_policy=0. -1 (default) = the number "
              "of VMIDs reserved for KFD (the default was 8 in early 5.x); 0 = no concurrency."),
        source=f"{DRV} MODULE_PARM_DESC(hws_max_conc_proc) (KFD, CONFIG_HSA_AMD); amdkfd/kfd_device.c",
    ),
    "aspm": dict(
        min=-1, max=1, values=[-1, 0, 1],
        value_names={"-1": "auto", "0": "disable", "1": "enable"},
        note="PCIe Active State Power Management of the GPU link. 0 is a stability workaround.",
        source=f"{DRV} MODULE_PARM_DESC(aspm)",
    ),
    "pcie_gen_cap": dict(
        note=("A mask of CAIL_*PCIE_LINK_SPEED_SUPPORT_* bits (amd_pcie.h), not a generation number; "
              "0 = detect. Writing '3' does not mean Gen3."),
        source=f"{DRV} MODULE_PARM_DESC(pcie_gen_cap); include/amd_pcie.h",
    ),
    "pcie_lane_cap": dict(
        note=("A mask of CAIL_PCIE_LINK_WIDTH_SUPPORT_* bits (amd_pcie.h), not a lane count; 0 = detect."),
        source=f"{DRV} MODULE_PARM_DESC(pcie_lane_cap); include/amd_pcie.h",
    ),
    "user_partt_mode": dict(
        # Declared uint although the variable is int: sysfs shows -2 as 4294967294, and the
        # kernel's kstrtouint refuses "-2", so auto is had only by not setting it.
        default=str(2**32 - 2),
        min=0, max=4, values=[0, 1, 2, 3, 4],
        value_names={"0": "SPX", "1": "DPX", "2": "TPX", "3": "QPX", "4": "CPX"},
        note=("Compute partition mode chosen at load on partitionable Instinct parts (GC 9.4.3+: MI300, "
              "MI325, MI350). Declared uint, so the auto default -2 reads 4294967294 and '-2' cannot be "
              "written: leave it unset for auto. At runtime the same choice is "
              "/sys/class/drm/cardN/device/current_compute_partition."),
        source=f"{DRV} MODULE_PARM_DESC(user_partt_mode), module_param_named(user_partt_mode, ..., uint, 0444)",
    ),
    "dcdebugmask": dict(
        note=("Display Core debug bits (enum DC_DEBUG_MASK, 6.11): 0x1 DISABLE_PIPE_SPLIT, 0x2 DISABLE_STUTTER, "
              "0x4 DISABLE_DSC, 0x8 DISABLE_CLOCK_GATING, 0x10 DISABLE_PSR, 0x20 FORCE_SUBVP_MCLK_SWITCH, "
              "0x40 DISABLE_MPO, 0x80 ENABLE_DPIA_TRACE, 0x100 ENABLE_DML2, 0x200 DISABLE_PSR_SU, "
              "0x400 DISABLE_REPLAY, 0x800 DISABLE_IPS; newer kernels add more. Display only: no effect on "
              "compute. sysfs shows it in decimal."),
        source=f"{DRV} MODULE_PARM_DESC(dcdebugmask); include/amd_shared.h enum DC_DEBUG_MASK",
    ),
    "dcfeaturemask": dict(
        note=("Display Core feature bits (enum DC_FEATURE_MASK): 0x1 FBC, 0x2 MULTI_MON_PP_MCLK_SWITCH, "
              "0x4 DISABLE_FRACTIONAL_PWM, 0x8 PSR, 0x10 EDP_NO_POWER_SEQUENCING, 0x20/0x40 DISABLE_LTTPR, "
              "0x80 PSR_ALLOW_SMU_OPT, 0x100 PSR_ALLOW_MULTI_DISP_OPT, 0x200 REPLAY. Default 2 in 6.11, "
              "0x402 (1026) in 2026 kernels. Display only. sysfs shows it in decimal."),
        source=f"{DRV} MODULE_PARM_DESC(dcfeaturemask); include/amd_shared.h enum DC_FEATURE_MASK",
    ),
    "si_support": dict(
        min=-1, max=1, values=[-1, 0, 1],
        value_names={"-1": "default", "0": "disabled", "1": "enabled"},
        note=("Lets amdgpu drive Southern Islands (GFX6) GPUs. Until 2025 the default was 0 when the radeon "
              "driver is built (as on most distributions) and 1 otherwise; 2026 kernels default -1. To move "
              "a card from radeon to amdgpu set radeon.si_support=0 as well. Exists only with "
              "CONFIG_DRM_AMDGPU_SI. ROCm does not support these GPUs."),
        source=f"{DRV} MODULE_PARM_DESC(si_support) under #ifdef CONFIG_DRM_AMDGPU_SI",
    ),
    "cik_support": dict(
        min=-1, max=1, values=[-1, 0, 1],
        value_names={"-1": "default", "0": "disabled", "1": "enabled"},
        note=("Lets amdgpu drive Sea Islands (GFX7) GPUs. Until 2025 the default was 0 when the radeon "
              "driver is built and 1 otherwise; 2026 kernels default -1. Set radeon.cik_support=0 as well "
              "to move a card from radeon. Exists only with CONFIG_DRM_AMDGPU_CIK."),
        source=f"{DRV} MODULE_PARM_DESC(cik_support) under #ifdef CONFIG_DRM_AMDGPU_CIK",
    ),
    "gartsize": dict(
        default=str(UINT_MAX),
        note=("Size of the kernel's GART in MiB, for testing. Declared uint: the auto default -1 reads "
              "4294967295 and '-1' cannot be written; leave it unset for auto. Not the GTT size (see "
              "ttm.pages_limit). sysfs file is root-only (0600)."),
        source=f"{DRV} MODULE_PARM_DESC(gartsize), module_param_named(gartsize, amdgpu_gart_size, uint, 0600)",
    ),
    "vramlimit": dict(
        default="-1",
        note=("Limits usable VRAM in MiB, for testing only. The variable is unsigned (UINT_MAX = no limit) "
              "but the parameter is int, so new kernels show -1; older ones defaulted to 0 (no limit)."),
        source=f"{DRV} MODULE_PARM_DESC(vramlimit), module_param_named(vramlimit, amdgpu_vram_limit, int, 0600)",
    ),
    "vm_fragment_size": dict(
        min=-1, max=9, values=[-1, 4, 5, 6, 7, 8, 9],
        value_names={"-1": "auto, per ASIC", "4": "64 KiB", "9": "2 MiB"},
        note=("Fragment size of GPU page-table mappings as log2 of 4 KiB pages (4 = 64 KiB ... 9 = 2 MiB). "
              "With -1 the GMC code's per-ASIC default applies. The driver accepts only -1 and 4-9: any other "
              "value is replaced by -1 at probe with the warning 'valid range is between 4 and 9'."),
        source=(f"{DRV} MODULE_PARM_DESC(vm_fragment_size); amdgpu_device.c amdgpu_device_check_arguments() "
                "(\"valid range is between 4 and 9 inclusive\"); amdgpu_vm.c amdgpu_vm_adjust_size()"),
    ),
    "svm_default_granularity": dict(
        min=0, max=27,
        runtime_writable=True,
        note=("Default SVM migration granularity as log2 of pages (9 = 2 MiB). KFD clamps it to 0x1B and "
              "reads it when a process sets up SVM, so a runtime write applies to processes started later."),
        source=(f"{DRV} MODULE_PARM_DESC(svm_default_granularity); amdkfd/kfd_svm.c svm_range_list_init() "
                "(min_t(u8, amdgpu_svm_default_granularity, 0x1B))"),
    ),
    "no_system_mem_limit": dict(
        runtime_writable=True,
        note=("Y lifts KFD's cap on system memory that GPU allocations may use (useful on APUs sharing "
              "RAM). KFD checks it on every allocation, so a runtime write takes effect at once."),
        source=(f"{DRV} MODULE_PARM_DESC(no_system_mem_limit) (KFD); amdgpu_amdkfd_gpuvm.c "
                "amdgpu_amdkfd_reserve_mem_limit()"),
    ),
    "backlight": dict(
        note=("Declared bint: the kernel parses it as a boolean, so only 0 (PWM) and 1 (AUX) can be written; "
              "the auto default -1 is had by leaving it unset."),
        source=f"{DRV} MODULE_PARM_DESC(backlight), module_param_named(backlight, amdgpu_backlight, bint, 0444)",
    ),
    "ttm.pages_limit": dict(
        # Counted in PAGE_SIZE pages (ttm_tt.c ttm_tt_populate() compares it with num_pages).
        unit="page",
        effective_rule="ttm-half-of-ram",
        note=("Cap on pages (4 KiB) TTM may allocate for system-memory buffers; 0 means half of RAM, "
              "computed when ttm loads (sysfs then shows the computed value). Since 6.5 amdgpu's GTT size "
              "equals it, so this is how to give an APU (e.g. Strix Halo) more GPU memory: GiB x 262144. "
              "With amdgpu-dkms the module is amdttm (amdttm.pages_limit). Must be set when ttm loads "
              "(modprobe.d or kernel command line): a runtime write does not resize amdgpu's GTT "
              "(rocm-systems#351). Set ttm.page_pool_size to the same value."),
        source=("drivers/gpu/drm/ttm/ttm_tt.c module_param_named(pages_limit); ttm_device.c ttm_global_init() "
                "(limit = totalram/2); amdgpu_ttm.c amdgpu_ttm_init()"),
    ),
    "ttm.page_pool_size": dict(
        unit="page",
        effective_rule="ttm-half-of-ram",
        note=("Pages (4 KiB) kept in TTM's write-combined/uncached page pools before the shrinker frees "
              "them; 0 means half of RAM, computed when ttm loads. Usually set equal to pages_limit when "
              "enlarging GTT. amdttm.page_pool_size with amdgpu-dkms."),
        source="drivers/gpu/drm/ttm/ttm_pool.c module_param(page_pool_size); ttm_pool_mgr_init()",
    ),
    "ttm.dma32_pages_limit": dict(
        unit="page",
        note=("Cap on pages (4 KiB) TTM may allocate below 4 GiB for DMA32 devices; 0 means min(lowmem, "
              "2 GiB), computed when ttm loads. Rarely relevant to amdgpu."),
        source="drivers/gpu/drm/ttm/ttm_tt.c module_param_named(dma32_pages_limit); ttm_device.c ttm_global_init()",
    ),
}

KEY_ORDER = ["module", "name", "type", "default", "min", "max", "values", "value_names", "unit", "runtime_writable",
             "takes_effect", "since", "removed", "taints", "taints_since", "deprecated_by", "deprecated_since", "effective_rule", "affects_gc",
             "affects_apu_only", "config_dependency", "description", "note", "source"]


def fail(msg):
    sys.exit(f"make-catalog: {msg}")


def parse_int(text):
    text = text.strip()
    if text == "UINT_MAX":
        return UINT_MAX
    return int(text, 0)


def sysfs_default(name, ptype, raw):
    """The CSV default rendered the way /sys/module/<m>/parameters/<p> shows it."""
    raw = raw.strip()
    if ptype == "charp":
        return raw or "(null)"
    if ptype == "string":
        return raw
    if ptype == "bool":
        if raw in ("true", "1", "Y"):
            return "Y"
        if raw in ("false", "0", "N"):
            return "N"
        fail(f"{name}: bool default {raw!r}")
    token = raw.split(" ")[0]  # "4096 (KFD_MAX_NUM_OF_QUEUES_PER_DEVICE_DEFAULT)" -> "4096"
    try:
        v = parse_int(token)
    except ValueError:
        fail(f"{name}: cannot read default {raw!r}")
    if ptype in ("int", "bint"):
        return str(v - 2**32 if v > 2**31 - 1 else v)  # an unsigned variable behind an int param
    if ptype in ("uint", "hexint"):
        v &= UINT_MAX
        # kernel/params.c prints hexint with "%#08x": "0x" plus at least six digits.
        return f"0x{v:06x}" if ptype == "hexint" else str(v)
    return str(v & ULLONG_MAX)  # ulong (64-bit kernels), ullong


def removed_from_status(status):
    status = status.strip()
    if not status.startswith("removed"):
        return None
    if "2026" in status:
        return "2026 drm-next"
    m = re.search(r"last seen drm-kmod ([0-9.]+)", status)
    if not m:
        fail(f"cannot read status {status!r}")
    return f"after {m.group(1)} (last seen in drm-kmod {m.group(1)})"


def entry_from_row(row):
    full = row["name"].strip()
    module, name = ("ttm", full[4:]) if full.startswith("ttm.") else ("amdgpu", full)
    ptype = row["type"].strip()
    if ptype not in TYPES:
        fail(f"{full}: unknown type {ptype!r}")
    e = {
        "module": module,
        "name": name,
        "type": ptype,
        "default": sysfs_default(full, ptype, row["default"]),
        "runtime_writable": False,
        "takes_effect": "module-load",
        "since": row["kernel_since_if_known"].strip(),
        "taints": row["unsafe_taints"].strip() == "yes",
        "description": row["desc"].strip(),
        "source": (f"{DRV} MODULE_PARM_DESC({name})" if module == "amdgpu"
                   else f"drivers/gpu/drm/ttm module_param({name})"),
    }
    removed = removed_from_status(row["status"])
    if removed:
        e["removed"] = removed
        e["source"] = f"{DRV} (drm-kmod history: {row['status'].strip()})"
    dep = row["config_dependency"].strip()
    if dep.startswith("CONFIG_"):
        e["config_dependency"] = dep
    if row["applies_to_note"].strip():
        e["note"] = row["applies_to_note"].strip()
    over = CURATED.get(full)
    if over:
        e.update(over)
    return e


def check(e):
    key = f"{e['module']}.{e['name']}"
    if not re.fullmatch(r"[a-z0-9_]+", e["name"]):
        fail(f"{key}: bad name")
    if not e.get("source"):
        fail(f"{key}: no source")
    if e.get("unit") and e["unit"] not in UNITS:
        fail(f"{key}: unknown unit {e['unit']}")
    if e.get("effective_rule") and e["effective_rule"] not in RULES:
        fail(f"{key}: unknown rule {e['effective_rule']}")
    lo, hi = e.get("min"), e.get("max")
    for v in e.get("values", []):
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            fail(f"{key}: value {v} outside {lo}..{hi}")
    for k in e.get("value_names", {}):
        if int(k) not in e.get("values", []):
            fail(f"{key}: value_names has {k}, not in values")
    if set(e) - set(KEY_ORDER):
        fail(f"{key}: unknown keys {sorted(set(e) - set(KEY_ORDER))}")


def toml_str(s):
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return toml_str(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{toml_str(k)} = {toml_value(x)}" for k, x in v.items()) + " }"
    fail(f"cannot write {v!r}")


HEADER = """\
# rocmtune: amdgpu / ttm module parameter catalog.
#
# GENERATED by data/make-catalog.py from a table of amdgpu_drv.c's parameters (PROVENANCE.md)
# plus the curated overlay in that script. Do not edit by hand: change the script and run
#     /usr/bin/python3 data/make-catalog.py
#
# One [[param]] per parameter, including removed ones. Values are as the kernel declares
# and shows them:
#   module            "amdgpu" or "ttm" (ttm's also apply to "amdttm" with amdgpu-dkms)
#   type              int uint ulong ullong hexint bool bint charp string (kernel param type)
#   default           as /sys/module/<module>/parameters/<name> shows it
#   min, max, values  only where the kernel's description or code states them
#   unit              what one count of a size is: "page" (PAGE_SIZE, 4 KiB on x86-64) or "MiB"
#   runtime_writable  a write to the sysfs file takes effect (rare; most are read at probe)
#   takes_effect      "module-load": modprobe.d / kernel command line, then reload or reboot
#   since, removed    kernel versions (drm-kmod tags; post-6.11 versions are approximate)
#   taints            module_param_*_unsafe in current kernels: setting it taints (TAINT_USER)
#   deprecated_since  the first kernel (major.minor) that warns the parameter is deprecated
#   taints_since      the first kernel (major.minor) with the _unsafe marking, where verified; before
#                     it the parameter did not taint. Omitted: unknown since when (treated as tainting)
#   effective_rule    id of the code that computes the effective value of a default (-1/0)
#   affects_gc        GC IP versions the driver reads it on (omitted: all)
#   description       the kernel's MODULE_PARM_DESC
#   note              rocmtune's explanation (rocmtunectl explain)
#   source            where the facts come from
"""


def render(rows):
    entries = [entry_from_row(r) for r in rows]
    names = {f"{e['module']}.{e['name']}" for e in entries}
    missing = set(CURATED) - {f"{e['module']}.{e['name']}" if e["module"] == "ttm" else e["name"] for e in entries}
    if missing:
        fail(f"curated parameters not in the CSV: {sorted(missing)}")
    if len(names) != len(entries):
        fail("duplicate parameter names")
    entries.sort(key=lambda e: (e["module"] != "amdgpu", e["name"]))
    parts = [HEADER]
    for e in entries:
        check(e)
        lines = ["", "[[param]]"]
        for k in KEY_ORDER:
            if k in e and e[k] is not None:
                lines.append(f"{k} = {toml_value(e[k])}")
        parts.append("\n".join(lines) + "\n")
    return "".join(parts)


def main(argv):
    check_only = "--check" in argv
    args = [a for a in argv if a != "--check"]
    src = pathlib.Path(args[0]) if args else DEFAULT_CSV
    with open(src, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    text = render(rows)
    if check_only:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            sys.exit("make-catalog: data/catalog.toml is out of date; run data/make-catalog.py")
        print(f"data/catalog.toml is current ({len(rows)} parameters)")
        return
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({len(rows)} parameters)")


if __name__ == "__main__":
    main(sys.argv[1:])
