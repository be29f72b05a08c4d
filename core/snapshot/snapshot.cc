#include "snapshot/snapshot.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "detect/other_writers.h"
#include "runtime/runtime.h"
#include "snapshot/archive_out.h"
#include "snapshot/out_dir.h"
#include "snapshot/redact.h"
#include "util/text.h"

namespace rocmtune::snapshot {
namespace {

namespace fs = std::filesystem;

// PCI device attributes detection and the knobs read. Not copied on purpose: config, rom,
// resource* (raw hardware access), reset/remove/rescan (write-only actions), gpu_metrics
// and pp_table (binary blobs), serial_number and unique_id (identify the owner's board).
constexpr std::string_view kDeviceFiles[] = {
    "uevent",
    "vendor",
    "device",
    "subsystem_vendor",
    "subsystem_device",
    "class",
    "revision",
    "product_name",
    "product_number",
    "vbios_version",
    "boot_vga",
    "numa_node",
    "current_link_speed",
    "current_link_width",
    "max_link_speed",
    "max_link_width",
    "mem_info_vram_total",
    "mem_info_vis_vram_total",
    "mem_info_gtt_total",
    "mem_info_vram_vendor",
    "power_dpm_force_performance_level",
    "power_dpm_state",
    "pp_power_profile_mode",
    "pp_features",
    "pp_od_clk_voltage",
    "pp_dpm_sclk",
    "pp_dpm_mclk",
    "pp_dpm_socclk",
    "pp_dpm_fclk",
    "pp_dpm_dcefclk",
    "pp_dpm_pcie",
    "pp_dpm_vclk",
    "pp_dpm_dclk",
    "pp_cur_state",
    "pp_num_states",
    "pp_force_state",
    "power/runtime_status",
    "power/control",
    // The known issue strix-mes-firmware-0x83 reads it (mode 0444; amdgpu_ucode.c).
    "fw_version/mes_fw_version",
};

constexpr std::string_view kSystemFiles[] = {
    "proc/cmdline",
    "proc/sys/kernel/osrelease",
    "etc/os-release",
    "usr/lib/os-release",
    "opt/rocm/.info/version",
    "etc/default/grub",
    "etc/kernel/cmdline",
    "etc/kernel/install.conf",
    "efi/loader/loader.conf",
    "boot/efi/loader/loader.conf",
    "boot/loader/loader.conf",
    "etc/kernelstub/configuration",  // Pop!_OS: the boot kind and its next boot's options
    "etc/initramfs-tools/initramfs.conf",
    "etc/dracut.conf",
    "etc/mkinitcpio.conf",
    "etc/booster.yaml",
    "sys/module/amdgpu/initstate",
    // Copied only to hold "redacted": a report shows the file was there, never the name.
    "etc/hostname",
    "proc/sys/kernel/hostname",
};

// rocmtune's own configuration and state: admin profiles, the journal (status reads the active
// profile and any interrupted transaction from it), the owned cmdline tokens and runtime settings.
constexpr std::string_view kRocmtuneDirs[] = {"etc/rocmtune", "var/lib/rocmtune"};

// Directories whose *.conf / *.cfg files are copied (boot and module configuration; the ESP's
// loader entries are systemd-boot's and kernelstub's next boot).
constexpr std::string_view kConfigDirs[] = {
    "etc/default/grub.d", "boot/loader/entries", "efi/loader/entries", "boot/efi/loader/entries", "etc/modprobe.d",
    "usr/lib/modprobe.d", "lib/modprobe.d",      "run/modprobe.d",     "etc/dracut.conf.d",
};

// Tools whose presence is evidence of the boot setup; a marker stands in for the binary.
constexpr std::string_view kToolMarkers[] = {
    "usr/sbin/update-grub", "usr/sbin/grubby", "usr/sbin/update-initramfs", "usr/bin/dracut",
    "usr/bin/mkinitcpio",   "usr/bin/booster", "usr/bin/kernel-install",    "usr/bin/kernelstub",
};

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Lexically normalizes "a/b/../c" and keeps it inside the root.
std::string Normalize(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view part = path.substr(i, j - i);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = j + 1;
  }
  std::string out;
  for (std::string_view p : parts) {
    if (!out.empty()) out.push_back('/');
    out.append(p);
  }
  return out;
}

std::string Dirname(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(path.substr(0, slash));
}

// The source entry's own mtime and permission bits (a symlink's, not its target's, unless
// `follow`); nothing when it cannot be read.
struct SourceStat {
  int64_t mtime = 0;
  mode_t mode = 0;
  bool directory = false;
};

std::optional<SourceStat> StatOf(const sys::Root& root, std::string_view rel, bool follow) {
  auto fd = root.Open(rel, O_PATH | (follow ? 0 : O_NOFOLLOW));
  struct stat st {};
  if (!fd || ::fstat(fd->get(), &st) != 0) return std::nullopt;
  return SourceStat{st.st_mtim.tv_sec, st.st_mode & 07777, S_ISDIR(st.st_mode)};
}

class Writer {
 public:
  Writer(const sys::Root& root, Sink& out, std::span<const ExtraFile> extra) : root_(root), out_(out), redactor_(root) {
    for (const ExtraFile& f : extra) replaced_.insert(f.path);
  }

