# Faults in the middle of a change through rocmtuned. The helper behind the socket is
# rocmtune-fault-helper (tests/crash/fault_helper.cc), which dies (kill:N) or stops (stop:N)
# just before step N of the transaction: N is the temporary write of its fourth file, after three
# were already replaced. The change sets three knobs (five files, one under var/lib).
#   a1  the helper is SIGKILLed: the caller gets a typed error, the daemon keeps answering and
#       shows the transaction interrupted; `rocmtune-helper recover` puts back the world before;
#   a2  the same, recovered by the next change through the daemon: the world after;
#   b   the daemon is SIGKILLed while the helper works, then the helper goes on: it finishes,
#       a new daemon serves, nothing is left interrupted, the world is before or after;
#   c   the caller is SIGKILLed while the helper works: the daemon survives sending its reply to
#       nobody, the world is before or after, and the next change goes through;
#   d   no helper listens at all: a typed error, nothing written, the daemon serving;
#   e   SIGTERM to the daemon while the helper works: the change is answered, then exit 0.
# "The world" is every file of the tree but the journal and the lock.
import glob
import json
import os
import signal
import subprocess

from fixture import CONFIG, DaemonTest

TIMEOUT = 120
KNOBS = ["amdgpu.noretry=1", "cmdline.iommu=pt", "env.HSA_ENABLE_SDMA=0"]
SET_CALL = """
import dbus, sys
from busclient import manager, outcome, EMPTY_OPTIONS
name, text = outcome(lambda: manager().Set(dbus.Dictionary(dict(a.split("=", 1) for a in sys.argv[1:]),
                                                           signature="ss"), EMPTY_OPTIONS, timeout=60))
print(name or "ok"); print(text)
"""


def world(root):
    return subprocess.run("find . \\( -path ./var/lib/rocmtune/journal -o -path ./var/lib/rocmtune/lock \\) -prune "
                          "-o -type f -print0 | sort -z | xargs -0 sha256sum",
                          shell=True, cwd=root, capture_output=True, text=True, check=True).stdout


