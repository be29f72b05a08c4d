#!/bin/bash
# Authorization before the change slot, and polkit seeing the whole change,
# with a real dbus-daemon, a real polkitd with rocmtune's actions and rules, the helper
# behind its socket, and test users only the bus and polkitd know:
#   - a profile-scoped rule ("rtprofile may apply instinct") does not let that user add optional
#     items (asked as org.rocmtune1.set) or force (org.rocmtune1.force); a rule that reads the
#     `with` detail does allow exactly that item: the details reach polkit; a rule that reads
#     `admin_lines` and `steps` allows Unset to comment out exactly etc/environment:2;
#   - an attacker whose polkit agent never answers holds an interactive change pending: root's
#     change through the daemon still goes through within seconds, the attacker's second request
#     is Busy at once (one pending authorization per caller), the agent's message names what
#     would change, and when the attacker's connection goes away polkit cancels the agent's dialog
#     (CancelCheckAuthorization) and the attacker may ask again.
# usage: daemon_authorization_test.sh ROCMTUNED ROCMTUNECTL ROCMTUNE_HELPER SOURCE_DIR
set -u
DAEMON=$1 HELPER=$3 SRC=$4  # $2, rocmtunectl, is not used here (the tests share one argument list)
. "$SRC/tests/daemon/bus_fixture.sh"
command -v systemd-socket-activate >/dev/null || skip "systemd-socket-activate is needed to serve the helper socket"
[ -x /usr/lib/polkit-1/polkitd ] || skip "polkitd is not installed (package polkitd)"
/usr/bin/python3 -c 'from gi.repository import GLib; import dbus.mainloop.glib' 2>/dev/null \
  || skip "python3-gi and python3-dbus are needed for the test's polkit agent"

PROFILE_USER=64321 WITH_USER=64322 ATTACKER=64323
for id in $PROFILE_USER $WITH_USER $ATTACKER; do
  getent passwd $id >/dev/null && skip "uid $id is in use"
  getent group $id >/dev/null && skip "gid $id is in use"
done
cp /etc/passwd "$WORK/passwd"
cp /etc/group "$WORK/group"
for u in rtprofile:$PROFILE_USER rtwith:$WITH_USER rtattacker:$ATTACKER; do
  printf '%s:x:%s:%s::/nonexistent:/usr/sbin/nologin\n' "${u%:*}" "${u#*:}" "${u#*:}" >>"$WORK/passwd"
  printf '%s:x:%s:\n' "${u%:*}" "${u#*:}" >>"$WORK/group"
done
cat >"$WORK/50-rocmtune-scoped.rules" <<'JS'
polkit.addRule(function(action, subject) {
  if (subject.user == "rtprofile" && action.id == "org.rocmtune1.apply" && action.lookup("profile") == "instinct")
    return polkit.Result.YES;
  if (subject.user == "rtwith" && action.id == "org.rocmtune1.set" && action.lookup("profile") == "instinct" &&
      action.lookup("with") == "mi-intel-iommu-on" && action.lookup("force") == "false")
    return polkit.Result.YES;
  // Unset --admin-lines: granted only when the details name the admin's file and line.
  if (subject.user == "rtwith" && action.id == "org.rocmtune1.set" && action.lookup("admin_lines") == "true" &&
      action.lookup("steps") == "comment out etc/environment:2")
    return polkit.Result.YES;
});
JS
TEST_PASSWD=$WORK/passwd TEST_GROUP=$WORK/group
start_bus /usr/share/dbus-1/system.d
start_polkitd "$WORK/50-rocmtune-scoped.rules" || fail "polkitd did not start: $(cat "$WORK/polkitd.log")"
as_user() { local id=$1; shift; setpriv --reuid="$id" --regid="$id" --groups="$id" -- "$@"; }
export PYTHONPATH=$PYDIR
PY=/usr/bin/python3

W=$WORK/world
cp -a "$SRC/tests/worlds/mi210x8" "$W"
start_helper "$HELPER" "$W"
start_daemon "$W"

