# shellcheck shell=bash
# Sourced by build-image.sh: the images' root, a copy of the system tests' cached root (BASE) with
# what booting needs. Its text is part of the cache key of vm-cache/rootfs, so an edit here
# rebuilds the root and nothing else does (build-image.sh, "rootfs.key").
# build_rootfs BASE R OUT
build_rootfs() {
  local BASE=$1 R=$2 OUT=$3 d
  step "copy $BASE"
  mkdir -p "$R" && cp -a "$BASE/." "$R/" || fail "copy of the cached root"
  # No service starts in the chroot (policy-rc.d: 101 = action forbidden).
  printf '#!/bin/sh\nexit 101\n' >"$R/usr/sbin/policy-rc.d"; chmod 755 "$R/usr/sbin/policy-rc.d"
  # A small initramfs, only what mounts a virtio ext4 root (MODULES=most: ~35 MB, 6.7 MB this way).
  mkdir -p "$R/etc/initramfs-tools/conf.d"
  echo 'MODULES=list' >"$R/etc/initramfs-tools/conf.d/vmprobe.conf"
  printf '%s\n' virtio_pci virtio_blk virtio_scsi sd_mod ext4 >>"$R/etc/initramfs-tools/modules"
  # grub-pc's postinst would ask where to install GRUB; build-image.sh writes it to the images by hand.
  printf 'grub-pc grub-pc/install_devices multiselect\ngrub-pc grub-pc/install_devices_empty boolean true\n' |
    chroot_in "$R" debconf-set-selections
  # openssh-server and python3: the scenario where Ansible's role reaches the guest over ssh
  # (ansible-trial); without a network card (every other scenario) sshd only listens.
  # python3-dbus and python3-gi: power-profiles-daemon's test double (service-ppd).
  step "apt-get install linux-image-amd64 udev grub-pc systemd-boot openssh-server python3 python3-dbus python3-gi (in the copy)"
  chroot_in "$R" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    linux-image-amd64 udev grub-pc systemd-boot openssh-server python3 python3-dbus python3-gi \
    >"$OUT/chroot-install.log" 2>&1 ||
    { tail -20 "$OUT/chroot-install.log"; rm -rf "$R"; skip "apt-get install in the root failed (no mirror?)"; }
  chroot_in "$R" apt-get clean
  # Smaller: documentation and drivers a QEMU guest never loads (~220 MB). drivers/gpu stays, and
  # drivers/media/{cec,rc} (amdgpu -> drm_display_helper -> cec -> rc-core): `modprobe amdgpu`
  # then works without the hardware, and /sys/module/amdgpu/parameters shows what was set.
  rm -rf "$R"/usr/share/{doc,man,locale,info}/*
  for d in sound drivers/infiniband drivers/iio drivers/staging drivers/net/wireless drivers/net/ethernet \
           drivers/bluetooth drivers/isdn drivers/usb net/wireless net/mac80211 net/bluetooth; do
    rm -rf "$R"/usr/lib/modules/*/kernel/$d
  done
  find "$R"/usr/lib/modules/*/kernel/drivers/media -mindepth 1 -maxdepth 1 ! -name cec ! -name rc -exec rm -rf {} +
  # shellcheck disable=SC2016 # expanded in the chroot
  chroot_in "$R" sh -c 'depmod -a $(ls /usr/lib/modules)'
}
