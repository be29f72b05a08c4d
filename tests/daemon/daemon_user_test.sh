#!/bin/bash
# rocmtuned as its own user, not root, on a private system bus with a real
# polkitd and the helper behind its socket:
#   - the daemon runs as user rocmtune (a test uid, named so in a test /etc/passwd that the bus,
#     polkitd and the helper see in their mount namespaces, and in the world's etc/group, whose
#     group the helper gives its journal to), owns org.rocmtune1
#     under the shipped bus policy, and a change goes root -> daemon -> helper socket -> committed;
#   - a change by a user a polkit rule allows: the daemon, not root, asks polkit about its caller
#     (polkitd answers only root or an action owner: the policy's org.freedesktop.policykit.owner);
#   - the helper wrote its journal and lock 0640 root:rocmtune (directory 0750), and the daemon
#     answers History, Describe and Verify from it; another non-root user cannot read the records;
#   - the helper socket (0660 root:rocmtune, as rocmtune-helper.socket) serves the daemon's user,
#     and a process of another non-root uid, even through a socket opened to all, gets nothing;
#   - the daemon's process has uid rocmtune and no capabilities.
# usage: daemon_user_test.sh ROCMTUNED ROCMTUNECTL ROCMTUNE_HELPER SOURCE_DIR
set -u
DAEMON=$1 HELPER=$3 SRC=$4  # $2, rocmtunectl, is not used here (the tests share one argument list)
. "$SRC/tests/daemon/bus_fixture.sh"
command -v systemd-socket-activate >/dev/null || skip "systemd-socket-activate is needed to serve the helper socket"
[ -x /usr/lib/polkit-1/polkitd ] || skip "polkitd is not installed (package polkitd)"

# uids/gids no account uses here: the daemon's user, a user polkit allows Set, a stranger.
DAEMON_ID=64310 GRANTED=64312 STRANGER=64311
for id in $DAEMON_ID $GRANTED $STRANGER; do
  getent passwd $id >/dev/null && skip "uid $id is in use"
  getent group $id >/dev/null && skip "gid $id is in use"
done
getent passwd rocmtune >/dev/null && skip "this machine has a user rocmtune: the test's own would be shadowed"
cp /etc/passwd "$WORK/passwd"
cp /etc/group "$WORK/group"
printf 'rocmtune:x:%s:%s::/:/usr/sbin/nologin\nrtgranted:x:%s:%s::/nonexistent:/usr/sbin/nologin\n' \
  $DAEMON_ID $DAEMON_ID $GRANTED $GRANTED >>"$WORK/passwd"
printf 'rtstranger:x:%s:%s::/nonexistent:/usr/sbin/nologin\n' $STRANGER $STRANGER >>"$WORK/passwd"
printf 'rocmtune:x:%s:\nrtgranted:x:%s:\nrtstranger:x:%s:\n' $DAEMON_ID $GRANTED $STRANGER >>"$WORK/group"
cat >"$WORK/50-rocmtune-user.rules" <<'JS'
polkit.addRule(function(action, subject) {
  if (action.id == "org.rocmtune1.set" && subject.user == "rtgranted") return polkit.Result.YES;
});
JS
TEST_PASSWD=$WORK/passwd TEST_GROUP=$WORK/group
start_bus /usr/share/dbus-1/system.d
start_polkitd "$WORK/50-rocmtune-user.rules" || fail "polkitd did not start: $(cat "$WORK/polkitd.log")"
as_user() { local id=$1; shift; setpriv --reuid="$id" --regid="$id" --clear-groups -- "$@"; }

# The world: its etc/group has the daemon's group (the tree's own decides whom its files are
# given to). The helper's peer check reads the system's /etc/passwd: the test one, bound over it
# in the helper's mount namespace.
W=$WORK/world
cp -a "$SRC/tests/worlds/rx6600" "$W"
printf 'root:x:0:\nrocmtune:x:%s:\n' $DAEMON_ID >"$W/etc/group"
chmod -R a+rX "$W"
start_account_helper "$W" "$DAEMON_ID"

setpriv --reuid=$DAEMON_ID --regid=$DAEMON_ID --clear-groups -- "$DAEMON" --root "$W" --helper-socket "$WORK/helper.sock" --idle-timeout 0 >>"$WORK/daemon.log" 2>&1 &
DAEMON_PID=$!
PIDS+=("$DAEMON_PID")
wait_name present || fail "rocmtuned as user rocmtune did not take the name: $(cat "$WORK/daemon.log") $(cat "$WORK/bus.log")"
status=/proc/$DAEMON_PID/status
grep -q "^Uid:[[:space:]]*${DAEMON_ID}[[:space:]]" "$status" || fail "the daemon does not run as uid $DAEMON_ID: $(grep Uid "$status")"
grep -q '^CapEff:[[:space:]]*0000000000000000' "$status" || fail "the daemon has capabilities: $(grep Cap "$status")"
echo "ok: rocmtuned runs as uid $DAEMON_ID (rocmtune) with no capabilities and owns org.rocmtune1"

# Root applies a profile through the daemon: polkit is not asked for root, the helper takes the
# daemon's connection.
call Apply 'sa{sv}' rdna2-consumer-compat 0 | str >"$WORK/apply.json" ||
  fail "Apply through the rocmtune daemon failed: $(cat "$WORK/daemon.log") $(cat "$WORK/helper.log")"
