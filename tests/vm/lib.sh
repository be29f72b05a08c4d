# shellcheck shell=bash
# Sourced by tests/vm/*.sh: skipping, the host tools each part needs, and how QEMU accelerates.
# The harness (image build, headless boots, guest agent, one-shot scenarios) follows what was
# measured on this project's CI-like machine (a Debian 12 VM with 2 cores): building a bootable
# Debian 12 disk without loop devices or mounts, booting it under QEMU's TCG in about 30 s
# (40-115 s on busy cores), and GRUB's next_entry / systemd-boot's LoaderEntryOneShot falling
# back after a panic or a failed check. Times: BENCHMARKS.md, "Boots in QEMU".

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

# need_tools TOOL...: skip (77) naming the first missing one and the package that has it.
need_tools() {
  local t pkg
  for t in "$@"; do
    command -v "$t" >/dev/null && continue
    case $t in
      qemu-system-x86_64) pkg=qemu-system-x86 ;;
      qemu-img) pkg=qemu-utils ;;
      mkfs.ext4) pkg=e2fsprogs ;;
      sfdisk) pkg=fdisk ;;
      mkfs.vfat) pkg=dosfstools ;;
      mmd | mcopy) pkg=mtools ;;
      dpkg-buildpackage) pkg=dpkg-dev ;;
      *) pkg=$t ;;
    esac
    skip "$t is not installed (package $pkg; scripts/install-deps.sh --vm installs the VM tests' tools)"
  done
}

# OVMF (UEFI firmware for QEMU, Debian's package ovmf): the code is read-only and shared, every VM
# gets its own copy of the variable store (LoaderEntryOneShot lives there).
OVMF_CODE=/usr/share/OVMF/OVMF_CODE_4M.fd
OVMF_VARS=/usr/share/OVMF/OVMF_VARS_4M.fd
need_ovmf() {
  [ -r "$OVMF_CODE" ] && [ -r "$OVMF_VARS" ] ||
    skip "$OVMF_CODE / $OVMF_VARS are missing (package ovmf; scripts/install-deps.sh --vm)"
}

# vm_accel: kvm when /dev/kvm can run a stock kernel, else tcg. ACCEL=kvm|tcg overrides.
# kvm_pvm (the nested "PVM" KVM of Firecracker-style CI machines, this project's included)
# accepts QEMU, and SeaBIOS and GRUB run, but a stock Debian kernel never left its decompressor
# in 600 s there; so kvm_pvm counts as no KVM.
vm_accel() {
  if [ -n "${ACCEL:-}" ]; then echo "$ACCEL"; return; fi
  if [ -w /dev/kvm ] && [ ! -d /sys/module/kvm_pvm ]; then echo kvm; else echo tcg; fi
}

# chroot_in ROOT CMD...: CMD in ROOT in its own mount and PID namespaces (maintainer scripts must
# not see the host's processes), with /proc, /sys, /dev and an empty /run.
chroot_in() {
  unshare -m -p -f --propagation private bash -c 'R=$1; shift
    mount -t proc proc "$R/proc" && mount --rbind /sys "$R/sys" && mount --rbind /dev "$R/dev" &&
      mount -t tmpfs tmpfs "$R/run" || exit 99
    exec chroot "$R" "$@"' chroot_in "$@"
}
