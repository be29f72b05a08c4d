#!/bin/bash
# The Debian package's life in a debootstrap'd Debian 12 (tests/system/cached_root.sh) with no
# network, no systemd and no bus running, as a distribution would put it through:
#   build      scripts/build-deb.sh (`make package`: dpkg-buildpackage -b, lintian without error or warning)
#   install    dpkg -i: files at their places, nothing started, nothing configured
#   apply      `rocmtunectl apply fleet` (an admin's profile: a module option, a kernel command-line
#              parameter and an environment variable) on the chroot as the live root, a world's
#              /sys and /proc/cmdline bound over the real paths; update-grub regenerates grub.cfg
#   upgrade    dpkg -i of the package again with a higher version: settings and journal kept
#   purge      dpkg -P: the whole tree equals the one before installation, dpkg's own records aside
# and, in a second root, an admin who edited two of rocmtune's files (one before removal, one
# between `dpkg -r` and `dpkg -P`): purge leaves both as the admin left them and undoes the rest.
#
# usage: package_test.sh SOURCE_DIR BUILD_DIR CACHE_DIR
# Exit 77 (skip) with the reason when it cannot run here: not root, a tool missing, no mirror.
set -u
SRC=$1 BUILD=$2 CACHE=$3
WORLD_NAME=rx6600
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

if [ "${4:-}" != --inner ]; then
  [ "$(id -u)" = 0 ] || skip "needs root (dpkg in a chroot, mount namespaces)"
  for t in debootstrap unshare chroot dpkg-deb dpkg-buildpackage dh lintian; do
    command -v "$t" >/dev/null || skip "$t is not installed (scripts/install-deps.sh installs it)"
  done
  "$SRC/scripts/build-deb.sh" "$BUILD" || fail "make package (scripts/build-deb.sh) failed"
  DEB=$(find "$BUILD/package" -maxdepth 1 -name 'rocmtune_*.deb' | head -1)
  [ -f "$DEB" ] || fail "no rocmtune_*.deb in $BUILD/package"
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/rocmtune-package-XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
  dpkg-deb -x "$DEB" "$WORK/content" || fail "dpkg-deb -x $DEB"
  # The Cockpit page is its own package (cockpit/README.md): its seven files there, none in rocmtune.
  COCKPIT_DEB=$(find "$BUILD/package" -maxdepth 1 -name 'cockpit-rocmtune_*_all.deb' | head -1)
  [ -f "$COCKPIT_DEB" ] || fail "no cockpit-rocmtune_*_all.deb in $BUILD/package"
  [ -e "$WORK/content/usr/share/cockpit" ] && fail "rocmtune's package holds /usr/share/cockpit"
  dpkg-deb -x "$COCKPIT_DEB" "$WORK/cockpit" || fail "dpkg-deb -x $COCKPIT_DEB"
  for f in manifest.json index.html render.js rocmtune.js rocmtune.css patternfly.css PATTERNFLY-LICENSE; do
    cmp -s "$WORK/cockpit/usr/share/cockpit/rocmtune/$f" "$SRC/cockpit/$f" ||
      fail "cockpit-rocmtune's /usr/share/cockpit/rocmtune/$f is not cockpit/$f"
  done
  dpkg-deb -f "$COCKPIT_DEB" Depends | grep -q 'cockpit-bridge (>= 239), rocmtune (>= ' ||
    fail "cockpit-rocmtune's Depends: $(dpkg-deb -f "$COCKPIT_DEB" Depends)"
  echo "ok: cockpit-rocmtune holds the page ($(dpkg-deb -f "$COCKPIT_DEB" Depends))"
  . "$SRC/tests/system/cached_root.sh"
  # The root holds what the package's Depends name (dpkg -i checks them itself: nothing is fetched).
  cached_root "$CACHE" "$DEB"
  export DEB WORK ROOT
  unshare -m -p -f --propagation private "$0" "$SRC" "$BUILD" "$CACHE" --inner
  exit $?
fi

# ---- inner: own mount and PID namespaces ----------------------------------------------------
# The script starts again here: cached_root.sh's functions (debian_grub_setup) are sourced anew.
. "$SRC/tests/system/cached_root.sh"
WORLD=$SRC/tests/worlds/$WORLD_NAME
mount -t proc proc /proc || fail "mount /proc in the new PID namespace"
in_root() { chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }

