// The initramfs image the next boot loads for the running kernel, and whether it carries what
// rocmtune configured. When amdgpu loads from the initramfs, its module options are the image's
// copy of modprobe.d, not /etc/modprobe.d: a regeneration that failed, was skipped or built
// another kernel's image boots without rocmtune's options. An image without amdgpu does not
// matter (amdgpu then loads from the root file system, whose modprobe.d counts).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "detect/inventory.h"
#include "sys/root.h"

namespace rocmtune::boot {

// Where the image of kernel `version` is, root-relative, in the order tried: the boot loader
// entries' `initrd` lines (BLS / kernel-install: boot/loader/entries and the ESP's; every image
// of the entry, early microcode images first as listed), Debian's boot/initrd.img-VER,
// dracut's boot/initramfs-VER.img, mkinitcpio's preset (usr/lib/modules/VER/pkgbase names it,
// etc/mkinitcpio.d/NAME.preset's default_image) or boot/initramfs-NAME.img, booster's
// boot/booster-NAME.img. Empty when none exists.
struct BootImages {
  std::vector<std::string> paths;
  std::string evidence;  // how they were found
};
BootImages FindBootImages(const sys::Root& root, std::string_view version);

enum class ImageState {
  kCarries,   // amdgpu and rocmtune's file with the configured options
  kLacks,     // amdgpu without rocmtune's file
  kDiffers,   // amdgpu and rocmtune's file with other options
  kNoAmdgpu,  // amdgpu loads from the root file system: the image does not matter
  kUnknown,   // no image found, not readable as this user, corrupt, no kernel version
  // rocmtune sets no module option (any more: unset, reset, revert) but the image that loads
  // amdgpu still has its file: a regeneration that failed or was skipped boots the old options.
  kStale,
};
// "carries", "lacks", "differs", "no-amdgpu", "unknown", "stale"
std::string_view ImageStateName(ImageState state);

struct BootImageCheck {
  ImageState state = ImageState::kUnknown;
  std::string image;                   // as shown ("/boot/initrd.img-6.1.0-28-amd64"); empty when none was found
  std::string kernel;                  // the version the image was looked for
  std::string configured;              // rocmtune's options lines in /etc/modprobe.d, "; " between
  std::optional<std::string> carried;  // the image's copy; nullopt when it has none
  std::string message;                 // one line for people
};

// When rocmtune sets no module option (no options line in its modprobe.d file) no image needs to
// carry anything: nullopt, unless `had_options` (rocmtune wrote or removed its file before: the
// journal's journal::LastWritten) and the image that loads amdgpu still carries rocmtune's file
// (its options, or the file itself where rocmtune's is gone): then kStale. An image that cannot
// be read is nullopt then, not unknown: nothing is configured that it could lack. Reads the image
// (bounded, sys/initramfs_image.h) as this process.
std::optional<BootImageCheck> CheckBootImage(const sys::Root& root, const detect::Inventory& inventory,
                                             bool had_options = false);
// The same for kernel `version` (empty: unknown), the initramfs tool (for the hint: its row of
// detect/initramfs_tool.h).
std::optional<BootImageCheck> CheckBootImage(const sys::Root& root, std::string_view version,
                                             const std::optional<detect::InitramfsKind>& tool,
                                             bool had_options = false);

}  // namespace rocmtune::boot
