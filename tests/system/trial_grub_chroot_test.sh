#!/bin/bash
# System test: a trial boot's GRUB half with the real tools, in the cached debootstrap'd Debian 12
# (tests/system/cached_root.sh). grub.cfg is made without 42_rocmtune; the package's 42_rocmtune
# is installed; the trial plan (rocmtune_trial_plan: boot::Setup::PlanTrial, checked by
# the helper's allow-list) is carried out op by op exactly as planned: the entry written, the
# regenerator and `grub-editenv ... set next_entry=rocmtune-trial` run in the chroot. Then the
# real grub-mkconfig output must source the entry, `grub-script-check` must pass on grub.cfg and
# on the entry, `grub-editenv list` must show next_entry; a second plan must not regenerate; the
# cleanup plan, carried out, must leave no entry and no next_entry.
# usage: trial_grub_chroot_test.sh TRIAL_PLAN_TOOL SOURCE_DIR CACHE_DIR
# Exit 77 (skip) with a reason when it cannot run here (not root, no debootstrap, no mirror).
set -u
TOOL=$1 SRC=$2 CACHE=$3
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot, mount namespace)"
command -v debootstrap >/dev/null || skip "debootstrap is not installed"
command -v unshare >/dev/null || skip "unshare is not installed"
command -v findmnt >/dev/null || skip "findmnt (util-linux) is needed to describe the chroot's filesystem"
command -v /usr/bin/python3 >/dev/null || skip "/usr/bin/python3 is needed to read the plan JSON"

. "$(dirname "$0")/cached_root.sh"
cached_root "$CACHE" "$TOOL"
for t in grub-mkconfig grub-editenv grub-script-check; do
  [ -x "$ROOT/usr/sbin/$t" ] || [ -x "$ROOT/usr/bin/$t" ] || fail "the cached root has no $t"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rocmtune-trial-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cp -a "$ROOT" "$WORK/root" || fail "copy of the chroot"
R=$WORK/root
debian_grub_setup "$R" || fail "GRUB setup"

in_root() { chroot_run "$R" "$@"; }

# What the planner reads as /proc/self/mountinfo (the real one is mounted only inside
# chroot_run): the filesystem that really holds the chroot's /boot/grub, as findmnt sees it.
describe_mount() {
  local fs src dev
  read -r fs src dev < <(findmnt -n -o FSTYPE,SOURCE,MAJ:MIN -T "$R/boot/grub")
  mkdir -p "$R/proc/self"
  echo "22 1 $dev / / rw,relatime shared:1 - $fs $src rw" >"$R/proc/self/mountinfo"
  echo "/boot/grub of the chroot is on $fs ($src, $dev)"
}

# plan ARGS...: the plan JSON in $WORK/plan.json; fails on a refusal of the planner or the helper.
plan() {
  describe_mount
  "$TOOL" "$R" "$@" >"$WORK/plan.json" || fail "rocmtune_trial_plan $*"
  /usr/bin/python3 - "$WORK/plan.json" <<'PY' || { cat "$WORK/plan.json"; fail "the plan was refused"; }
import json, sys
p = json.load(open(sys.argv[1]))
sys.exit(1 if p["refused"] or p["helper_refusals"] else 0)
PY
  rm -rf "$R/proc/self"
}

# Carries out the plan's ops in order: files written or removed, argv run in the chroot as is.
carry_out() {
  /usr/bin/python3 - "$WORK/plan.json" "$R" >"$WORK/ops.sh" <<'PY' || fail "could not read the plan"
import json, os, shlex, sys
p = json.load(open(sys.argv[1]))
for i, op in enumerate(p["ops"]):
    path = os.path.join(sys.argv[2], op["path"])
    if op["kind"] == "write":
        open(f"{sys.argv[1]}.{i}", "w").write(op["after"])
        print(f"cp {shlex.quote(sys.argv[1])}.{i} {shlex.quote(path)} && echo 'wrote /{op['path']}'")
    elif op["kind"] == "remove":
        print(f"rm {shlex.quote(path)} && echo 'removed /{op['path']}'")
    elif op["kind"] == "regenerate":
        print("echo 'run: " + " ".join(shlex.quote(a) for a in op["argv"]) + "'")
        print("in_root " + " ".join(shlex.quote(a) for a in op["argv"]) + " >/dev/null 2>>\"$WORK/run.err\"")
    else:
        sys.exit(f"unexpected op {op['kind']}")
PY
  local line
  while IFS= read -r line; do
    eval "$line" || { cat "$WORK/run.err" 2>/dev/null; fail "op failed: $line"; }
  done <"$WORK/ops.sh"
}

