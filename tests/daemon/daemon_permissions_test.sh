#!/bin/bash
# Who may do what through rocmtuned (a real dbus-daemon with rocmtune's policy, a real polkitd
# with rocmtune's actions, the helper behind its socket):
#   - every read (Describe, ListProfiles, ShowProfile, Doctor, History, Plan, the properties, GetAll,
#     Introspect) and
#     every change with check=true answers an unprivileged user as it answers root, and writes nothing;
#   - each change (Apply, Set, Unset, Revert by id and last, Reset) that would write something is
#     denied to that user with AccessDenied / InteractiveAuthorizationRequired naming its polkit
#     action, and the whole tree (journal included) stays byte for byte;
#   - root may do each one (never asked), and so may a member of a group a polkit rule grants;
#     a group granted org.rocmtune1.set only may Set but not Apply or Reset;
#   - none of these users may own org.rocmtune1.
# The test users and groups exist only for the bus and polkitd (their own /etc/passwd, /etc/group).
#   - one change is one question to polkit, also when it first rolls back an interrupted
#     transaction (a user polkit allows once must not be asked again, nor typed a password twice).
# usage: daemon_permissions_test.sh ROCMTUNED ROCMTUNECTL ROCMTUNE_HELPER FAULT_HELPER SOURCE_DIR
set -u
DAEMON=$1 CTL=$2 HELPER=$3 FAULT_HELPER=$4 SRC=$5
. "$SRC/tests/daemon/bus_fixture.sh"
command -v systemd-socket-activate >/dev/null || skip "systemd-socket-activate is needed to serve the helper socket"
[ -x /usr/lib/polkit-1/polkitd ] || skip "polkitd is not installed (package polkitd)"

# uids/gids no account uses here: a granted user (group rocmtune-test), a set-only user, and a
# user polkit allows once.
GRANTED=64301 SETTER=64302 ONCE=64303
for id in $GRANTED $SETTER $ONCE; do
  getent passwd $id >/dev/null && skip "uid $id is in use"
  getent group $id >/dev/null && skip "gid $id is in use"
done
cp /etc/passwd "$WORK/passwd"
cp /etc/group "$WORK/group"
for u in rtgranted:$GRANTED rtsetter:$SETTER rtonce:$ONCE; do
  printf '%s:x:%s:%s::/nonexistent:/usr/sbin/nologin\n' "${u%:*}" "${u#*:}" "${u#*:}" >>"$WORK/passwd"
done
printf 'rocmtune-test:x:%s:\nrocmtune-setters:x:%s:\nrtonce:x:%s:\n' $GRANTED $SETTER $ONCE >>"$WORK/group"
cat >"$WORK/50-rocmtune-groups.rules" <<'JS'
var rtonce_asked = 0;
polkit.addRule(function(action, subject) {
  if (action.id.indexOf("org.rocmtune1.") == 0 && subject.user == "rtonce")
    return ++rtonce_asked == 1 ? polkit.Result.YES : polkit.Result.NO;
  if (action.id.indexOf("org.rocmtune1.") == 0 && subject.isInGroup("rocmtune-test")) return polkit.Result.YES;
  if (action.id == "org.rocmtune1.set" && subject.isInGroup("rocmtune-setters")) return polkit.Result.YES;
});
JS
TEST_PASSWD=$WORK/passwd TEST_GROUP=$WORK/group
start_bus /usr/share/dbus-1/system.d
start_polkitd "$WORK/50-rocmtune-groups.rules" \
  || fail "polkitd did not start: $(cat "$WORK/polkitd.log")"
as_user() { local id=$1; shift; setpriv --reuid="$id" --regid="$id" --groups="$id" -- "$@"; }

W=$WORK/world
cp -a "$SRC/tests/worlds/rx6600" "$W"
chmod 755 "$WORK"
start_helper "$HELPER" "$W"
start_daemon "$W"
export PYTHONPATH=$PYDIR
PY=/usr/bin/python3

# run_as WHO SCRIPT: the caller's part; WHO is root, nobody, or a uid.
run_as() {
  local who=$1; shift
  case $who in
    root) "$PY" - "$@" ;;
    nobody) "${NOBODY[@]}" "$PY" - "$@" ;;
    *) as_user "$who" "$PY" - "$@" ;;
  esac
}

