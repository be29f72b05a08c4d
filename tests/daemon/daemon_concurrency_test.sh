#!/bin/bash
# rocmtuned under load (tests/daemon/concurrent_clients.py): 20 unprivileged clients read
# (Describe, History, ListProfiles, properties) in a loop while root runs a sequence of applies,
# sets, unsets, reverts and resets through the daemon and another root client keeps asking for
# a change that writes nothing. Checked:
#   - no read fails, ever; only the changes meet Busy, and retried they go through;
#   - every committed transaction is in History exactly once, nothing else is, and each has its
#     journal file under var/lib/rocmtune/journal ending in a commit;
#   - no torn file: every content a watcher saw at any moment, in every file, is the content that
#     file had before or after some transaction (files are replaced whole, by rename).
# usage: daemon_concurrency_test.sh ROCMTUNED ROCMTUNECTL ROCMTUNE_HELPER SOURCE_DIR
set -u
DAEMON=$1 HELPER=$3 SRC=$4  # $2, rocmtunectl, is not used here (the tests share one argument list)
. "$SRC/tests/daemon/bus_fixture.sh"
command -v systemd-socket-activate >/dev/null || skip "systemd-socket-activate is needed to serve the helper socket"
start_bus

W=$WORK/world
cp -a "$SRC/tests/worlds/rx6600" "$W"
start_helper "$HELPER" "$W"
start_daemon "$W"
RUN=$WORK/run
mkdir -m 777 "$RUN"
export PYTHONPATH=$PYDIR
CLIENTS=$PYDIR/concurrent_clients.py
READERS=20

readers=()
for n in $(seq $READERS); do
  "${NOBODY[@]}" /usr/bin/python3 "$CLIENTS" reader "$W" "$RUN" "$n" >"$RUN/reader.$n.out" 2>&1 &
  readers+=("$!")
  PIDS+=("$!")
done
ready() { local f n=0; for f in "$RUN"/ready.*; do [ -e "$f" ] && n=$((n + 1)); done; [ $n = $READERS ]; }
for _ in $(seq 600); do ready && break; sleep 0.05; done
ready || fail "the readers did not start: $(cat "$RUN"/reader.*.out)"
/usr/bin/python3 "$CLIENTS" watcher "$W" "$RUN" >"$RUN/watcher.out" 2>&1 &
watcher=$!
/usr/bin/python3 "$CLIENTS" contender "$W" "$RUN" >"$RUN/contender.out" 2>&1 &
contender=$!
PIDS+=("$watcher" "$contender")
sleep 0.2
start=$(date +%s)
/usr/bin/python3 "$CLIENTS" writer "$W" "$RUN" >"$RUN/writer.out" 2>&1
writer_rc=$?
touch "$RUN/stop"
echo "writes took $(($(date +%s) - start)) s"
[ $writer_rc = 0 ] || fail "the writer failed: $(cat "$RUN/writer.out")"
cat "$RUN/writer.out"
bad=0
for n in $(seq $READERS); do
  wait "${readers[$((n - 1))]}" || { echo "reader $n: $(tail -5 "$RUN/reader.$n.out")"; bad=1; }
done
[ $bad = 0 ] || fail "a reader met an error"
wait "$contender" || fail "the contender got something other than Busy or unchanged: $(cat "$RUN/contender.out")"
wait "$watcher" || fail "the watcher failed: $(cat "$RUN/watcher.out")"
cat "$RUN/contender.out" "$RUN/watcher.out"
cat "$RUN"/reader.*.out | /usr/bin/python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin]
rounds = sum(r["rounds"] for r in rows)
interrupted = sum(r["saw_running_as_interrupted"] for r in rows)
print(f"{len(rows)} readers, {rounds} rounds of reads;",
      f"{interrupted} reads showed the running transaction as interrupted")
sys.exit(1 if interrupted else 0)' || fail "a read called a running transaction interrupted"

kill -0 "$DAEMON_PID" || fail "rocmtuned died: $(cat "$WORK/daemon.log")"
call History | str >"$RUN/history.json" || fail "History after the run failed"
/usr/bin/python3 - "$RUN" "$W" <<'PY' || fail "History, the journal or the files do not match the transactions"
import hashlib, json, os, sys
run, world = sys.argv[1], sys.argv[2]
committed = json.loads(open(f"{run}/writer.out").readline())["writer"]
history = [t["id"] for t in json.load(open(f"{run}/history.json"))["transactions"]]
assert sorted(history) == sorted(committed) and len(set(history)) == len(history), (history, committed)
journal = f"{world}/var/lib/rocmtune/journal"
names = sorted(os.listdir(journal))
assert names == sorted(f"{int(i):06d}.jsonl" for i in committed), names
for n in names:
    last = open(f"{journal}/{n}").read().splitlines()[-1]
    assert json.loads(last)["record"] == "commit", (n, last)
states = json.load(open(f"{run}/states.json"))
observed = json.load(open(f"{run}/observed.json"))
torn = []
for path, digests in observed.items():
    allowed = {s[path] for s in states if path in s}
    torn += [(path, d) for d in digests if d not in allowed]
assert not torn, f"contents no transaction left: {torn}"
changing = [p for p in observed if len({s.get(p) for s in states}) > 1]
assert changing, "no file changed: nothing was tested"
print(f"{len(committed)} transactions in History once each, with their journals; {len(changing)} files changed,",
      f"{sum(len(observed[p]) for p in changing)} contents of them seen, none torn")
PY
echo PASS
