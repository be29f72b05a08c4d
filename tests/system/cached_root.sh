# shellcheck shell=bash
# Sourced by the system tests: one debootstrap'd Debian 12 (minbase) cached under the build
# directory and shared by them, so a second run (and the other test) reuses it. It holds what
# both need: grub-common (grub-mkconfig), systemd-sysv + dbus + polkitd (a bootable system for
# systemd-nspawn) and the runtime libraries of the given binaries (found with ldd + dpkg -S on
# this Debian 12 host). A package the root lacks (a new library) builds it again, with what it
# had (listed in ROOT.packages) and the new one. Needs skip() defined.
#
# cached_root CACHE_DIR [BINARY|DEB...]: sets ROOT to the cached root, building it if needed. For
# a .deb, the packages its Depends name (what dpkg -i checks; a library the package dlopen()s is
# there and not in any ldd).
# Skips (77) when there is no Debian mirror or debootstrap cannot reach it.
SYSTEM_PACKAGES="grub-common systemd-sysv dbus polkitd"
# Installed with apt in the chroot after debootstrap: polkitd's postinst fails under debootstrap
# (it reloads dbus, which does not run there).
LATE_PACKAGES="polkitd"

# debian_grub_setup ROOT: what a Debian 12 machine that boots with GRUB has before rocmtune:
# Debian's stock /etc/default/grub (grub2-common 2.06) and one kernel with its initramfs, so
# grub-mkconfig writes a menu entry with the command line.
debian_grub_setup() {
  cat >"$1/etc/default/grub" <<'GRUB'
GRUB_DEFAULT=0
GRUB_TIMEOUT=5
GRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`
GRUB_CMDLINE_LINUX_DEFAULT="quiet"
GRUB_CMDLINE_LINUX=""
GRUB
  mkdir -p "$1/boot/grub" || return 1
  : >"$1/boot/vmlinuz-6.1.0-99-amd64"
  : >"$1/boot/initrd.img-6.1.0-99-amd64"
}

# chroot_run ROOT CMD...: CMD in ROOT, in its own mount and PID namespaces (a postinst that stops
# a daemon by name must not see the host's processes), with /proc, /dev and an empty /run.
chroot_run() {
  unshare -m -p -f --propagation private bash -c 'R=$1; shift
    mount -t proc proc "$R/proc" && mount --rbind /dev "$R/dev" && mount -t tmpfs tmpfs "$R/run" || exit 99
    exec chroot "$R" "$@"' chroot_run "$@"
}

# The packages holding the shared libraries BINARY... load (Debian's merged /usr: a library
# ldd finds under /lib is owned under /usr/lib in dpkg's database, or the other way round).
library_packages() {
  command -v dpkg >/dev/null || return 0
  local lib
  for lib in $(ldd "$@" 2>/dev/null | awk '$3 ~ /^\// {print $3}' | sort -u); do
    dpkg -S "$lib" 2>/dev/null || dpkg -S "/usr$lib" 2>/dev/null || dpkg -S "$(readlink -f "$lib")" 2>/dev/null ||
      dpkg -S "${lib#/usr}" 2>/dev/null
  done | cut -d: -f1 | sort -u | tr '\n' ' '
}

# The packages a .deb's Depends name: the first of each set of alternatives, without versions.
deb_depends() {
  dpkg-deb -f "$1" Depends | tr ',' '\n' | sed -E 's/\|.*//; s/\(.*\)//; s/:any//; s/[[:space:]]//g' |
    sed '/^$/d' | sort -u | tr '\n' ' '
}

debian_mirror() {  # the mirror this machine's apt already uses (nothing else is reachable here)
  local m
  m=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
  [ -n "$m" ] || m=$(awk '/^deb / && $3 ~ /bookworm$/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
  echo "$m"
}

cached_root() {
  local cache=$1; shift
  command -v debootstrap >/dev/null || skip "debootstrap is not installed"
  ROOT=$cache/bookworm-system
  local pkgs p missing=""
  local a bins=()
  pkgs=$SYSTEM_PACKAGES
  for a in "$@"; do
    if [[ $a == *.deb ]]; then pkgs="$pkgs $(deb_depends "$a")"; else bins+=("$a"); fi
  done
  [ ${#bins[@]} -eq 0 ] || pkgs="$pkgs $(library_packages "${bins[@]}")"
  for p in $pkgs; do
    grep -qx "Package: $p" "$ROOT/var/lib/dpkg/status" 2>/dev/null || missing="$missing $p"
  done
  [ -z "$missing" ] && [ -e "$ROOT.packages" ] && return 0
  # Keep what the root had (another test's binaries may need it) and add what is missing.
  pkgs=$(echo "$pkgs $(cat "$ROOT.packages" 2>/dev/null)" | tr -s ' \n' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ')
  local mirror
  mirror=$(debian_mirror)
  [ -n "$mirror" ] || skip "no Debian mirror in this machine's apt sources"
  rm -rf "$ROOT" "$ROOT.packages"; mkdir -p "$cache"
  echo "debootstrap bookworm (minbase + $pkgs) from $mirror into $ROOT"
  local start=$SECONDS
  local early="" late=""
  for p in $pkgs; do
    if [[ " $LATE_PACKAGES " == *" $p "* ]]; then late="$late $p"; else early="$early,$p"; fi
  done
  if ! unshare -m -p -f --propagation private debootstrap --variant=minbase --include="${early#,}" bookworm \
       "$ROOT" "$mirror" >"$cache/debootstrap.log" 2>&1; then
    tail -5 "$cache/debootstrap.log"
    cp "$ROOT/debootstrap/debootstrap.log" "$cache/debootstrap-inner.log" 2>/dev/null
    rm -rf "$ROOT"
    skip "debootstrap failed (no network to the mirror?)"
  fi
  if [ -n "$late" ]; then
    # No service starts or reloads in the chroot (policy-rc.d: 101 = action forbidden).
    printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"; chmod 755 "$ROOT/usr/sbin/policy-rc.d"
    if ! chroot_run "$ROOT" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
         $late >>"$cache/debootstrap.log" 2>&1; then
      tail -5 "$cache/debootstrap.log"
      rm -rf "$ROOT"
      skip "apt-get install$late in the new root failed (no network to the mirror?)"
    fi
    rm -f "$ROOT/usr/sbin/policy-rc.d"
    chroot "$ROOT" apt-get clean
  fi
  rm -rf "$ROOT/var/cache/apt/archives/"*.deb
  echo "$pkgs" >"$ROOT.packages"
  echo "debootstrap took $((SECONDS - start)) s"
}
