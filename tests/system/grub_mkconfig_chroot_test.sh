#!/bin/bash
# System test: rocmtune's GRUB drop-in through the real grub-mkconfig, in a debootstrap'd
# Debian 12 (minbase + grub-common, shared with the other system tests), with and without Ubuntu's cloud-image drop-in.
# usage: grub_mkconfig_chroot_test.sh ROCMTUNECTL WORLDS_DIR CACHE_DIR
# Exit 77 (skip) with a reason when it cannot run here (not root, no debootstrap, no mirror).
set -u
CTL=$1 WORLDS=$2 CACHE=$3
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot, mount namespace)"
command -v debootstrap >/dev/null || skip "debootstrap is not installed"
command -v unshare >/dev/null || skip "unshare is not installed"
command -v /usr/bin/python3 >/dev/null || skip "/usr/bin/python3 is needed to read the plan JSON"

# The Debian 12 root the system tests share (tests/system/cached_root.sh), built once.
. "$(dirname "$0")/cached_root.sh"
cached_root "$CACHE" "$CTL"
[ -x "$ROOT/usr/sbin/grub-mkconfig" ] || fail "the cached root has no grub-mkconfig"

# A throw-away copy per run: the cached root stays pristine.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rocmtune-grub-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cp -a "$ROOT" "$WORK/root" || fail "copy of the chroot"
R=$WORK/root
debian_grub_setup "$R" || fail "GRUB setup"
mkdir -p "$R/proc" "$R/sys/module/amdgpu/parameters"

mkconfig() {  # prints the "linux" lines grub-mkconfig generates inside the chroot
  unshare -m -p -f --propagation private bash -c '
    R=$1
    mount -t proc proc "$R/proc" && mount --rbind /dev "$R/dev" || exit 99
    chroot "$R" grub-mkconfig -o /tmp/grub.cfg >/dev/null 2>"$R/tmp/mkconfig.err"; rc=$?
    [ $rc = 0 ] || { cat "$R/tmp/mkconfig.err" >&2; exit $rc; }
    grep -E "^[[:space:]]*linux[[:space:]]" "$R/tmp/grub.cfg"' mkconfig "$R"
}

apply_plan() {  # writes the plan's new file contents into the root (what the helper will do)
  "$CTL" --root "$R" set "$@" --check --json > "$WORK/plan.json"; rc=$?
  [ $rc = 0 ] || { cat "$WORK/plan.json"; fail "rocmtunectl set $* exited $rc"; }
  /usr/bin/python3 - "$WORK/plan.json" "$R" <<'PY' || fail "could not apply the plan"
import json, os, sys
plan = json.load(open(sys.argv[1]))
for c in plan["changes"]:
    if c["action"] != "write":
        continue
    lines = c["diff"].splitlines(keepends=True)
    assert lines[0].startswith("--- /dev/null"), "only new files are expected here: " + c["path"]
    body = "".join(l[1:] for l in lines[3:] if l.startswith("+"))
    path = os.path.join(sys.argv[2], c["path"])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").write(body)
    print("wrote /" + c["path"])
PY
}

before=$(mkconfig) || fail "grub-mkconfig failed before any change"
echo "before: $before"
echo "$before" | grep -q "iommu=pt" && fail "iommu=pt present before the change"

apply_plan cmdline.iommu=pt
after=$(mkconfig) || fail "grub-mkconfig failed with rocmtune's drop-in"
echo "after:  $after"
echo "$after" | grep -Eq "linux[[:space:]].*quiet iommu=pt" || fail "grub.cfg lacks 'quiet iommu=pt'"

# Ubuntu cloud images assign GRUB_CMDLINE_LINUX_DEFAULT in a drop-in; ours must come later.
cp "$WORLDS/ubuntu-cloud/etc/default/grub.d/50-cloudimg-settings.cfg" "$R/etc/default/grub.d/" || fail "cloud drop-in"
cloud=$(mkconfig) || fail "grub-mkconfig failed with the cloud-image drop-in"
echo "cloud:  $cloud"
echo "$cloud" | grep -Eq "linux[[:space:]].*console=tty1 console=ttyS0 iommu=pt" ||
  fail "the cloud image's assignment clobbered rocmtune's token"
echo "PASS: grub-mkconfig keeps rocmtune's token, with and without the cloud-image drop-in"
