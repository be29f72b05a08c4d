#!/bin/bash
# rocm_smi_shm_attack_test.sh -- the /dev/shm attack on rocm-smi-lib as it ran: an unprivileged user pre-creates
# rocm-smi-lib's /dev/shm/rocm_smi_card0 and card1 (mode 0777), holds the robust mutex in each
# locked and overwrites its robust-list pointers (rsmi_shm_attacker), while root's
# `rocmtunectl status` and rocmtuned's Describe run on the live root (a world bound over /sys, as
# the rocm_smi_live tests do).
#
# usage: rocm_smi_shm_attack_test.sh WORLD_DIR ROCMTUNECTL ROCMTUNED ATTACKER SPY_SO
#
# Inside a private mount namespace, /dev/shm is a tmpfs of the namespace (rsmi_place_world) that
# the attacker (uid 4711, via setpriv) and root's programs both see: the files are there, and
# rocm-smi-lib would open them. librsmi_spy.so (LD_PRELOAD) stops rocm-smi-lib's child when it
# maps its first /dev/shm file, so that its /proc/PID/status and maps are read from outside.
# Checks:
#   status: exits 0 well under rocm-smi-lib's 5 s lock wait (< 4.5 s, with the spy's 1.5 s hold),
#     and its live facts are known (the held lock made them unknown);
#   the child of status and of rocmtuned: Uid/Gid not 0, no supplementary groups, CapEff, CapPrm,
#     CapInh, CapAmb and CapBnd 0, NoNewPrivs 1 (/proc/PID/status); it mapped a /dev/shm file, and
#     not one of the attacker's (device and inode, /proc/PID/maps), nor did rocmtunectl or rocmtuned;
#   rocmtuned: two concurrent Describes answer with live facts from one probe; History answers
#     while that probe is still held (the event loop is not waiting for it); the daemon is alive
#     after; the attacker held its locks throughout.
#
# Exit: 0 pass, 1 fail, 77 skip (not root, no mount namespace, no dbus-daemon/busctl/python3-dbus,
# no setpriv, librocm_smi64.so.1 missing, a mount refused).
set -u
set -o pipefail

SELF=$(readlink -f "$0")
SRC=$(cd "$(dirname "$SELF")/../.." && pwd)
# shellcheck source=rsmi_world.sh
. "$(dirname "$SELF")/rsmi_world.sh"

# wait_file GLOB SECONDS: the first file matching GLOB, printed, within SECONDS.
wait_file() {
  local f i
  for ((i = 0; i < $2 * 20; i++)); do
    for f in $1; do [ -e "$f" ] && { echo "$f"; return 0; }; done
    sleep 0.05
  done
  return 1
}

