#!/bin/bash
# rocmtunectl's journal entries through libsystemd's real client path (sd_journal_sendv to
# /run/systemd/journal/socket), received by the real systemd-journald and read with journalctl.
# It runs in a private mount and pid namespace (unshare -m -p -f): tmpfs on /run/systemd,
# /run/log and /var/log/journal, so the host's journal (or its absence) plays no part, and
# journald ends with the namespace. Where systemd-journald cannot run there, a small receiver
# of journald's native protocol (KEY=VALUE lines, and the length-prefixed form for values with
# a newline) takes its socket instead, and the `journalctl -x` part is skipped; the test says
# which one it used.
#
# On a copy of a world: apply PROFILE, set (a module option and a runtime sysfs attribute),
# revert last, reset, an apply the machine does not fit (refused), a set whose helper is killed
# (failed; the next set rolls it back: recovered, applied), and a set over a file edited by hand
# (drift, refused). Each must be exactly one entry with its kind's MESSAGE_ID
# (read from core/api/events.cc), the transaction of the result document, the profile, keys,
# card and root; then `journalctl -x` explains each with the catalog (catalog/rocmtune.catalog).
# usage: journald_test.sh ROCMTUNECTL FAULT_HELPER SOURCE_DIR
set -u
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

if [ "${1:-}" != --inside ]; then
  [ "$(id -u)" = 0 ] || skip "needs root: a mount namespace with its own /run/systemd/journal"
  command -v unshare >/dev/null || skip "unshare (util-linux) is needed for a private /run/systemd/journal"
  [ -x /usr/bin/python3 ] || skip "/usr/bin/python3 is needed to read the entries"
  command -v journalctl >/dev/null || skip "journalctl is not installed (package systemd)"
  unshare -m -p -f --mount-proc true 2>/dev/null || skip "cannot make a mount and pid namespace here"
  exec unshare -m -p -f --mount-proc "$0" --inside "$@"
fi
shift
CTL=$1 FAULT_HELPER=$2 SRC=$3

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rocmtune-journald-XXXXXX")
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

mount --make-rprivate / || fail "cannot make the mounts private"
for d in /run/systemd /run/log /var/log/journal; do
  [ -d "$d" ] || [ "$d" = /run/log ] || continue
  mkdir -p "$d" && mount -t tmpfs tmpfs "$d" || fail "cannot mount a tmpfs on $d"
done
mkdir -p /run/systemd/journal /run/log/journal

MODE=""
JOURNALD=""
for j in /lib/systemd/systemd-journald /usr/lib/systemd/systemd-journald; do [ -x "$j" ] && JOURNALD=$j && break; done
# ROCMTUNE_TEST_JOURNAL_RECEIVER=1 takes the receiver even where journald runs (to test the test).
[ "${ROCMTUNE_TEST_JOURNAL_RECEIVER:-}" = 1 ] && JOURNALD=""
if [ -n "$JOURNALD" ]; then
  "$JOURNALD" >"$WORK/journald.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 100); do [ -S /run/systemd/journal/socket ] && break; sleep 0.05; done
  if [ -S /run/systemd/journal/socket ]; then MODE=journald; else
    kill "${PIDS[-1]}" 2>/dev/null
    echo "systemd-journald did not start here ($(head -c 300 "$WORK/journald.log")); using the receiver"
  fi
fi
if [ -z "$MODE" ]; then
  rm -f /run/systemd/journal/socket
  /usr/bin/python3 - "$WORK/entries.jsonl" <<'PY' &
# journald's native protocol (systemd's docs/JOURNAL_NATIVE_PROTOCOL.md): one datagram per entry,
# "NAME=value\n", or "NAME\n" + 64-bit little-endian length + value + "\n"; a large entry comes
# as a memfd passed with SCM_RIGHTS instead.
import array, json, os, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/run/systemd/journal/socket")
out = open(sys.argv[1], "a")
while True:
    msg, anc, _, _ = s.recvmsg(1 << 20, socket.CMSG_SPACE(4))
    for level, kind, payload in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fd = array.array("i", payload[:4])[0]
            msg = os.pread(fd, 1 << 24, 0)
            os.close(fd)
    entry, i = {}, 0
    while i < len(msg):
        nl = msg.index(b"\n", i)
        line = msg[i:nl]
        if b"=" in line:
            name, value = line.split(b"=", 1)
            i = nl + 1
        else:
            name = line
            (size,) = struct.unpack("<Q", msg[nl + 1:nl + 9])
            value = msg[nl + 9:nl + 9 + size]
            i = nl + 9 + size + 1
        key, val = name.decode(), value.decode("utf-8", "replace")
        if key in entry:
            entry[key] = (entry[key] if isinstance(entry[key], list) else [entry[key]]) + [val]
        else:
            entry[key] = val
    out.write(json.dumps(entry) + "\n")
    out.flush()
