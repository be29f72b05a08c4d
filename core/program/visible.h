// Which GPUs a program sees, in the numbering it uses, and the ISA its ROCm reports for each:
// ROCR_VISIBLE_DEVICES keeps GPUs of KFD's order (indices or GPU UUIDs), then
// HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES pick from what ROCr left (HIP's device numbers);
// HSA_OVERRIDE_GFX_VERSION (and, where libhsakmt reads it, HSA_OVERRIDE_GFX_VERSION_<n>) makes
// the thunk report another ISA, whose code objects the runtime then loads.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "detect/inventory.h"

namespace rocmtune::program {

struct Visibility {
  // GPU ids in the program's HIP device order (hip index = position); a GPU absent is hidden.
  std::vector<std::string> hip_order;
  // GPU ids in ROCr's order after ROCR_VISIBLE_DEVICES (what HIP_VISIBLE_DEVICES indexes).
  std::vector<std::string> rocr_order;
  std::vector<std::string> evidence;  // "ROCR_VISIBLE_DEVICES=1 keeps 0000:03:00.0" ...
  std::vector<std::string> problems;  // entries the runtime ignores or that end the list, said plainly
  bool Sees(std::string_view gpu_id) const;
  std::optional<int> HipIndex(std::string_view gpu_id) const;
};

// `env`: the program's known values (Context's KnownValues). GPUs without a KFD node are never
// visible (ROCr enumerates KFD's GPU nodes, in node order).
Visibility VisibleGpus(const detect::Inventory& inventory, const std::map<std::string, std::string>& env);

struct Override {
  std::string variable;            // "HSA_OVERRIDE_GFX_VERSION" or "HSA_OVERRIDE_GFX_VERSION_1"
  std::string value;               // "10.3.0"
  std::optional<std::string> gfx;  // what it makes the GPU report ("gfx1030"); nullopt: a value libhsakmt rejects
};
// The override that applies to `gpu` in `env` (the per-node variable before the global one,
// with the node numbering libhsakmt uses: the thunk's node id, CPU nodes counted, so the first
// dGPU is usually _1 — KFD's node number while every render node can be opened; ROCm 6.3 and
// later read the per-node name), or nullopt when none does. A value libhsakmt rejects fails its
// whole topology: that program's ROCm finds no GPU at all, not only this one.
std::optional<Override> OverrideFor(const detect::Inventory& inventory, const detect::Gpu& gpu,
                                    const std::map<std::string, std::string>& env);

}  // namespace rocmtune::program
