#!/bin/bash
# Changes through rocmtuned on a private system bus: the daemon writes nothing itself, every
# write goes to rocmtune-helper through its socket (served here as systemd serves
# rocmtune-helper.socket: systemd-socket-activate --accept --inetd, one helper per connection),
# and polkit (a real polkitd on the same bus) decides for callers other than root.
#   - root applies a profile: the world ends as `rocmtunectl apply` leaves a copy, the reply is
#     the result document, TransactionCommitted is emitted, ActiveProfile follows;
#   - a request that changes nothing replies without asking polkit (no polkitd running then);
#   - nobody, not allowed by polkit: AccessDenied / InteractiveAuthorizationRequired, nothing written;
#   - nobody, allowed by a polkit rule: the change goes through;
#   - while a change waits for the helper, reads are answered and a second change gets Busy.
# usage: daemon_change_test.sh ROCMTUNED ROCMTUNECTL ROCMTUNE_HELPER SOURCE_DIR
set -u
DAEMON=$1 CTL=$2 HELPER=$3 SRC=$4
. "$SRC/tests/daemon/bus_fixture.sh"
command -v systemd-socket-activate >/dev/null || skip "systemd-socket-activate is needed to serve the helper socket"
[ -x /usr/lib/polkit-1/polkitd ] || skip "polkitd is not installed (package polkitd)"
start_bus /usr/share/dbus-1/system.d

tree() { (cd "$1" && find . -path ./var/lib/rocmtune -prune -o -type f -print0 | sort -z | xargs -0 sha256sum); }

W=$WORK/world
cp -a "$SRC/tests/worlds/rx6600" "$W"
cp -a "$W" "$WORK/expected"
"$CTL" --root "$WORK/expected" apply rdna2-consumer-compat --json >"$WORK/expected.json" || fail "rocmtunectl apply on the copy failed"

ssa_marks
systemd-socket-activate -l "$WORK/helper.sock" --accept --inetd "${SSA_MARKS[@]}" "$HELPER" --root "$W" socket \
  >"$WORK/helper.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do [ -S "$WORK/helper.sock" ] && break; sleep 0.05; done
chmod 600 "$WORK/helper.sock"
"$DAEMON" --root "$W" --helper-socket "$WORK/helper.sock" --idle-timeout 0 >"$WORK/daemon.log" 2>&1 &
PIDS+=($!)
wait_name present || fail "rocmtuned did not take the name: $(cat "$WORK/daemon.log")"
dbus-monitor --system "type='signal',interface='org.rocmtune1.Manager'" \
  "type='signal',interface='org.freedesktop.DBus.Properties'" >"$WORK/signals.log" 2>&1 &
PIDS+=($!)
sleep 0.3

# Root applies a profile (polkit is not running: root is never asked).
call Apply 'sa{sv}' rdna2-consumer-compat 0 | str >"$WORK/apply.json" || fail "Apply as root failed: $(cat "$WORK/daemon.log")"
/usr/bin/python3 - "$WORK/apply.json" "$WORK/expected.json" <<'PY' || fail "Apply's result differs from rocmtunectl's"
import json, sys
got, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert got["changed"] is True and got["check"] is False, got
assert got["transaction"], got
for k in ("changes", "refused", "reboot_required"):
    assert got[k] == want[k], (k, got[k], want[k])
PY
[ "$(tree "$W")" = "$(tree "$WORK/expected")" ] || fail "the world differs from the one rocmtunectl apply made"
txn=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["transaction"])' "$WORK/apply.json")
sleep 0.3
grep -q "member=TransactionCommitted" "$WORK/signals.log" || fail "no TransactionCommitted signal"
grep -q "\"$txn\"" "$WORK/signals.log" || fail "TransactionCommitted does not carry $txn"
grep -q '"ActiveProfile"' "$WORK/signals.log" || fail "no PropertiesChanged for ActiveProfile"
"${BUS[@]}" get-property org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager ActiveProfile | grep -qx 's "rdna2-consumer-compat"' \
  || fail "ActiveProfile is not rdna2-consumer-compat after Apply"

# Nothing to change: the reply comes without polkit (which is not running), even for nobody.
"${NOBODY[@]}" "${BUS[@]}" --json=short call org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager Apply 'sa{sv}' \
  rdna2-consumer-compat 0 | str >"$WORK/again.json" || fail "an unchanged Apply as nobody was refused"
grep -q '"changed": false' "$WORK/again.json" || fail "an unchanged Apply reported a change"