PY
  PIDS+=($!)
  for _ in $(seq 100); do [ -S /run/systemd/journal/socket ] && break; sleep 0.05; done
  [ -S /run/systemd/journal/socket ] || fail "the receiver did not bind /run/systemd/journal/socket"
  MODE=receiver
fi
echo "entries received by: $MODE"

W=$WORK/world
cp -a "$SRC/tests/worlds/rx6600" "$W"  # gfx1032: the profile writes something
run() {  # run NAME EXPECTED_EXIT ARGS...: the result document in $WORK/NAME.json
  local name=$1 want=$2
  shift 2
  "$CTL" --root "$W" "$@" --json >"$WORK/$name.json" 2>"$WORK/$name.err"
  local got=$?
  [ "$got" = "$want" ] || fail "rocmtunectl $* exited $got, not $want: $(cat "$WORK/$name.err" "$WORK/$name.json")"
}
run apply 0 apply rdna2-consumer-compat
run set 0 set amdgpu.noretry=0 sysfs.card1.pp_power_profile_mode=COMPUTE
run revert 0 revert last
run reset 0 reset
run refused 3 apply instinct
run set2 0 set amdgpu.noretry=0
# The helper killed inside its transaction (the fault helper stands in for it): a failed change,
# then the next change rolls the interrupted transaction back first.
ROCMTUNE_HELPER=$FAULT_HELPER ROCMTUNE_FAULT=kill:16 run killed 1 set amdgpu.noretry=1 cmdline.iommu=pt
"$CTL" --root "$W" history --json >"$WORK/history.json" || fail "rocmtunectl history failed"
run recover 0 set amdgpu.noretry=1
echo "options amdgpu lockup_timeout=1000" >>"$W/etc/modprobe.d/rocmtune.conf"
run drift 5 set amdgpu.noretry=0

entries() {
  if [ "$MODE" = journald ]; then
    journalctl -D /run/log/journal -o json --no-pager SYSLOG_IDENTIFIER=rocmtune 2>/dev/null
  else
    cat "$WORK/entries.jsonl" 2>/dev/null
  fi
}
want=11  # applied x4 (apply, set, set2, recover), reverted, reset, refused x2, failed, recovered, drift
for _ in $(seq 100); do [ "$(entries | grep -c .)" -ge $want ] && break; sleep 0.05; done
entries >"$WORK/all.jsonl"

/usr/bin/python3 - "$WORK" "$SRC/core/api/events.cc" "$W" <<'PY' || fail "the entries are not what the changes were (above)"
import json, re, sys
work, events_cc, world = sys.argv[1:4]
ids = dict(re.findall(r'\{EventKind::k\w+, "(\w+)", "([0-9a-f]{32})"', open(events_cc).read()))
assert len(ids) == 8 and len(set(ids.values())) == 8, ids
entries = [json.loads(l) for l in open(f"{work}/all.jsonl") if l.strip()]
doc = lambda name: json.load(open(f"{work}/{name}.json"))
def txn(name):
    t = doc(name)["transaction"]
    assert t, (name, doc(name))
    return str(t)
as_list = lambda v: v if isinstance(v, list) else [v]
history = json.load(open(f"{work}/history.json"))["transactions"]
interrupted = [str(t["id"]) for t in history if t["state"] == "interrupted"]
assert len(interrupted) == 1, ("kill:16 must land inside the transaction", history)
interrupted = interrupted[0]
expected = [
    ("applied", {"ROCMTUNE_TRANSACTION": txn("apply"), "ROCMTUNE_PROFILE": "rdna2-consumer-compat", "ROCMTUNE_VERB": "apply"}),
    ("applied", {"ROCMTUNE_TRANSACTION": txn("set"), "ROCMTUNE_VERB": "set", "ROCMTUNE_CARD": "card1",
                 "ROCMTUNE_KNOBS": "amdgpu.noretry sysfs.card1.pp_power_profile_mode"}),
    ("reverted", {"ROCMTUNE_TRANSACTION": txn("revert"), "ROCMTUNE_REVERTS": txn("set"),
                  "ROCMTUNE_KNOBS": "amdgpu.noretry sysfs.card1.pp_power_profile_mode"}),
    ("reset", {"ROCMTUNE_TRANSACTION": txn("reset"), "ROCMTUNE_VERB": "reset"}),
    ("refused", {"ROCMTUNE_PROFILE": "instinct", "ROCMTUNE_VERB": "apply"}),
    ("applied", {"ROCMTUNE_TRANSACTION": txn("set2"), "ROCMTUNE_KNOBS": "amdgpu.noretry"}),
    ("failed", {"ROCMTUNE_VERB": "set", "ROCMTUNE_KNOBS": "amdgpu.noretry cmdline.iommu"}),
    ("recovered", {"ROCMTUNE_TRANSACTION": interrupted, "ROCMTUNE_VERB": "set",
                   "ROCMTUNE_KNOBS": "amdgpu.noretry cmdline.iommu"}),
    ("applied", {"ROCMTUNE_TRANSACTION": txn("recover"), "ROCMTUNE_KNOBS": "amdgpu.noretry"}),
    ("drift", {"ROCMTUNE_VERB": "set", "ROCMTUNE_KNOBS": "amdgpu.noretry"}),
    ("refused", {"ROCMTUNE_VERB": "set", "ROCMTUNE_KNOBS": "amdgpu.noretry"}),
]
errors = []
if len(entries) != len(expected):
    errors.append(f"{len(entries)} entries, not {len(expected)}:\n" + "\n".join(e.get("MESSAGE", "?") for e in entries))
