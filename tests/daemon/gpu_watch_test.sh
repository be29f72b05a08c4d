#!/bin/bash
# rocmtuned keeps its detection and refreshes it from udev's monitor on the drm subsystem (real
# libudev, real netlink): in its own network namespace, a datagram as systemd-udevd sends one
# (tests/daemon/send_uevent.py) stands in for a GPU going away and coming back.
#   - a change to the world without an event is not seen (the inventory is kept, no polling);
#   - a drm "remove" event: GpusChanged carries the GPUs now, Describe shows them;
#   - an event of another subsystem changes nothing; a drm "add" brings the GPU back.
# usage: gpu_watch_test.sh ROCMTUNED ROCMTUNECTL SOURCE_DIR
set -u
DAEMON=$1 SRC=$3  # $2, rocmtunectl, is not used here (the tests share one argument list)
. "$SRC/tests/daemon/bus_fixture.sh"
command -v nsenter >/dev/null || skip "nsenter (util-linux) is needed"
unshare -n true 2>/dev/null || skip "cannot create a network namespace here"
start_bus

W=$WORK/world
cp -a "$SRC/tests/worlds/rx6600" "$W"
CARD=$(readlink "$W/sys/class/drm/card1"); DEVPATH=/${CARD#../../}
unshare -n -- "$DAEMON" --root "$W" --idle-timeout 0 >"$WORK/daemon.log" 2>&1 &
DPID=$!
PIDS+=("$DPID")
wait_name present || fail "rocmtuned did not take the name: $(cat "$WORK/daemon.log")"
grep -q "detecting on every request" "$WORK/daemon.log" && fail "the daemon did not open udev's monitor: $(cat "$WORK/daemon.log")"
gpus() { call Describe | str | /usr/bin/python3 -c 'import json,sys; print(" ".join(g["id"] for g in json.load(sys.stdin)["gpus"]))'; }
send() { nsenter -n -t "$DPID" /usr/bin/python3 "$PYDIR/send_uevent.py" "$@" || fail "could not send the event"; }
dbus-monitor --system "type='signal',interface='org.rocmtune1.Manager',member='GpusChanged'" >"$WORK/signals.log" 2>&1 &
PIDS+=($!)
sleep 0.3

before=$(gpus)
[ -n "$before" ] || fail "no GPU in the world to start with"
echo "GPUs: $before"
# The GPU goes: its card disappears from the world. Without an event the daemon does not look.
mv "$W/sys/class/drm" "$WORK/drm.saved"
mkdir "$W/sys/class/drm"
[ "$(gpus)" = "$before" ] || fail "the daemon detected again without an event (it polls)"
# An event of another subsystem: filtered out by the monitor, nothing changes.
send change /devices/virtual/net/lo net
sleep 0.3
[ "$(gpus)" = "$before" ] || fail "a net event refreshed the GPUs"
grep -q GpusChanged "$WORK/signals.log" && fail "GpusChanged for a net event"
# udev says the card went away.
send remove "$DEVPATH" drm DEVTYPE=drm_minor DEVNAME=dri/card1
for _ in $(seq 50); do grep -q GpusChanged "$WORK/signals.log" && break; sleep 0.1; done
grep -q GpusChanged "$WORK/signals.log" || fail "no GpusChanged after a drm remove event: $(cat "$WORK/daemon.log")"
[ -z "$(gpus)" ] || fail "Describe still shows $(gpus) after the card went"
# And comes back.
rm -rf "$W/sys/class/drm"; mv "$WORK/drm.saved" "$W/sys/class/drm"
send add "$DEVPATH" drm DEVTYPE=drm_minor DEVNAME=dri/card1
for _ in $(seq 50); do [ "$(grep -c GpusChanged "$WORK/signals.log")" -ge 2 ] && break; sleep 0.1; done
[ "$(grep -c GpusChanged "$WORK/signals.log")" -ge 2 ] || fail "no GpusChanged after the card came back"
grep -A3 GpusChanged "$WORK/signals.log" | grep -q "\"${before%% *}\"" || fail "GpusChanged does not list ${before%% *}: $(cat "$WORK/signals.log")"
[ "$(gpus)" = "$before" ] || fail "Describe shows '$(gpus)' after the card came back, want '$before'"
# A change event for the same GPUs (a reset): no signal, the inventory is as before.
send change "$DEVPATH" drm DEVTYPE=drm_minor WEDGED=vendor-specific
sleep 0.3
[ "$(grep -c GpusChanged "$WORK/signals.log")" = 2 ] || fail "GpusChanged although the GPUs are the same"
kill -0 "$DPID" || fail "rocmtuned died"
echo PASS