class FaultsTest(DaemonTest):
    def setUp(self):
        super().setUp()
        self.require_helper_socket()
        self.fault = CONFIG["fault_helper"]
        if not (self.fault and os.access(self.fault, os.X_OK)):
            self.skipTest(f"no rocmtune-fault-helper at {self.fault}")
        self.start_bus()
        # The world before and after the change, and the step to stop at (counted by the same helper).
        before = self.world("rx6600", "before")
        after = self.world("rx6600", "after")
        r = self.run_cmd([CONFIG["rocmtunectl"], "--root", after, "set"] + KNOBS,
                         env=dict(os.environ, ROCMTUNE_HELPER=self.fault, ROCMTUNE_FAULT_LOG=self.path("steps.txt")))
        self.assertEqual(r.returncode, 0, f"rocmtunectl set on a copy failed: {r.stderr}")
        self.before, self.after = world(before), world(after)
        self.assertNotEqual(self.before, self.after, "the change changes nothing")
        renames, self.n = 0, None
        with open(self.path("steps.txt")) as f:
            for line in f:
                step = line.split()
                renames += step[1] == "rename"
                if renames == 3 and step[1] == "temp-write":
                    self.n = step[0]
                    break
        self.assertIsNotNone(self.n, "no fourth file in the transaction")

    def scenario(self, name, fault):
        """A fresh world, the fault helper with FAULT behind the socket, a daemon."""
        self.w = self.world("rx6600", f"world-{name}")
        self.start_helper(self.w, helper=self.fault, env=[f"ROCMTUNE_FAULT={fault}"])
        self.daemon = self.start_daemon(self.w)

    def healthy_helper(self):
        self.stop(self.helper_proc, "the fault helper's socket")
        self.start_helper(self.w)

    def set_call(self):
        r = self.run_cmd(["/usr/bin/python3", "-c", SET_CALL] + KNOBS)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.split("\n", 1)

    def set_call_in_background(self, name):
        return self.spawn(name, ["/usr/bin/python3", "-c", SET_CALL] + KNOBS)

    def stopped_helper(self):
        """The helper serving the connection (systemd-socket-activate's child), once it stopped itself."""
        def find():
            for path in glob.glob(f"/proc/{self.helper_proc.pid}/task/*/children"):
                with open(path) as f:
                    for pid in f.read().split():
                        try:
                            with open(f"/proc/{pid}/stat") as s:
                                if s.read().rsplit(")", 1)[1].split()[0] == "T":
                                    return int(pid)
                        except OSError:
                            pass
            return None
        return self.wait_until(find, f"the helper to stop at step {self.n}")

    def gone(self, pid, what):
        def dead():
            try:
                with open(f"/proc/{pid}/stat") as s:
                    return s.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
            except OSError:
                return True
        self.wait_until(dead, what)

    def states(self):
        r = self.run_cmd([CONFIG["rocmtunectl"], "--root", self.w, "history", "--json"])
        return [t["state"] for t in json.loads(r.stdout)["transactions"]]

    def serving(self):
        self.assertIsNone(self.daemon.poll(), f"rocmtuned died: {self.log('daemon.log')[-2000:]}")
        self.call_json("Describe")

    def assert_before_or_after(self):
        self.assertIn(world(self.w), (self.before, self.after), "the world is neither before nor after")

    def test_a1_helper_killed_then_recover(self):
        self.scenario("a1", f"kill:{self.n}")
        name, text = self.set_call()
        self.assertEqual(name, "org.rocmtune1.Error.Failed", f"not a typed failure: {text}")
        self.assertIn("without a result", text, "the error does not say the helper gave no result")
        self.serving()
        self.assertEqual(self.states(), ["interrupted"], "History does not show the transaction interrupted")
        self.assertNotEqual(world(self.w), self.before, f"the helper died before it changed anything (step {self.n})")
        r = self.run_cmd([CONFIG["helper"], "--root", self.w, "recover"])
        self.assertEqual(r.returncode, 0, f"recover failed: {r.stdout}{r.stderr}")
        self.assertEqual(world(self.w), self.before, "recover did not put back the world before")

    def test_a2_helper_killed_then_the_next_change(self):
        # The next change (helper healthy again) rolls back first, then runs.
        self.scenario("a2", f"kill:{self.n}")
        name, text = self.set_call()
        self.assertEqual(name, "org.rocmtune1.Error.Failed", f"not a typed failure: {text}")
        self.serving()
        self.healthy_helper()
        name, text = self.set_call()
        self.assertEqual(name, "ok", f"the next change failed: {text}")
        self.assertIn("was rolled back first", text, "the reply does not say the interrupted one was rolled back")
        self.assertEqual(world(self.w), self.after, "the world is not the one after the change")
        self.assertEqual(self.states(), ["rolled-back", "committed"])

    def test_b_daemon_killed_while_the_helper_works(self):
        self.scenario("b", f"stop:{self.n}")
        client = self.set_call_in_background("b")
        helper = self.stopped_helper()
        self.daemon.kill()
        self.wait_exit(self.daemon, "the daemon to die")
        os.kill(helper, signal.SIGCONT)
        self.gone(helper, "the helper to finish")
        self.wait_exit(client, "the caller to get an answer")
        print(f"b: the caller got: {self.log('b.log').splitlines()[:1]}")
        self.assert_before_or_after()
        self.assertNotIn("interrupted", self.states(), "the helper left the transaction interrupted")
        self.daemon = self.start_daemon(self.w, log="daemon2.log")
        self.serving()
        self.assertIn('"state": "committed"', self.call_json("History"),
                      "the new daemon's History lacks the transaction")
        self.healthy_helper()
        self.assertIn('"changed": true', self.call_json("Reset"), "Reset through the new daemon failed")
        self.assertEqual(world(self.w), self.before, "Reset did not give back the world before")

    def test_c_caller_killed_while_the_helper_works(self):
        self.scenario("c", f"stop:{self.n}")
        client = self.set_call_in_background("c")
        helper = self.stopped_helper()
        client.kill()
        client.wait()
        os.kill(helper, signal.SIGCONT)
        self.gone(helper, "the helper to finish")
        self.serving()  # Describe is answered after the daemon took the helper's result
        self.assert_before_or_after()
        self.assertNotIn("interrupted", self.states(), "the helper left the transaction interrupted")
        self.healthy_helper()
        self.assertIn('"changed": true', self.call_json("Reset"), "Reset changed nothing")
        self.assertEqual(world(self.w), self.before, "Reset did not give back the world before")
        self.serving()

    def test_d_no_helper_listening(self):
        # rocmtune-helper.socket stopped: a typed error, nothing written.
        self.scenario("d", f"stop:{self.n}")
        self.stop(self.helper_proc, "the helper's socket")
        if os.path.lexists(self.path("helper.sock")):
            os.unlink(self.path("helper.sock"))
        now = world(self.w)
        name, text = self.set_call()
        self.assertEqual(name, "org.rocmtune1.Error.Failed", f"not a typed failure: {text}")
        self.assertIn("cannot reach rocmtune-helper", text, "the error does not say the helper is unreachable")
        self.assertEqual(world(self.w), now, "something was written without a helper")
        self.serving()

    def test_e_sigterm_while_the_helper_works(self):
        # systemctl stop, a shutdown: the change is finished and answered first, then the daemon exits 0.
        self.scenario("e", f"stop:{self.n}")
        client = self.set_call_in_background("e")
        helper = self.stopped_helper()
        self.daemon.terminate()
        self.assert_keeps_running(self.daemon, 0.3, "the daemon exited with a change running")
        os.kill(helper, signal.SIGCONT)
        self.gone(helper, "the helper to finish")
        self.assertEqual(self.wait_exit(client, "the caller's answer"), 0,
                         f"the caller got no answer: {self.log('e.log')}")
        self.assertIn('"changed": true', self.log("e.log"), "the caller's answer is not the committed result")
        self.assertEqual(self.wait_exit(self.daemon, "the daemon to exit after answering"), 0,
                         "the daemon's exit status")
        self.assertEqual(world(self.w), self.after, "the world is not the one after the change")
        self.daemon = self.start_daemon(self.w, log="daemon2.log")
