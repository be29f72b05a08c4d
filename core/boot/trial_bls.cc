// Trial boots of the setups with Boot Loader Specification entries: Fedora's GRUB (grub-bls,
// next_entry in grubenv, as with grub-mkconfig's GRUB: trial_grub.cc) and systemd-boot
// (LoaderEntryOneShot). The trial entry is a copy of the default entry beside it.
#include <fnmatch.h>

#include <fmt/format.h>

#include "boot/boot_files.h"
#include "boot/trial_boot.h"
#include "boot/trial_setups.h"
#include "detect/loader_vars.h"
#include "util/text.h"

namespace rocmtune::boot {
namespace {

constexpr std::string_view kBlsMountInfo = "proc/self/mountinfo";
constexpr std::string_view kWritableGrub2Env =
    "that GRUB can write /boot/grub2/grubenv at boot (not on LVM, RAID, LUKS, btrfs or ZFS)";
constexpr std::string_view kEfiVars = "sys/firmware/efi/efivars";
constexpr std::string_view kOneShotEfi =
    "that systemd-boot can boot an entry once (LoaderFeatures, writable EFI variables, no Secure Boot UKI "
    "with its own command line)";

using detect::ReadLoaderString;

bool HasProgram(const sys::Root& root, std::string_view name) {
  for (std::string_view dir : {"usr/bin", "usr/sbin", "bin", "sbin"})
    if (root.Exists(fmt::format("{}/{}", dir, name))) return true;
  return false;
}

// ---- grub-bls ----

struct BlsDefault {
  std::string path;  // root-relative entry file
  std::string grubenv;
};

Result<BlsDefault> GrubBlsDefault(const sys::Root& root) {
  auto env = ReadOptional(root, kGrub2EnvPath);
  if (!env) return Fail(ErrorCode::kNotFound, fmt::format("/{} is missing or unreadable", kGrub2EnvPath));
  // Fedora's grub.cfg: `set default="${saved_entry}"` (GRUB_DEFAULT=saved); without saved_entry
  // GRUB boots the entry that sorts first (blscfg sorts by version), which a new entry could be.
  auto saved = GrubEnvValue(*env, "saved_entry");
  if (!saved || saved->empty())
    return Fail(ErrorCode::kInvalidData,
                fmt::format("/{} has no saved_entry, so the default is whichever BLS entry sorts first, and the trial "
                            "entry could be it: set a default first (grubby --set-default)",
                            kGrub2EnvPath));
  std::string path = fmt::format("{}/{}.conf", kBlsEntriesDir, *saved);
  if (saved->find('/') != std::string::npos || !root.Exists(path))
    return Fail(ErrorCode::kNotFound,
                fmt::format("saved_entry '{}' of /{} names no entry in /{}", *saved, kGrub2EnvPath, kBlsEntriesDir));
  if (*saved == kTrialEntryId)
    return Fail(ErrorCode::kInvalidData, "saved_entry is rocmtune's trial entry; set the default back first");
  return BlsDefault{std::move(path), std::move(*env)};
}

// ---- systemd-boot ----

struct SdBootDefault {
  std::string esp;    // root-relative
  std::string entry;  // root-relative path of the default entry
};

std::optional<std::string> FindEsp(const sys::Root& root) {
  for (std::string_view esp : kEspCandidates)
    if (root.Exists(fmt::format("{}/loader/loader.conf", esp))) return std::string(esp);
  return std::nullopt;
}

// The entries systemd-boot lists: $ESP/loader/entries and, where there is one, the XBOOTLDR
// partition's /boot/loader/entries (BOOT_LOADER_SPECIFICATION.md).
std::vector<std::string> SdBootEntries(const sys::Root& root, std::string_view esp) {
  std::vector<std::string> out;
  std::vector<std::string> dirs = {fmt::format("{}/loader/entries", esp)};
  if (esp != "boot") dirs.emplace_back("boot/loader/entries");
  for (const std::string& dir : dirs)
    if (auto names = root.ListDir(dir))
      for (const std::string& n : *names)
        if (n.ends_with(".conf") && n != kTrialEntryFile) out.push_back(sys::JoinPath(dir, n));
  return out;
}

std::string_view FileName(std::string_view path) { return path.substr(path.rfind('/') + 1); }

// The default entry: LoaderEntryDefault (bootctl set-default), else loader.conf's `default`
// pattern (loader.conf(5)); one entry must match. Without either, systemd-boot boots the entry
// that sorts first, which the trial entry could be: refused.
Result<SdBootDefault> SdBootDefaultEntry(const sys::Root& root) {
  auto esp = FindEsp(root);
  if (!esp)
    return Fail(ErrorCode::kNotFound, BootFilesHidden(root)
                                          ? "the ESP is readable by root only, and no loader/loader.conf was found in "
                                            "what this process can read: run as root, or through rocmtuned"
                                          : "no ESP with loader/loader.conf in /efi, /boot/efi or /boot");
  std::optional<std::string> pattern = ReadLoaderString(root, "LoaderEntryDefault");
  std::string from = "the LoaderEntryDefault EFI variable";
  if (!pattern || pattern->empty()) {
    pattern.reset();
    if (auto conf = ReadOptional(root, fmt::format("{}/loader/loader.conf", *esp)))
      for (std::string_view line : text::SplitLines(*conf)) {
        auto words = text::Tokens(line);
        if (words.size() >= 2 && words[0] == "default") pattern = std::string(words[1]);
      }
    from = fmt::format("`default` in /{}/loader/loader.conf", *esp);
  }
  if (!pattern)
    return Fail(ErrorCode::kInvalidData,
                "systemd-boot has no default entry set, so it boots the entry that sorts first, which the trial "
                "entry could be: set one first (bootctl set-default ID)");
  if (pattern->starts_with('@'))
    return Fail(ErrorCode::kInvalidData,
                fmt::format("{} is '{}'; rocmtune needs a fixed default entry", from, *pattern));
  std::vector<std::string> matches;
  for (const std::string& e : SdBootEntries(root, *esp)) {
    std::string name(FileName(e));
    std::string id = name.substr(0, name.size() - 5);
    if (fnmatch(pattern->c_str(), name.c_str(), 0) == 0 || fnmatch(pattern->c_str(), id.c_str(), 0) == 0)
      matches.push_back(e);
  }
  if (fnmatch(pattern->c_str(), std::string(kTrialEntryFile).c_str(), 0) == 0)
    return Fail(ErrorCode::kInvalidData,
                fmt::format("{} ('{}') would also match rocmtune's trial entry", from, *pattern));
  if (matches.size() != 1)
    return Fail(ErrorCode::kInvalidData,
                fmt::format("{} ('{}') matches {} type #1 entries; rocmtune copies exactly one (a UKI in "
                            "EFI/Linux is not copied)",
                            from, *pattern, matches.size()));
  return SdBootDefault{*esp, matches.front()};
}

// The path an entry's `efi`/`uki` line names, on the ESP.
std::optional<std::string> EntryImage(std::string_view entry, std::string_view esp) {
  for (std::string_view line : text::SplitLines(entry)) {
    auto words = text::Tokens(line);
    if (words.size() >= 2 && (words[0] == "efi" || words[0] == "uki")) {
      std::string_view p = words[1];
      while (p.starts_with('/')) p.remove_prefix(1);
      return fmt::format("{}/{}", esp, p);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> RefuseGrubBlsTrial(const BootContext& ctx) {
  if (!HasProgram(ctx.root, "grub2-editenv")) return std::string("grub2-editenv (grub2-tools) is not installed");
  if (auto def = GrubBlsDefault(ctx.root); !def) return def.error().message;
  if (UncheckedInTree(ctx.root, kBlsMountInfo, kWritableGrub2Env)) return std::nullopt;  // PlanGrubBlsTrial warns
  return GrubEnvUnwritable(ctx.root, "/boot/grub2");
}

void PlanGrubBlsTrial(const BootContext& ctx, const TrialBoot& trial, plan::Plan& plan) {
  if (auto why = RefuseGrubBlsTrial(ctx)) {
    plan.refused.push_back({"", *why, ""});
    return;
  }
  auto entry = *GrubBlsTrialEntryAt(ctx.root, kBlsTrialEntryPath, trial);
  if (!entry) {
    plan.refused.push_back({"", entry.error().message, ""});
    return;
  }
  AddFileOp(ctx, plan::BackendId::kBootloader, kBlsTrialEntryPath, *entry,
            "the trial's entry: the default BLS entry with the trial's tokens, for one boot", plan);
  plan.ops.push_back(RegenOp(plan::Regenerator::kGrub2Editenv,
                             {"-", "set", fmt::format("next_entry={}", kTrialEntryId)},
                             "GRUB boots next_entry once and clears it at that boot (00_header)"));
  if (auto unchecked = UncheckedInTree(ctx.root, kBlsMountInfo, kWritableGrub2Env))
    plan.warnings.push_back({"", *unchecked, ""});
  plan.reboot_required = true;
}

void PlanGrubBlsTrialCleanup(const BootContext& ctx, plan::Plan& plan) {
  if (ctx.root.Exists(kBlsTrialEntryPath))
    AddFileOp(ctx, plan::BackendId::kBootloader, kBlsTrialEntryPath, std::nullopt, "the trial is over", plan);
  auto env = ReadOptional(ctx.root, kGrub2EnvPath);
  if (env && GrubEnvValue(*env, "next_entry") == kTrialEntryId)
    plan.ops.push_back(RegenOp(plan::Regenerator::kGrub2Editenv, {"-", "unset", "next_entry"},
                               "the trial's one-shot switch was not used"));
}

std::optional<std::string> RefuseSdBootTrial(const BootContext& ctx) {
  if (!HasProgram(ctx.root, "bootctl")) return std::string("bootctl (systemd-boot's tool) is not installed");
  bool unchecked = UncheckedInTree(ctx.root, kEfiVars, kOneShotEfi).has_value();  // PlanSdBootTrial warns
  if (!unchecked)
    if (auto why = SdBootOneShotRefusal(ctx.root)) return why;
  auto def = SdBootDefaultEntry(ctx.root);
  if (!def) return def.error().message;
  if (unchecked) return std::nullopt;
  // systemd-stub(7): with Secure Boot on, a UKI's own .cmdline wins over anything the entry passes.
  auto content = ReadOptional(ctx.root, def->entry);
  if (!content) return fmt::format("/{} is unreadable", def->entry);
  auto image = EntryImage(*content, def->esp);
  if (!image || !SecureBootOn(ctx.root)) return std::nullopt;
  std::optional<bool> cmdline = PeHasCmdline(ctx.root, *image);
  // rocmtuned cannot open an image on a root-only ESP (the helper reads it only loader files).
  if (!cmdline)
    return fmt::format(
        "/{} is a unified kernel image under Secure Boot, and rocmtune could not read it to see whether "
        "it has its own command line (.cmdline), which would ignore the options an entry adds",
        *image);
  if (*cmdline)
    return fmt::format(
        "/{} boots a unified kernel image with its own command line (.cmdline) under Secure Boot, "
        "which ignores the options an entry adds (systemd-stub)",
        *image);
  return std::nullopt;
}

void PlanSdBootTrial(const BootContext& ctx, const TrialBoot& trial, plan::Plan& plan) {
  if (auto why = RefuseSdBootTrial(ctx)) {
    plan.refused.push_back({"", *why, ""});
    return;
  }
  auto def = SdBootDefaultEntry(ctx.root);
  std::string path = fmt::format("{}/loader/entries/{}", def->esp, kTrialEntryFile);
  auto entry = *SdBootTrialEntryAt(ctx.root, path, trial);
  if (!entry) {
    plan.refused.push_back({"", entry.error().message, ""});
    return;
  }
  AddFileOp(ctx, plan::BackendId::kBootloader, path, *entry,
            "the trial's entry: the default entry with the trial's tokens, for one boot", plan);
  // bootctl(1) set-oneshot: "Sets the default boot loader entry for the next boot only";
  // systemd-boot removes LoaderEntryOneShot when it reads it (BOOT_LOADER_INTERFACE.md).
  plan.ops.push_back(RegenOp(plan::Regenerator::kBootctl, {"set-oneshot", std::string(kTrialEntryFile)},
                             "systemd-boot boots LoaderEntryOneShot once and removes it"));
  if (auto unchecked = UncheckedInTree(ctx.root, kEfiVars, kOneShotEfi)) plan.warnings.push_back({"", *unchecked, ""});
  plan.reboot_required = true;
}

void PlanSdBootTrialCleanup(const BootContext& ctx, plan::Plan& plan) {
  for (const std::string& path : SdBootTrialEntryPaths())
    if (ctx.root.Exists(path))
      AddFileOp(ctx, plan::BackendId::kBootloader, path, std::nullopt, "the trial is over", plan);
  // bootctl's verb_set_efivar (src/boot/bootctl-set-efivar.c): an empty argument removes the variable.
  if (ReadLoaderString(ctx.root, "LoaderEntryOneShot") == kTrialEntryFile)
    plan.ops.push_back(
        RegenOp(plan::Regenerator::kBootctl, {"set-oneshot", ""}, "the trial's one-shot switch was not used"));
}

std::optional<Result<std::string>> GrubBlsTrialEntryAt(const sys::Root& root, std::string_view path,
                                                       const TrialBoot& trial) {
  if (path != kBlsTrialEntryPath) return std::nullopt;
  auto def = GrubBlsDefault(root);
  if (!def) return tl::unexpected(def.error());
  auto content = ReadOptional(root, def->path);
  if (!content) return Fail(ErrorCode::kNotFound, fmt::format("/{} is unreadable", def->path));
  return BlsTrialEntry(*content, def->grubenv, trial);
}

std::optional<Result<std::string>> SdBootTrialEntryAt(const sys::Root& root, std::string_view path,
                                                      const TrialBoot& trial) {
  auto def = SdBootDefaultEntry(root);
  if (!def) return tl::unexpected(def.error());
  if (path != fmt::format("{}/loader/entries/{}", def->esp, kTrialEntryFile)) return std::nullopt;
  auto content = ReadOptional(root, def->entry);
  if (!content) return Fail(ErrorCode::kNotFound, fmt::format("/{} is unreadable", def->entry));
  return BlsTrialEntry(*content, std::nullopt, trial);
}

}  // namespace rocmtune::boot