# apply WHO EXPECT [with=ITEM] [force]: EXPECT is ok or denied:ACTION (a denial naming that action).
APPLY=$(cat <<'PY'
import json, sys, dbus
from busclient import manager, outcome, options, NOT_AUTHORIZED
expect, extra = sys.argv[1], sys.argv[2:]
opts = {}
for e in extra:
    if e.startswith("with="): opts["with"] = dbus.Array([e[5:]], signature="s")
    if e == "force": opts["force"] = dbus.Boolean(True)
name, text = outcome(lambda: manager().Apply("instinct", options(**opts), timeout=60))
what = f"Apply instinct {' '.join(extra)}"
if expect == "ok":
    assert not name, f"{what}: {name}: {text[:400]}"
    assert json.loads(text)["changed"] is True, text
    print(f"{what}: applied")
else:
    action = "org.rocmtune1." + expect.split(":")[1]
    assert name in NOT_AUTHORIZED, f"{what}: wanted a denial, got {name or 'success'}: {text[:400]}"
    assert action in text, f"{what}: the denial does not name {action}: {text[:400]}"
    print(f"{what}: {name} ({action})")
PY
)
apply() {
  local who=$1; shift
  local before; before=$(world_hash "$W")
  as_user "$who" "$PY" - "$@" <<<"$APPLY" || fail "as uid $who: apply $*"
  case $1 in denied:*) [ "$(world_hash "$W")" = "$before" ] || fail "a denied apply ($*) wrote to the world";; esac
}
reset_world() { call Reset >/dev/null || fail "root's Reset failed: $(tail -3 "$WORK/daemon.log")"; }

# 1. polkit sees the whole change.
apply $PROFILE_USER denied:set with=mi-intel-iommu-on
apply $PROFILE_USER denied:force force
apply $PROFILE_USER ok
reset_world
apply $WITH_USER ok with=mi-intel-iommu-on
reset_world
apply $WITH_USER denied:apply
apply $WITH_USER denied:force with=mi-intel-iommu-on force
echo "scoped rules: optional items and force need their own grant; the details reach polkit"

# Unset with admin_lines: the action is Unset's own (org.rocmtune1.set), the
# details name the admin's file:line, the line is commented out, and Reset puts it back.
printf 'LANG=C.UTF-8\nHSA_OVERRIDE_GFX_VERSION=9.0.10\n' >"$W/etc/environment"
as_user $WITH_USER "$PY" - <<'PY' || fail "Unset with admin_lines as rtwith"
import json, dbus
from busclient import manager, outcome, options
name, text = outcome(lambda: manager().Unset(dbus.Array(["env.HSA_OVERRIDE_GFX_VERSION"], signature="s"),
                                              options(admin_lines=dbus.Boolean(True)), timeout=60))
assert not name, f"{name}: {text[:400]}"
r = json.loads(text)
assert r["changed"] is True and [c["path"] for c in r["changes"]] == ["etc/environment"], text
print("Unset admin_lines: granted by a rule that reads etc/environment:2 from the details")
PY
[ "$(cat "$W/etc/environment")" = "$(printf 'LANG=C.UTF-8\n# rocmtune unset: HSA_OVERRIDE_GFX_VERSION=9.0.10')" ] \
  || fail "the admin's line was not commented out: $(cat "$W/etc/environment")"
reset_world
[ "$(cat "$W/etc/environment")" = "$(printf 'LANG=C.UTF-8\nHSA_OVERRIDE_GFX_VERSION=9.0.10')" ] \
  || fail "Reset did not put the admin's line back: $(cat "$W/etc/environment")"

