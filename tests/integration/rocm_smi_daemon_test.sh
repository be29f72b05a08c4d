#!/bin/bash
# rocm_smi_daemon_test.sh -- rocmtuned on the live root serves rocm-smi-lib's facts over the bus and
# asks the library at most once per kLiveFactsMaxAge (daemon/manager.h, 2 s); the PendingReboot
# property never asks it.
#
# usage: rocm_smi_daemon_test.sh WORLD_DIR ROCMTUNECTL ROCMTUNED
#
# A private system bus (a real dbus-daemon with rocmtune's policy, tests/daemon/bus_fixture.sh) runs
# outside; a COPY of WORLD_DIR is placed over the real /sys paths in a private mount namespace
# (rsmi_world.sh) and, inside, rocmtuned serves "/" under strace (which process clones it makes).
# Then: `rocmtunectl status --json` three times and PendingReboot twice within the 2 s, then once
# more after them. Checks: every reply has live facts from rocm-smi-lib, equal to what
# `rocmtunectl status --json` reads in-process; the daemon started exactly two processes (one per
# 2 s window), no thread-less child for the property.
#
# Exit: 0 pass, 1 fail, 77 skip (not root, no mount namespace, no dbus-daemon/busctl/python3-dbus,
# no strace, librocm_smi64.so.1 missing, a mount refused).
set -u
set -o pipefail

SELF=$(readlink -f "$0")
SRC=$(cd "$(dirname "$SELF")/../.." && pwd)
# shellcheck source=rsmi_world.sh
. "$(dirname "$SELF")/rsmi_world.sh"

# Child processes (fork, vfork, or a clone/clone3 whose exit signal is SIGCHLD) in an strace -f log.
# Threads (CLONE_THREAD) and LeakSanitizer's tracer at exit (CLONE_UNTRACED, no exit signal: an
# ASan build) are not children.
process_clones() {
  grep -E 'v?fork\(|clone3?\(.*SIGCHLD' "$1" | grep -vc 'CLONE_THREAD'
}

if [ "${1:-}" = "--inside" ]; then
  tmp=$2 ctl=$3 daemon=$4
  skip() { echo "SKIP: $*"; exit 77; }
  fail() { echo "FAIL: $*"; exit 1; }
  rsmi_place_world "$tmp" >/dev/null || exit 77
  "$ctl" status --json >"$tmp/local.json" 2>"$tmp/local.err" || fail "local status failed: $(cat "$tmp/local.err")"
  strace -f -qq -e trace=fork,vfork,clone,clone3 -o "$tmp/daemon.strace" \
    "$daemon" --idle-timeout 0 >"$tmp/daemon.log" 2>&1 &
  spid=$!
  for _ in $(seq 100); do
    busctl --system status org.rocmtune1 >/dev/null 2>&1 && break
    sleep 0.05
  done
  busctl --system status org.rocmtune1 >/dev/null 2>&1 || fail "rocmtuned did not start: $(cat "$tmp/daemon.log")"
  : >"$tmp/calls.done"
  start=$(date +%s%N)
  for i in 1 2 3; do
    "$ctl" status --json >"$tmp/bus$i.json" 2>"$tmp/bus$i.err" || fail "status over the bus failed: $(cat "$tmp/bus$i.err")"
    busctl --system get-property org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager PendingReboot \
      >>"$tmp/pending.txt" 2>&1 || fail "PendingReboot failed: $(cat "$tmp/pending.txt")"
  done
  elapsed=$((($(date +%s%N) - start) / 1000000))
  echo "$elapsed" >"$tmp/window.ms"
  sleep 2.1
  "$ctl" status --json >"$tmp/bus4.json" 2>"$tmp/bus4.err" || fail "status over the bus failed: $(cat "$tmp/bus4.err")"
  kill -TERM "$(pgrep -P "$spid")" 2>/dev/null
  wait "$spid" 2>/dev/null
  exit 0
fi

. "$SRC/tests/daemon/bus_fixture.sh"  # skip/fail, WORK, cleanup; skips without dbus tools or root
[ $# = 3 ] || fail "usage: $0 WORLD_DIR ROCMTUNECTL ROCMTUNED"
WORLD=$(readlink -f "$1")
CTL=$(readlink -f "$2")
DAEMON=$(readlink -f "$3")
[ -d "$WORLD/sys" ] || fail "$1 is not a world (no sys/)"
[ -x "$CTL" ] && [ -x "$DAEMON" ] || fail "$2 or $3 is not executable"
rsmi_require_namespace
ldconfig -p | grep 'librocm_smi64\.so\.1 ' >/dev/null || skip "librocm_smi64.so.1 not installed (librocm-smi64-1)"
command -v strace >/dev/null || skip "strace not installed (it shows when rocmtuned starts rocm-smi-lib's child)"

TMP=$WORK
cp -a "$WORLD" "$TMP/world" || fail "cannot copy the world"
W=$TMP/world
echo "world: $WORLD (working on the copy $W)"
rsmi_prepare_copy "$W"
start_bus
rsmi_run_inside "$CTL" "$DAEMON"

/usr/bin/python3 - "$TMP" <<'EOF' || fail "the live facts over the bus are not rocm-smi-lib's (see above)"
import json, sys
tmp = sys.argv[1]
local = json.load(open(f"{tmp}/local.json"))
want = [g.get("live") for g in local["gpus"]]
assert want and all(l and l["library_version"] for l in want), f"no live facts in-process: {want}"
for i in (1, 2, 3, 4):
    got = [g.get("live") for g in json.load(open(f"{tmp}/bus{i}.json"))["gpus"]]
    assert got == want, f"status {i} over the bus: {got} != in-process {want}"
print(f"ok: four status replies over the bus carry rocm-smi-lib {want[0]['library_version']}'s facts, "
      "equal to the in-process ones")
EOF
grep -q '^b false$' "$TMP/pending.txt" || fail "PendingReboot replies: $(cat "$TMP/pending.txt")"
window=$(cat "$TMP/window.ms")
clones=$(process_clones "$TMP/daemon.strace")
echo "rocmtuned started $clones process(es): 3 status calls and 3 PendingReboot reads in $window ms, one status call 2.1 s later"
grep -E 'v?fork\(|clone3?\(.*SIGCHLD' "$TMP/daemon.strace" | grep -v CLONE_THREAD | sed 's/^/  strace: /'
if [ "$window" -ge 2000 ]; then
  skip "the first calls took $window ms, longer than the 2 s the daemon keeps live facts (machine too loaded)"
fi
[ "$clones" = 2 ] || fail "expected 2 rocm-smi-lib children (one per 2 s window, none for PendingReboot), saw $clones"
echo "PASS: rocmtuned asks rocm-smi-lib once per 2 s for Describe and never for PendingReboot"
