#!/bin/bash
# Faults in the middle of a change through rocmtuned. The helper behind the socket is
# rocmtune-fault-helper (tests/crash/fault_helper.cc), which dies (kill:N) or stops (stop:N)
# just before step N of the transaction: N is the temporary write of its fourth file, after three
# were already replaced. The change sets three knobs (five files, one under var/lib).
#   a1  the helper is SIGKILLed: the caller gets a typed error, the daemon keeps answering and
#       shows the transaction interrupted; `rocmtune-helper recover` puts back the world before;
#   a2  the same, recovered by the next change through the daemon: the world after;
#   b   the daemon is SIGKILLed while the helper works, then the helper goes on: it finishes,
#       a new daemon serves, nothing is left interrupted, the world is before or after;
#   c   the caller is SIGKILLed while the helper works: the daemon survives sending its reply to
#       nobody, the world is before or after, and the next change goes through;
#   d   no helper listens at all: a typed error, nothing written, the daemon serving;
#   e   SIGTERM to the daemon while the helper works: the change is answered, then exit 0.
# "The world" is every file of the tree but the journal and the lock.
# usage: daemon_faults_test.sh ROCMTUNED ROCMTUNECTL ROCMTUNE_HELPER FAULT_HELPER SOURCE_DIR
set -u
DAEMON=$1 CTL=$2 HELPER=$3 FAULT_HELPER=$4 SRC=$5
. "$SRC/tests/daemon/bus_fixture.sh"
command -v systemd-socket-activate >/dev/null || skip "systemd-socket-activate is needed to serve the helper socket"
[ -x "$FAULT_HELPER" ] || skip "no rocmtune-fault-helper at $FAULT_HELPER"
start_bus
export PYTHONPATH=$PYDIR
KNOBS=(amdgpu.noretry=1 cmdline.iommu=pt env.HSA_ENABLE_SDMA=0)

world() { (cd "$1" && find . \( -path ./var/lib/rocmtune/journal -o -path ./var/lib/rocmtune/lock \) -prune \
  -o -type f -print0 | sort -z | xargs -0 sha256sum); }

# The world before and after the change, and the step to stop at (counted by the same helper).
cp -a "$SRC/tests/worlds/rx6600" "$WORK/before"
cp -a "$WORK/before" "$WORK/after"
ROCMTUNE_HELPER=$FAULT_HELPER ROCMTUNE_FAULT_LOG=$WORK/steps.log "$CTL" --root "$WORK/after" set "${KNOBS[@]}" \
  >/dev/null || fail "rocmtunectl set on a copy failed"
BEFORE=$(world "$WORK/before") AFTER=$(world "$WORK/after")
[ "$BEFORE" != "$AFTER" ] || fail "the change changes nothing"
N=$(awk '$2 == "rename" { r++ } r == 3 && $2 == "temp-write" { print $1; exit }' "$WORK/steps.log")
[ -n "$N" ] || fail "no fourth file in the transaction: $(cat "$WORK/steps.log")"
echo "faults at step $N of $(wc -l <"$WORK/steps.log"): $(sed -n "${N}p" "$WORK/steps.log")"

