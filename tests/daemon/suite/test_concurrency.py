# rocmtuned under load (tests/daemon/concurrent_clients.py): 20 unprivileged clients read
# (Describe, History, ListProfiles, properties) in a loop while root runs a sequence of applies,
# sets, unsets, reverts and resets through the daemon and another root client keeps asking for
# a change that writes nothing. Checked:
#   - no read fails, ever; only the changes meet Busy, and retried they go through;
#   - every committed transaction is in History exactly once, nothing else is, and each has its
#     journal file under var/lib/rocmtune/journal ending in a commit;
#   - no torn file: every content a watcher saw at any moment, in every file, is the content that
#     file had before or after some transaction (files are replaced whole, by rename).
import glob
import json
import os
import time

from fixture import DaemonTest

TIMEOUT = 120
READERS = 20


class ConcurrencyTest(DaemonTest):
    def test_readers_writer_and_contender(self):
        self.require_root("root's changes go through the helper, which serves root only")
        self.require_nobody()
        self.require_helper_socket()
        self.start_bus()
        w = self.world("rx6600")
        self.start_helper(w)
        daemon = self.start_daemon(w)
        run = self.path("run")
        os.mkdir(run)
        os.chmod(run, 0o777)
        clients = os.path.join(self.pydir, "concurrent_clients.py")

        def client(role, *extra, argv_prefix=(), name=None):
            with open(os.path.join(run, f"{name or role}.out"), "wb") as out:
                argv = list(argv_prefix) + ["/usr/bin/python3", clients, role, w, run] + list(extra)
                return self.spawn(name or role, argv, stdout=out)

        readers = [client("reader", str(n), argv_prefix=self.nobody([]), name=f"reader.{n}")
                   for n in range(1, READERS + 1)]
        watcher = client("watcher")
        contender = client("contender")

        def out(name):
            with open(os.path.join(run, f"{name}.out")) as f:
                return f.read()

        def all_running():
            for p in readers + [watcher, contender]:
                if p.poll() is not None:
                    self.fail(f"a client exited before the writes: {p.args}: {p.returncode}")
            return len(glob.glob(os.path.join(run, "ready.*"))) == READERS + 2
        self.wait_until(all_running, "the readers, the watcher and the contender to start", timeout=30)

        start = time.monotonic()
        writer = self.run_cmd(["/usr/bin/python3", clients, "writer", w, run], timeout=100)
        open(os.path.join(run, "stop"), "w").close()
        print(f"writes took {time.monotonic() - start:.1f} s")
        self.assertEqual(writer.returncode, 0, f"the writer failed: {writer.stdout}{writer.stderr}")
        print(writer.stdout)
        for n, p in enumerate(readers, 1):
            self.assertEqual(self.wait_exit(p, f"reader {n} to stop"), 0, f"reader {n}: {out(f'reader.{n}')[-2000:]}")
        self.assertEqual(self.wait_exit(contender, "the contender to stop"), 0,
                         f"the contender got something other than Busy or unchanged: {out('contender')}")
        self.assertEqual(self.wait_exit(watcher, "the watcher to stop"), 0, f"the watcher failed: {out('watcher')}")
        print(out("contender"), out("watcher"))

        rows = [json.loads(out(f"reader.{n}")) for n in range(1, READERS + 1)]
        interrupted = sum(r["saw_running_as_interrupted"] for r in rows)
        print(f"{len(rows)} readers, {sum(r['rounds'] for r in rows)} rounds of reads;",
              f"{interrupted} reads showed the running transaction as interrupted")
        self.assertEqual(interrupted, 0, "a read called a running transaction interrupted")

        self.assertIsNone(daemon.poll(), "rocmtuned died")
        history = [t["id"] for t in json.loads(self.call_json("History"))["transactions"]]
        committed = json.loads(writer.stdout.splitlines()[0])["writer"]
        self.assertEqual(sorted(history), sorted(committed), "History against the committed transactions")
        self.assertEqual(len(set(history)), len(history), "a transaction twice in History")
        journal = os.path.join(w, "var/lib/rocmtune/journal")
        names = sorted(os.listdir(journal))
        self.assertEqual(names, sorted(f"{int(i):06d}.jsonl" for i in committed), "the journal's files")
        for n in names:
            with open(os.path.join(journal, n)) as f:
                last = f.read().splitlines()[-1]
            self.assertEqual(json.loads(last)["record"], "commit", (n, last))
        with open(os.path.join(run, "states.json")) as f:
            states = json.load(f)
        with open(os.path.join(run, "observed.json")) as f:
            observed = json.load(f)
        torn = []
        for path, digests in observed.items():
            allowed = {s[path] for s in states if path in s}
            torn += [(path, d) for d in digests if d not in allowed]
        self.assertFalse(torn, "contents no transaction left")
        changing = [p for p in observed if len({s.get(p) for s in states}) > 1]
        self.assertTrue(changing, "no file changed: nothing was tested")
        print(f"{len(committed)} transactions in History once each, with their journals;",
              f"{len(changing)} files changed,",
              f"{sum(len(observed[p]) for p in changing)} contents of them seen, none torn")