txn=$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["changed"], d; print(d["transaction"])' \
  "$WORK/apply.json") || fail "Apply did not change anything: $(cat "$WORK/apply.json")"
grep -q HSA_OVERRIDE_GFX_VERSION "$W/etc/environment.d/90-rocmtune.conf" || fail "the Apply wrote no environment.d drop-in"
echo "ok: Apply as root through the daemon (user rocmtune) and the helper socket committed $txn"

# A user polkit allows Set: the daemon asks polkit about its caller, as a non-root action owner.
export PYTHONPATH=$PYDIR
as_user $GRANTED /usr/bin/python3 - <<'PY' || fail "Set by a user polkit allows failed: $(tail -5 "$WORK/daemon.log")"
import dbus, json
m = dbus.Interface(dbus.SystemBus().get_object("org.rocmtune1", "/org/rocmtune1"), "org.rocmtune1.Manager")
r = json.loads(m.Set({"amdgpu.noretry": "1"}, dbus.Dictionary({}, signature="sv"), timeout=60))
assert r["changed"] is True, r
print("ok: Set by rtgranted (a polkit rule), asked by the rocmtune daemon: transaction", r["transaction"])
PY
grep -q "noretry=1" "$W/etc/modprobe.d/rocmtune.conf" || fail "the Set did not reach the drop-in"

# The journal: root's, readable by group rocmtune only.
J=$W/var/lib/rocmtune/journal
[ "$(stat -c '%a %u %g' "$J")" = "750 0 $DAEMON_ID" ] || fail "journal directory: $(stat -c '%a %u %g' "$J")"
[ "$(stat -c '%a %u %g' "$W/var/lib/rocmtune/lock")" = "640 0 $DAEMON_ID" ] ||
  fail "lock: $(stat -c '%a %u %g' "$W/var/lib/rocmtune/lock")"
n=0
for f in "$J"/*.jsonl; do
  [ "$(stat -c '%a %u %g' "$f")" = "640 0 $DAEMON_ID" ] || fail "$f: $(stat -c '%a %u %g' "$f")"
  as_user $STRANGER cat "$f" >/dev/null 2>&1 && fail "another user ($STRANGER) reads $f"
  as_user $DAEMON_ID cat "$f" >/dev/null || fail "the daemon's user cannot read $f"
  n=$((n + 1))
done
[ "$n" -ge 2 ] || fail "expected the two transactions' records, found $n files"
echo "ok: $n journal records 0640 root:rocmtune in a 0750 directory; uid $STRANGER cannot read them"

# The daemon answers from the journal it reads as rocmtune.
"${NOBODY[@]}" "${BUS[@]}" --json=short call org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager History | str \
  >"$WORK/history.json" || fail "History failed: $(tail -5 "$WORK/daemon.log")"
grep -q "\"$txn\"" "$WORK/history.json" || fail "History does not show $txn: $(head -c 600 "$WORK/history.json")"
call Describe | str >"$WORK/describe.json" || fail "Describe failed"
grep -q '"profile": "rdna2-consumer-compat"' "$WORK/describe.json" ||
  fail "Describe does not show the applied profile: $(grep -m1 '"profile"' "$WORK/describe.json")"
call Verify | str >"$WORK/verify.json" || fail "Verify failed: $(tail -5 "$WORK/daemon.log")"
/usr/bin/python3 - "$WORK/verify.json" <<'PY' || fail "Verify did not check the changes from the journal: $(head -c 800 "$WORK/verify.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "rocmtune.verify.v1", d
# The active profile and the pending regeneration come from the journal's transactions.
assert d["active_profile"] == "rdna2-consumer-compat", d
assert any("transaction 2" in x["message"] for x in d["differences"]), d
assert "Permission denied" not in json.dumps(d), d
PY
echo "ok: History, Describe and Verify answered by the rocmtune daemon from the journal"

# The helper socket itself: the daemon's user is served, another non-root uid is not, even with
# the socket's mode opened to everyone.
ask() {  # ask UID: send "recover" to the helper as UID, print its reply
  printf 'recover\n' | as_user "$1" /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.stdin.buffer.read())
s.shutdown(socket.SHUT_WR); print(s.makefile("rb").read().decode(errors="replace"), end="")' "$WORK/helper.sock"
}
reply=$(ask $DAEMON_ID) || fail "the daemon's user could not talk to the helper"
echo "$reply" | grep -q '"schema": "rocmtune.helper.v1"' || fail "the helper did not answer the daemon's user: $reply"
ask $STRANGER >/dev/null 2>&1 && fail "uid $STRANGER connected to the 0660 root:rocmtune socket"
chmod 666 "$WORK/helper.sock"
before=$(cd "$W" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
reply=$(ask $STRANGER)
chmod 660 "$WORK/helper.sock"
[ -z "$reply" ] || fail "the helper answered uid $STRANGER: $reply"
sleep 0.2
grep -q "refused: the peer (uid $STRANGER) is not root and not the daemon's user rocmtune (uid $DAEMON_ID in /etc/passwd)" \
  "$WORK/helper.log" || fail "the helper did not say why it refused: $(cat "$WORK/helper.log")"
[ "$(cd "$W" && find . -type f -print0 | sort -z | xargs -0 sha256sum)" = "$before" ] || fail "a refused peer changed the world"
echo "ok: the helper serves uid $DAEMON_ID (rocmtune) and refuses uid $STRANGER: $(grep -m1 'refused: the peer' "$WORK/helper.log")"
echo PASS
