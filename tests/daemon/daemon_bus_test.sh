#!/bin/bash
# rocmtuned on a private system bus (a real dbus-daemon with rocmtune's bus policy), serving a
# copy of a world: the live object equals the contract file, each read equals what rocmtunectl
# prints for the same world, bad arguments get typed errors, anyone may call but only root may
# own the name, and an idle daemon gives its name back and exits.
# usage: daemon_bus_test.sh ROCMTUNED ROCMTUNECTL SOURCE_DIR
# Exit 77 (skip) with a reason when it cannot run here.
set -u
DAEMON=$1 CTL=$2 SRC=$3
. "$SRC/tests/daemon/bus_fixture.sh"
start_bus

# A usage error exits 2 (as rocmtunectl's), with the message on stderr.
"$DAEMON" --no-such-option >/dev/null 2>"$WORK/usage.err"; rc=$?
[ $rc = 2 ] || fail "rocmtuned --no-such-option exited $rc, want 2"
grep -q "no-such-option" "$WORK/usage.err" || fail "the usage error does not name the option: $(cat "$WORK/usage.err")"

W=$WORK/world
cp -a "$SRC/tests/worlds/rx5700xt" "$W"
printf 'HSA_OVERRIDE_GFX_VERSION=10.3.0\n' >>"$W/etc/environment"

"$DAEMON" --root "$W" --idle-timeout 0 >"$WORK/daemon.log" 2>&1 &
DPID=$!
PIDS+=("$DPID")
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
call ListProfiles | str >"$WORK/profiles.json" || fail "ListProfiles failed"
"$CTL" --root "$W" profiles --json >"$WORK/profiles-cli.json" || fail "rocmtunectl profiles failed"
cmp "$WORK/profiles.json" "$WORK/profiles-cli.json" || fail "ListProfiles differs from 'rocmtunectl profiles --json'"
call ShowProfile s stock | str >"$WORK/show.json" || fail "ShowProfile failed"
"$CTL" --root "$W" show stock --json >"$WORK/show-cli.json" || fail "rocmtunectl show failed"
cmp "$WORK/show.json" "$WORK/show-cli.json" || fail "ShowProfile differs from 'rocmtunectl show stock --json'"
/usr/bin/python3 - "$WORK/profiles.json" <<'PY' || fail "ListProfiles lacks the built-in profiles"
import json, sys
names = {p["name"] for p in json.load(open(sys.argv[1]))["profiles"]}
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
    ("Set with a key holding '='", lambda: m.Set({"a=b": "1"}, dbus.Dictionary({}, signature="sv")),
     "org.rocmtune1.Error.InvalidArgument", "has no '='"),
    ("Set of nothing", lambda: m.Set(dbus.Dictionary({}, signature="ss"), dbus.Dictionary({}, signature="sv")),
     "org.rocmtune1.Error.InvalidArgument", "no knobs"),
    ("Apply with 'with' of the wrong type", lambda: m.Apply("rdna1-safe", {"with": dbus.Boolean(True)}),
     "org.rocmtune1.Error.InvalidArgument", "'with' must be a list of strings"),
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
call Plan 's' rdna1-safe >/dev/null 2>&1 && fail "Plan without its options succeeded"
call Describe >/dev/null || fail "the daemon stopped serving after bad arguments"

# Anyone may call; only root may own the name.
"${NOBODY[@]}" "${BUS[@]}" --json=short call org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager Describe | str \
  >"$WORK/describe-nobody.json" || fail "an unprivileged user cannot call Describe"
cmp "$WORK/describe.json" "$WORK/describe-nobody.json" || fail "an unprivileged user got another answer"
kill "$DPID"; wait "$DPID" 2>/dev/null
wait_name absent || fail "the name stayed after SIGTERM"
"${NOBODY[@]}" "$DAEMON" --root "$W" --idle-timeout 0 >"$WORK/daemon-nobody.log" 2>&1 &
npid=$!
PIDS+=("$npid")
for _ in $(seq 100); do kill -0 "$npid" 2>/dev/null || break; sleep 0.05; done
kill -0 "$npid" 2>/dev/null && fail "rocmtuned as nobody kept running: the policy let it own the name"
grep -q "cannot own org.rocmtune1" "$WORK/daemon-nobody.log" || fail "no clear error as nobody: $(cat "$WORK/daemon-nobody.log")"

# Idle exit: the name is given back, and a request after that is not lost (here: answered by a
# new instance, as bus activation would start one).
"$DAEMON" --root "$W" --idle-timeout 0.5 >"$WORK/daemon-idle.log" 2>&1 &
ipid=$!
PIDS+=("$ipid")
wait_name present || fail "rocmtuned (idle) did not take the name"
call Describe >/dev/null || fail "Describe on the idle-exiting daemon failed"
for _ in $(seq 100); do kill -0 "$ipid" 2>/dev/null || break; sleep 0.05; done
kill -0 "$ipid" 2>/dev/null && fail "rocmtuned did not exit after being idle"
wait "$ipid"; rc=$?
[ "$rc" = 0 ] || fail "idle exit status $rc"
wait_name absent || fail "the name stayed after the idle exit"
echo "PASS"
