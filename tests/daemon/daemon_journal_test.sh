#!/bin/bash
# rocmtuned's journal entries carry who asked: in a private mount and pid namespace with its own
# systemd-journald (tmpfs on /run/systemd, /run/log, /var/log/journal), a private bus, the helper
# behind its socket and, for the refusal, a real polkitd with rocmtune's actions and no rule:
#   - root's Apply is one `applied` entry with ROCMTUNE_CALLER_UID=0 and the reply's transaction;
#   - nobody's Reset, which polkit does not allow without a password, is one `refused` entry with
#     nobody's uid and the reason, and nothing is written;
#   - a flood from nobody is not a flood of root's journal: 200 requests refused before polkit is
#     asked (an invalid value, nothing to change) make no entry at all, and 30 more polkit denials
#     make at most RefusalLimiter::kBurst entries for that uid in all (daemon/refusal_limiter.h).
# Skips (77) with the reason where journald, dbus, polkitd or root are missing.
# usage: daemon_journal_test.sh ROCMTUNED ROCMTUNECTL ROCMTUNE_HELPER SOURCE_DIR
set -u
if [ "${1:-}" != --inside ]; then
  [ "$(id -u)" = 0 ] || { echo "SKIP: needs root: a private /run/systemd/journal and the bus policy"; exit 77; }
  command -v unshare >/dev/null || { echo "SKIP: unshare (util-linux) is needed"; exit 77; }
  unshare -m -p -f --mount-proc true 2>/dev/null || { echo "SKIP: cannot make a mount and pid namespace here"; exit 77; }
  exec unshare -m -p -f --mount-proc "$0" --inside "$@"
fi
shift
DAEMON=$1 HELPER=$3 SRC=$4  # $2, rocmtunectl, is not used here (the tests share one argument list)
. "$SRC/tests/daemon/bus_fixture.sh"
command -v systemd-socket-activate >/dev/null || skip "systemd-socket-activate is needed to serve the helper socket"
[ -x /usr/lib/polkit-1/polkitd ] || skip "polkitd is not installed (package polkitd)"
command -v journalctl >/dev/null || skip "journalctl is not installed (package systemd)"
JOURNALD=""
for j in /lib/systemd/systemd-journald /usr/lib/systemd/systemd-journald; do [ -x "$j" ] && JOURNALD=$j && break; done
[ -n "$JOURNALD" ] || skip "systemd-journald is not installed"

mount --make-rprivate / || fail "cannot make the mounts private"
for d in /run/systemd /run/log /var/log/journal; do
  [ -d "$d" ] || [ "$d" = /run/log ] || continue
  mkdir -p "$d" && mount -t tmpfs tmpfs "$d" || fail "cannot mount a tmpfs on $d"
done
mkdir -p /run/systemd/journal /run/log/journal
"$JOURNALD" >"$WORK/journald.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do [ -S /run/systemd/journal/socket ] && break; sleep 0.05; done
[ -S /run/systemd/journal/socket ] || skip "systemd-journald does not start here: $(head -c 300 "$WORK/journald.log")"
entries() { journalctl -D /run/log/journal -o json --no-pager SYSLOG_IDENTIFIER=rocmtune "$@" 2>/dev/null; }
# wait_entries N FILTER...: until N entries match (journald reads its socket asynchronously).
wait_entries() {
  local n=$1
  shift
  for _ in $(seq 100); do [ "$(entries "$@" | grep -c .)" -ge "$n" ] && return 0; sleep 0.05; done
  return 1
}

start_bus /usr/share/dbus-1/system.d
W=$WORK/world
cp -a "$SRC/tests/worlds/rx6600" "$W"
start_helper "$HELPER" "$W"
start_daemon "$W"

call Apply 'sa{sv}' rdna2-consumer-compat 0 | str >"$WORK/apply.json" || fail "Apply as root failed: $(cat "$WORK/daemon.log")"
txn=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["transaction"])' "$WORK/apply.json")
wait_entries 1 ROCMTUNE_EVENT=applied || fail "no applied entry for root's Apply"
entries ROCMTUNE_EVENT=applied >"$WORK/applied.jsonl"