# 2. The attacker: an interactive Set whose agent never answers. busctl waits for the agent to
# be registered for its process (the FIFO), then calls with interactive authorization allowed.
mkfifo "$WORK/go"
chmod 666 "$WORK/go"
# setpriv itself in the background (not a function: that would be a root subshell), so $! is the
# process that becomes busctl.
setpriv --reuid=$ATTACKER --regid=$ATTACKER --groups=$ATTACKER -- bash -c 'read -r _ <"$1"; exec busctl --system --allow-interactive-authorization=yes --timeout=300 call org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager Set "a{ss}a{sv}" 1 amdgpu.noretry 1 0' \
  _ "$WORK/go" >"$WORK/attacker.out" 2>&1 &
ATTACK_PID=$!
PIDS+=("$ATTACK_PID")
touch "$WORK/agent.log" && chmod 666 "$WORK/agent.log"
setpriv --reuid=$ATTACKER --regid=$ATTACKER --groups=$ATTACKER -- "$PY" "$PYDIR/silent_agent.py" "$ATTACK_PID" \
  "$WORK/agent.log" >"$WORK/agent.err" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do grep -q '"registered"' "$WORK/agent.log" && break; sleep 0.05; done
grep -q '"registered"' "$WORK/agent.log" || fail "the attacker's agent did not register: $(cat "$WORK/agent.err")"
echo go >"$WORK/go"
for _ in $(seq 200); do grep -q '"begin"' "$WORK/agent.log" && break; sleep 0.05; done
grep -q '"begin"' "$WORK/agent.log" \
  || fail "polkit never asked the attacker's agent: $(cat "$WORK/attacker.out") $(tail -3 "$WORK/daemon.log")"
"$PY" - "$WORK/agent.log" <<'PY' || fail "the agent's question does not say what would change"
import json, sys
begin = [json.loads(l) for l in open(sys.argv[1]) if '"begin"' in l][0]
assert begin["action"] == "org.rocmtune1.set", begin
for want in ("amdgpu.noretry", "etc/modprobe.d/"):
    assert want in begin["message"], (want, begin["message"])
print("the agent was asked:", begin["message"])
PY
kill -0 "$ATTACK_PID" 2>/dev/null || fail "the attacker's call ended: $(cat "$WORK/attacker.out")"

# Root's change while the attacker's question is open: through the daemon, within seconds.
out=$("${BUS[@]}" --timeout=15 --json=short call org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager Set 'a{ss}a{sv}' \
  1 amdgpu.noretry 0 0 2>&1) || fail "root's Set failed while the attacker's authorization was pending: $out"
echo "$out" | str | grep -q '"changed": true' || fail "root's Set did not change anything: $out"
echo "root's Set went through while the attacker's agent sat on its question"
grep -q '^options amdgpu noretry=0' "$W/etc/modprobe.d/rocmtune.conf" || fail "root's setting is not in the world"

# The attacker's second question while the first is pending: Busy at once.
out=$(as_user $ATTACKER busctl --system --timeout=10 call org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager Set \
  'a{ss}a{sv}' 1 amdgpu.noretry 1 0 2>&1) && fail "the attacker's second request succeeded: $out"
echo "$out" | grep -qi "already waiting" || fail "the attacker's second request was not refused as pending: $out"
echo "second request from the attacker: $out"

# The attacker goes away: polkit's dialog is cancelled, and the attacker may ask again.
kill "$ATTACK_PID"
for _ in $(seq 200); do grep -q '"cancel"' "$WORK/agent.log" && break; sleep 0.05; done
grep -q '"cancel"' "$WORK/agent.log" || fail "polkit did not cancel the agent's dialog when the caller went away"
out=$(as_user $ATTACKER busctl --system --timeout=10 call org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager Set \
  'a{ss}a{sv}' 1 amdgpu.noretry 1 0 2>&1) && fail "the attacker's request succeeded: $out"
echo "$out" | grep -qi "already waiting" && fail "the attacker's question is still pending after it went away: $out"
grep -q '^options amdgpu noretry=0' "$W/etc/modprobe.d/rocmtune.conf" || fail "the attacker changed the world"
echo "the attacker's question ended with its connection; asked again, it is denied: $out"
echo "PASS"