# Reads: the same answers for nobody as for root (what each caller sees written to a file).
READS=$(cat <<'PY'
import json, sys, dbus
from busclient import manager, properties, options
m, p = manager(), properties()
obj = dbus.SystemBus().get_object("org.rocmtune1", "/org/rocmtune1", introspect=False)
out = {
  "Describe": m.Describe(),
  "ListProfiles": m.ListProfiles(),
  "ShowProfile": m.ShowProfile("stock"),
  "Doctor": m.Doctor(""),
  "History": m.History(),
  "Plan": m.Plan("rdna1-safe", options(force=dbus.Boolean(True))),
  "Version": str(p.Get("org.rocmtune1.Manager", "Version")),
  "ActiveProfile": str(p.Get("org.rocmtune1.Manager", "ActiveProfile")),
  "PendingReboot": bool(p.Get("org.rocmtune1.Manager", "PendingReboot")),
  "GetAll": sorted(str(k) for k in p.GetAll("org.rocmtune1.Manager")),
  "Introspect": dbus.Interface(obj, "org.freedesktop.DBus.Introspectable").Introspect(),
  "Apply check": m.Apply("rdna2-consumer-compat", options(check=dbus.Boolean(True))),
  "Set check": m.Set(dbus.Dictionary({"amdgpu.noretry": "1"}, signature="ss"), options(check=dbus.Boolean(True))),
  "Unset check": m.Unset(["amdgpu.noretry"], options(check=dbus.Boolean(True))),
}
for k in ("Apply check", "Set check", "Unset check"):
    assert json.loads(out[k])["check"] is True, (k, out[k])
json.dump(out, sys.stdout, indent=1, sort_keys=True)
PY
)

# change WHO METHOD EXPECT ARGS...: one change by WHO; EXPECT is "ok" (changed, a transaction),
# "unchanged", or "denied:ACTION" (a not-authorized error naming the polkit action).
CHANGE=$(cat <<'PY'
import json, sys, dbus
from busclient import manager, outcome, EMPTY_OPTIONS, NOT_AUTHORIZED
method, expect, args = sys.argv[1], sys.argv[2], sys.argv[3:]
m = manager()
calls = {
  "Apply": lambda: m.Apply(args[0], EMPTY_OPTIONS, timeout=60),
  "Set": lambda: m.Set(dbus.Dictionary(dict(a.split("=", 1) for a in args), signature="ss"), EMPTY_OPTIONS, timeout=60),
  "Unset": lambda: m.Unset(dbus.Array(args, signature="s"), EMPTY_OPTIONS, timeout=60),
  "Revert": lambda: m.Revert(args[0] if args else "", timeout=60),
  "Reset": lambda: m.Reset(timeout=60),
}
name, text = outcome(calls[method])
what = f"{method} {' '.join(args)}"
if expect == "ok":
    assert not name, f"{what}: {name}: {text}"
    r = json.loads(text)
    assert r["changed"] is True and r["transaction"], f"{what}: {text}"
    print(f"{what}: transaction {r['transaction']}")
elif expect == "unchanged":
    assert not name and json.loads(text)["changed"] is False, f"{what}: {name} {text}"
else:
    action = "org.rocmtune1." + expect.split(":")[1]
    assert name in NOT_AUTHORIZED, f"{what}: wanted a denial, got {name or 'success'}: {text[:300]}"
    assert action in text, f"{what}: the denial does not name {action}: {text[:300]}"
    print(f"{what}: {name}")
PY
)
change() {
  local who=$1; shift
  local before; before=$(world_hash "$W")
  run_as "$who" "$@" <<<"$CHANGE" || fail "as $who: $*"
  case $2 in denied:*|unchanged) [ "$(world_hash "$W")" = "$before" ] || fail "as $who, '$*' wrote to the world";; esac
}

# Root: each change, never asking polkit (root is not asked even with polkitd running).
change root Apply ok rdna2-consumer-compat
change root Set ok amdgpu.noretry=1
change root Unset ok amdgpu.noretry
change root Revert ok ""
change root Reset ok
reset_id=$("$CTL" --root "$W" history --json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["transactions"][-1]["id"])') \
  || fail "cannot read the reset's transaction id"