start_polkitd || fail "polkitd did not start: $(cat "$WORK/polkitd.log")"
before=$(cd "$W" && find . -path ./var/lib/rocmtune -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
"${NOBODY[@]}" /usr/bin/python3 - <<'PY' || fail "nobody's Reset was not refused as expected"
import dbus, sys
m = dbus.Interface(dbus.SystemBus().get_object("org.rocmtune1", "/org/rocmtune1"), "org.rocmtune1.Manager")
try:
    m.Reset()
    sys.exit("Reset as nobody succeeded")
except dbus.DBusException as e:
    print("Reset as nobody:", e.get_dbus_name())
PY
after=$(cd "$W" && find . -path ./var/lib/rocmtune -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
[ "$before" = "$after" ] || fail "a refused Reset changed the world"
wait_entries 1 ROCMTUNE_EVENT=refused || fail "no refused entry for nobody's Reset"
entries ROCMTUNE_EVENT=refused >"$WORK/refused.jsonl"

/usr/bin/python3 - "$WORK" "$txn" "$(id -u nobody)" "$W" <<'PY' || fail "the entries do not say who asked (above)"
import json, sys
work, txn, nobody, world = sys.argv[1:5]
applied = [json.loads(l) for l in open(f"{work}/applied.jsonl") if l.strip()]
refused = [json.loads(l) for l in open(f"{work}/refused.jsonl") if l.strip()]
assert len(applied) == 1, applied
assert len(refused) == 1, refused
a, r = applied[0], refused[0]
for name, want in (("ROCMTUNE_CALLER_UID", "0"), ("ROCMTUNE_TRANSACTION", txn), ("ROCMTUNE_PROFILE", "rdna2-consumer-compat"),
                   ("ROCMTUNE_ROOT", world), ("MESSAGE_ID", "31b17bd470574ca58f0e00961cc198c9")):
    assert a.get(name) == want, ("applied", name, a.get(name), want)
for name, want in (("ROCMTUNE_CALLER_UID", nobody), ("ROCMTUNE_VERB", "reset"), ("ROCMTUNE_ROOT", world),
                   ("MESSAGE_ID", "f969897a3172464b968415ceaccb55c1")):
    assert r.get(name) == want, ("refused", name, r.get(name), want)
assert "ROCMTUNE_TRANSACTION" not in r, r
reason = r.get("ROCMTUNE_REASON")
reason = reason[0] if isinstance(reason, list) else reason
assert reason and "org.rocmtune1.revert" in reason, reason
print(f"applied by uid 0 (transaction {txn}); refused for uid {nobody}: {reason}")
PY

# The flood, from one connection (as a script would send it).
"${NOBODY[@]}" env PYTHONPATH="$PYDIR" /usr/bin/python3 - <<'PY' || fail "the flood did not go as expected"
import dbus
from busclient import manager, outcome, EMPTY_OPTIONS, NOT_AUTHORIZED
m = manager()
names = {}
for i in range(100):
    # refused by validation: not a value amdgpu.noretry takes
    name, _ = outcome(lambda: m.Set(dbus.Dictionary({"amdgpu.noretry": f"bogus{i}"}, signature="ss"), EMPTY_OPTIONS))
    names[name] = names.get(name, 0) + 1
    # nothing to change: the machine is stock for this key
    name, _ = outcome(lambda: m.Unset(dbus.Array(["amdgpu.lockup_timeout"], signature="s"), EMPTY_OPTIONS))
    names[name] = names.get(name, 0) + 1
for i in range(30):
    name, _ = outcome(lambda: m.Reset())
    names[name] = names.get(name, 0) + 1
print("flood answers:", names)
assert names.get("org.rocmtune1.Error.Refused") == 100, names
assert names.get("") == 100, names
assert sum(names.get(n, 0) for n in NOT_AUTHORIZED) == 30, names
PY
sleep 0.5  # journald reads its socket asynchronously; the count below may only grow
n=$(entries ROCMTUNE_EVENT=refused | grep -c .)
echo "refused entries after the flood: $n"
[ "$n" -le 5 ] || fail "$n refused entries for one caller's flood (want at most 5: RefusalLimiter::kBurst)"
[ "$n" -ge 2 ] || fail "the polkit denials of the flood were not logged at all ($n entries)"
entries ROCMTUNE_EVENT=refused | grep -q bogus && fail "a request refused before polkit was logged"
echo "PASS"
