#!/bin/bash
# build-image.sh: the Debian 12 disk images of rocmtune's QEMU boot tests, cached under BUILD_DIR/vm-cache.
#
#   usage: tests/vm/build-image.sh BUILD_DIR [SOURCE_DIR]          (root; SOURCE_DIR: this checkout)
#   env:   VM_DEB=PATH   install this rocmtune .deb instead of `scripts/build-deb.sh BUILD_DIR`'s
#                        (which reuses BUILD_DIR/package/rocmtune_*.deb when the sources did not change)
#
# Makes, without loop devices or mounts (mkfs.ext4 -d, sfdisk on a file, dd, mtools):
#   vm-cache/bios.img   MBR, one ext4 partition, GRUB i386-pc written by hand (boot.img + core.img)
#   vm-cache/uefi.img   GPT: ESP (FAT32) with systemd-boot in the kernel-install layout + the same root
#   vm-cache/ids.env    root UUID, kernel version, machine id, base command line
# Both hold one root: the system tests' cached debootstrap root (tests/system/cached_root.sh: minbase,
# systemd, dbus, polkitd, the package's Depends) copied, plus a kernel, udev, grub-pc and systemd-boot,
# rocmtune's Debian package, and the test agent (tests/vm/guest: vmprobe.service). What is cached:
#   vm-cache/rootfs     the copy with the kernel and boot loaders (tests/vm/rootfs.sh), rebuilt when
#                       rootfs.sh or the base root's package list changes (vm-cache/rootfs.key)
#   the images          rebuilt when the rootfs, the .deb, this script or the guest files change
#                       (vm-cache/images.key)
# Exit 77 with the reason when a tool, root or the Debian mirror is missing.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
BUILD=$(cd "${1:?usage: build-image.sh BUILD_DIR [SOURCE_DIR]}" && pwd)
SRC=$(cd "${2:-$HERE/../..}" && pwd)
OUT=$BUILD/vm-cache
[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot, unshare)"
need_tools debootstrap unshare chroot mkfs.ext4 sfdisk mkfs.vfat mmd mcopy flock sha256sum ssh-keygen
mkdir -p "$OUT"
# One build at a time: ctest may start two VM tests at once with -j.
exec 9>"$OUT/.lock"
flock 9
t0=$SECONDS
step() { echo "[build-image +$((SECONDS - t0))s] $*"; }

# --- the package under test -----------------------------------------------------------------------
DEB=${VM_DEB:-}
if [ -z "$DEB" ]; then
  need_tools dpkg-buildpackage dh lintian
  step "scripts/build-deb.sh $BUILD"
  "$SRC/scripts/build-deb.sh" "$BUILD" >"$OUT/build-deb.log" 2>&1 ||
    { tail -30 "$OUT/build-deb.log"; fail "scripts/build-deb.sh (log: $OUT/build-deb.log)"; }
  DEB=$(find "$BUILD/package" -maxdepth 1 -name 'rocmtune_*.deb' | head -1)
fi
[ -f "$DEB" ] || fail "no rocmtune .deb ($DEB)"

# --- the base: the system tests' cached root (it holds what the package's Depends name) -------------
. "$SRC/tests/system/cached_root.sh"
cached_root "$BUILD/chroot-cache" "$DEB"
BASE=$ROOT

R=$OUT/rootfs
ROOT_UUID=3e6a1c52-7f1b-4d39-9a51-0c2f7d4e8b10   # fixed, so configs can be written before mkfs
ESP_ID=7E57B007                                  # FAT volume id -> UUID=7E57-B007
ESP_UUID=${ESP_ID:0:4}-${ESP_ID:4:4}
MACHINE_ID=5ee1b0075ee1b0075ee1b0075ee1b007       # kernel-install's entry token on the ESP
CMDLINE_BASE="root=UUID=$ROOT_UUID ro console=ttyS0,115200"

rootfs_key=$(cat "$HERE/rootfs.sh" "$BASE.packages" | sha256sum | cut -d' ' -f1)
if [ ! -e "$R/.complete" ] || [ "$(cat "$OUT/rootfs.key" 2>/dev/null)" != "$rootfs_key" ]; then
  rm -rf "$R" "$OUT/rootfs.key" "$OUT/images.key"
  . "$HERE/rootfs.sh"
  build_rootfs "$BASE" "$R" "$OUT"
  touch "$R/.complete"
  echo "$rootfs_key" >"$OUT/rootfs.key"