# The upgrade: the same package with a higher version (what a rebuilt package is to dpkg).
UPGRADE=$WORK/rocmtune-upgrade.deb
dpkg-deb -R "$DEB" "$WORK/repack" || fail "dpkg-deb -R"
VERSION=$(sed -n 's/^Version: //p' "$WORK/repack/DEBIAN/control")
sed -i "s/^Version: .*/Version: $VERSION+upgrade1/" "$WORK/repack/DEBIAN/control"
dpkg-deb --root-owner-group -b "$WORK/repack" "$UPGRADE" >/dev/null || fail "dpkg-deb -b of the upgrade"

# The maintainer scripts debhelper generated: the daemon is never started, only restarted after
# an upgrade (try-restart: if it ran); units and the socket are enabled, not started.
CONTROL=$WORK/repack/DEBIAN
grep -q "try-restart 'rocmtuned.service'" "$CONTROL/postinst" || fail "postinst does not try-restart rocmtuned on upgrade"
if grep -E "deb-systemd-invoke (start|\\\$_dh_action)" "$CONTROL/postinst"; then
  fail "postinst starts a unit on installation"
fi
grep -q "deb-systemd-helper unmask 'rocmtune-helper.socket'" "$CONTROL/postinst" || fail "postinst does not enable the helper socket"
echo "ok ($SECONDS s): postinst enables the socket and boot units, starts nothing, try-restarts rocmtuned after an upgrade"

# new_root DIR: a copy of the cached root with what an admin had before rocmtune: GRUB's
# defaults and a grub.cfg made from them, a kernel, a modprobe.d file of their own and the
# profile their configuration management dropped in /etc/rocmtune/profiles. A world's /sys and
# /proc/cmdline are bound over the real paths, so the chroot is the live root with an RX 6600.
new_root() {
  R=$1
  cp -a "$ROOT" "$R" || fail "copy of the cached root"
  debian_grub_setup "$R" || fail "GRUB setup"
  # kmod (not in a minbase root) makes /etc/modprobe.d on every real Debian.
  mkdir -p "$R/etc/rocmtune/profiles" "$R/etc/modprobe.d"
  echo "options snd_hda_intel power_save=0" >"$R/etc/modprobe.d/admin.conf"
  cat >"$R/etc/rocmtune/profiles/fleet.toml" <<'TOML'
schema_version = 1
description = "The fleet's RX 6600 nodes (package test)"

[match]
gfx = ["gfx1032"]

[[items]]
id = "no-runtime-pm"
action = "set"
key = "amdgpu.runpm"
value = "0"
why = "package test: a module option in modprobe.d"
source = "linux Documentation/gpu/amdgpu/module-parameters.rst"

[[items]]
id = "iommu-pt"
action = "set"
key = "cmdline.iommu"
value = "pt"
why = "package test: a kernel command-line parameter through GRUB"
source = "ROCm docs conceptual/iommu.rst"

[[items]]
id = "no-sdma"
action = "set"
key = "env.HSA_ENABLE_SDMA"
value = "0"
why = "package test: an environment variable"
source = "ROCm docs reference/env-variables.rst"
TOML
  mount --rbind /dev "$R/dev" && mount -t proc proc "$R/proc" && mount -t tmpfs tmpfs "$R/run" &&
    mount --bind "$WORLD/sys" "$R/sys" && mount --bind "$WORLD/proc/cmdline" "$R/proc/cmdline" ||
    fail "mounts in $R"
  # update-grub is grub-mkconfig -o /boot/grub/grub.cfg (grub2-common's script, which the root lacks).
  printf '#!/bin/sh\nset -e\nexec grub-mkconfig -o /boot/grub/grub.cfg "$@"\n' >"$R/usr/sbin/update-grub"
  chmod 755 "$R/usr/sbin/update-grub"
  in_root update-grub >/dev/null 2>&1 || fail "update-grub in the new root"
  grep -q "iommu=pt" "$R/boot/grub/grub.cfg" && fail "grub.cfg has iommu=pt before rocmtune"
}

