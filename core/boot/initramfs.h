// initramfs: not a knob but a consequence. amdgpu/ttm options in modprobe.d only reach a
// module loaded from the initramfs after the image is rebuilt (initramfs-tools and dracut
// copy modprobe.d into the image), so a modprobe change plans a regeneration unless the
// image is known not to carry amdgpu.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "boot/boot_context.h"

namespace rocmtune::boot {

struct InitramfsTool {
  plan::Regenerator regenerator = plan::Regenerator::kInitramfsTools;
  std::vector<std::string> argv;   // the regeneration command, no shell
  std::optional<bool> has_amdgpu;  // from the tool's configuration; nullopt: cannot tell
  std::string evidence;
  bool tracks_etc_files = false;  // detect::InitramfsToolRow::tracks_etc_files
};

// The inventory's initramfs tool as its row of detect/initramfs_tool.h says; nullopt: unknown.
std::optional<InitramfsTool> FindInitramfsTool(const BootContext& ctx);

// Adds the regeneration op (or a "pending" note on a --root tree) to the plan.
void AddInitramfsRegeneration(const BootContext& ctx, plan::Plan& plan);

}  // namespace rocmtune::boot
