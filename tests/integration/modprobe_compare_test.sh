#!/bin/bash
# modprobe_compare_test.sh -- rocmtune's reading of modprobe.d (sys::ReadModprobeConfig, its own
# implementation of libkmod's rules) must agree with the real `modprobe -c`, the oracle.
#
# usage: modprobe_compare_test.sh MODPROBE_EVAL
#
# For each fixture world (written to a temp dir):
#   ours   = `MODPROBE_EVAL --root WORLD`, run on the host: this also checks that the host's
#            /proc/cmdline never leaks in and WORLD/proc/cmdline is read instead.
#   theirs = `modprobe -c -C DIR ...` with the world's modprobe.d directories in rocmtune's
#            order (a directory reached twice, lib -> usr/lib, given once), run in a private
#            mount namespace (`unshare -m`) with WORLD/proc/cmdline, or an empty file, bound over
#            /proc/cmdline: libkmod always reads /proc/cmdline, and must see the world's.
# Compared: every module's parameter sequence (modprobe's `options` lines turned into parameters
# by `MODPROBE_EVAL --from-modprobe`, joined and split the way the kernel reads them), and
# libkmod's own complaints (bad lines, directories, deprecated commands, bad module names on the
# command line) against the matching entries of rocmtune's `errors`. Expected winners are
# checked too, so that two empty outputs cannot pass.
#
# The fixtures use no absolute symlinks: modprobe would follow those on the host, rocmtune inside
# the root (tests/unit/sys/kmod_config_test.cc covers that).
# Exit: 0 pass, 1 fail, 77 skip (no modprobe, not root, no mount namespace).
set -u -o pipefail

EVAL=${1:?usage: modprobe_compare_test.sh MODPROBE_EVAL}
skip() { echo "SKIP: $*"; exit 77; }
FAILED=0
fail() { echo "FAIL: $*"; FAILED=1; }

MODPROBE=$(command -v modprobe || ls /usr/sbin/modprobe /sbin/modprobe 2>/dev/null | head -n 1)
[ -n "$MODPROBE" ] || skip "modprobe not installed (Debian package kmod)"
command -v unshare >/dev/null || skip "unshare(1) not installed (util-linux)"
[ "$(id -u)" = 0 ] || skip "needs root to bind a file over /proc/cmdline in a private mount namespace"
err=$(unshare -m --propagation private true 2>&1) || skip "unshare cannot create a mount namespace: $err"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/rocmtune-modprobe-XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# --- fixtures -------------------------------------------------------------------------------------

# Admin and vendor files setting the same parameters; a vendor file hidden by an admin file of the
# same name; lib -> usr/lib (merged /usr); the command line overriding files.
fixture_conflicts() {
  local w=$1
  mkdir -p "$w"/etc/modprobe.d "$w"/run/modprobe.d "$w"/usr/local/lib/modprobe.d "$w"/usr/lib/modprobe.d "$w"/proc
  ln -s usr/lib "$w/lib"
  printf 'options amdgpu noretry=0 gpu_recovery=1\n' >"$w/etc/modprobe.d/amdgpu.conf"
  printf 'options amdgpu noretry=1 vendor_shadowed=1\n' >"$w/usr/lib/modprobe.d/amdgpu.conf"
  printf 'options amdgpu noretry=1 ppfeaturemask=0xffffffff\noptions ttm pages_limit=1048576\n' \
    >"$w/usr/lib/modprobe.d/10-vendor.conf"
  printf 'options amdgpu ppfeaturemask=0xfff7bfff\n' >"$w/run/modprobe.d/50-runtime.conf"
  printf 'options ttm pages_limit=4194304\noptions amdgpu runpm=0\n' >"$w/usr/local/lib/modprobe.d/99-local.conf"
  printf 'options amdgpu runpm=1\n' >"$w/etc/modprobe.d/zz-rocmtune.conf"
  printf 'BOOT_IMAGE=/boot/vmlinuz-6.1.0-28-amd64 root=UUID=1234 ro amdgpu.noretry=1 amdgpu.lockup_timeout="1000,2000" ttm.pages_limit=2097152 quiet\n' \
    >"$w/proc/cmdline"
}
# shellcheck disable=SC2034 # read through the nameref expected_ref in compare()
expect_conflicts=(
  "winner amdgpu noretry proc/cmdline"
  "winner amdgpu gpu_recovery etc/modprobe.d/amdgpu.conf"
  "winner amdgpu ppfeaturemask run/modprobe.d/50-runtime.conf"
  "winner amdgpu runpm etc/modprobe.d/zz-rocmtune.conf"
  "winner amdgpu lockup_timeout proc/cmdline"
  "winner ttm pages_limit proc/cmdline"
  "option amdgpu lockup_timeout=1000,2000"
)

