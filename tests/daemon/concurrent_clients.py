# The processes of daemon_concurrency_test.sh. usage: concurrent_clients.py ROLE WORLD WORKDIR
#   reader     Describe, History, ListProfiles and the properties in a loop until WORKDIR/stop;
#              any error fails it. Touches WORKDIR/ready.N after its first round.
#   writer     (root) the changes in WRITES, each retried while Busy; after each reply, the
#              world's files (WORKDIR/states.json); the transactions it committed.
#   contender  (root) a change that writes nothing, in a loop until stop: only Busy or
#              "unchanged" may come back (and it makes the writer meet Busy).
#   watcher    every file of the world, hashed again and again until stop (observed.json).
# The contender and the watcher touch WORKDIR/ready.contender and ready.watcher after their first
# round (the writer starts when every client is running).
import hashlib
import json
import os
import sys
import time

import dbus
from busclient import manager, outcome, properties, EMPTY_OPTIONS

ROLE, WORLD, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
STOP = os.path.join(WORK, "stop")
BUSY = "org.rocmtune1.Error.Busy"
WRITES = [
    ("Apply", "rdna2-consumer-compat"), ("Set", "amdgpu.noretry=1"), ("Set", "cmdline.iommu=pt"), ("Revert", ""),
    ("Unset", "amdgpu.noretry"), ("Reset", None), ("Apply", "rdna2-consumer-compat"), ("Set", "env.HSA_ENABLE_SDMA=0"),
    ("Revert", ""), ("Set", "amdgpu.noretry=0"), ("Reset", None),
] * 3  # back to stock at the end of each round


def files():
    """path -> sha256 of every file rocmtune may write (its own state directory aside: journal
    lines are appended, not replaced; the helper's temporaries aside)."""
    out = {}
    for d, dirs, names in os.walk(WORLD):
        rel = os.path.relpath(d, WORLD)
        if rel == "var/lib/rocmtune":
            dirs[:] = []
            continue
        for n in names:
            if n.endswith(".rocmtune-new"):
                continue
            p = os.path.join(d, n)
            try:
                with open(p, "rb") as f:
                    out[os.path.join(rel, n)] = hashlib.sha256(f.read()).hexdigest()
            except FileNotFoundError:
                pass  # renamed away between the listing and the open: the next round sees it
    return out


def reader(n):
    m, p = manager(), properties()
    rounds, interrupted = 0, 0
    while True:
        status = json.loads(m.Describe())
        assert status["schema"] == "rocmtune.status.v1", status.get("schema")
        history = json.loads(m.History())
        ids = [t["id"] for t in history["transactions"]]
        assert len(ids) == len(set(ids)), f"History lists a transaction twice: {ids}"
        # A transaction being written is "running", never "interrupted" (core/journal/writer_probe.h).
        interrupted += any(t.get("state") == "interrupted" for t in history["transactions"])
        interrupted += any(f.get("id") == "journal.interrupted" for f in status["findings"])
        assert len(json.loads(m.ListProfiles())["profiles"]) > 0
        assert isinstance(p.Get("org.rocmtune1.Manager", "ActiveProfile"), dbus.String)
        assert isinstance(p.Get("org.rocmtune1.Manager", "PendingReboot"), dbus.Boolean)
        rounds += 1
        if rounds == 1:
            open(os.path.join(WORK, f"ready.{n}"), "w").close()
        if os.path.exists(STOP):
            break
    print(json.dumps({"reader": n, "rounds": rounds, "saw_running_as_interrupted": interrupted}))


def writer():
    m = manager()
    calls = {
        "Apply": lambda a: m.Apply(a, EMPTY_OPTIONS, timeout=60),
        "Set": lambda a: m.Set(dbus.Dictionary(dict([a.split("=", 1)]), signature="ss"), EMPTY_OPTIONS, timeout=60),
        "Unset": lambda a: m.Unset(dbus.Array([a], signature="s"), EMPTY_OPTIONS, timeout=60),
        "Revert": lambda a: m.Revert(a, timeout=60),
        "Reset": lambda a: m.Reset(timeout=60),
    }
    txns, states, busy = [], [files()], 0
    for method, arg in WRITES:
        while True:
            name, text = outcome(lambda: calls[method](arg))
            if name != BUSY:
                break
            busy += 1
            time.sleep(0.01)
        assert not name, f"{method} {arg}: {name}: {text[:400]}"
        r = json.loads(text)
        assert r["changed"] is True and r["transaction"], f"{method} {arg}: {text[:400]}"
        txns.append(r["transaction"])
        states.append(files())
    json.dump(states, open(os.path.join(WORK, "states.json"), "w"))
    print(json.dumps({"writer": txns, "busy": busy}))


def contender():
    m = manager()
    busy, done = 0, 0
    while not os.path.exists(STOP):
        name, text = outcome(lambda: m.Unset(dbus.Array(["amdgpu.lockup_timeout"], signature="s"), EMPTY_OPTIONS,
                                             timeout=60))
        if name == BUSY:
            busy += 1
        else:
            assert not name and json.loads(text)["changed"] is False, f"{name}: {text[:400]}"
            done += 1
        if busy + done == 1:
            open(os.path.join(WORK, "ready.contender"), "w").close()
        time.sleep(0.005)
    print(json.dumps({"contender_busy": busy, "contender_done": done}))


def watcher():
    seen, rounds = {}, 0
    while not os.path.exists(STOP):
        for path, digest in files().items():
            seen.setdefault(path, set()).add(digest)
        rounds += 1
        if rounds == 1:
            open(os.path.join(WORK, "ready.watcher"), "w").close()
    json.dump({p: sorted(d) for p, d in seen.items()}, open(os.path.join(WORK, "observed.json"), "w"))
    print(json.dumps({"watcher_rounds": rounds}))


if ROLE == "reader":
    reader(sys.argv[4])
elif ROLE == "writer":
    writer()
elif ROLE == "contender":
    contender()
else:
    watcher()
