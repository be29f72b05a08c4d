// The rules for size parameters (catalog `unit`: ttm pages_limit, page_pool_size,
// dma32_pages_limit in pages, amdgpu gttsize in MiB) against this machine's RAM. People type
// GiB where the kernel counts 4 KiB pages: a size above the RAM is refused unless --force, one
// below the kernel's default (half the RAM) is written with a warning, and every size is said
// in bytes. CheckModuleParam (module options, set and status findings) and the cmdline backend
// (`cmdline.ttm.pages_limit`) both apply them.
#pragma once

#include <string_view>
#include <vector>

#include "knobs/module_param_checks.h"

namespace rocmtune::knobs {

// Issues of `param` set to `value` (canonical, as ValidateValue returns it), `key_text` naming
// it as the user wrote it. Empty for parameters that are not sizes. Ids: "invalid-value"
// (negative, kRefuse), "size-above-ram" (kRefuseUnlessForced), "size-below-default" (kWarn),
// "size" (kNote: the size in bytes) and "cannot-check" (kNote: RAM unknown).
std::vector<SettingIssue> CheckSize(const KnobContext& ctx, std::string_view key_text,
                                    const knowledge::ModuleParam& param, std::string_view value);

}  // namespace rocmtune::knobs

namespace rocmtune::knobs {

// The catalog entry of a size knob: a module option (`ttm.pages_limit`, `amdttm.pages_limit`,
// `amdgpu.gttsize`) or the same parameter on the kernel command line (`cmdline.ttm.pages_limit`);
// nullptr for every other knob.
const knowledge::ModuleParam* SizeParam(const knowledge::Catalog& catalog, const KnobKey& key);

}  // namespace rocmtune::knobs
