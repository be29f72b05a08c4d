#!/bin/bash
# The daemon logs (issue 26 item 3): every call it answers with an error is logged once, at the
# edge, naming the caller (uid, pid, unique name) and the request (method, key argument), so
# that the client's hint "see `journalctl -u rocmtuned`" shows something. Outside systemd the
# log is the daemon's stderr, as here ($WORK/daemon.log); under the unit, journald's fields.
#   - nobody's Explain of an unknown key: an error returned by the handler (the guard logs it);
#   - nobody's Apply that would write: AccessDenied / InteractiveAuthorizationRequired after polkit said no (an asynchronous reply);
#   - nobody's Apply of an unknown profile: NotFound, answered before polkit is asked;
#   - a successful call logs nothing.
# usage: daemon_log_test.sh ROCMTUNED ROCMTUNE_HELPER SOURCE_DIR
set -u
DAEMON=$1 HELPER=$2 SRC=$3
. "$SRC/tests/daemon/bus_fixture.sh"
command -v systemd-socket-activate >/dev/null || skip "systemd-socket-activate is needed to serve the helper socket"
[ -x /usr/lib/polkit-1/polkitd ] || skip "polkitd is not installed (package polkitd)"

start_bus /usr/share/dbus-1/system.d
start_polkitd "" || fail "polkitd did not start: $(cat "$WORK/polkitd.log")"
W=$WORK/world
cp -a "$SRC/tests/worlds/rx6600" "$W"
start_helper "$HELPER" "$W"
start_daemon "$W"
export PYTHONPATH=$PYDIR

# nobody's calls; prints "UNIQUE_NAME PID" for the log lines to name.
"${NOBODY[@]}" /usr/bin/python3 - >"$WORK/caller.txt" <<'PY' || fail "the calls did not answer as expected"
import os, dbus
from busclient import manager, outcome, EMPTY_OPTIONS, NOT_AUTHORIZED
bus = dbus.SystemBus()
m = manager(bus)
assert outcome(m.Describe)[0] == "", "Describe failed"
explain, _ = outcome(lambda: m.Explain("no.such_key"))
assert explain in ("org.rocmtune1.Error.NotFound", "org.rocmtune1.Error.InvalidArgument"), explain
denied, _ = outcome(lambda: m.Apply("rdna2-consumer-compat", EMPTY_OPTIONS, timeout=60))
assert denied in NOT_AUTHORIZED, denied
name, _ = outcome(lambda: m.Apply("no-such-profile", EMPTY_OPTIONS, timeout=60))
assert name == "org.rocmtune1.Error.NotFound", name
print(bus.get_unique_name(), os.getpid(), explain, denied)
PY
read -r SENDER CALLER_PID EXPLAIN_ERROR DENIED_ERROR <"$WORK/caller.txt"
UID_NOBODY=$(id -u nobody)
LOG=$WORK/daemon.log
expect_line() {  # expect_line WHAT REGEX: exactly one line of the daemon's log matches
  local n
  n=$(grep -cE "$2" "$LOG")
  [ "$n" = 1 ] || fail "$1: $n lines match /$2/ in the daemon's log (one expected):
$(cat "$LOG")"
  echo "ok: $1 logged: $(grep -E "$2" "$LOG" | cut -c1-200)"
}
WHO="from uid $UID_NOBODY pid $CALLER_PID \\($SENDER\\)"
expect_line "Explain's $EXPLAIN_ERROR" "^rocmtuned: Explain 'no.such_key' $WHO: ${EXPLAIN_ERROR//./\\.}: "
expect_line "Apply's $DENIED_ERROR" "^rocmtuned: Apply 'rdna2-consumer-compat' $WHO: ${DENIED_ERROR//./\\.}: "
expect_line "Apply's NotFound" "^rocmtuned: Apply 'no-such-profile' $WHO: org\.rocmtune1\.Error\.NotFound: "
if grep -q "Describe" "$LOG"; then fail "a successful Describe was logged: $(cat "$LOG")"; fi
echo "ok: nothing else logged for the successful call"
