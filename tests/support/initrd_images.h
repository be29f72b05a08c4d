// Initramfs images made with the real tools, laid out as the initramfs generators lay them out:
// `find . | cpio -o -H newc | COMPRESSOR >> image` (initramfs-tools' mkinitramfs), after an
// uncompressed early cpio of CPU microcode (dracut.sh `--early-microcode`, with its `early_cpio`
// marker; initramfs-tools' prepend_earlyinitramfs; mkinitcpio's microcode hook). Compressors
// with the options those tools pass: gzip -n -9, xz --check=crc32, zstd -19, lz4 -9 -l (the
// kernel's legacy frame), bzip2 -9.
#pragma once

#include <map>
#include <string>

namespace rocmtune::testing {

struct InitrdSpec {
  std::map<std::string, std::string> files;  // path in the main archive -> content
  std::string compress = "zstd";             // "none", "gzip", "xz", "zstd", "lz4", "bzip2"
  bool early_microcode = false;
  int early_archives = 1;  // early cpio archives in front when early_microcode
};

// Writes the image to `out` (replacing it). "" when done, else why not (a tool is missing): the
// caller skips with that reason.
std::string MakeInitrdImage(const std::string& out, const InitrdSpec& spec);

// The amdgpu module's path in an image for kernel `version` (usr/lib/modules/..., as Debian 12's
// merged /usr puts it).
std::string AmdgpuModulePath(const std::string& version);

}  // namespace rocmtune::testing
