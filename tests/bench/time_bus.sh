#!/usr/bin/env bash
# Times rocmtunectl through rocmtuned on a private system bus (a real dbus-daemon with rocmtune's
# policy), for BENCHMARKS.md "Over the bus":
#   - the floor: `busctl call` of a trivial method (org.freedesktop.DBus.Peer.Ping) on rocmtuned;
#   - `busctl call ... Describe` and `rocmtunectl status --json` over the bus, and the local path
#     (`--root WORLD`) for comparison, on phoenix (1 APU) and mi300x-cpx (63 partitions);
#   - the idle daemon's RSS and CPU time over IDLE seconds;
#   - apply + reset of a profile through the daemon and the helper socket vs the local path;
#   - first, the ratios BENCHMARKS.md reports (status over the bus <= 1.15x the floor): PAIRS
#     alternated pairs (tests/bench/pairs.py) of the floor and `rocmtunectl status --json` over
#     the bus, and of `busctl --version` and `rocmtunectl --version` (process start alone), the
#     median of the pairs' ratios, and the median ratio of the CPU time each client used (user +
#     system: the load moves it far less than wall time; the daemon's own work shows only in the
#     wall time). The machine's load average is printed before and after.
# Needs root (only root may own org.rocmtune1), dbus-daemon, busctl, hyperfine.
#   tests/bench/time_bus.sh          # from the repository root, after `make`
#   RUNS=100 IDLE=10 tests/bench/time_bus.sh
#   PAIRS_ONLY=1 BUILD_DIR=/path/to/other/build tests/bench/time_bus.sh   # the ratios only
set -u
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${BUILD_DIR:-build}"
case "$build" in /*) ;; *) build="$SRC/$build" ;; esac
CTL=$build/client/rocmtunectl DAEMON=$build/daemon/rocmtuned HELPER=$build/helper/rocmtune-helper
RUNS=${RUNS:-50} IDLE=${IDLE:-5} PAIRS=${PAIRS:-30}
. "$SRC/tests/daemon/bus_fixture.sh"
command -v hyperfine >/dev/null || skip "hyperfine is needed (apt-get install hyperfine)"
start_bus

time_cmds() {  # time_cmds NAME CMD [NAME CMD...]: median/mean/min in ms
  local args=() json="$WORK/h.json"
  while [ $# -gt 0 ]; do args+=(--command-name "$1" "$2"); shift 2; done
  hyperfine -N --style none --warmup 5 --runs "$RUNS" --export-json "$json" "${args[@]}" >/dev/null 2>&1 \
    || fail "hyperfine failed"
  /usr/bin/python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("| %s | %.2f | %.2f | %.2f |" % (r["command"], r["median"]*1000, r["mean"]*1000, r["min"]*1000))' "$json"
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
busctl_bin=$(command -v busctl)
PING=("$busctl_bin" --system call org.rocmtune1 /org/rocmtune1 org.freedesktop.DBus.Peer Ping)

echo "machine: $(nproc) CPU(s), kernel $(uname -r); $CTL"
echo
echo "load average before: $(loadavg)"
echo
echo "| B / A | pairs | A median ms | B median ms | A min ms | B min ms | median of B/A | B/A of medians | A CPU ms | B CPU ms | median of B/A CPU |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for world in phoenix mi300x-cpx; do
  W=$WORK/$world
  cp -a "$SRC/tests/worlds/$world" "$W"
  "$DAEMON" --root "$W" --idle-timeout 0 >"$WORK/daemon.log" 2>&1 &
  DPID=$!
  PIDS+=("$DPID")
  wait_name present || fail "rocmtuned did not start"
  "$CTL" status --json >/dev/null || fail "status over the bus failed"
  "$SRC/tests/bench/pairs.py" "$PAIRS" 5 "floor ($world)" "status --json over the bus" -- "${PING[@]}" \
    -- "$CTL" status --json || fail "pairs.py failed"
  if [ "$world" = phoenix ]; then
    "$SRC/tests/bench/pairs.py" "$PAIRS" 5 "busctl --version" "rocmtunectl --version" -- "$busctl_bin" --version \
      -- "$CTL" --version || fail "pairs.py failed"
  fi
  kill "$DPID"; wait "$DPID" 2>/dev/null
  wait_name absent
done
echo
echo "load average after: $(loadavg)"
[ -n "${PAIRS_ONLY:-}" ] && exit 0

echo
echo "runs: $RUNS per command"
echo
echo "| command | median ms | mean ms | min ms |"
echo "|---|---:|---:|---:|"
for world in phoenix mi300x-cpx; do
  W=$WORK/$world
  "$DAEMON" --root "$W" --idle-timeout 0 >"$WORK/daemon.log" 2>&1 &
  DPID=$!
  PIDS+=("$DPID")
  wait_name present || fail "rocmtuned did not start"
  "$CTL" status --json >/dev/null || fail "status over the bus failed"
  time_cmds "busctl call Peer.Ping (floor, $world)" "$busctl_bin --system call org.rocmtune1 /org/rocmtune1 org.freedesktop.DBus.Peer Ping" \
    "busctl call Describe ($world)" "$busctl_bin --system call org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager Describe" \
    "rocmtunectl status --json over the bus ($world)" "$CTL status --json" \
    "rocmtunectl --root WORLD status --json, local ($world)" "$CTL --root $W status --json"
  if [ "$world" = phoenix ]; then
    sleep 1
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$DPID/status")
    t0=$(awk '{print $14 + $15}' "/proc/$DPID/stat")
    sleep "$IDLE"
    t1=$(awk '{print $14 + $15}' "/proc/$DPID/stat")
    echo
    anon=$(awk '/^RssAnon/ {print $2}' "/proc/$DPID/status") file=$(awk '/^RssFile/ {print $2}' "/proc/$DPID/status")
    pss=$(awk '/^Pss:/ {print $2}' "/proc/$DPID/smaps_rollup" 2>/dev/null)
    echo "idle rocmtuned (phoenix, after serving): RSS $rss KiB = anonymous $anon KiB + file-backed $file KiB" \
      "(code of the binary and shared libraries); PSS ${pss:-?} KiB; CPU $((t1 - t0)) ticks in ${IDLE} s"
    echo
    echo "| command | median ms | mean ms | min ms |"
    echo "|---|---:|---:|---:|"
  fi
  kill "$DPID"; wait "$DPID" 2>/dev/null
  wait_name absent
done

# apply + reset: through the daemon and the helper socket vs the local path (the helper as a child).
W=$WORK/apply
cp -a "$SRC/tests/worlds/rx6600" "$W"; cp -a "$W" "$WORK/apply-local"
systemd-socket-activate -l "$WORK/helper.sock" --accept --inetd "$HELPER" --root "$W" socket >"$WORK/helper.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do [ -S "$WORK/helper.sock" ] && break; sleep 0.05; done
"$DAEMON" --root "$W" --helper-socket "$WORK/helper.sock" --idle-timeout 0 >"$WORK/daemon.log" 2>&1 &
PIDS+=($!)
wait_name present || fail "rocmtuned did not start"
RUNS=$(( RUNS < 20 ? RUNS : 20 ))
echo
echo "| command (apply rdna2-consumer-compat, then reset) | median ms | mean ms | min ms |"
echo "|---|---:|---:|---:|"
time_cmds "over the bus (daemon + helper socket)" "bash -c '$CTL apply rdna2-consumer-compat >/dev/null && $CTL reset >/dev/null'" \
  "local (--root, helper as a child)" "bash -c '$CTL --root $WORK/apply-local apply rdna2-consumer-compat >/dev/null && $CTL --root $WORK/apply-local reset >/dev/null'"
