#include "detect/initramfs_tool.h"

#include <algorithm>

namespace rocmtune::detect {
namespace {

using R = plan::Regenerator;

// initramfs-tools: update-initramfs(8) `-u -k all` updates every kernel's image; its MODULES=
// most/dep may pull amdgpu in (early KMS, plymouth), so only an explicit line in
// initramfs-tools/modules is proof. dracut(8) `--force --regenerate-all`. mkinitcpio(8) `-P`
// builds every preset; MODULES=(amdgpu) or the kms hook (GPU drivers in the image) is proof.
// booster(1) `build --force`. rpm-ostree(1) `initramfs-etc`.
constexpr std::array<InitramfsToolRow, 5> kInitramfsTools = {{
    {InitramfsKind::kInitramfsTools,
     "initramfs-tools",
     {"usr/sbin/update-initramfs", "etc/initramfs-tools/initramfs.conf"},
     R::kInitramfsTools,
     {"-u", "-k", "all"},
     {{{"etc/initramfs-tools/modules", "amdgpu", "etc/initramfs-tools/modules lists amdgpu"}, {}}},
     "`update-initramfs -u -k {}` rebuilds it"},
    {InitramfsKind::kDracut,
     "dracut",
     {"usr/bin/dracut", "etc/dracut.conf"},
     R::kDracut,
     {"--force", "--regenerate-all", ""},
     {},
     "`dracut --force --kver {}` rebuilds it"},
    {InitramfsKind::kMkinitcpio,
     "mkinitcpio",
     {"usr/bin/mkinitcpio", "etc/mkinitcpio.conf"},
     R::kMkinitcpio,
     {"-P", "", ""},
     {{{"etc/mkinitcpio.conf", "amdgpu", "etc/mkinitcpio.conf MODULES has amdgpu"},
       {"etc/mkinitcpio.conf", "kms", "etc/mkinitcpio.conf HOOKS has kms (GPU drivers in the image)"}}},
     "`mkinitcpio -P` rebuilds it"},
    {InitramfsKind::kBooster,
     "booster",
     {"usr/bin/booster", "etc/booster.yaml"},
     R::kBooster,
     {"build", "--force", ""},
     {},
     ""},
    {InitramfsKind::kRpmOstreeInitramfsEtc,
     "rpm-ostree-initramfs-etc",
     {},
     R::kRpmOstreeInitramfsEtc,
     {"initramfs-etc", "", ""},
     {},
     "",
     true},
}};

}  // namespace

std::span<const InitramfsToolRow> InitramfsTools() { return kInitramfsTools; }

const InitramfsToolRow& Row(InitramfsKind kind) {
  return *std::find_if(kInitramfsTools.begin(), kInitramfsTools.end(),
                       [&](const InitramfsToolRow& r) { return r.kind == kind; });
}

std::string_view InitramfsKindName(InitramfsKind kind) { return Row(kind).name; }

std::optional<InitramfsKind> ParseInitramfsKind(std::string_view name) {
  for (const InitramfsToolRow& r : kInitramfsTools)
    if (r.name == name) return r.kind;
  return std::nullopt;
}

}  // namespace rocmtune::detect