# install_deb FILE: dpkg -i of FILE in the root (copied in and out again: /tmp is in the tree).
install_deb() {
  cp "$1" "$R/tmp/" || fail "copy of $1"
  in_root dpkg -i "/tmp/$(basename "$1")" >"$WORK/dpkg.log" 2>&1 || { cat "$WORK/dpkg.log"; fail "dpkg -i $(basename "$1")"; }
  rm -f "$R/tmp/$(basename "$1")"
}

# tree: every entry of the root (type, mode, owner, link target) and every file's hash, without
# the mount points of the API file systems.
tree() {
  (cd "$R" && find . \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./run \) -prune -o \
    \( -printf '%y %m %U:%G %p -> %l\n' \) | sort
   cd "$R" && find . \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./run \) -prune -o -type f -print0 |
     sort -z | xargs -0 sha256sum)
}
# dpkg's own records: its database and log (a purged package stays known as "not-installed"),
# and the account databases: rocmtuned's system user, made by systemd-sysusers at installation,
# stays after purge, as Debian packages leave the system users they made (its files may be
# owned by it elsewhere; dh_installsysusers adds no removal).
DPKG_RECORDS='^(d|f) [0-9]+ [0-9:]+ \./(var/(lib/dpkg|log/dpkg\.log)|etc/(passwd|group|shadow|gshadow)-?$)|^[0-9a-f]{64}  \./(var/(lib/dpkg/|log/dpkg\.log)|etc/(passwd|group|shadow|gshadow)-?$)'
without_dpkg() { grep -Ev "$DPKG_RECORDS"; }
same_tree() {  # same_tree WHAT REFERENCE
  local now
  now=$(tree | without_dpkg)
  [ "$now" = "$(echo "$2" | without_dpkg)" ] && return 0
  diff <(echo "$2" | without_dpkg) <(echo "$now")
  fail "$1"
}
# The files the apply writes (and the boot menu it regenerates), with their hashes.
SETTINGS=(etc/modprobe.d/rocmtune.conf etc/default/grub.d/zz-rocmtune.cfg etc/environment.d/90-rocmtune.conf
  etc/profile.d/rocmtune.sh boot/grub/grub.cfg)
settings() { (cd "$R" && sha256sum "${SETTINGS[@]}" && find var/lib/rocmtune/journal -type f -print0 | sort -z |
  xargs -0 sha256sum); }

# ---- 1: install, apply, upgrade, purge -----------------------------------------------------------
new_root "$WORK/root1"
reference=$(tree)
install_deb "$DEB"
echo "ok ($SECONDS s): dpkg -i with no network, no systemd and no bus"
for f in /usr/bin/rocmtunectl /usr/libexec/rocmtune/rocmtune-helper /usr/libexec/rocmtune/rocmtuned \
    /usr/libexec/rocmtune/rocmtune-archive.so \
    /lib/systemd/system/rocmtuned.service /lib/systemd/system/rocmtune-helper.socket \
    /lib/systemd/system/rocmtune-helper@.service /lib/systemd/system/rocmtune-apply@.service \
    /lib/udev/rules.d/70-rocmtune.rules /usr/lib/systemd/catalog/rocmtune.catalog \
    /usr/share/dbus-1/system.d/org.rocmtune1.conf /usr/share/dbus-1/system-services/org.rocmtune1.service \
    /usr/share/polkit-1/actions/org.rocmtune1.policy /usr/share/rocmtune/profiles/instinct.toml \
    /usr/share/rocmtune/known_issues.toml /usr/share/bash-completion/completions/rocmtunectl \
    /usr/share/zsh/vendor-completions/_rocmtunectl /usr/share/fish/vendor_completions.d/rocmtunectl.fish \
    /usr/share/man/man1/rocmtunectl.1.gz /usr/share/man/man8/rocmtuned.8.gz /usr/share/man/man8/rocmtune-helper.8.gz \
    /usr/share/man/man5/rocmtune.profile.5.gz /usr/share/man/man7/rocmtune-journal.7.gz \
    /usr/share/doc/rocmtune/copyright /etc/grub.d/42_rocmtune; do
  [ -e "$R$f" ] || fail "the package did not install $f"