# Everything odd libkmod and the kernel do with a file's bytes.
fixture_messy() {
  local w=$1
  mkdir -p "$w"/etc/modprobe.d "$w"/run/modprobe.d "$w"/usr/lib/modprobe.d "$w"/usr/share/rocm "$w"/proc
  local fmt='options amdgpu noretry=0 # set by hand\n'
  fmt+='  # an indented comment is a bad line\n'
  fmt+='\toptions amdgpu\tppfeaturemask=0xfff7bfff\tno-retry=1\r\n'
  fmt+='options amdgpu cont=1 \\\n  more=2\n'
  fmt+='options amdgpu nul=1\0hidden=1\n'
  fmt+='options amdgpu   \noptions amdgpu\noptions amdgpu\t\n'
  fmt+='option amdgpu typo=1\n'
  fmt+='options a[b]-c d=1\noptions a[b c=1\noptions amd-gpu x=1\n'
  fmt+='include /etc/other.conf\nconfig foo\nblacklist\nalias x\nsoftdep amdgpu\n'
  fmt+='blacklist radeon\ninstall amdgpu /bin/true\n'
  fmt+='options amdgpu esc=a\\b\n'
  printf "$fmt" >"$w/etc/modprobe.d/50-messy.conf"  # printf's escapes: \0 is a NUL byte
  printf 'options amdgpu q="a\noptions amdgpu b" after_quote=1\noptions amdgpu lockup_timeout="1000,2000" "whole=x y" flag empty=\n' \
    >"$w/run/modprobe.d/60-quotes.conf"
  printf 'options ttm pages_limit=4194304\noptions amdttm pages_limit=1\noptions amdgpu -- ignored=1\n' \
    >"$w/usr/lib/modprobe.d/zz-dashes.conf"
  printf 'options amdgpu from_alias=1\n' >"$w/etc/modprobe.d/10-old.alias"
  printf 'options amdgpu hidden_dot=1\n' >"$w/etc/modprobe.d/.hidden.conf"
  printf 'options amdgpu not_conf=1\n' >"$w/etc/modprobe.d/notes.txt"
  printf 'options amdgpu old=1\n' >"$w/etc/modprobe.d/amdgpu.conf.dpkg-old"
  mkdir "$w/etc/modprobe.d/40-dir.conf"
  printf 'options amdgpu under_dir=1\n' >"$w/usr/lib/modprobe.d/40-dir.conf"
  ln -s nowhere.conf "$w/etc/modprobe.d/30-dangling.conf"
  printf 'options amdgpu hidden_by_dangling=1\n' >"$w/usr/lib/modprobe.d/30-dangling.conf"
  printf 'options amdgpu via_link=1\n' >"$w/usr/share/rocm/link-target.conf"
  ln -s ../../usr/share/rocm/link-target.conf "$w/etc/modprobe.d/20-link.conf"
  printf 'options amdgpu trailing_backslash=1\\' >"$w/run/modprobe.d/90-eof.conf"
  # '--' in zz-dashes.conf makes the kernel drop these too.
  printf 'amdgpu.noretry=1 a]b.x=1 "amdgpu.grub=a b" amdgpu.flag2 foo.bar.baz=1 amd-gpu.y=2 quiet\n' >"$w/proc/cmdline"
}
# shellcheck disable=SC2034 # read through the nameref expected_ref in compare()
expect_messy=(
  "winner amdgpu noretry etc/modprobe.d/50-messy.conf"
  "winner amdgpu under_dir usr/lib/modprobe.d/40-dir.conf"
  "winner amdgpu via_link etc/modprobe.d/20-link.conf"
  "winner amdgpu from_alias etc/modprobe.d/10-old.alias"
  "winner amdttm pages_limit usr/lib/modprobe.d/zz-dashes.conf"
  "option amdgpu q=a b"
  "option amdgpu whole=x y"
)

# Directories only: no command line file, no lib symlink; usr/lib/modprobe.d is searched before
# lib/modprobe.d, so the same basename in both is read from usr/lib.
fixture_split_usr() {
  local w=$1
  mkdir -p "$w"/usr/lib/modprobe.d "$w"/lib/modprobe.d
  printf 'options amdgpu from=usr_lib\n' >"$w/usr/lib/modprobe.d/amdgpu.conf"
  printf 'options amdgpu from=lib\n' >"$w/lib/modprobe.d/amdgpu.conf"
  printf 'options amdgpu only_lib=1\n' >"$w/lib/modprobe.d/b.conf"
}
# shellcheck disable=SC2034 # read through the nameref expected_ref in compare()
expect_split_usr=("winner amdgpu from usr/lib/modprobe.d/amdgpu.conf" "winner amdgpu only_lib lib/modprobe.d/b.conf")