fi
KVER=$(ls "$R/usr/lib/modules" | head -1)

# The key the host's ssh (and Ansible) logs in to the guest's root with: made once per cache.
mkdir -p "$OUT/ssh"
[ -f "$OUT/ssh/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C vmprobe-host -f "$OUT/ssh/id_ed25519" ||
  fail "ssh-keygen"
deb_sum=$(sha256sum "$DEB" | cut -d' ' -f1)
images_key=$(cat "$OUT/rootfs.key" <(echo "$deb_sum") "$0" "$HERE"/guest/* "$OUT/ssh/id_ed25519.pub" |
  sha256sum | cut -d' ' -f1)
if [ -f "$OUT/bios.img" ] && [ -f "$OUT/uefi.img" ] && [ "$(cat "$OUT/images.key" 2>/dev/null)" = "$images_key" ]; then
  echo "build-image: $OUT/{bios,uefi}.img are up to date ($(basename "$DEB"), kernel $KVER)"
  exit 0
fi
rm -f "$OUT/images.key"

# --- rocmtune ------------------------------------------------------------------------------------
step "install $(basename "$DEB")"
cp "$DEB" "$R/tmp/rocmtune.deb"
chroot_in "$R" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
  --allow-downgrades --reinstall /tmp/rocmtune.deb >"$OUT/install-deb.log" 2>&1 ||
  { tail -20 "$OUT/install-deb.log"; fail "apt-get install $(basename "$DEB") in the root"; }
rm -f "$R/tmp/rocmtune.deb"
chroot_in "$R" apt-get clean

# --- configuration ---------------------------------------------------------------------------------
step "configure the root"
echo vmprobe >"$R/etc/hostname"
echo "$MACHINE_ID" >"$R/etc/machine-id"
chroot_in "$R" passwd -d root >/dev/null      # root without password on the serial console (debugging)
echo "UUID=$ROOT_UUID / ext4 rw,errors=remount-ro 0 1" >"$R/etc/fstab"  # uefi.img adds the ESP below
mkdir -p "$R/boot/efi"
# Debian's /etc/default/grub with a serial console and a 1 s menu; GRUB_DEFAULT=0: Debian's 00_header
# honours next_entry without GRUB_DEFAULT=saved.
cat >"$R/etc/default/grub" <<EOF
GRUB_DEFAULT=0
GRUB_TIMEOUT=1
GRUB_DISTRIBUTOR=Debian
GRUB_CMDLINE_LINUX_DEFAULT=""
GRUB_CMDLINE_LINUX="console=ttyS0,115200"
GRUB_TERMINAL=serial
GRUB_SERIAL_COMMAND="serial --unit=0 --speed=115200"
GRUB_DISABLE_OS_PROBER=true
EOF
install -m 755 "$HERE/guest/vmprobe-agent" "$R/usr/local/sbin/vmprobe-agent"
install -m 644 "$HERE/guest/vmprobe.service" "$R/etc/systemd/system/vmprobe.service"
ln -sf /etc/systemd/system/vmprobe.service "$R/etc/systemd/system/multi-user.target.wants/vmprobe.service"
# Off unless a scenario creates /etc/vmprobe/crash-trial-boot: crashes a rocmtune trial boot early.
install -m 644 "$HERE/guest/vmprobe-crash-trial.service" "$R/etc/systemd/system/vmprobe-crash-trial.service"
mkdir -p "$R/etc/systemd/system/sysinit.target.wants"
ln -sf /etc/systemd/system/vmprobe-crash-trial.service \
  "$R/etc/systemd/system/sysinit.target.wants/vmprobe-crash-trial.service"
# The network card a scenario may ask for (boot.sh -n): DHCP from QEMU's user network, and root's
# login over ssh with the host's key only (Debian's sshd: PermitRootLogin prohibit-password).
mkdir -p "$R/etc/systemd/network" "$R/root/.ssh"
printf '[Match]\nName=en*\n\n[Network]\nDHCP=ipv4\n' >"$R/etc/systemd/network/20-vmprobe.network"
ln -sf /lib/systemd/system/systemd-networkd.service "$R/etc/systemd/system/multi-user.target.wants/systemd-networkd.service"
install -m 600 "$OUT/ssh/id_ed25519.pub" "$R/root/.ssh/authorized_keys"
chmod 700 "$R/root/.ssh"
# Faster under TCG (1 vCPU): no e2scrub_reap (7 s), no getty on tty1-6 (4 s; the serial getty stays).
for u in e2scrub_reap.service getty-static.service; do ln -sf /dev/null "$R/etc/systemd/system/$u"; done

# GRUB inside the root: its modules (what grub-install copies), a grubenv (Debian's 00_header loads
# it only when it is non-empty: `-s $prefix/grubenv`), and a starter grub.cfg with 00_header's
# next_entry logic. grub-mkconfig in a chroot probes the host's disk, so the grub scenarios run
# update-grub in the guest on their first boot. custom.cfg is sourced at boot time, as by Debian's
# 41_custom.
mkdir -p "$R/boot/grub/i386-pc"
cp "$R"/usr/lib/grub/i386-pc/*.mod "$R"/usr/lib/grub/i386-pc/*.lst "$R/boot/grub/i386-pc/"
rm -f "$R/boot/grub/grubenv"; chroot_in "$R" grub-editenv /boot/grub/grubenv create
cat >"$R/boot/grub/grub.cfg" <<EOF
# starter grub.cfg of tests/vm/build-image.sh; update-grub in the guest replaces it
serial --unit=0 --speed=115200
terminal_input serial; terminal_output serial
if [ -s \$prefix/grubenv ]; then load_env; fi
if [ "\${next_entry}" ]; then
  set default="\${next_entry}"; set next_entry=; save_env next_entry; set boot_once=true
else
  set default=0
fi
set timeout=1
insmod part_msdos
insmod ext2
search --no-floppy --fs-uuid --set=root $ROOT_UUID
menuentry 'Debian GNU/Linux' --id debian {
  linux /boot/vmlinuz-$KVER $CMDLINE_BASE
  initrd /boot/initrd.img-$KVER
}
if [ -f \$prefix/custom.cfg ]; then source \$prefix/custom.cfg; fi
EOF

cat >"$OUT/ids.env" <<EOF
ROOT_UUID=$ROOT_UUID
ESP_UUID=$ESP_UUID
KVER=$KVER
MACHINE_ID=$MACHINE_ID
CMDLINE_BASE="$CMDLINE_BASE"
EOF

# --- bios.img: MBR + GRUB i386-pc by hand -----------------------------------------------------------
MIB=1048576
ROOT_MB=${ROOT_MB:-1200}     # the root is ~0.5 GB; the rest is room for the guest's changes
step "bios.img"
tmp=$OUT/tmp; rm -rf "$tmp"; mkdir -p "$tmp"
truncate -s "${ROOT_MB}M" "$tmp/root.ext4"
mkfs.ext4 -q -F -L vmroot -U "$ROOT_UUID" -d "$R" "$tmp/root.ext4" || fail "mkfs.ext4 -d (bios)"
IMG=$tmp/bios.img
truncate -s $(((ROOT_MB + 1) * MIB)) "$IMG"
echo "start=2048, type=83, bootable" | sfdisk -q "$IMG" || fail "sfdisk bios.img"
dd if="$tmp/root.ext4" of="$IMG" bs=1M seek=1 conv=notrunc,sparse status=none
# core.img: GRUB's kernel + the modules that read /boot/grub from (hd0,msdos1). grub-mkimage fills
# in core.img's blocklist length, and diskboot.img's default start is LBA 2: so core.img goes to
# LBA 1 (the gap before partition 1) and neither grub-install nor grub-bios-setup is needed.
chroot_in "$R" grub-mkimage -O i386-pc -d /usr/lib/grub/i386-pc -o /tmp/core.img -p '(hd0,msdos1)/boot/grub' \
  biosdisk part_msdos ext2 || fail "grub-mkimage"
mv "$R/tmp/core.img" "$tmp/core.img"
[ "$(stat -c %s "$tmp/core.img")" -lt $((2047 * 512)) ] || fail "core.img does not fit before partition 1"
dd if="$R/usr/lib/grub/i386-pc/boot.img" of="$IMG" bs=440 count=1 conv=notrunc status=none  # keeps the table
dd if="$tmp/core.img" of="$IMG" bs=512 seek=1 conv=notrunc status=none

# --- uefi.img: GPT, ESP with systemd-boot, the same root ---------------------------------------------
step "uefi.img"
# The root as a systemd-boot machine has it: the ESP in fstab (its own line: with "nofail,
# x-systemd.device-timeout=2s" udev was too slow under TCG and /boot/efi stayed unmounted) and
# /etc/kernel/cmdline (kernel-install's command line).
echo "UUID=$ESP_UUID /boot/efi vfat umask=0077 0 1" >>"$R/etc/fstab"
echo "$CMDLINE_BASE" >"$R/etc/kernel/cmdline"
mkfs.ext4 -q -F -L vmroot -U "$ROOT_UUID" -d "$R" "$tmp/root.ext4" || fail "mkfs.ext4 -d (uefi)"
sed -i '/\/boot\/efi/d' "$R/etc/fstab"
rm -f "$R/etc/kernel/cmdline"
ESP_MB=128
ESP=$tmp/esp.vfat
mkfs.vfat -F 32 -i "$ESP_ID" -n ESP -C "$ESP" $((ESP_MB * 1024)) >/dev/null || fail "mkfs.vfat"
export MTOOLS_SKIP_CHECK=1
# systemd-boot as \EFI\BOOT\BOOTX64.EFI, the removable-media path: a fresh OVMF variable store
# needs no Boot#### entry. The kernel and the entry where kernel-install puts them
# (layout "bls": /MACHINE_ID/KVER/ and loader/entries/MACHINE_ID-KVER.conf).
mmd -i "$ESP" ::/EFI ::/EFI/BOOT ::/EFI/systemd ::/loader ::/loader/entries ::/"$MACHINE_ID" ::/"$MACHINE_ID/$KVER"
mcopy -i "$ESP" "$R/usr/lib/systemd/boot/efi/systemd-bootx64.efi" ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$ESP" "$R/usr/lib/systemd/boot/efi/systemd-bootx64.efi" ::/EFI/systemd/
mcopy -i "$ESP" "$R/boot/vmlinuz-$KVER" ::/"$MACHINE_ID/$KVER/linux"
mcopy -i "$ESP" "$R/boot/initrd.img-$KVER" ::/"$MACHINE_ID/$KVER/initrd.img-$KVER"
printf 'default %s-*\ntimeout 0\neditor no\n' "$MACHINE_ID" >"$tmp/loader.conf"
printf 'title Debian GNU/Linux 12 (bookworm)\nversion %s\nmachine-id %s\nsort-key debian\noptions %s\nlinux /%s/%s/linux\ninitrd /%s/%s/initrd.img-%s\n' \
  "$KVER" "$MACHINE_ID" "$CMDLINE_BASE" "$MACHINE_ID" "$KVER" "$MACHINE_ID" "$KVER" "$KVER" >"$tmp/entry.conf"
mcopy -i "$ESP" "$tmp/loader.conf" ::/loader/loader.conf
mcopy -i "$ESP" "$tmp/entry.conf" ::/loader/entries/"$MACHINE_ID-$KVER.conf"
IMG=$tmp/uefi.img
truncate -s $(((1 + ESP_MB + ROOT_MB + 1) * MIB)) "$IMG"
sfdisk -q "$IMG" <<EOF || fail "sfdisk uefi.img"
label: gpt
start=2048, size=$((ESP_MB * 2048)), type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name=esp
start=$(((1 + ESP_MB) * 2048)), size=$((ROOT_MB * 2048)), type=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709, name=root
EOF
dd if="$ESP" of="$IMG" bs=1M seek=1 conv=notrunc,sparse status=none
dd if="$tmp/root.ext4" of="$IMG" bs=1M seek=$((1 + ESP_MB)) conv=notrunc,sparse status=none
# A rename: a VM still running on an overlay of the old image keeps reading the old file.
mv "$tmp/bios.img" "$tmp/uefi.img" "$OUT/" || fail "mv images"
rm -rf "$tmp"
echo "$images_key" >"$OUT/images.key"
step "done: bios.img $(du -h "$OUT/bios.img" | cut -f1), uefi.img $(du -h "$OUT/uefi.img" | cut -f1) allocated"