# snapshot_child SPYDIR OUT: reads /proc/PID/{status,maps,cmdline} of the process the spy holds.
snapshot_child() {
  local held pid
  held=$(wait_file "$1/held.*" 15) || return 1
  pid=${held##*.}
  cat "/proc/$pid/status" >"$2.status" && cat "/proc/$pid/maps" >"$2.maps" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" >"$2.cmdline" || return 1
  echo "$pid" >"$2.pid"
}

if [ "${1:-}" = "--inside" ]; then
  tmp=$2 ctl=$3 daemon=$4 attacker=$5 spy=$6 spydir=$7
  fail() { echo "FAIL: $*"; exit 1; }
  rsmi_place_world "$tmp" >/dev/null || exit 77
  setpriv --reuid=4711 --regid=4711 --clear-groups -- "$attacker" rocm_smi_card0 rocm_smi_card1 \
    >"$tmp/attacker.out" 2>&1 &
  apid=$!
  for _ in $(seq 100); do grep -qx ready "$tmp/attacker.out" && break; sleep 0.05; done
  grep -qx ready "$tmp/attacker.out" || fail "the attacker did not start: $(cat "$tmp/attacker.out")"
  find /dev/shm -mindepth 1 -printf '  /dev/shm: %f uid %U mode %m\n'

  # Root's status, the live path (no --root).
  start=$(date +%s%N)
  LD_PRELOAD=$spy RSMI_SPY_DIR=$spydir/status RSMI_SPY_HOLD_MS=1500 ASAN_OPTIONS=verify_asan_link_order=0 \
    "$ctl" status --json >"$tmp/status.json" 2>"$tmp/status.err" &
  cpid=$!
  snapshot_child "$spydir/status" "$tmp/status-child" || echo "no child of status mapped /dev/shm" >"$tmp/status-child.none"
  cat "/proc/$cpid/maps" >"$tmp/status-parent.maps" 2>/dev/null
  wait "$cpid"
  echo $? >"$tmp/status.rc"
  echo $((($(date +%s%N) - start) / 1000000)) >"$tmp/status.ms"

  # rocmtuned: two Describes at once, then History while their probe is held.
  LD_PRELOAD=$spy RSMI_SPY_DIR=$spydir/daemon RSMI_SPY_HOLD_MS=3000 ASAN_OPTIONS=verify_asan_link_order=0 \
    "$daemon" --idle-timeout 0 >"$tmp/daemon.log" 2>&1 &
  dpid=$!
  for _ in $(seq 100); do busctl --system status org.rocmtune1 >/dev/null 2>&1 && break; sleep 0.05; done
  busctl --system status org.rocmtune1 >/dev/null 2>&1 || fail "rocmtuned did not start: $(cat "$tmp/daemon.log")"
  describers=()
  for i in 1 2; do
    busctl --system --json=short --timeout=30 call org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager Describe \
      >"$tmp/describe$i.json" 2>"$tmp/describe$i.err" &
    describers+=($!)
  done
  if snapshot_child "$spydir/daemon" "$tmp/daemon-child"; then
    busctl --system --json=short --timeout=10 call org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager History \
      >"$tmp/history.json" 2>"$tmp/history.err"
    echo $? >"$tmp/history.rc"
    # Still held when History has answered: the loop answered without waiting for the probe.
    if [ -e "$spydir/daemon/released.$(cat "$tmp/daemon-child.pid")" ]; then echo released; else echo held; fi \
      >"$tmp/history.probe"
  else
    echo "no child of rocmtuned mapped /dev/shm" >"$tmp/daemon-child.none"
  fi
  for i in 1 2; do
    wait "${describers[$((i - 1))]}"
    echo $? >"$tmp/describe$i.rc"
  done
  cat "/proc/$dpid/maps" >"$tmp/daemon-parent.maps" 2>/dev/null
  if kill -0 "$dpid" 2>/dev/null; then echo alive; else echo dead; fi >"$tmp/daemon.alive"
  kill -TERM "$dpid" 2>/dev/null
  wait "$dpid" 2>/dev/null
  if kill -0 "$apid" 2>/dev/null; then echo alive; else echo dead; fi >"$tmp/attacker.alive"
  kill "$apid" 2>/dev/null
  wait "$apid" 2>/dev/null
  exit 0
fi

. "$SRC/tests/daemon/bus_fixture.sh"  # skip/fail, WORK, start_bus, cleanup; skips without dbus tools or root
[ $# = 5 ] || fail "usage: $0 WORLD_DIR ROCMTUNECTL ROCMTUNED ATTACKER SPY_SO"
WORLD=$(readlink -f "$1")
CTL=$(readlink -f "$2")
DAEMON=$(readlink -f "$3")
ATTACKER=$(readlink -f "$4")
SPY=$(readlink -f "$5")
[ -d "$WORLD/sys" ] || fail "$1 is not a world (no sys/)"
[ -x "$CTL" ] && [ -x "$DAEMON" ] && [ -x "$ATTACKER" ] && [ -f "$SPY" ] || fail "a program is missing: $*"
rsmi_require_namespace
ldconfig -p | grep 'librocm_smi64\.so\.1 ' >/dev/null || skip "librocm_smi64.so.1 not installed (librocm-smi64-1)"

TMP=$WORK
cp -a "$WORLD" "$TMP/world" || fail "cannot copy the world"
W=$TMP/world
echo "world: $WORLD (working on the copy $W)"
rsmi_prepare_copy "$W" >/dev/null
# The spy writes as whatever uid rocm-smi-lib's child runs as: a directory anyone may write, where
# anyone may reach it (WORK is 0755).
SPYDIR=$WORK/spy
mkdir -p "$SPYDIR/status" "$SPYDIR/daemon" && chmod 0777 "$SPYDIR" "$SPYDIR/status" "$SPYDIR/daemon"
# The attacker's program where uid 4711 can run it (a clone may sit in a 0700 directory).
cp "$ATTACKER" "$WORK/attacker" && chmod 0755 "$WORK/attacker"
start_bus
rsmi_run_inside "$CTL" "$DAEMON" "$WORK/attacker" "$SPY" "$SPYDIR"

/usr/bin/python3 - "$TMP" "$SPYDIR" <<'EOF'
import glob, json, os, sys

tmp, spydir = sys.argv[1:3]
errors = []
def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        errors.append(what)
def read(name, default=None):
    path = os.path.join(tmp, name)
    return open(path).read().strip() if os.path.exists(path) else default

# The attacker's files, (major, minor, inode) as /proc/PID/maps names them.
attack = {}
for line in read("attacker.out", "").splitlines():
    parts = line.split()
    if len(parts) == 3:
        dev = int(parts[1])
        attack[(os.major(dev), os.minor(dev), int(parts[2]))] = parts[0]
check(len(attack) == 2, f"the attacker holds /dev/shm/rocm_smi_card0 and card1 ({sorted(attack.values())})")
check(read("attacker.alive") == "alive", "the attacker held its locks until the end")

def shm_maps(name):
    """(major, minor, inode, path) of every /dev/shm mapping in a saved maps file."""
    out = []
    for line in (read(name) or "").splitlines():
        f = line.split(None, 5)
        if len(f) == 6 and f[5].startswith("/dev/shm/"):
            ma, mi = f[3].split(":")
            out.append((int(ma, 16), int(mi, 16), int(f[4]), f[5]))
    return out

def creds(label, prefix):
    if read(prefix + ".none"):
        check(False, f"{label}: {read(prefix + '.none')}")
        return
    st = dict(l.split(":", 1) for l in read(prefix + ".status").splitlines() if ":" in l)
    st = {k: v.split() for k, v in st.items()}
    print(f"{label} (pid {read(prefix + '.pid')}): Uid {st['Uid']} Gid {st['Gid']} Groups {st.get('Groups', [])} "
          f"CapEff {st['CapEff']} CapBnd {st['CapBnd']} NoNewPrivs {st.get('NoNewPrivs')}")
    check(all(u != "0" for u in st["Uid"]) and all(g != "0" for g in st["Gid"]),
          f"{label}: no uid or gid 0 (Uid {st['Uid']}, Gid {st['Gid']})")
    check(st.get("Groups", []) == [], f"{label}: no supplementary groups ({st.get('Groups')})")
    for cap in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        check(int(st[cap][0], 16) == 0, f"{label}: {cap} is 0 ({st[cap][0]})")
    check(st.get("NoNewPrivs") == ["1"], f"{label}: NoNewPrivs 1 ({st.get('NoNewPrivs')})")
    mapped = shm_maps(prefix + ".maps")
    check(any(m[3].startswith("/dev/shm/rocm_smi_card") for m in mapped),
          f"{label}: rocm-smi-lib mapped its mutex file (the control): {[m[3] for m in mapped]}")
    shared = [m for m in mapped if m[:3] in attack]
    check(not shared, f"{label}: none of the attacker's files is mapped ({shared})")
    rec = glob.glob(os.path.join(spydir, label.split()[0], "map.*"))
    for r in rec:
        kv = dict(l.split(" ", 1) for l in open(r).read().splitlines())
        dev = int(kv["dev"])
        check((os.major(dev), os.minor(dev), int(kv["ino"])) not in attack,
              f"{label}: the file it opened as {kv['path']} is its own, not the attacker's (fstat in the child)")

def live_known(doc, label):
    gpus = [g for g in doc.get("gpus", []) if "live" in g]
    check(bool(gpus), f"{label}: a GPU with live facts")
    for g in gpus:
        live = g["live"]
        known = [v for v in live["firmware"].values() if isinstance(v, str)]
        check(bool(known) and live["library_version"], f"{label}: {g['id']} live facts known "
              f"(firmware {live['firmware']}, unknown: {sorted(set(live['unknown'].values()))[:2]})")

# --- root's status ---
rc, ms = read("status.rc"), int(read("status.ms", "0"))
check(rc == "0", f"status exit 0 (got {rc}; stderr: {read('status.err')})")
check(ms < 4500, f"status took {ms} ms (< 4500: no 5 s wait on the attacker's lock, 1.5 s of it the spy's hold)")
try:
    live_known(json.loads(read("status.json")), "status")
except ValueError as e:
    check(False, f"status --json is one document: {e}")
creds("status child", "status-child")
check(not [m for m in shm_maps("status-parent.maps") if m[:3] in attack], "rocmtunectl itself maps none of the attacker's files")

# rocmtunectl is one thread: its child is the forked copy. rocmtuned's threads may hold a lock
# at fork (the allocator's, under ASan): its child is the daemon started again for the probe.
check(not read("status-child.cmdline").startswith("rocmtune-smi-probe "),
      f"status child: the forked copy of rocmtunectl ({read('status-child.cmdline')[:60]!r})")

# --- rocmtuned ---
creds("daemon child", "daemon-child")
check(read("daemon-child.cmdline").startswith("rocmtune-smi-probe --rocmtune-smi-probe-child {"),
      f"daemon child: rocmtuned started again, not its forked copy ({read('daemon-child.cmdline')[:60]!r})")
check(read("history.rc") == "0", f"History answered ({read('history.err')})")
check(read("history.probe") == "held", f"History answered while the Describes' probe was still running ({read('history.probe')})")
for i in (1, 2):
    check(read(f"describe{i}.rc") == "0", f"Describe {i} answered ({read(f'describe{i}.err')})")
    try:
        live_known(json.loads(json.loads(read(f"describe{i}.json"))["data"][0]), f"Describe {i}")
    except (ValueError, TypeError, KeyError) as e:
        check(False, f"Describe {i} reply is a status document: {e}")
probes = glob.glob(os.path.join(spydir, "daemon", "map.*"))
check(len(probes) == 1, f"the two concurrent Describes waited for one probe ({len(probes)} children mapped /dev/shm)")
check(read("daemon.alive") == "alive", "rocmtuned is alive after the probe")
check(not [m for m in shm_maps("daemon-parent.maps") if m[:3] in attack], "rocmtuned itself maps none of the attacker's files")

if errors:
    print("daemon log:", read("daemon.log"))
    sys.exit("FAIL: " + "; ".join(errors))
print("PASS")
EOF