# nobody, polkit running with rocmtune's actions (auth_admin): no change, a typed error.
cat >"$WORK/50-rocmtune-test.rules" <<'JS'
polkit.addRule(function(action, subject) {
  if (action.id == "org.rocmtune1.set" && subject.user == "nobody") return polkit.Result.YES;
});
JS
start_polkitd "$WORK/50-rocmtune-test.rules" || fail "polkitd did not start: $(cat "$WORK/polkitd.log")"
before=$(tree "$W")
"${NOBODY[@]}" /usr/bin/python3 - <<'PY' || fail "nobody's revert was not refused as expected"
import dbus, sys
m = dbus.Interface(dbus.SystemBus().get_object("org.rocmtune1", "/org/rocmtune1"), "org.rocmtune1.Manager")
try:
    m.Reset()
    sys.exit("Reset as nobody succeeded")
except dbus.DBusException as e:
    import json; print("Reset as nobody:", e.get_dbus_name(), json.loads(e.get_dbus_message())["errors"])
    # No session here, so polkit's allow_any (auth_admin) applies: it would ask for a password,
    # and this call did not allow interaction.
    sys.exit(0 if e.get_dbus_name() == "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired" else 1)
PY
[ "$(tree "$W")" = "$before" ] || fail "a refused Reset changed the world"

# nobody, allowed org.rocmtune1.set by a polkit rule: the change goes through the helper.
"${NOBODY[@]}" /usr/bin/python3 - <<'PY' || fail "nobody's Set allowed by polkit failed"
import dbus, json
m = dbus.Interface(dbus.SystemBus().get_object("org.rocmtune1", "/org/rocmtune1"), "org.rocmtune1.Manager")
r = json.loads(m.Set({"amdgpu.noretry": "1"}, dbus.Dictionary({}, signature="sv"), timeout=60))
assert r["changed"] is True, r
print("Set as nobody (polkit rule): transaction", r["transaction"])
PY
grep -q "noretry=1" "$W/etc/modprobe.d/rocmtune.conf" || fail "the Set did not reach the drop-in"

# The helper's own fence: a peer that is not root gets nothing, even through an open socket mode.
chmod 666 "$WORK/helper.sock"
before=$(tree "$W")
reply=$(printf 'recover\n' | "${NOBODY[@]}" /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.stdin.buffer.read())
s.shutdown(socket.SHUT_WR); print(s.makefile("rb").read().decode(errors="replace"), end="")' "$WORK/helper.sock")
chmod 600 "$WORK/helper.sock"
[ -z "$reply" ] || fail "the helper answered a peer that is not root: $reply"
sleep 0.2
grep -q "is not root" "$WORK/helper.log" || fail "the helper did not say why it refused: $(cat "$WORK/helper.log")"
[ "$(tree "$W")" = "$before" ] || fail "a refused peer changed the world"

# A helper that does not answer: reads are still served, a second change is Busy, and the
# first change fails with a message once the helper goes away.
cat >"$WORK/stuck_helper.py" <<'PY'
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)
conn, _ = s.accept()
while not os.path.exists(sys.argv[2]): time.sleep(0.05)
conn.close()
PY
/usr/bin/python3 "$WORK/stuck_helper.py" "$WORK/stuck.sock" "$WORK/release" &
PIDS+=($!)
for _ in $(seq 100); do [ -S "$WORK/stuck.sock" ] && break; sleep 0.05; done
kill "$(pgrep -f "rocmtuned --root $W --helper-socket $WORK/helper.sock")" 2>/dev/null
wait_name absent || fail "the first daemon did not stop"
"$DAEMON" --root "$W" --helper-socket "$WORK/stuck.sock" --idle-timeout 0.2 >"$WORK/daemon2.log" 2>&1 &
D2=$!
PIDS+=("$D2")
wait_name present || fail "the second daemon did not start"
# The first change, from another process (a busctl that waits up to 60 s for its reply).
"${BUS[@]}" --timeout=60 call org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager Set 'a{ss}a{sv}' 1 amdgpu.noretry 0 0 \
  >"$WORK/first.out" 2>&1 &
first=$!
sleep 1  # longer than the idle timeout: the daemon must not leave with a change running
kill -0 "$D2" 2>/dev/null || fail "the daemon exited for being idle while a change was running"
start=$(date +%s%N)
call Describe >/dev/null || fail "Describe failed while a change was running"
took=$(( ($(date +%s%N) - start) / 1000000 ))
echo "Describe while a change waits for the helper: $took ms"
[ "$took" -lt 5000 ] || fail "reads wait for the change ($took ms)"
out=$(call Reset 2>&1) && fail "a second change ran while one was running"
echo "second change: $out"
echo "$out" | grep -qi "another change is running" || fail "the second change was not refused as busy: $out"
kill -0 "$first" 2>/dev/null || fail "the first change ended before the helper answered: $(cat "$WORK/first.out")"
touch "$WORK/release"
wait "$first" && fail "the first change succeeded without a helper reply"
echo "first change: $(cat "$WORK/first.out")"
grep -q "without a result" "$WORK/first.out" || fail "the first change's error does not say what happened"
echo PASS