# Only a command line, with kmod's corner cases (grub's "mod.p=a b" quoting, bad names, '--').
fixture_cmdline() {
  local w=$1
  mkdir -p "$w"/proc
  printf '%s\n' 'amdgpu.noretry=1 amd-gpu.x=2 amdgpu.lockup_timeout="1000,2000" "amdgpu.a=b c" amdgpu.s="x y" foo.bar.baz=1 amdgpu.flag amdgpu.e= modprobe.blacklist=radeon ttm.pages_limit=5 a]b.x=1 amdgpu."s=5" am"dgpu.t=6" console=ttyS0 -- amdgpu.after=1 amdgpu.u=7"' \
    >"$w/proc/cmdline"
}
# shellcheck disable=SC2034 # read through the nameref expected_ref in compare()
expect_cmdline=("winner amdgpu after proc/cmdline" "winner amd_gpu x proc/cmdline" "option amdgpu a=b c")

fixture_empty() { mkdir -p "$1"; }
# shellcheck disable=SC2034 # read through the nameref expected_ref in compare()
expect_empty=()

# --- comparison ----------------------------------------------------------------------------------

libkmod_errors() {  # libkmod's messages as rocmtune words them (paths root-relative)
  grep -a '^libkmod: ERROR' "$1" | sed -E 's/^libkmod: ERROR [^ ]+ [A-Za-z_]+: //' | sed "s|$2/||g" | LC_ALL=C sort
}
our_libkmod_errors() {
  grep -a '^error ' "$1" | sed -e 's/^error //' -e 's|^proc/cmdline: Ignoring|Ignoring|' |
    grep -aE "ignoring bad line starting with|is deprecated and not parsed anymore|^Directories inside directories|^Ignoring bad option on kernel command line" |
    LC_ALL=C sort
}

compare() {
  local name=$1 w=$TMP/$1 d real cmdline
  local -a dirs=() seen=()
  "fixture_$name" "$w"
  for d in etc/modprobe.d run/modprobe.d usr/local/lib/modprobe.d usr/lib/modprobe.d lib/modprobe.d; do
    if real=$(realpath -e "$w/$d" 2>/dev/null); then
      [[ " ${seen[*]} " == *" $real "* ]] && continue
      seen+=("$real")
    fi
    dirs+=(-C "$w/$d")  # a missing one is skipped by libkmod; always passing some keeps the host's out
  done
  cmdline=$w/proc/cmdline
  [ -f "$cmdline" ] || { cmdline=$TMP/empty-cmdline; : >"$cmdline"; }

  unshare -m --propagation private sh -c 'mount --bind "$1" /proc/cmdline && shift && exec "$@"' \
    sh "$cmdline" "$MODPROBE" -c "${dirs[@]}" >"$TMP/$name.modprobe" 2>"$TMP/$name.modprobe.err" ||
    { fail "$name: modprobe -c failed: $(cat "$TMP/$name.modprobe.err")"; return; }
  grep -aq '^# End of configuration files' "$TMP/$name.modprobe" || { fail "$name: no modprobe -c output"; return; }
  "$EVAL" --from-modprobe "$TMP/$name.modprobe" >"$TMP/$name.theirs" || { fail "$name: --from-modprobe failed"; return; }
  "$EVAL" --root "$w" >"$TMP/$name.ours" 2>"$TMP/$name.ours.err" || { fail "$name: rocmtune: $(cat "$TMP/$name.ours.err")"; return; }
  [ -s "$TMP/$name.ours.err" ] && fail "$name: rocmtune wrote to stderr: $(cat "$TMP/$name.ours.err")"

  if ! diff -u --label "modprobe -c" --label rocmtune "$TMP/$name.theirs" <(grep -a '^option ' "$TMP/$name.ours") >"$TMP/$name.diff"; then
    fail "$name: options differ"; cat "$TMP/$name.diff"
  fi
  if ! diff -u --label "libkmod (modprobe stderr)" --label "rocmtune errors" \
      <(libkmod_errors "$TMP/$name.modprobe.err" "$w") <(our_libkmod_errors "$TMP/$name.ours") >"$TMP/$name.ediff"; then
    fail "$name: errors differ"; cat "$TMP/$name.ediff"
  fi
  local -n expected_ref="expect_$name"
  for line in "${expected_ref[@]}"; do
    grep -aqxF "$line" "$TMP/$name.ours" || fail "$name: expected '$line' in rocmtune's output"
  done
  echo "$name: $(grep -ac '^option ' "$TMP/$name.ours") options, $(our_libkmod_errors "$TMP/$name.ours" | wc -l) libkmod errors compared"
}

for f in conflicts messy split_usr cmdline empty; do compare "$f"; done
[ "$(grep -ac '^option ' "$TMP/conflicts.ours")" -gt 0 ] || fail "conflicts: no options at all"
grep -aq 'vendor_shadowed' "$TMP/conflicts.ours" && fail "conflicts: the shadowed vendor file was read"
exit "$FAILED"