for i, (entry, (kind, fields)) in enumerate(zip(entries, expected)):
    where = f"entry {i + 1} ({entry.get('MESSAGE')!r})"
    if entry.get("MESSAGE_ID") != ids[kind]:
        errors.append(f"{where}: MESSAGE_ID {entry.get('MESSAGE_ID')}, not {kind}'s {ids[kind]}")
    if entry.get("ROCMTUNE_EVENT") != kind:
        errors.append(f"{where}: ROCMTUNE_EVENT {entry.get('ROCMTUNE_EVENT')}, not {kind}")
    if entry.get("ROCMTUNE_ROOT") != world:
        errors.append(f"{where}: ROCMTUNE_ROOT {entry.get('ROCMTUNE_ROOT')}, not {world}")
    for name, value in fields.items():
        if entry.get(name) != value:
            errors.append(f"{where}: {name}={entry.get(name)!r}, not {value!r}")
    if kind in ("refused", "drift", "failed"):
        if "ROCMTUNE_TRANSACTION" in entry:
            errors.append(f"{where}: a {kind} entry with a transaction")
        if not as_list(entry.get("ROCMTUNE_REASON", [])):
            errors.append(f"{where}: no ROCMTUNE_REASON")
    if "ROCMTUNE_CALLER_UID" in entry:
        errors.append(f"{where}: rocmtunectl does not know a caller uid, yet the entry has one")
refused = [e for e in entries if e.get("ROCMTUNE_EVENT") == "refused"]
if refused and "does not fit" not in as_list(refused[0].get("ROCMTUNE_REASON", [""]))[0]:
    errors.append(f"the refused apply's reason: {refused[0].get('ROCMTUNE_REASON')}")
drift = [e for e in entries if e.get("ROCMTUNE_EVENT") == "drift"]
if drift and "rocmtune.conf" not in as_list(drift[0].get("ROCMTUNE_REASON", [""]))[0]:
    errors.append(f"the drift entry's reason: {drift[0].get('ROCMTUNE_REASON')}")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"{len(entries)} entries, each with its kind's MESSAGE_ID and the result documents' transactions")
PY

if [ "$MODE" != journald ]; then
  echo "journalctl -x not checked: no systemd-journald in this namespace"
  exit 0
fi
# journalctl -x reads /var/lib/systemd/catalog/database: build one from rocmtune's catalog alone.
mkdir -p "$WORK/cat/usr/lib/systemd/catalog" /var/lib/systemd/catalog
cp "$SRC/catalog/rocmtune.catalog" "$WORK/cat/usr/lib/systemd/catalog/"
journalctl --root="$WORK/cat" --update-catalog || fail "journalctl --update-catalog rejects the catalog"
mount --bind "$WORK/cat/var/lib/systemd/catalog" /var/lib/systemd/catalog || fail "cannot bind the catalog database"
set_txn=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["transaction"])' "$WORK/set.json")
explained=$(journalctl -D /run/log/journal -x --no-pager SYSLOG_IDENTIFIER=rocmtune ROCMTUNE_TRANSACTION="$set_txn" \
  ROCMTUNE_EVENT=applied)
echo "$explained"
echo "$explained" | grep -q "Subject: GPU settings changed by transaction $set_txn (set)" \
  || fail "journalctl -x does not explain the set's entry with the catalog"
echo "$explained" | grep -q "rocmtunectl revert $set_txn" || fail "the explanation does not say how to undo $set_txn"
echo "$explained" | grep -q "Defined-By: rocmtune" || fail "the explanation is not rocmtune's"
refused=$(journalctl -D /run/log/journal -x --no-pager SYSLOG_IDENTIFIER=rocmtune ROCMTUNE_EVENT=refused ROCMTUNE_PROFILE=instinct)
echo "$refused" | grep -q "Subject: Change refused (apply)" || fail "journalctl -x does not explain the refusal"
echo "$refused" | grep -q "does not fit" || fail "the refusal's explanation does not quote its reason"
failed=$(journalctl -D /run/log/journal -x --no-pager SYSLOG_IDENTIFIER=rocmtune ROCMTUNE_EVENT=failed)
echo "$failed" | head -3
echo "$failed" | grep -q "Subject: A change could not be made (set)" || fail "journalctl -x does not explain the failure"
echo "PASS ($MODE)"
