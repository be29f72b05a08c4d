// What the system tells about whether its boot loader can boot an entry once and then go back
// (trial_setups.h): the filesystem and block device under GRUB's environment block, and
// systemd-boot's EFI variables.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "boot/trial_setups.h"
#include "detect/efi_vars.h"
#include "util/text.h"

namespace rocmtune::boot {
namespace {

// systemd's vendor UUID for the boot loader interface (docs/BOOT_LOADER_INTERFACE.md).
constexpr std::string_view kLoaderGuid = "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f";
// EFI_LOADER_FEATURE_ENTRY_ONESHOT, systemd src/fundamental/efivars-fundamental.h.
constexpr uint64_t kOneShotFeature = uint64_t{1} << 3;

struct Mount {
  std::string point, fstype, source, device;  // device: "MAJ:MIN"
  // The filesystem's own options (after the source), not the mount point's: a service's view
  // of /sys under ProtectKernelTunables= is a read-only bind mount of a read-write efivarfs
  // (rocmtuned's), which proc(5) shows as "ro" mount options and "rw" super options.
  std::string super_options;
};

// "\040" -> " ": mountinfo escapes space, tab, newline and '\' in paths (proc(5)).
std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      auto code = text::ParseU64(s.substr(i + 1, 3), 8);
      if (code && *code < 256) {
        out += static_cast<char>(*code);
        i += 3;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

// The mount that holds `path` (absolute): the last one listed with the longest mount point that
// is `path` or a directory above it (a later mount on the same point hides the earlier one).
std::optional<Mount> MountOf(const sys::Root& root, std::string_view path) {
  auto content = root.ReadFile("proc/self/mountinfo");
  if (!content) return std::nullopt;
  std::optional<Mount> best;
  for (std::string_view line : text::SplitLines(*content)) {
    // 36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue (proc(5))
    std::vector<std::string_view> f = text::Tokens(line);
    auto dash = std::find(f.begin(), f.end(), "-");
    if (f.size() < 6 || dash == f.end() || f.end() - dash < 3) continue;
    Mount m{Unescape(f[4]), std::string(dash[1]), Unescape(dash[2]), std::string(f[2]),
            f.end() - dash > 3 ? std::string(dash[3]) : std::string()};
    bool above = m.point == "/" || path == m.point ||
                 (path.starts_with(m.point) && path.size() > m.point.size() && path[m.point.size()] == '/');
    if (above && (!best || m.point.size() >= best->point.size())) best = std::move(m);
  }
  return best;
}

bool HasOption(std::string_view options, std::string_view option) {
  for (size_t start = 0;;) {
    size_t comma = options.find(',', start);
    if (options.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start) == option)
      return true;
    if (comma == std::string_view::npos) return false;
    start = comma + 1;
  }
}

}  // namespace

std::optional<std::string> UncheckedInTree(const sys::Root& root, std::string_view evidence, std::string_view what) {
  if (root.IsLive() || root.Exists(evidence)) return std::nullopt;
  return fmt::format("/{} is not in this tree, so rocmtune could not check {}; a trial there needs it", evidence, what);
}

std::optional<std::string> GrubEnvUnwritable(const sys::Root& root, std::string_view dir) {
  auto mount = MountOf(root, dir);
  if (!mount)
    return fmt::format(
        "which filesystem holds {} is unknown (no /proc/self/mountinfo); GRUB may not be able to "
        "clear next_entry at boot",
        dir);
  // Debian's 00_header check_writable() (grub-common 2.06-13, /etc/grub.d/00_header): "GRUB lacks write
  // support for" btrfs, cpiofs, newc, odc, romfs, squash4, tarfs, zfs (GRUB's names; Linux calls
  // squash4 squashfs). The GRUB manual ("Environment block"): "only available when installed on a
  // plain disk (no LVM or RAID), using a non-checksumming filesystem (no ZFS)".
  static constexpr std::array<std::string_view, 4> kUnwritableFs = {"btrfs", "zfs", "squashfs", "romfs"};
  for (std::string_view fs : kUnwritableFs)
    if (mount->fstype == fs)
      return fmt::format(
          "{} is on {}, where GRUB cannot write its environment block at boot: next_entry would "
          "never be cleared and the trial entry would boot every time",
          dir, fs);
  // The block device: md RAID and LVM are GRUB's diskfilter/lvm abstractions, which it cannot
  // write (00_header: `diskfilter | lvm` "GRUB lacks write support"; Debian's grub-reboot,
  // grub2-common 2.06-13: on them the entry "will remain the default boot entry until manually
  // cleared"). LUKS ("CRYPT-..." dm uuid) and other device-mapper targets are not the "plain
  // disk" the GRUB manual requires for the environment block either.
  std::string dev = fmt::format("sys/dev/block/{}", mount->device);
  if (auto uuid = root.ReadFile(dev + "/dm/uuid", 4096)) {
    std::string_view u = text::Trim(*uuid);
    std::string_view what = u.starts_with("LVM-")     ? "an LVM logical volume"
                            : u.starts_with("CRYPT-") ? "a LUKS (dm-crypt) volume"
                                                      : "a device-mapper device";
    return fmt::format(
        "{} is on {} ({}), which GRUB cannot write at boot: next_entry would never be cleared and "
        "the trial entry would boot every time",
        dir, what, mount->source);
  }
  if (root.Exists(dev + "/md") || mount->source.starts_with("/dev/md"))
    return fmt::format(
        "{} is on a RAID (md) device ({}), which GRUB cannot write at boot: next_entry would never "
        "be cleared and the trial entry would boot every time",
        dir, mount->source);
  return std::nullopt;
}

std::optional<std::string> SdBootOneShotRefusal(const sys::Root& root) {
  auto features = detect::ReadEfiVar(root, "LoaderFeatures", kLoaderGuid);
  // BOOT_LOADER_INTERFACE.md: "LoaderFeatures contains a 64-bit unsigned integer with a number
  // of flags bits that are set by the boot loader and passed to the OS and indicate the features
  // the boot loader supports".
  if (!features || features->size() < 8)
    return std::string(
        "the boot loader did not set the LoaderFeatures EFI variable (this boot was not started by "
        "systemd-boot, or it is too old to say it can boot an entry once)");
  uint64_t bits = 0;
  for (size_t i = 0; i < 8; ++i) bits |= uint64_t{static_cast<unsigned char>((*features)[i])} << (8 * i);
  if (!(bits & kOneShotFeature))
    return std::string("the boot loader's LoaderFeatures lack one-shot entries (LoaderEntryOneShot)");
  auto efivars = MountOf(root, "/sys/firmware/efi/efivars");
  if (!efivars || efivars->fstype != "efivarfs")
    return std::string("the EFI variables are not mounted (efivarfs at /sys/firmware/efi/efivars)");
  if (HasOption(efivars->super_options, "ro"))
    return std::string(
        "the EFI variables are mounted read-only: bootctl set-oneshot cannot write "
        "LoaderEntryOneShot");
  return std::nullopt;
}

bool SecureBootOn(const sys::Root& root) { return detect::SecureBoot(root).value_or(false); }

std::optional<bool> PeHasCmdline(const sys::Root& root, std::string_view path) {
  auto fd = root.Open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (!fd) return std::nullopt;
  // The headers and the section table sit in the first few KiB of a PE image (the PE format:
  // e_lfanew at 0x3c, "PE\0\0", the COFF header with NumberOfSections and
  // SizeOfOptionalHeader, then 40-byte section headers whose first 8 bytes are the name).
  std::array<char, 8192> buf{};
  ssize_t n = pread(fd->get(), buf.data(), buf.size(), 0);
  if (n < 0x40 || buf[0] != 'M' || buf[1] != 'Z') return std::nullopt;
  auto u16 = [&](size_t at) {
    return static_cast<uint32_t>(static_cast<unsigned char>(buf[at]) | static_cast<unsigned char>(buf[at + 1]) << 8);
  };
  uint32_t pe = u16(0x3c) | u16(0x3e) << 16;
  auto size = static_cast<size_t>(n);
  if (pe + 24 > size || std::memcmp(buf.data() + pe, "PE\0\0", 4) != 0) return std::nullopt;
  uint32_t sections = u16(pe + 6);
  size_t table = pe + 24 + u16(pe + 20);
  for (uint32_t i = 0; i < sections; ++i) {
    size_t at = table + static_cast<size_t>(i) * 40;
    if (at + 8 > size) return std::nullopt;
    if (std::memcmp(buf.data() + at, ".cmdline", 8) == 0) return true;
  }
  return false;
}

}  // namespace rocmtune::boot