# scenario NAME FAULT: a fresh world W, the fault helper with FAULT behind the socket, a daemon.
scenario() {
  echo "== $1"
  [ -n "${DAEMON_PID:-}" ] && { kill "$DAEMON_PID" 2>/dev/null; wait "$DAEMON_PID" 2>/dev/null; }
  wait_name absent || fail "the previous daemon kept the name"
  [ -n "${HELPER_SSA:-}" ] && { kill "$HELPER_SSA" 2>/dev/null; wait "$HELPER_SSA" 2>/dev/null; }
  W=$WORK/world-$1
  cp -a "$WORK/before" "$W"
  start_helper "$FAULT_HELPER" "$W" "ROCMTUNE_FAULT=$2"
  start_daemon "$W"
}
# The helper serving the connection (systemd-socket-activate's child), once it stopped itself.
stopped_helper() {
  local pid
  for _ in $(seq 200); do
    pid=$(cat /proc/"$HELPER_SSA"/task/*/children 2>/dev/null | awk '{print $1}')
    [ -n "$pid" ] && [ "$(awk '{print $3}' /proc/"$pid"/stat 2>/dev/null)" = T ] && { echo "$pid"; return 0; }
    sleep 0.05
  done
  return 1
}
gone() { for _ in $(seq 200); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.05; done; return 1; }
set_call() {  # the change as root, in Python: prints the error name (or "ok") and the text
  /usr/bin/python3 - "$@" <<'PY'
import dbus, sys
from busclient import manager, outcome, EMPTY_OPTIONS
name, text = outcome(lambda: manager().Set(dbus.Dictionary(dict(a.split("=", 1) for a in sys.argv[1:]),
                                                           signature="ss"), EMPTY_OPTIONS, timeout=60))
print(name or "ok"); print(text)
PY
}
state_of() { "$CTL" --root "$W" history --json | /usr/bin/python3 -c '
import json, sys; print(" ".join(t["state"] for t in json.load(sys.stdin)["transactions"]))'; }
serving() {
  kill -0 "$DAEMON_PID" 2>/dev/null || fail "$1: rocmtuned died: $(tail -5 "$WORK/daemon.log")"
  call Describe >/dev/null || fail "$1: rocmtuned does not answer Describe"
}
before_or_after() {
  local now; now=$(world "$W")
  if [ "$now" = "$BEFORE" ]; then echo "$1: the world is as before"
  elif [ "$now" = "$AFTER" ]; then echo "$1: the world is as after"
  else diff <(echo "$BEFORE") <(echo "$now"); fail "$1: the world is neither before nor after"; fi
}

# a1: the helper killed; `rocmtune-helper recover`.
scenario a1 "kill:$N"
out=$(set_call "${KNOBS[@]}")
echo "reply: $(echo "$out" | head -c 200)"
[ "$(echo "$out" | head -1)" = org.rocmtune1.Error.Failed ] || fail "a1: not a typed failure: $out"
echo "$out" | grep -q "without a result" || fail "a1: the error does not say the helper gave no result: $out"
serving a1
[ "$(state_of)" = interrupted ] || fail "a1: History does not show the transaction interrupted: $(state_of)"
[ "$(world "$W")" != "$BEFORE" ] || fail "a1: the helper died before it changed anything (step $N)"
"$HELPER" --root "$W" recover >"$WORK/recover.out" || fail "a1: recover failed: $(cat "$WORK/recover.out")"
[ "$(world "$W")" = "$BEFORE" ] || fail "a1: recover did not put back the world before"
echo "a1: recovered to the world before"

# a2: the helper killed; the next change (helper healthy again) rolls back first, then runs.
scenario a2 "kill:$N"
out=$(set_call "${KNOBS[@]}")
[ "$(echo "$out" | head -1)" = org.rocmtune1.Error.Failed ] || fail "a2: not a typed failure: $out"
serving a2
kill "$HELPER_SSA"; wait "$HELPER_SSA" 2>/dev/null
start_helper "$HELPER" "$W"
out=$(set_call "${KNOBS[@]}")
[ "$(echo "$out" | head -1)" = ok ] || fail "a2: the next change failed: $out"
echo "$out" | grep -q "was rolled back first" || fail "a2: the reply does not say the interrupted one was rolled back"
[ "$(world "$W")" = "$AFTER" ] || fail "a2: the world is not the one after the change"
[ "$(state_of)" = "rolled-back committed" ] || fail "a2: History states: $(state_of)"
echo "a2: rolled back, then changed: the world after"

# b: the daemon killed while the helper works; the helper finishes on its own.
scenario b "stop:$N"
set_call "${KNOBS[@]}" >"$WORK/b.out" 2>&1 &
client=$!
helper=$(stopped_helper) || fail "b: the helper did not stop at step $N"
kill -KILL "$DAEMON_PID"; wait "$DAEMON_PID" 2>/dev/null
kill -CONT "$helper"
gone "$helper" || fail "b: the helper did not finish"
wait "$client"
echo "b: the caller got: $(head -1 "$WORK/b.out")"
before_or_after b
[[ "$(state_of)" != *interrupted* ]] || fail "b: the helper left the transaction interrupted: $(state_of)"
DAEMON_PID=""
start_daemon "$W"
serving b
call History | str | grep '"state": "committed"' >/dev/null || fail "b: the new daemon's History lacks the transaction"
kill "$HELPER_SSA"; wait "$HELPER_SSA" 2>/dev/null
start_helper "$HELPER" "$W"
call Reset | str | grep '"changed": true' >/dev/null || fail "b: Reset through the new daemon failed"
[ "$(world "$W")" = "$BEFORE" ] || fail "b: Reset did not give back the world before"

# c: the caller killed while the helper works.
scenario c "stop:$N"
set_call "${KNOBS[@]}" >"$WORK/c.out" 2>&1 &
client=$!
helper=$(stopped_helper) || fail "c: the helper did not stop at step $N"
kill -KILL "$client"; wait "$client" 2>/dev/null
kill -CONT "$helper"
gone "$helper" || fail "c: the helper did not finish"
sleep 0.2
serving c
before_or_after c
[[ "$(state_of)" != *interrupted* ]] || fail "c: the helper left the transaction interrupted: $(state_of)"
kill "$HELPER_SSA"; wait "$HELPER_SSA" 2>/dev/null
start_helper "$HELPER" "$W"
out=$(call Reset 2>&1) || fail "c: the next change failed: $out"
echo "$out" | str | grep '"changed": true' >/dev/null || fail "c: Reset changed nothing: $out"
[ "$(world "$W")" = "$BEFORE" ] || fail "c: Reset did not give back the world before"
serving c

# d: no helper listening at all (rocmtune-helper.socket stopped): a typed error, nothing written.
kill "$HELPER_SSA"; wait "$HELPER_SSA" 2>/dev/null
rm -f "$WORK/helper.sock"
now=$(world "$W")
out=$(set_call "${KNOBS[@]}")
[ "$(echo "$out" | head -1)" = org.rocmtune1.Error.Failed ] || fail "d: not a typed failure: $out"
echo "$out" | grep -q "cannot reach rocmtune-helper" || fail "d: the error does not say the helper is unreachable: $out"
[ "$(world "$W")" = "$now" ] || fail "d: something was written without a helper"
serving d
echo "d: no helper: $(echo "$out" | grep -o '"cannot reach[^"]*' | head -c 120)"
# e: SIGTERM to the daemon while the helper works (systemctl stop, a shutdown): the change is
# finished and answered first, then the daemon exits 0.
scenario e "stop:$N"
set_call "${KNOBS[@]}" >"$WORK/e.out" 2>&1 &
client=$!
helper=$(stopped_helper) || fail "e: the helper did not stop at step $N"
kill -TERM "$DAEMON_PID"
sleep 0.3
kill -0 "$DAEMON_PID" 2>/dev/null || fail "e: the daemon exited with a change running"
kill -CONT "$helper"
gone "$helper" || fail "e: the helper did not finish"
wait "$client" || fail "e: the caller got no answer: $(cat "$WORK/e.out")"
grep -q '"changed": true' "$WORK/e.out" || fail "e: the caller's answer is not the committed result: $(cat "$WORK/e.out")"
for _ in $(seq 50); do kill -0 "$DAEMON_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$DAEMON_PID" 2>/dev/null && fail "e: the daemon did not exit after answering"
wait "$DAEMON_PID"; rc=$?
[ $rc = 0 ] || fail "e: the daemon exited $rc"
[ "$(world "$W")" = "$AFTER" ] || fail "e: the world is not the one after the change"
DAEMON_PID=""
start_daemon "$W"
echo "e: SIGTERM during a change: answered ($(grep -o '"transaction": "[^"]*"' "$WORK/e.out")), then exit 0"

echo PASS