ops_argv() { /usr/bin/python3 -c 'import json,sys; [print(" ".join(o["argv"]) or o["kind"]+" "+o["path"]) for o in json.load(open(sys.argv[1]))["ops"]]' "$WORK/plan.json"; }

# grub.cfg as the system had it before rocmtune: no 42_rocmtune.
in_root grub-mkconfig -o /boot/grub/grub.cfg >/dev/null 2>"$WORK/mkconfig.err" || { cat "$WORK/mkconfig.err"; fail "grub-mkconfig"; }
grep -q rocmtune-trial "$R/boot/grub/grub.cfg" && fail "grub.cfg mentions rocmtune before 42_rocmtune"
install -m 0755 "$SRC/grub/42_rocmtune" "$R/etc/grub.d/42_rocmtune" || fail "install 42_rocmtune"

TOKENS=(amdgpu.noretry=0 panic=10 rocmtune.trial=c0ffee01)
plan c0ffee01 "${TOKENS[@]}"
echo "plan: $(ops_argv | tr '\n' ';')"
ops_argv | grep -qx "grub-mkconfig -o /boot/grub/grub.cfg\|update-grub" || fail "grub.cfg lacks 42_rocmtune: the plan must regenerate it"
ops_argv | tail -1 | grep -qx "grub-editenv /boot/grub/grubenv set next_entry=rocmtune-trial" || fail "the switch is not last"
carry_out

# grub.cfg now sources the entry; both parse as GRUB script; the entry is the default one plus the tokens.
grep -q 'source ${config_directory}/rocmtune-trial.cfg' "$R/boot/grub/grub.cfg" || fail "grub.cfg does not source the entry"
grep -q 'set default="${next_entry}"' "$R/boot/grub/grub.cfg" || fail "grub.cfg lacks 00_header's next_entry switch"
in_root grub-script-check /boot/grub/grub.cfg || fail "grub-script-check grub.cfg"
in_root grub-script-check /boot/grub/rocmtune-trial.cfg || fail "grub-script-check rocmtune-trial.cfg"
cat "$R/boot/grub/rocmtune-trial.cfg"
grep -q "menuentry 'rocmtune trial c0ffee01' --id rocmtune-trial {" "$R/boot/grub/rocmtune-trial.cfg" || fail "no menuentry with the id"
grep -Eq "^[[:space:]]*linux[[:space:]]+/boot/vmlinuz-6.1.0-99-amd64 .*quiet ${TOKENS[*]}\$" "$R/boot/grub/rocmtune-trial.cfg" ||
  fail "the linux line lacks the tokens"
env=$(in_root grub-editenv /boot/grub/grubenv list) || fail "grub-editenv list"
echo "grubenv: $env"
[ "$env" = "next_entry=rocmtune-trial" ] || fail "grubenv is not next_entry=rocmtune-trial"

# A second trial: grub.cfg sources the entry already, so no regeneration.
plan c0ffee02 amdgpu.noretry=1 panic=10 rocmtune.trial=c0ffee02
echo "second plan: $(ops_argv | tr '\n' ';')"
ops_argv | grep -q "mkconfig\|update-grub" && fail "the second plan regenerates grub.cfg"

# Cleanup (the trial's switch unused): entry removed, next_entry unset; then nothing left to do.
plan --cleanup
echo "cleanup: $(ops_argv | tr '\n' ';')"
ops_argv | grep -qx "grub-editenv /boot/grub/grubenv unset next_entry" || fail "cleanup does not unset next_entry"
carry_out
[ -e "$R/boot/grub/rocmtune-trial.cfg" ] && fail "the entry is still there"
env=$(in_root grub-editenv /boot/grub/grubenv list) || fail "grub-editenv list"
[ -z "$env" ] || fail "grubenv still holds: $env"
in_root grub-script-check /boot/grub/grub.cfg || fail "grub-script-check grub.cfg without the entry"
plan --cleanup
[ -z "$(ops_argv)" ] || fail "a second cleanup still has ops: $(ops_argv)"
echo "PASS: the trial entry and next_entry through the real grub-mkconfig, grub-script-check and grub-editenv"