  SnapshotStats& stats() { return stats_; }

  // Every file goes through the Redactor, what the snapshot makes as well as what it copies.
  // A file the snapshot makes gets the mode of the source's file at `rel` when there is one
  // (the environment files), else 0644.
  Result<void> WriteFile(std::string_view rel, std::string_view content, int64_t mtime = 0,
                         std::optional<mode_t> mode = std::nullopt) {
    if (auto r = Parents(rel); !r) return r;
    if (!mode) {
      auto source = StatOf(root_, rel, true);
      mode = source && !source->directory ? source->mode : 0644;
    }
    auto wrote = out_.WriteFile(rel, redactor_.Redact(rel, content), mtime ? mtime : newest_, *mode);
    if (!wrote) return tl::unexpected(wrote.error());
    if (*wrote) ++stats_.files;
    return {};
  }

  Result<void> WriteSymlink(std::string_view rel, std::string_view target) {
    if (auto r = Parents(rel); !r) return r;
    auto source = StatOf(root_, rel, false);
    auto made = out_.Symlink(rel, target, source ? source->mtime : 0);
    if (!made) return tl::unexpected(made.error());
    if (*made) ++stats_.symlinks;
    return {};
  }

  // `rel` could not be read: counted, and named (up to kMaxLeftOut).
  void LeftOut(std::string_view rel) {
    ++stats_.skipped;
    if (stats_.left_out.size() < kMaxLeftOut) stats_.left_out.emplace_back(rel);
  }

  // The directory `rel` with the source's mode, kept even when nothing is copied into it.
  Result<void> Directory(std::string_view rel) {
    if (auto r = Parents(rel); !r) return r;
    if (!declared_.emplace(rel).second) return {};
    auto source = StatOf(root_, rel, true);
    return out_.Directory(rel, source && source->directory ? source->mode : 0755);
  }

  // Copies a file if the root has it; a missing file is not an error.
  Result<void> CopyFile(std::string_view rel, bool scrub_unique_id = false, size_t max_bytes = 256 * 1024) {
    if (!Redactor::MayCopy(rel)) return {};
    if (replaced_.contains(rel)) return {};  // an extra file (WriteWorld) stands for it
    auto content = root_.ReadFile(rel, max_bytes);
    if (!content) {
      if (content.error().code != ErrorCode::kNotFound) LeftOut(rel);
      return {};
    }
    if (scrub_unique_id) *content = ScrubUniqueId(*content);
    // ReadFile followed a final symlink: the mode is the file's that was read.
    auto source = StatOf(root_, rel, true);
    int64_t mtime = source ? source->mtime : 0;
    newest_ = std::max(newest_, mtime);
    return WriteFile(rel, *content, mtime, source ? source->mode : 0644);
  }

