#!/bin/bash
# BENCHMARKS.md "Asking power-profiles-daemon": what the bus probe (bus/power_profiles.cc) costs a
# whole `rocmtunectl check-compute --json` on the live root (as root: it reads here), with
# DBUS_SYSTEM_BUS_ADDRESS pointing at
#   (a) no bus: the connect fails at once (the probe's floor),
#   (b) a private bus with nothing on it: two NameHasOwner,
#   (c) the same bus with the 0.30 double (tests/daemon/ppd_double.py): NameHasOwner + GetAll.
# Needs root, dbus-daemon, hyperfine, /usr/bin/python3 with python3-dbus.  RUNS=60 by default.
set -u
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CTL=${BUILD_DIR:-$SRC/build}/client/rocmtunectl
RUNS=${RUNS:-60}
T=$(mktemp -d)
mkdir -p "$T/policy"
cp "$SRC/dbus/org.rocmtune1.conf" "$T/policy/"
printf '<busconfig><policy user="root"><allow own="org.freedesktop.UPower.PowerProfiles"/></policy>%s</busconfig>\n' \
  '<policy context="default"><allow send_destination="org.freedesktop.UPower.PowerProfiles"/></policy>' >"$T/policy/double.conf"
sed -e "s|@SOCKET@|$T/bus.sock|" -e "s|@POLICY_DIR@|$T/policy|" "$SRC/tests/daemon/private-bus.conf.in" >"$T/bus.conf"
dbus-daemon --config-file="$T/bus.conf" --nofork --nopidfile 2>/dev/null &
BUS=$!
sleep 0.5
time_it() {  # time_it NAME ADDRESS
  hyperfine -N -i --style basic --warmup 5 --runs "$RUNS" -n "$1" \
    "env DBUS_SYSTEM_BUS_ADDRESS=$2 $CTL check-compute --json" 2>&1 | grep -E "^Benchmark|Time"
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
time_it "(a) no bus" "unix:path=$T/none.sock"
time_it "(b) bus, no daemon" "unix:path=$T/bus.sock"
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/bus.sock /usr/bin/python3 "$SRC/tests/daemon/ppd_double.py" --version 0.30 &
DOUBLE=$!
sleep 1
time_it "(c) bus with the 0.30 double" "unix:path=$T/bus.sock"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
kill "$DOUBLE" "$BUS"
wait 2>/dev/null
rm -rf "$T"