# Reads and checks: nobody sees what root sees, and nothing is written.
before=$(world_hash "$W")
run_as root <<<"$READS" >"$WORK/reads-root.json" || fail "reads as root"
run_as nobody <<<"$READS" >"$WORK/reads-nobody.json" || fail "reads as nobody"
run_as $GRANTED <<<"$READS" >"$WORK/reads-granted.json" || fail "reads as a granted user"
cmp "$WORK/reads-root.json" "$WORK/reads-nobody.json" || fail "nobody's reads differ from root's"
cmp "$WORK/reads-root.json" "$WORK/reads-granted.json" || fail "a granted user's reads differ from root's"
[ "$(world_hash "$W")" = "$before" ] || fail "reads or checks wrote to the world"

# Now stock (after the Reset): nobody may not apply, set, or revert the reset (by id or last).
change nobody Apply denied:apply rdna2-consumer-compat
change nobody Set denied:set amdgpu.noretry=1
change nobody Revert denied:revert ""
change nobody Revert denied:revert "$reset_id"
change nobody Reset unchanged  # stock already: nothing to authorize
# The set-only group: Set yes, Apply no.
change $SETTER Apply denied:apply rdna2-consumer-compat
change $SETTER Set ok amdgpu.noretry=1
# The granted group: every change.
change $GRANTED Apply ok rdna2-consumer-compat
change $GRANTED Set ok amdgpu.noretry=0
# Something to unset, revert and reset: nobody and the set-only user are denied.
change nobody Unset denied:set amdgpu.noretry
change nobody Reset denied:revert
change nobody Revert denied:revert ""
change $SETTER Reset denied:revert
change $SETTER Revert denied:revert ""
change nobody Apply denied:apply stock
# busctl allows interactive authorization (no agent runs here): still denied, nothing written.
before=$(world_hash "$W")
out=$("${NOBODY[@]}" "${BUS[@]}" --allow-interactive-authorization=yes --timeout=30 call org.rocmtune1 /org/rocmtune1 \
  org.rocmtune1.Manager Reset 2>&1) && fail "an interactive Reset as nobody succeeded: $out"
echo "interactive Reset as nobody: $out" | head -c 300; echo
[ "$(world_hash "$W")" = "$before" ] || fail "an interactive Reset as nobody wrote to the world"
change $GRANTED Unset ok amdgpu.noretry
change $GRANTED Revert ok ""
change $GRANTED Reset ok

# Owning the name is root's alone, polkit rules or not (the daemon holds it now; the policy
# check comes first either way).
for who in nobody $GRANTED $SETTER; do
  run_as "$who" <<'PY' || fail "$who could ask for org.rocmtune1"
import dbus, sys
try:
    dbus.SystemBus().request_name("org.rocmtune1", dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
    sys.exit("RequestName succeeded")
except dbus.DBusException as e:
    assert e.get_dbus_name() == "org.freedesktop.DBus.Error.AccessDenied", e.get_dbus_name()
PY
done
# An interrupted transaction (the helper killed at its first rename), then a change by the user
# polkit allows once: the roll-back and the change are one authorization.
[ -x "$FAULT_HELPER" ] || fail "no rocmtune-fault-helper at $FAULT_HELPER"
cp -a "$W" "$WORK/count" && ROCMTUNE_HELPER=$FAULT_HELPER ROCMTUNE_FAULT_LOG=$WORK/steps.log \
  "$CTL" --root "$WORK/count" set amdgpu.noretry=1 >/dev/null || fail "counting the steps failed"
n=$(awk '$2 == "rename" { print $1; exit }' "$WORK/steps.log")
ROCMTUNE_HELPER=$FAULT_HELPER ROCMTUNE_FAULT=kill:$n "$CTL" --root "$W" set amdgpu.noretry=1 >/dev/null 2>&1 \
  && fail "the fault helper did not die at step $n"
"$CTL" --root "$W" history --json | grep -q '"state": "interrupted"' || fail "no interrupted transaction"
change $ONCE Set ok amdgpu.noretry=1
"$CTL" --root "$W" history --json | grep -q '"state": "interrupted"' && fail "the interrupted transaction is still there"

kill -0 "$DAEMON_PID" || fail "rocmtuned died: $(cat "$WORK/daemon.log")"
echo PASS