done
echo "ok ($SECONDS s): binaries, units, udev rule, catalog, bus policy and activation, polkit, data, completions and pages installed"
# rocmtuned's user and group, made by the postinst (dh_installsysusers: systemd-sysusers).
user=$(grep '^rocmtune:' "$R/etc/passwd") || fail "the package made no user rocmtune"
grep -q '^rocmtune:' "$R/etc/group" || fail "the package made no group rocmtune"
case $user in *:/usr/sbin/nologin) ;; *) fail "user rocmtune can log in: $user" ;; esac
echo "ok ($SECONDS s): the daemon's system user: $user"
pgrep -x rocmtuned >/dev/null && fail "rocmtuned runs after installation"
for f in etc/modprobe.d/rocmtune.conf etc/default/grub.d/zz-rocmtune.cfg etc/environment.d var/lib/rocmtune; do
  [ -e "$R/$f" ] && fail "installation created /$f"
done
cmp -s <(echo "$reference" | grep ' \./boot/grub/grub.cfg$') <(tree | grep ' \./boot/grub/grub.cfg$') ||
  fail "installation changed grub.cfg"
echo "ok ($SECONDS s): installation started nothing and configured nothing"

in_root rocmtunectl apply fleet >"$WORK/apply.log" 2>&1 || { cat "$WORK/apply.log"; fail "rocmtunectl apply fleet"; }
grep -q "^options amdgpu runpm=0" "$R/etc/modprobe.d/rocmtune.conf" || fail "no amdgpu runpm=0 in modprobe.d"
grep -q "iommu=pt" "$R/etc/default/grub.d/zz-rocmtune.cfg" || fail "no iommu=pt in the GRUB drop-in"
grep -q "HSA_ENABLE_SDMA=0" "$R/etc/environment.d/90-rocmtune.conf" || fail "no HSA_ENABLE_SDMA in environment.d"
grep -q "iommu=pt" "$R/boot/grub/grub.cfg" || fail "update-grub did not put iommu=pt in grub.cfg"
echo "ok ($SECONDS s): apply fleet wrote modprobe.d, the GRUB drop-in (grub.cfg regenerated) and the environment"
# snapshot --output loads libarchive through the installed module, at the path fixed when the
# package was configured (core/snapshot/tar_gz.h); the archive is removed again at once.
in_root rocmtunectl snapshot --output /tmp/rocmtune-package-test.tar.gz >"$WORK/snapshot.log" 2>&1 ||
  { cat "$WORK/snapshot.log"; fail "rocmtunectl snapshot --output (the installed rocmtune-archive.so)"; }
