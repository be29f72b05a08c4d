#!/bin/bash
# Hostile arguments to rocmtuned, sent as root (never asked by polkit: whatever the daemon let
# through would be written): wrong signatures, 1 MiB strings, unknown options and options of
# the wrong type, repeated options, newlines and shell metacharacters in profile names, ids,
# knob keys and values, keys holding '=', 10,000-entry dictionaries and lists, empty things
# (tests/daemon/hostile_calls.py). Each gets a typed error (org.rocmtune1.Error.* or the bus's
# InvalidArgs); afterwards the daemon still answers, no command ran, and nothing was written
# (the whole tree, journal included, byte for byte).
# usage: daemon_hostile_test.sh ROCMTUNED ROCMTUNECTL ROCMTUNE_HELPER SOURCE_DIR
set -u
DAEMON=$1 CTL=$2 HELPER=$3 SRC=$4
. "$SRC/tests/daemon/bus_fixture.sh"
command -v systemd-socket-activate >/dev/null || skip "systemd-socket-activate is needed to serve the helper socket"
start_bus

W=$WORK/world
cp -a "$SRC/tests/worlds/rx6600" "$W"
# One transaction in the journal, so an id that parses loosely would find something to revert.
"$CTL" --root "$W" apply rdna2-consumer-compat >/dev/null || fail "rocmtunectl apply failed"
start_helper "$HELPER" "$W"
start_daemon "$W"
before=$(world_hash "$W")
MARKER=$WORK/pwned

PYTHONPATH=$PYDIR /usr/bin/python3 "$PYDIR/hostile_calls.py" "$MARKER" \
  || fail "hostile calls without their typed error (above)"

# An option given twice: the bus allows a repeated dict key; the daemon must not pick one of
# them silently (check then no check would write).
expect_invalid() {
  local out
  out=$("${BUS[@]}" --timeout=30 call org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager "$@" 2>&1) \
    && fail "succeeded: $* -> $out"
  echo "$*: $out" | head -c 200; echo
  echo "$out" | grep -q "Call failed: options: " || fail "not an option error: $* -> $out"
}
expect_invalid Set 'a{ss}a{sv}' 1 amdgpu.noretry 1 2 check b true check b false
expect_invalid Apply 'sa{sv}' rdna2-consumer-compat 2 check b true check b false
expect_invalid Unset 'asa{sv}' 1 amdgpu.noretry 2 check b true check b false
expect_invalid Apply 'sa{sv}' rdna2-consumer-compat 2 with as 0 with as 0
# A knob key given twice in the a{ss}: refused as the CLI refuses `set K=0 K=1`.
out=$("${BUS[@]}" --timeout=30 call org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager Set 'a{ss}a{sv}' \
  2 amdgpu.noretry 0 amdgpu.noretry 1 0 2>&1) && fail "a knob key given twice was set: $out"
echo "$out" | grep -q "given twice" || fail "a knob key given twice: not refused as such: $out"

kill -0 "$DAEMON_PID" 2>/dev/null || fail "rocmtuned died: $(cat "$WORK/daemon.log")"
call Describe >/dev/null || fail "rocmtuned does not answer Describe after the hostile calls"
[ -e "$MARKER" ] && fail "a command in an argument ran"
[ "$(world_hash "$W")" = "$before" ] || fail "a hostile call wrote to the world"
echo PASS
