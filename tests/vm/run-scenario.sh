#!/bin/bash
# run-scenario.sh: one boot scenario of tests/vm/scenarios/ on a fresh qcow2 overlay of a cached image.
#
#   usage: tests/vm/run-scenario.sh BUILD_DIR SOURCE_DIR NAME        (root; NAME: scenarios/NAME.sh)
#   env:   VM_LIMIT=SECONDS  limit of the scenario's QEMU session (default 1500: 3-4 boots under TCG on
#                            busy cores); VM_DEB (build-image.sh); ACCEL, MEM (boot.sh);
#          VM_REUSE_LOGS=1   no boot: only the checks, on the logs an earlier run left in vm-runs/NAME
#
# Builds (or reuses) the images (build-image.sh), makes BUILD_DIR/vm-runs/NAME/disk.qcow2 on the
# scenario's image (and for UEFI its own copy of OVMF's variables), boots it once with boot.sh: the
# guest agent runs the scenario's plan at the end of every boot and reboots or powers off as the plan
# says. Then it checks what the probe channel reported: the boots seen (T = the scenario's token was on
# /proc/cmdline), and the scenario's own checks. Prints each report line and the host time of each
# boot's report. Exit 0 pass, 1 fail, 77 skip (a missing tool, or a product scenario whose installed
# rocmtunectl has no --trial yet).
#
# A scenario file sets IMAGE=bios|uefi, TOKEN (an extended regex: the token of a trial boot), EXPECT
# (the boots, e.g. "1:- 2:T 3:-"), NEEDS_TRIAL=1 when it drives `rocmtunectl ... --trial`, and defines
# plan (prints the plan) and verify (more checks, with the helpers below; returns non-zero on a failure).
# A scenario that sets SSH=1 gets a network card with the guest's sshd on 127.0.0.1:$SSH_PORT, and may
# define host_driver: run on the host beside the boots (output in vm-runs/NAME/driver.log, exit status
# in driver.rc), e.g. Ansible reaching the guest over ssh; it has wait_probe and vm_ssh below.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
BUILD=$(cd "${1:?usage: run-scenario.sh BUILD_DIR SOURCE_DIR NAME}" && pwd)
SRC=$(cd "${2:?SOURCE_DIR}" && pwd)
NAME=${3:?NAME}
[ -f "$HERE/scenarios/$NAME.sh" ] || fail "no scenario $NAME (tests/vm/scenarios/$NAME.sh)"
[ "$(id -u)" = 0 ] || skip "needs root (the image build: debootstrap, chroot)"
need_tools qemu-system-x86_64 qemu-img timeout
NEEDS_TRIAL=0 TOKEN="" EXPECT="" IMAGE="" SSH=0
verify() { return 0; }
# shellcheck source=/dev/null
. "$HERE/scenarios/$NAME.sh"
[ "$IMAGE" = uefi ] && need_ovmf

t0=$SECONDS
IMG=$BUILD/vm-cache
if [ "${VM_REUSE_LOGS:-0}" != 1 ]; then
  "$HERE/build-image.sh" "$BUILD" "$SRC"
  rc=$?
  [ $rc = 0 ] || exit $rc
  echo "image: $((SECONDS - t0)) s"
  if [ "$NEEDS_TRIAL" = 1 ]; then
    # The installed CLI, in the image's root: does it know --trial yet?
    chroot_in "$IMG/rootfs" rocmtunectl apply --help 2>&1 | grep -q -- '--trial' ||
      skip "the installed rocmtunectl has no --trial (rocmtunectl apply --help): the trial verbs are not built yet"
  fi
fi

RUN=$BUILD/vm-runs/$NAME
L=$RUN/vm
if [ "${VM_REUSE_LOGS:-0}" = 1 ]; then
  # Only the checks, on the logs of an earlier run in RUN (to work on a scenario's checks, or to
  # show that they fail on another scenario's boots).
  [ -f "$L.probe" ] || fail "VM_REUSE_LOGS=1: no earlier run in $RUN"
  boot_rc=0 s0=$SECONDS
