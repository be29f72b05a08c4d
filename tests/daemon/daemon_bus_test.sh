#!/bin/bash
# rocmtuned on a private system bus (a real dbus-daemon with rocmtune's bus policy), serving a
# copy of a world: the live object equals the contract file, each read equals what rocmtunectl
# prints for the same world, bad arguments get typed errors, anyone may call but only root may
# own the name, and an idle daemon gives its name back and exits.
# usage: daemon_bus_test.sh ROCMTUNED ROCMTUNECTL SOURCE_DIR
# Exit 77 (skip) with a reason when it cannot run here.
set -u
DAEMON=$1 CTL=$2 SRC=$3
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
command -v dbus-daemon >/dev/null || skip "dbus-daemon is not installed (package dbus)"
command -v busctl >/dev/null || skip "busctl is not installed (package systemd)"
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 is needed to compare the introspection"
[ "$(id -u)" = 0 ] || skip "needs root: the bus policy lets only root own org.rocmtune1"
id nobody >/dev/null 2>&1 || skip "no user 'nobody' to call as an unprivileged user"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is needed to call as 'nobody'"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rocmtune-bus-XXXXXX")
chmod 755 "$WORK"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

mkdir -p "$WORK/policy"
cp "$SRC/dbus/org.rocmtune1.conf" "$WORK/policy/"
sed -e "s|@SOCKET@|$WORK/bus.sock|" -e "s|@POLICY_DIR@|$WORK/policy|" "$SRC/tests/daemon/private-bus.conf.in" \
  > "$WORK/bus.conf"
dbus-daemon --config-file="$WORK/bus.conf" --nofork --nopidfile >"$WORK/bus.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do [ -S "$WORK/bus.sock" ] && break; sleep 0.05; done
[ -S "$WORK/bus.sock" ] || fail "the private bus did not start: $(cat "$WORK/bus.log")"
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$WORK/bus.sock"
BUS=(busctl --system --no-pager)
chmod 666 "$WORK/bus.sock"

W=$WORK/world
cp -a "$SRC/tests/worlds/rx5700xt" "$W"
printf 'HSA_OVERRIDE_GFX_VERSION=10.3.0\n' >>"$W/etc/environment"

wait_name() {  # wait_name present|absent
  for _ in $(seq 100); do
    if "${BUS[@]}" status org.rocmtune1 >/dev/null 2>&1; then [ "$1" = present ] && return 0
    else [ "$1" = absent ] && return 0; fi
    sleep 0.05
  done
  return 1
}
call() { "${BUS[@]}" --json=short call org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager "$@"; }
# The one string a method returns, from busctl's JSON.
str() { /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["data"][0])'; }

"$DAEMON" --root "$W" --idle-timeout 0 >"$WORK/daemon.log" 2>&1 &
DPID=$!
PIDS+=($DPID)
wait_name present || fail "rocmtuned did not take the name: $(cat "$WORK/daemon.log")"

# The contract: dbus/org.rocmtune1.Manager.xml is the live object.
"${BUS[@]}" call org.rocmtune1 /org/rocmtune1 org.freedesktop.DBus.Introspectable Introspect --json=short \
  | str >"$WORK/live.xml" || fail "Introspect failed"
/usr/bin/python3 "$SRC/tests/daemon/compare_introspection.py" "$SRC/dbus/org.rocmtune1.Manager.xml" "$WORK/live.xml" \
  || fail "the live object differs from dbus/org.rocmtune1.Manager.xml"

# Reads equal the CLI's documents for the same world.
call Describe | str >"$WORK/describe.json" || fail "Describe failed"
"$CTL" --root "$W" status --json >"$WORK/status.json" || fail "rocmtunectl status failed"
cmp "$WORK/describe.json" "$WORK/status.json" || fail "Describe differs from 'rocmtunectl status --json'"
grep -q '"env.override-other-isa"' "$WORK/describe.json" || fail "Describe lacks the environment finding"
call History | str >"$WORK/history.json" || fail "History failed"
"$CTL" --root "$W" history --json >"$WORK/history-cli.json" || fail "rocmtunectl history failed"
cmp "$WORK/history.json" "$WORK/history-cli.json" || fail "History differs from 'rocmtunectl history --json'"
call ListProfiles >"$WORK/profiles.json" || fail "ListProfiles failed"
/usr/bin/python3 - "$WORK/profiles.json" <<'PY' || fail "ListProfiles lacks the built-in profiles"
import json, sys
names = {p[0] for p in json.load(open(sys.argv[1]))["data"][0]}
missing = {"stock", "rdna1-safe", "strix-halo", "instinct"} - names
sys.exit(f"missing: {missing}" if missing else 0)
PY
version=$("${BUS[@]}" get-property org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager Version)
[ "$version" = "s \"$("$CTL" --version | awk '{print $NF}')\"" ] || fail "Version property: $version"
"${BUS[@]}" get-property org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager ActiveProfile | grep -qx 's ""' \
  || fail "ActiveProfile of a world without transactions is not empty"