  // Follows `rel` when it is a symlink: writes the link (made relative) and returns the
  // root-relative path it points at.
  Result<std::string> CopyLinkChain(const std::string& rel) {
    std::string current = rel;
    for (int depth = 0; depth < 8; ++depth) {
      if (root_.TypeOf(current) != sys::EntryType::kSymlink) return current;
      auto target = root_.ReadLink(current);
      if (!target) return tl::unexpected(target.error());
      std::string resolved =
          target->starts_with("/") ? Normalize(*target) : Normalize(sys::JoinPath(Dirname(current), *target));
      if (auto r = WriteSymlink(current, RelativeTo(Dirname(current), resolved)); !r) return tl::unexpected(r.error());
      current = resolved;
    }
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: too many symlinks", root_.Display(rel)));
  }

 private:
  static std::string RelativeTo(const std::string& from_dir, const std::string& to) {
    return fs::path(to).lexically_relative(fs::path(from_dir.empty() ? "." : from_dir)).string();
  }

  static std::string ScrubUniqueId(std::string_view content) {
    std::string out;
    for (std::string_view line : text::SplitLines(content)) {
      auto tokens = text::Tokens(line);
      if (tokens.size() == 2 && tokens[0] == "unique_id" && tokens[1] != "0")
        out += fmt::format("unique_id {}\n", Fnv1a(tokens[1]) >> 1);
      else out += fmt::format("{}\n", line);
    }
    return out;
  }

  // Each parent directory of `rel`, outermost first, with the source's mode
  // (a directory only root may enter stays so in the snapshot).
  Result<void> Parents(std::string_view rel) {
    for (size_t slash = rel.find('/'); slash != std::string_view::npos; slash = rel.find('/', slash + 1)) {
      std::string_view dir = rel.substr(0, slash);
      if (!declared_.emplace(dir).second) continue;
      auto source = StatOf(root_, dir, true);
      if (!source || !source->directory) continue;  // made for the snapshot's own files: 0755
      if (auto r = out_.Directory(dir, source->mode); !r) return r;
    }
    return {};
  }