[ -s "$R/tmp/rocmtune-package-test.tar.gz" ] || fail "snapshot --output wrote no archive"
rm -f "$R/tmp/rocmtune-package-test.tar.gz"
echo "ok ($SECONDS s): snapshot --output wrote its archive with the installed rocmtune-archive.so"
applied=$(settings)
history_before=$(in_root rocmtunectl history --json)
# The journal is root's and readable by group rocmtune only, so the daemon (user rocmtune) reads it.
gid=$(awk -F: '$1 == "rocmtune" { print $3 }' "$R/etc/group")
for f in "$R"/var/lib/rocmtune/journal/*.jsonl; do
  [ "$(stat -c '%a %u %g' "$f")" = "640 0 $gid" ] || fail "$f is $(stat -c '%a %u %g' "$f"), not 640 root:rocmtune"
done
[ "$(stat -c '%a %u %g' "$R/var/lib/rocmtune/journal")" = "750 0 $gid" ] || fail "the journal directory is not 750 root:rocmtune"
# A journal from before the daemon had its user (root's alone): the upgrade's postinst shares it.
chmod 0600 "$R"/var/lib/rocmtune/journal/*.jsonl && chgrp 0 "$R"/var/lib/rocmtune/journal/*.jsonl

install_deb "$UPGRADE"
grep -q "Version: $VERSION+upgrade1" <(in_root dpkg -s rocmtune) || fail "the upgrade is not installed"
[ "$(settings)" = "$applied" ] || { diff <(echo "$applied") <(settings); fail "the upgrade changed settings or journal"; }
[ "$(in_root rocmtunectl history --json)" = "$history_before" ] || fail "history differs after the upgrade"
for f in "$R"/var/lib/rocmtune/journal/*.jsonl; do
  [ "$(stat -c '%a %u %g' "$f")" = "640 0 $gid" ] || fail "the upgrade left $f $(stat -c '%a %u %g' "$f")"
done
in_root rocmtunectl status --json | grep -q '"profile": *"fleet"' || fail "fleet is not active after the upgrade"
echo "ok ($SECONDS s): upgrade to $VERSION+upgrade1 kept the settings, the journal and the active profile"

in_root dpkg -P rocmtune >"$WORK/purge.log" 2>&1 || { cat "$WORK/purge.log"; fail "dpkg -P"; }
cat "$WORK/purge.log"
same_tree "after purge, the tree differs from the one before installation (beyond dpkg's records)" "$reference"
echo "what differs from the tree before installation (dpkg's records, which may):"
diff <(echo "$reference") <(tree) | sed -nE 's/^[<>] //p' | sed -E 's/^[0-9a-f]{64}  //; s/^[a-z] [0-7]+ [0-9:]+ //; s/ -> .*$//' |
  sort -u | sed 's/^/  /'
echo "ok ($SECONDS s): after purge the whole tree equals the one before installation, dpkg's records aside"
umount -R "$R/dev" "$R/proc" "$R/run" "$R/sys" 2>/dev/null
rm -rf "$R"

# ---- 2: an admin's edits survive purge; remove keeps the settings -------------------------------
new_root "$WORK/root2"
reference=$(tree)
install_deb "$DEB"
in_root rocmtunectl apply fleet >"$WORK/apply2.log" 2>&1 || { cat "$WORK/apply2.log"; fail "apply fleet (2)"; }
printf '# the admin'"'"'s\noptions amdgpu lockup_timeout=10000\n' >>"$R/etc/modprobe.d/rocmtune.conf"
in_root dpkg -r rocmtune >"$WORK/remove.log" 2>&1 || { cat "$WORK/remove.log"; fail "dpkg -r"; }
cat "$WORK/remove.log"
for f in "${SETTINGS[@]}"; do [ -e "$R/$f" ] || fail "dpkg -r removed /$f"; done
grep -q "iommu=pt" "$R/boot/grub/grub.cfg" || fail "dpkg -r changed the boot menu"
[ -f "$R/var/lib/rocmtune/purge/plan" ] || fail "removal left no purge plan"
grep -qx "left etc/modprobe.d/rocmtune.conf" "$R/var/lib/rocmtune/purge/plan" ||
  { cat "$R/var/lib/rocmtune/purge/plan"; fail "the purge plan does not leave the edited modprobe.d file"; }
echo "ok ($SECONDS s): dpkg -r left every setting in place and recorded the purge plan"
echo "HSA_ENABLE_INTERRUPT=0" >>"$R/etc/environment.d/90-rocmtune.conf"
edited=$(cd "$R" && sha256sum etc/modprobe.d/rocmtune.conf etc/environment.d/90-rocmtune.conf)
in_root dpkg -P rocmtune >"$WORK/purge2.log" 2>&1 || { cat "$WORK/purge2.log"; fail "dpkg -P (2)"; }
cat "$WORK/purge2.log"
[ "$(cd "$R" && sha256sum etc/modprobe.d/rocmtune.conf etc/environment.d/90-rocmtune.conf)" = "$edited" ] ||
  fail "purge changed a file the admin edited"
grep -q "iommu=pt" "$R/boot/grub/grub.cfg" && fail "purge left iommu=pt in grub.cfg"
# Everything else is back: the tree is the reference but for the two edited files (and the
# directory that holds one of them, which rocmtune made and cannot remove while it is not empty).
EDITED=' \./etc/environment\.d( -> |/90-rocmtune\.conf)|\./etc/modprobe\.d/rocmtune\.conf'
now=$(tree | without_dpkg | grep -Ev "$EDITED")
[ "$now" = "$(echo "$reference" | without_dpkg | grep -Ev "$EDITED")" ] ||
  { diff <(echo "$reference" | without_dpkg | grep -Ev "$EDITED") <(echo "$now")
    fail "purge with the admin's edits: the tree differs from the reference beyond the two edited files"; }
[ -e "$R/var/lib/rocmtune" ] && fail "purge left /var/lib/rocmtune"
echo "ok ($SECONDS s): purge left the two files the admin edited (before and after removal) and undid the rest"
echo "PASS: package install, apply, upgrade, remove and purge"
