// initramfs: not a knob but a consequence. amdgpu/ttm options in modprobe.d only reach a
// module loaded from the initramfs after the image is rebuilt (initramfs-tools and dracut
// copy modprobe.d into the image), so a modprobe change plans a regeneration unless the
// image is known not to carry amdgpu.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "knobs/backend.h"

namespace rocmtune::knobs {

struct InitramfsTool {
  plan::Regenerator regenerator = plan::Regenerator::kInitramfsTools;
  std::vector<std::string> argv;   // the regeneration command, no shell
  std::optional<bool> has_amdgpu;  // from the tool's configuration; nullopt: cannot tell
  std::string evidence;
};

std::optional<InitramfsTool> FindInitramfsTool(const KnobContext& ctx);

// Adds the regeneration op (or a "pending" note on a --root tree) to the plan.
void AddInitramfsRegeneration(const KnobContext& ctx, plan::Plan& plan);

}  // namespace rocmtune::knobs