  const sys::Root& root_;
  Sink& out_;
  Redactor redactor_;
  SnapshotStats stats_;
  int64_t newest_ = 0;                           // of the files copied so far: the time of the files a snapshot makes
  std::set<std::string, std::less<>> declared_;  // directories given to out_.Directory() (or not in the source)
  std::set<std::string, std::less<>> replaced_;  // the extra files' paths: never copied from the root
};

Result<void> CopyTree(const sys::Root& root, Writer& w, const std::string& dir, int depth, bool scrub,
                      size_t max_bytes = 256 * 1024) {
  if (depth > 8) return {};
  auto names = root.ListDir(dir);
  if (!names) {
    // A directory this user may not list (the journal's, 0750) is left out and said so.
    if (names.error().code != ErrorCode::kNotFound) w.LeftOut(dir);
    return {};
  }
  if (auto r = w.Directory(dir); !r) return r;  // kept when empty, with its mode
  for (const std::string& name : *names) {
    std::string path = sys::JoinPath(dir, name);
    switch (root.TypeOf(path)) {
      case sys::EntryType::kDirectory:
        if (auto r = CopyTree(root, w, path, depth + 1, scrub, max_bytes); !r) return r;
        break;
      case sys::EntryType::kFile:
        if (auto r = w.CopyFile(path, scrub && name == "properties", max_bytes); !r) return r;
        break;
      default: break;  // symlinks inside these trees are not needed by detection
    }
  }
  return {};
}

Result<void> CopyDevice(const sys::Root& root, Writer& w, const std::string& class_entry) {
  auto entry_dir = w.CopyLinkChain(class_entry);  // sys/class/drm/card1 -> sys/devices/.../drm/card1
  if (!entry_dir) return tl::unexpected(entry_dir.error());
  for (std::string_view f : {"uevent", "dev"})
    if (auto r = w.CopyFile(sys::JoinPath(*entry_dir, f)); !r) return r;
  auto device_dir = w.CopyLinkChain(sys::JoinPath(*entry_dir, "device"));
  if (!device_dir) return tl::unexpected(device_dir.error());
  for (std::string_view f : kDeviceFiles)
    if (auto r = w.CopyFile(sys::JoinPath(*device_dir, f)); !r) return r;
  // ip_discovery: the numbered tree holds every value; named links (GC -> 11) are skipped.
  if (auto r = CopyTree(root, w, sys::JoinPath(*device_dir, "ip_discovery"), 0, false); !r) return r;
  if (auto group = w.CopyLinkChain(sys::JoinPath(*device_dir, "iommu_group"));
      group && *group != sys::JoinPath(*device_dir, "iommu_group"))
    if (auto r = w.CopyFile(sys::JoinPath(*group, "type")); !r) return r;
  if (auto drm = root.ListDir(sys::JoinPath(*device_dir, "drm")))
    for (const std::string& minor : *drm)
      for (std::string_view f : {"uevent", "dev"})
        if (auto r = w.CopyFile(sys::JoinPath(sys::JoinPath(*device_dir, "drm/" + minor), f)); !r) return r;
  return {};
}

// The GPU code a ROCm install carries is read from its library directories' file names
// (runtime/library_code.cc AddPrefixCode) and HIP's version from libamdhip64's: one empty file per
// target and directory, and the library's name, keep the snapshot's verdict the machine's without
// copying a library. Bounded by the directories' size, not the libraries'.
Result<void> CopyCodeNames(const sys::Root& root, Writer& w, const std::string& prefix) {
  for (std::string_view dir : {"lib/rocblas/library", "lib/hipblaslt/library", "share/miopen/db", ".kpack"}) {
    const std::string path = sys::JoinPath(prefix, dir);
    auto names = root.ListDir(path);
    if (!names) continue;
    std::sort(names->begin(), names->end());
    std::set<std::string> seen;
    for (const std::string& name : *names) {
      std::vector<std::string> targets = runtime::TargetsInNames({name});
      if (targets.empty() || !seen.insert(targets.front()).second) continue;
      if (auto r = w.WriteFile(sys::JoinPath(path, name), "", 0, 0644); !r) return r;
    }
  }
  if (auto names = root.ListDir(sys::JoinPath(prefix, "lib")))
    for (const std::string& name : *names)
      if (name.starts_with("libamdhip64.so.") && std::count(name.begin(), name.end(), '.') >= 4)
        if (auto r = w.WriteFile(sys::JoinPath(prefix, "lib/" + name), "", 0, 0644); !r) return r;
  return {};
}

Result<SnapshotStats> WriteWorld(const sys::Root& root, Sink& out, std::span<const ExtraFile> extra) {
  Writer w(root, out, extra);
  // /opt/rocm is a link to the release's directory (AMD's packages): the link is kept, so the
  // runtime the snapshot shows is named as on the machine (runtime::FindRuntimes reports both).
  const bool rocm_link = root.TypeOf("opt/rocm") == sys::EntryType::kSymlink;
  if (rocm_link) {
    auto real = w.CopyLinkChain("opt/rocm");
    if (!real) return tl::unexpected(real.error());
    if (auto r = w.CopyFile(*real + "/.info/version"); !r) return tl::unexpected(r.error());
    if (auto r = CopyCodeNames(root, w, *real); !r) return tl::unexpected(r.error());
  } else if (root.IsDirectory("opt/rocm")) {
    if (auto r = CopyCodeNames(root, w, "opt/rocm"); !r) return tl::unexpected(r.error());
  }
  for (std::string_view f : kSystemFiles) {
    if (rocm_link && f.starts_with("opt/rocm/")) continue;
    if (auto r = w.CopyFile(f); !r) return tl::unexpected(r.error());
  }
  // The journal may be large: its transactions hold the files they changed.
  for (std::string_view dir : kRocmtuneDirs)
    if (auto r = CopyTree(root, w, std::string(dir), 0, false, 32 << 20); !r) return tl::unexpected(r.error());
  for (std::string_view dir : kConfigDirs) {
    auto names = root.ListDir(dir);
    if (!names) continue;
    for (const std::string& name : *names)
      if (name.ends_with(".conf") || name.ends_with(".cfg"))
        if (auto r = w.CopyFile(sys::JoinPath(dir, name)); !r) return tl::unexpected(r.error());
  }
  for (const ExtraFile& f : extra)
    if (auto r = w.WriteFile(f.path, f.content); !r) return tl::unexpected(r.error());
  // Who else writes the GPU attributes (detect/other_writers.h): units, drop-ins, tuned's
  // profiles, GameMode's and LACT's configuration, /proc/cpuinfo (its vendor decides
  // power-profiles-daemon's action; 4 MiB: one block per CPU).
  detect::WriterFiles writers = detect::OtherWriterFiles(root);
  for (const std::string& f : writers.files)
    if (auto r = w.CopyFile(f, false, 4 << 20); !r) return tl::unexpected(r.error());
  for (const std::string& m : writers.markers)
    if (auto r = w.WriteFile(m, "", 0, 0644); !r) return tl::unexpected(r.error());
  for (std::string_view tool : kToolMarkers)
    if (root.Exists(tool))
      if (auto r = w.WriteFile(tool, "# rocmtune snapshot: this tool is installed on the source system\n", 0, 0644); !r)
        return tl::unexpected(r.error());
  for (std::string_view module : {"amdgpu", "ttm", "amdttm"}) {
    std::string dir = fmt::format("sys/module/{}/parameters", module);
    if (auto names = root.ListDir(dir))
      for (const std::string& name : *names)
        if (auto r = w.CopyFile(sys::JoinPath(dir, name)); !r) return tl::unexpected(r.error());
  }
  // An empty sys/class/iommu means "no IOMMU unit" (detect/system_facts.cc); a missing one,
  // unknown. The units are links into sys/devices: a marker file stands for each.
  if (auto units = root.ListDir("sys/class/iommu")) {
    if (auto r = w.Directory("sys/class/iommu"); !r) return tl::unexpected(r.error());
    for (const std::string& unit : *units)
      if (auto r = w.WriteFile(fmt::format("sys/class/iommu/{}/.rocmtune-snapshot", unit), ""); !r)
        return tl::unexpected(r.error());
  }
  if (auto entries = root.ListDir("sys/class/drm")) {
    for (const std::string& name : *entries) {
      bool card = name.starts_with("card") && name.find('-') == std::string::npos;
      if (!card && !name.starts_with("renderD")) continue;
      if (auto r = CopyDevice(root, w, "sys/class/drm/" + name); !r) w.LeftOut("sys/class/drm/" + name);
    }
  }
  if (auto r = CopyTree(root, w, "sys/class/kfd/kfd/topology", 0, true); !r) return tl::unexpected(r.error());
  if (auto r = out.Finish(); !r) return tl::unexpected(r.error());
  return w.stats();
}

}  // namespace

Result<SnapshotStats> WriteSnapshot(const sys::Root& root, const std::string& out_dir,
                                    std::span<const ExtraFile> extra) {
  auto out = OutDir::Open(out_dir);
  if (!out) return tl::unexpected(out.error());
  return WriteWorld(root, *out, extra);
}

Result<ArchiveStats> WriteSnapshotArchive(const sys::Root& root, const std::string& file,
                                          std::span<const ExtraFile> extra) {
  auto out = ArchiveOut::Open(file);
  if (!out) return tl::unexpected(out.error());
  auto stats = WriteWorld(root, *out, extra);
  if (!stats) return tl::unexpected(stats.error());
  return ArchiveStats{*stats, out->top()};
}

}  // namespace rocmtune::snapshot