else
  rm -rf "$RUN"; mkdir -p "$RUN"
  qemu-img create -q -f qcow2 -b "$IMG/$IMAGE.img" -F raw "$RUN/disk.qcow2" || fail "qemu-img create"
  U=()
  [ "$IMAGE" = uefi ] && U=(-u "$RUN/vars.fd")
  plan >"$RUN/plan"
  driver=""
  if [ "$SSH" = 1 ]; then
    need_tools ssh
    SSH_PORT=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    SSH_KEY=$IMG/ssh/id_ed25519
    U+=(-n "$SSH_PORT")
    # wait_probe REGEX SECONDS: until a report line matches (0), the session ends or the time is up (1)
    wait_probe() {
      local end=$((SECONDS + $2))
      until [ -f "$L.probe" ] && tr -d '\r' <"$L.probe" | grep -a -q -E "^VMPROBE $1"; do
        [ -e "$RUN/stop" ] || [ $SECONDS -ge $end ] && return 1
        sleep 2
      done
    }
    # vm_ssh CMD...: CMD as root in the guest
    vm_ssh() {
      ssh -i "$SSH_KEY" -p "$SSH_PORT" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
        -o ConnectTimeout=30 -o BatchMode=yes -o LogLevel=ERROR root@127.0.0.1 "$@"
    }
    if declare -F host_driver >/dev/null; then
      ( host_driver >"$RUN/driver.log" 2>&1; echo $? >"$RUN/driver.rc" ) &
      driver=$!
    fi
  fi

  # The host time of each boot's first report line ("up"), polled once a second while QEMU runs; it
  # stops by itself (no kill: a killed loop would leave its `sleep` running past the test).
  : >"$RUN/times"
  (
    seen=0 s0=$SECONDS
    while [ ! -e "$RUN/stop" ]; do
      n=$(grep -a -c '^VMPROBE boot=[0-9]* up ' "$L.probe" 2>/dev/null)
      if [ "${n:-0}" -gt "$seen" ]; then seen=$n; echo "boot $seen up at +$((SECONDS - s0)) s" >>"$RUN/times"; fi
      sleep 1
    done
  ) &
  watcher=$!
  trap 'touch "$RUN/stop"' EXIT
  s0=$SECONDS
  "$HERE/boot.sh" "${U[@]}" -p "$RUN/plan" -t "${VM_LIMIT:-1500}" "$RUN/disk.qcow2" "$L"
  boot_rc=$?
  touch "$RUN/stop"; wait $watcher
  # The driver's own limits end it; the session's end ends its waits (wait_probe).
  [ -n "$driver" ] && wait "$driver"
  echo "session ended at +$((SECONDS - s0)) s" >>"$RUN/times"
fi

# --- what the guest reported ------------------------------------------------------------------------
tr -d '\r' <"$L.probe" | grep -a '^VMPROBE ' >"$RUN/probe.txt"
tr -d '\r' <"$L.console" >"$RUN/console.txt"
sed 's/^/  /' "$RUN/probe.txt"
cat "$RUN/times"

# say_line N REGEX: the last report line of boot N matching REGEX (without "VMPROBE boot=N ").
say_line() { grep -a -E "^VMPROBE boot=$1 $2" "$RUN/probe.txt" | tail -1 | sed -E 's/^VMPROBE boot=[0-9]+ //'; }
probe_has() { grep -a -q -E "^VMPROBE boot=$1 $2" "$RUN/probe.txt"; }
console_has() { grep -a -q -E "$1" "$RUN/console.txt"; }
cmdline_of() { say_line "$1" 'up ' | sed 's/.* cmdline=//'; }
# boots: "1:- 2:T ..." for every boot that reported (T: TOKEN on its command line)
boots() {
  local n out=""
  for n in $(grep -a -E -o '^VMPROBE boot=[0-9]+ up ' "$RUN/probe.txt" | grep -o '[0-9]*' | uniq); do
    if [[ " $(cmdline_of "$n") " =~ \ ($TOKEN)\  ]]; then out+="$n:T "; else out+="$n:- "; fi
  done
  echo "${out% }"
}
# trial_json N: boot N's `rocmtunectl trial --json` document ("" when it failed)
trial_json() { say_line "$1" 'rocmtune-trial rc=0 ' | sed 's/^rocmtune-trial rc=0 //'; }
# trial_state N: the "state" of boot N's trial document (searched at any depth; "-" when none)
trial_state() {
  trial_json "$1" | /usr/bin/python3 -c '
import json, sys
def find(d):
    if isinstance(d, dict):
        if isinstance(d.get("state"), str): return d["state"]
        for v in d.values():
            s = find(v)
            if s: return s
    if isinstance(d, list):
        for v in d:
            s = find(v)
            if s: return s
    return None
try: print(find(json.load(sys.stdin)) or "-")
except Exception: print("-")'
}

failures=0
check() {  # check WHAT COMMAND...: one named check
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; failures=$((failures + 1)); fi
}
got=$(boots)
check "QEMU session ended by itself (rc $boot_rc)" test "$boot_rc" = 0
check "boots [$got] = expected [$EXPECT]" test "$got" = "$EXPECT"
verify
echo "scenario $NAME: $((SECONDS - t0)) s in all (boots: $((SECONDS - s0)) s), $failures failed check(s); logs in $RUN"
[ $failures = 0 ] || exit 1
exit 0