# Plan is a check: the same plan as `apply --check`, and nothing written.
before=$(cd "$W" && find . -type f -exec sha256sum {} + | sort)
call Plan 'sa{sv}' rdna1-safe 0 | str >"$WORK/plan.json" || fail "Plan failed"
"$CTL" --root "$W" apply rdna1-safe --check --json >"$WORK/plan-cli.json"
cmp "$WORK/plan.json" "$WORK/plan-cli.json" || fail "Plan differs from 'rocmtunectl apply --check --json'"
after=$(cd "$W" && find . -type f -exec sha256sum {} + | sort)
[ "$before" = "$after" ] || fail "Plan wrote to the world"

# Bad arguments: typed errors that name the problem (python3-dbus shows the error name);
# the daemon keeps serving.
/usr/bin/python3 - <<'PY' || fail "bad arguments did not get the typed errors"
import dbus, sys
m = dbus.Interface(dbus.SystemBus().get_object("org.rocmtune1", "/org/rocmtune1"), "org.rocmtune1.Manager")
cases = [
    ("unknown profile", lambda: m.Plan("no-such-profile", dbus.Dictionary({}, signature="sv")),
     "org.rocmtune1.Error.NotFound", "no-such-profile"),
    ("unknown option", lambda: m.Plan("rdna1-safe", {"bogus": dbus.Boolean(True)}),
     "org.rocmtune1.Error.InvalidArgument", "unknown option 'bogus'"),
    ("force as a string", lambda: m.Plan("rdna1-safe", {"force": "yes"}),
     "org.rocmtune1.Error.InvalidArgument", "'force' must be a boolean"),
    ("with as a string", lambda: m.Plan("rdna1-safe", {"with": "x"}),
     "org.rocmtune1.Error.InvalidArgument", "'with' must be a list of strings"),
    ("unknown --with item", lambda: m.Plan("rdna1-safe", {"with": dbus.Array(["no-such-item"], signature="s")}),
     "org.rocmtune1.Error.InvalidArgument", "no-such-item"),
    ("a change", lambda: m.Reset(), "org.rocmtune1.Error.NotSupported", "sudo rocmtunectl"),
]
bad = 0
for what, call, name, text in cases:
    try:
        call()
        print(f"{what}: succeeded"); bad += 1
    except dbus.DBusException as e:
        ok = e.get_dbus_name() == name and text in e.get_dbus_message()
        print(f"{what}: {e.get_dbus_name()}: {e.get_dbus_message()}" + ("" if ok else f"  (wanted {name}, '{text}')"))
        bad += not ok
sys.exit(bad)
PY
out=$(call Plan 's' rdna1-safe 2>&1) && fail "Plan without its options succeeded"
call Describe >/dev/null || fail "the daemon stopped serving after bad arguments"

# Anyone may call; only root may own the name.
NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
"${NOBODY[@]}" "${BUS[@]}" --json=short call org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager Describe | str \
  >"$WORK/describe-nobody.json" || fail "an unprivileged user cannot call Describe"
cmp "$WORK/describe.json" "$WORK/describe-nobody.json" || fail "an unprivileged user got another answer"
kill "$DPID"; wait "$DPID" 2>/dev/null
wait_name absent || fail "the name stayed after SIGTERM"
"${NOBODY[@]}" "$DAEMON" --root "$W" --idle-timeout 0 >"$WORK/daemon-nobody.log" 2>&1 &
npid=$!
PIDS+=($npid)
for _ in $(seq 100); do kill -0 "$npid" 2>/dev/null || break; sleep 0.05; done
kill -0 "$npid" 2>/dev/null && fail "rocmtuned as nobody kept running: the policy let it own the name"
grep -q "cannot own org.rocmtune1" "$WORK/daemon-nobody.log" || fail "no clear error as nobody: $(cat "$WORK/daemon-nobody.log")"

# Idle exit: the name is given back, and a request after that is not lost (here: answered by a
# new instance, as bus activation would start one).
"$DAEMON" --root "$W" --idle-timeout 0.5 >"$WORK/daemon-idle.log" 2>&1 &
ipid=$!
PIDS+=($ipid)
wait_name present || fail "rocmtuned (idle) did not take the name"
call Describe >/dev/null || fail "Describe on the idle-exiting daemon failed"
for _ in $(seq 100); do kill -0 "$ipid" 2>/dev/null || break; sleep 0.05; done
kill -0 "$ipid" 2>/dev/null && fail "rocmtuned did not exit after being idle"
wait "$ipid"; rc=$?
[ "$rc" = 0 ] || fail "idle exit status $rc"
wait_name absent || fail "the name stayed after the idle exit"
echo "PASS"
