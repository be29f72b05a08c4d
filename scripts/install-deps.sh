#!/bin/sh
# Installs the Debian 12 packages rocmtune needs to build and test. Only what is missing is
# installed, so `make demo` / `make check` stay fast on a machine that already has them.
# With --fuzz: only what `make fuzz` adds (clang and its sanitizer/libFuzzer runtimes); `make check`
# never needs clang. With --lint: only what `make lint` / `make format` add (clang-format and clang-tidy 14:
# pinned, as their output changes between releases; shellcheck, Debian 12's 0.9.0). With --vm: only
# what the QEMU boot tests add (`make check-vm`, and check-system's vm tests; tests/vm/). With
# --browser: only what the Cockpit page's browser tests add (check-system's daemon.cockpit.*).
set -eu

BUILD="build-essential cmake ninja-build ccache pkg-config libdrm-dev libkmod-dev \
libtomlplusplus-dev nlohmann-json3-dev libcli11-dev libfmt-dev libexpected-dev \
libgtest-dev libgmock-dev libbenchmark-dev librocm-smi-dev libsystemd-dev libudev-dev libarchive-dev libinih-dev scdoc \
libelf-dev libzstd-dev zlib1g-dev libsqlite3-dev libglib2.0-dev"
# Tools the tests drive for real (they skip with a reason when one is absent); zsh and fish check
# the shell completions and man finds and renders the pages (tests/docs); debhelper and lintian
# build and check the Debian package (`make package`, tests/package); ansible-core runs the
# Ansible role (tests/ansible); rpm's rpmbuild builds the RPM smoke package (`make rpm`, tests/rpm);
# strace shows which commands start a child (rocm_smi_live: check-compute must not ask rocm-smi-lib);
# python3-gi runs the polkit agent of daemon.authorization (a GLib main loop for dbus-python).
# hipcc (Debian's 5.2.3) builds HIP fat binaries for the runtime tests, zstd the compressed
# offload bundle fixture (tests/fixtures/fatbin/make.sh); cpio, lz4, xz-utils and bzip2 with zstd
# make the initramfs images the image reader's tests read (tests/support/initrd_images.h), and
# initramfs-tools-core's mkinitramfs builds one in a mount namespace (initramfs.mkinitramfs).
# ostree (2022.7) makes the image-based worlds (tests/support/ostree_world.h: a sysroot, a commit,
# deployments by `ostree admin`). systemd-journal-remote turns journal export files into the
# journals the system log reader's tests read (tests/support/journal_world.h).
TEST="hipcc zstd cpio lz4 xz-utils bzip2 initramfs-tools-core rocm-smi pci.ids kmod util-linux grub-common debootstrap patch ostree dbus python3-dbus python3-gi polkitd systemd-container \
zsh fish man-db debhelper lintian ansible-core rpm strace libgudev-1.0-0 python3-prometheus-client systemd-journal-remote"
# daemon.writers runs Debian 12's real power-profiles-daemon (0.12) on a private bus, unpacked from
# its .deb kept here (with libgudev-1.0-0 above, its one library polkitd does not bring):
# installing the package would start it on this machine and take the place of tuned. The export
# tests (tests/export) unpack node_exporter (prometheus-node-exporter 1.5.0) and promtool (in
# prometheus 2.42) the same way: installed, each would start a server on this machine's ports.
# python3-prometheus-client (above) parses what node_exporter serves.
TEST_DEBS=/var/cache/rocmtune-tests
KEPT_DEBS="power-profiles-daemon prometheus-node-exporter prometheus"

# make fuzz: clang++ with -fsanitize=fuzzer,address,undefined (libclang_rt.fuzzer and friends).
FUZZ="clang libclang-rt-14-dev"
# make lint, make format: scripts/format.sh, scripts/tidy.sh (run-clang-tidy-14 is in clang-tidy-14),
# scripts/shellcheck.sh.
LINT="clang-format-14 clang-tidy-14 shellcheck"
# make check-vm (tests/vm/): QEMU (TCG or KVM) with SeaBIOS and OVMF (UEFI), qemu-img for the
# overlays; the disk images are made without loop devices or mounts: mkfs.ext4 -d (e2fsprogs),
# sfdisk (fdisk), mkfs.vfat (dosfstools) and mtools for the ESP. GRUB's tools and systemd-boot come
# from the image's own root (debootstrap, in TEST).
VM="qemu-system-x86 qemu-utils ovmf e2fsprogs fdisk dosfstools mtools openssh-client"
# The Cockpit page in a real browser (tests/daemon/suite/test_cockpit.py): Debian 12's Cockpit 287
# web server and bridge (cockpit-ws --local-session; installed without systemd running, nothing
# starts), headless chromium with its chromedriver, python3-selenium to drive it, iproute2 to
# bring up the loopback of the test's network namespace, and a font for the screenshots.
BROWSER="cockpit-ws cockpit-bridge chromium chromium-driver python3-selenium iproute2 fonts-liberation"

wanted="$BUILD $TEST"
[ "${1:-}" = --fuzz ] && wanted="$FUZZ"
[ "${1:-}" = --lint ] && wanted="$LINT"
[ "${1:-}" = --vm ] && wanted="$VM"
[ "${1:-}" = --browser ] && wanted="$BROWSER"

missing=""
for p in $wanted; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
kept_missing=""
if [ -z "${1:-}" ]; then
  for p in $KEPT_DEBS; do
    ls "$TEST_DEBS/${p}"_*.deb >/dev/null 2>&1 || kept_missing="$kept_missing $p"
  done
fi
[ -z "$missing" ] && [ -z "$kept_missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "install-deps: missing packages:$missing (run as root to install them)" >&2; exit 1
  fi
else SUDO=""; fi
$SUDO apt-get update -qq
if [ -n "$missing" ]; then
  echo "install-deps: installing$missing"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
for p in $kept_missing; do
  echo "install-deps: keeping $p's .deb in $TEST_DEBS (not installed)"
  $SUDO mkdir -p "$TEST_DEBS"
  # apt-get download as root writes as _apt where it can: a root-only cache directory is fine
  if ! (cd "$TEST_DEBS" && $SUDO apt-get download -qq "$p" >/dev/null 2>&1); then
    echo "install-deps: could not download $p (the tests that run it skip)" >&2
  fi
done
