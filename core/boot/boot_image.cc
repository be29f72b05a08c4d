#include "boot/boot_image.h"

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>

#include "plan/owned_paths.h"
#include "sys/initramfs_image.h"
#include "util/text.h"

namespace rocmtune::boot {
namespace {

// The directories that hold loader entries and the partition their paths are relative to
// (BOOT_LOADER_SPECIFICATION.md: the ESP or XBOOTLDR; /boot when it is one, "/" otherwise).
struct EntriesDir {
  std::string_view dir, partition;
};
constexpr EntriesDir kImageEntryDirs[] = {
    {"boot/loader/entries", "boot"}, {"efi/loader/entries", "efi"}, {"boot/efi/loader/entries", "boot/efi"}};

bool IsFile(const sys::Root& root, const std::string& rel) { return root.ResolvedTypeOf(rel) == sys::EntryType::kFile; }

// An entry's `initrd` paths resolved beneath the root ("" for one that is not there).
std::vector<std::string> EntryImages(const sys::Root& root, const EntriesDir& where, std::string_view content) {
  std::vector<std::string> out;
  for (std::string_view line : text::SplitLines(content)) {
    auto tokens = text::Tokens(line);
    if (tokens.size() < 2 || tokens.front() != "initrd") continue;
    for (size_t i = 1; i < tokens.size(); ++i) {
      std::string_view p = tokens[i];
      while (p.starts_with('/')) p.remove_prefix(1);
      if (p.empty() || p.find("..") != std::string_view::npos) continue;
      for (std::string candidate : {fmt::format("{}/{}", where.partition, p), std::string(p)})
        if (IsFile(root, candidate)) {
          out.push_back(std::move(candidate));
          break;
        }
    }
  }
  return out;
}

// The loader entry of `version`: its `version` line, else its file name.
std::optional<BootImages> FromEntries(const sys::Root& root, std::string_view version) {
  for (const EntriesDir& where : kImageEntryDirs) {
    auto names = root.ListDir(where.dir);
    if (!names) continue;
    for (const std::string& name : *names) {
      if (!name.ends_with(".conf") || name.starts_with("rocmtune-trial")) continue;
      std::string rel = fmt::format("{}/{}", where.dir, name);
      auto content = root.ReadFile(rel, 64 << 10);
      if (!content) continue;
      bool mine = name.find(version) != std::string::npos;
      for (std::string_view line : text::SplitLines(*content)) {
        auto tokens = text::Tokens(line);
        if (tokens.size() == 2 && tokens[0] == "version") mine = tokens[1] == version;
      }
      if (!mine) continue;
      std::vector<std::string> images = EntryImages(root, where, *content);
      if (!images.empty()) return BootImages{std::move(images), fmt::format("the initrd lines of /{}", rel)};
    }
  }
  return std::nullopt;
}

// mkinitcpio's preset: `default_image="/boot/initramfs-linux.img"` (a shell assignment).
std::optional<std::string> PresetImage(const sys::Root& root, const std::string& preset) {
  auto content = root.ReadFile(preset, 64 << 10);
  if (!content) return std::nullopt;
  std::optional<std::string> image;
  for (std::string_view line : text::SplitLines(*content)) {
    line = text::Trim(line);
    if (!line.starts_with("default_image=")) continue;
    std::string_view value = line.substr(14);
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    while (value.starts_with('/')) value.remove_prefix(1);
    if (!value.empty() && value.find_first_of("$`\\ ") == std::string_view::npos) image = std::string(value);
  }
  return image;
}

// The options lines of a modprobe.d file, whitespace folded, comments and blank lines left out.
std::vector<std::string> OptionsLines(std::string_view content) {
  std::vector<std::string> out;
  for (std::string_view line : text::SplitLines(content)) {
    auto tokens = text::Tokens(line);
    if (tokens.empty() || tokens.front().starts_with('#') || tokens.front() != "options") continue;
    out.push_back(fmt::format("{}", fmt::join(tokens, " ")));
  }
  return out;
}

bool IsAmdgpuModule(std::string_view path, std::string_view version) {
  for (std::string_view prefix : {"usr/lib/modules/", "lib/modules/"}) {
    if (!path.starts_with(prefix)) continue;
    std::string_view rest = path.substr(prefix.size());
    if (!rest.starts_with(version) || rest.substr(version.size(), 1) != "/") return false;
    size_t slash = rest.rfind('/');
    std::string_view file = rest.substr(slash + 1);
    return file == "amdgpu.ko" || file == "amdgpu.ko.xz" || file == "amdgpu.ko.zst" || file == "amdgpu.ko.gz";
  }
  return false;
}

std::string RegenerateHint(const std::optional<detect::InitramfsKind>& tool, std::string_view version) {
  std::string_view hint = tool ? detect::Row(*tool).one_kernel_hint : std::string_view();
  if (hint.empty()) return "rebuild it with the initramfs tool";
  return fmt::format(fmt::runtime(hint), version);
}

struct ImageFacts {
  bool amdgpu = false;
  std::optional<std::string> file;  // rocmtune's modprobe.d file in the image
};

// The image that loads amdgpu (the first of `found` that has it, as CheckBootImage reads them),
// read for rocmtune's file; nullopt when none loads amdgpu or one cannot be read.
struct AmdgpuImage {
  std::string shown;
  std::optional<std::string> file;  // its copy of rocmtune's file
};
std::optional<AmdgpuImage> ReadAmdgpuImage(const sys::Root& root, const BootImages& found, std::string_view version) {
  const std::string file_in_image(plan::kModprobeDropIn);
  for (const std::string& rel : found.paths) {
    sys::ImageQuery query;
    query.want_content = [&](std::string_view path) { return path == file_in_image; };
    query.stop_when = [&](const sys::InitramfsImage& so_far) {
      return so_far.contents.count(file_in_image) &&
             std::any_of(so_far.members.begin(), so_far.members.end(),
                         [&](const sys::ImageMember& m) { return IsAmdgpuModule(m.path, version); });
    };
    auto image = sys::ReadInitramfsImage(root, rel, query);
    if (!image) return std::nullopt;
    if (std::none_of(image->members.begin(), image->members.end(),
                     [&](const sys::ImageMember& m) { return IsAmdgpuModule(m.path, version); }))
      continue;
    auto file = image->contents.find(file_in_image);
    AmdgpuImage out{root.Display(rel), std::nullopt};
    if (file != image->contents.end()) out.file = file->second;
    return out;
  }
  return std::nullopt;
}

// rocmtune sets no module option: kStale when the image that loads amdgpu still has rocmtune's
// options, or its file where rocmtune's own is gone (`mine_exists` false); nullopt otherwise.
std::optional<BootImageCheck> CheckStaleImage(const sys::Root& root, std::string_view version,
                                              const std::optional<detect::InitramfsKind>& tool, bool mine_exists) {
  if (version.empty()) return std::nullopt;
  auto image = ReadAmdgpuImage(root, FindBootImages(root, version), version);
  if (!image || !image->file) return std::nullopt;
  std::vector<std::string> carried = OptionsLines(*image->file);
  if (carried.empty() && mine_exists) return std::nullopt;
  BootImageCheck check;
  check.state = ImageState::kStale;
  check.image = image->shown;
  check.kernel = std::string(version);
  check.carried = fmt::format("{}", fmt::join(carried, "; "));
  check.message = fmt::format(
      "{} loads amdgpu at the next boot with rocmtune's {} from its copy of /{}, which rocmtune no longer sets ({})",
      image->shown, carried.empty() ? std::string("file") : fmt::format("removed options ({})", *check.carried),
      plan::kModprobeDropIn, RegenerateHint(tool, version));
  return check;
}
}  // namespace

std::string_view ImageStateName(ImageState state) {
  switch (state) {
    case ImageState::kCarries: return "carries";
    case ImageState::kLacks: return "lacks";
    case ImageState::kDiffers: return "differs";
    case ImageState::kNoAmdgpu: return "no-amdgpu";
    case ImageState::kUnknown: return "unknown";
    case ImageState::kStale: return "stale";
  }
  return "unknown";
}

BootImages FindBootImages(const sys::Root& root, std::string_view version) {
  if (version.empty() || version.find('/') != std::string_view::npos || version.find("..") != std::string_view::npos)
    return {};
  if (auto entries = FromEntries(root, version)) return std::move(*entries);
  for (std::string rel : {fmt::format("boot/initrd.img-{}", version), fmt::format("boot/initramfs-{}.img", version)})
    if (IsFile(root, rel)) return {{rel}, fmt::format("/{} (the kernel's version)", rel)};
  // Arch: the kernel package's name (linux, linux-lts) in pkgbase names the preset and the image.
  for (std::string_view modules : {"usr/lib/modules", "lib/modules"}) {
    auto pkgbase = root.ReadFile(fmt::format("{}/{}/pkgbase", modules, version), 256);
    if (!pkgbase) continue;
    std::string name = text::Clean(*pkgbase);
    if (name.empty() || name.find_first_of("/ .") != std::string::npos) break;
    std::string preset = fmt::format("etc/mkinitcpio.d/{}.preset", name);
    if (auto image = PresetImage(root, preset); image && IsFile(root, *image))
      return {{*image}, fmt::format("default_image of /{}", preset)};
    for (std::string rel : {fmt::format("boot/initramfs-{}.img", name), fmt::format("boot/booster-{}.img", name)})
      if (IsFile(root, rel)) return {{rel}, fmt::format("/{}/{}/pkgbase names {}", modules, version, name)};
    break;
  }
  return {};
}

std::optional<BootImageCheck> CheckBootImage(const sys::Root& root, const detect::Inventory& inventory,
                                             bool had_options) {
  return CheckBootImage(root, inventory.system.kernel.value_or(""), inventory.system.boot.initramfs, had_options);
}

std::optional<BootImageCheck> CheckBootImage(const sys::Root& root, std::string_view version,
                                             const std::optional<detect::InitramfsKind>& tool, bool had_options) {
  auto mine = root.ReadFile(plan::kModprobeDropIn, 1 << 20);
  if (!mine && (mine.error().code != ErrorCode::kNotFound || !had_options)) return std::nullopt;
  std::vector<std::string> configured = mine ? OptionsLines(*mine) : std::vector<std::string>{};
  if (configured.empty()) {
    if (!had_options) return std::nullopt;
    return CheckStaleImage(root, version, tool, mine.has_value());
  }
  BootImageCheck check;
  check.configured = fmt::format("{}", fmt::join(configured, "; "));
  check.kernel = std::string(version);
  auto unknown = [&](const std::string& why) {
    check.state = ImageState::kUnknown;
    check.message = "unknown: " + why;
    return check;
  };
  if (check.kernel.empty()) return unknown("the running kernel's version is not known");
  BootImages found = FindBootImages(root, check.kernel);
  if (found.paths.empty())
    return unknown(fmt::format("no initramfs image of kernel {} found (boot loader entries, /boot)", check.kernel));
  const std::string file_in_image(plan::kModprobeDropIn);
  // The image that loads amdgpu (the main one when an entry lists microcode images first).
  std::string last;
  for (const std::string& rel : found.paths) {
    last = root.Display(rel);
    sys::ImageQuery query;
    query.want_content = [&](std::string_view path) { return path == file_in_image; };
    query.stop_when = [&](const sys::InitramfsImage& so_far) {
      return so_far.contents.count(file_in_image) &&
             std::any_of(so_far.members.begin(), so_far.members.end(),
                         [&](const sys::ImageMember& m) { return IsAmdgpuModule(m.path, check.kernel); });
    };
    auto image = sys::ReadInitramfsImage(root, rel, query);
    if (!image) {
      check.image = last;
      if (image.error().errno_value == EACCES || image.error().errno_value == EPERM)
        return unknown(fmt::format("cannot read {} as this user", last));
      return unknown(image.error().message);
    }
    bool amdgpu = std::any_of(image->members.begin(), image->members.end(),
                              [&](const sys::ImageMember& m) { return IsAmdgpuModule(m.path, check.kernel); });
    if (!amdgpu) continue;
    check.image = last;
    auto file = image->contents.find(file_in_image);
    if (file == image->contents.end()) {
      check.state = ImageState::kLacks;
      check.message = fmt::format("{} loads amdgpu at the next boot but lacks /{}: amdgpu starts without {} ({})", last,
                                  file_in_image, check.configured, RegenerateHint(tool, check.kernel));
      return check;
    }
    std::vector<std::string> carried = OptionsLines(file->second);
    check.carried = fmt::format("{}", fmt::join(carried, "; "));
    if (carried == configured) {
      check.state = ImageState::kCarries;
      check.message = fmt::format("{} carries amdgpu and rocmtune's options ({})", last, check.configured);
    } else {
      check.state = ImageState::kDiffers;
      check.message = fmt::format("{} loads amdgpu at the next boot with {} from its copy of /{}, not {} ({})", last,
                                  carried.empty() ? std::string("no options") : *check.carried, file_in_image,
                                  check.configured, RegenerateHint(tool, check.kernel));
    }
    return check;
  }
  check.image = last;
  check.state = ImageState::kNoAmdgpu;
  check.message =
      fmt::format("{} does not carry amdgpu: it loads from the root file system with /{}", last, file_in_image);
  return check;
}

}  // namespace rocmtune::boot
