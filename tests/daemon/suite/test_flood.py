# No user can stall the bus API (the round-3 security review's attack replayed): twelve
# processes of one unprivileged user call Doctor in a loop, six with 16 MiB logs and six with
# 2 MiB ones, on one connection each, eight calls in flight on each. Before, rocmtuned matched every log on its one loop (1-2 s
# each), asked the bus who called with a blocking call that read the queued 16 MiB messages into
# memory meanwhile, and grew to ~250 MiB; root's Set got LimitsExceeded or "cannot tell who is
# calling" after 36.7 s. Checked:
#   - while the flood runs, root's Set goes through the daemon within its 15 s timeout, and a
#     user's Describe is answered too;
#   - the flood is answered with typed errors (InvalidArgument for a user's log over 2 MiB, Busy
#     for a second Doctor of the same uid), never left without a reply;
#   - the daemon's peak RSS (VmHWM) stays bounded;
#   - root's rocmtunectl, when the daemon does not answer at all (stopped with SIGSTOP), says so
#     and goes on through the local helper instead of waiting (a --check: nothing is written on
#     this machine by the test).
import json
import os
import signal
import time

from fixture import CONFIG, DaemonTest, is_root

TIMEOUT = 240
FLOODERS = 12
# Each flooder keeps `window` calls in flight on its connection (sent without waiting): with
# more than one the bus queues them for rocmtuned until its limits refuse more.
FLOOD = """
import collections, json, os, sys, dbus
from dbus.lowlevel import MethodCallMessage
stop, ready, size, window = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
bus = dbus.SystemBus()
line = "Memory access fault by GPU node-1 (Agent handle: 0x55d0) on address 0x7f00. Reason: Page not present.\\n"
log = (line * (size // len(line) + 1))[:size]
n = {"ok": 0, "errors": {}}
def answered(reply):
    name = reply.get_error_name()
    if name:
        n["errors"][name] = n["errors"].get(name, 0) + 1
    else:
        n["ok"] += 1
pending = collections.deque()
open(ready, "w").close()
while not os.path.exists(stop):
    while len(pending) < window:
        msg = MethodCallMessage("org.rocmtune1", "/org/rocmtune1", "org.rocmtune1.Manager", "Doctor")
        msg.append(log, signature="s")
        pending.append(bus.send_message_with_reply(msg, answered, 30, require_main_loop=False))
    pending.popleft().block()
for p in pending:
    p.block()
print(json.dumps(n))
"""
ROOT_SET = """
import json, sys, time, dbus
from busclient import manager, options
start = time.monotonic()
text = manager().Set(dbus.Dictionary({"amdgpu.noretry": sys.argv[1]}, signature="ss"), options(), timeout=float(sys.argv[2]))
print(json.dumps({"seconds": round(time.monotonic() - start, 2), "changed": json.loads(text)["changed"]}))
"""


def peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return None


def sanitized(binary):
    with open(binary, "rb") as f:
        return b"__asan_init" in f.read()


class FloodTest(DaemonTest):
    def setUp(self):
        super().setUp()
        self.require_nobody()
        self.require_helper_socket()
        self.start_bus()
        self.w = self.world("rx6600")
        self.start_helper(self.w)
        self.daemon = self.start_daemon(self.w)

    def flood(self, window):
        run = self.path("run")
        os.mkdir(run)
        os.chmod(run, 0o777)
        procs = []
        for n in range(FLOODERS):
            size = (16 << 20) if n % 2 == 0 else (2 << 20)
            out = open(self.path(f"flood.{n}.out"), "wb")
            procs.append(self.spawn(f"flood.{n}", self.nobody(
                ["/usr/bin/python3", "-c", f"import sys; sys.path.insert(0, {self.pydir!r})\n" + FLOOD,
                 os.path.join(run, "stop"), os.path.join(run, f"ready.{n}"), str(size), str(window)]), stdout=out))
            out.close()
        self.wait_until(lambda: len([f for f in os.listdir(run) if f.startswith("ready.")]) == FLOODERS,
                        "the flooding processes to start", timeout=60)
        return run, procs

    def stop_flood(self, run, procs):
        open(os.path.join(run, "stop"), "w").close()
        counts = []
        for n, p in enumerate(procs):
            self.wait_exit(p, f"flooder {n} to stop", timeout=180)
            with open(self.path(f"flood.{n}.out")) as f:
                counts.append(json.loads(f.read().strip().splitlines()[-1]))
        return counts

    def test_root_changes_while_a_user_floods_doctor(self):
        run, procs = self.flood(1)
        time.sleep(3)  # the flood well under way: the daemon's queue as full as one user makes it
        results = []
        # 15 s for root's change while a user floods; under ASan (every call several times slower,
        # its 2 MiB logs scanned by instrumented code) 45 s: measured 15+ s there with the crash
        # tests beside it (make asan -j2), 53 s for the whole test alone.
        limit = "45" if sanitized(CONFIG["rocmtuned"]) else "15"
        for value in ("0", "1", "0"):
            r = self.python(ROOT_SET, value, limit, timeout=120)
            self.assertEqual(r.returncode, 0, f"root's Set {value} during the flood: {r.stderr[-1500:]}")
            results.append(json.loads(r.stdout))
        r = self.python("from busclient import manager; manager().Describe(timeout=15)",
                        argv_prefix=self.nobody([]), timeout=60)
        self.assertEqual(r.returncode, 0, f"a user's Describe during the flood: {r.stderr[-1500:]}")
        peak = peak_rss_mib(self.daemon.pid)
        counts = self.stop_flood(run, procs)
        print(f"root's Set during the flood: {results}; daemon's peak RSS {peak:.0f} MiB;",
              f"flood outcomes: {counts}")
        self.assertTrue(all(r["changed"] for r in results), results)
        errors = {}
        for c in counts:
            for k, v in c["errors"].items():
                errors[k] = errors.get(k, 0) + v
        self.assertGreater(errors.get("org.rocmtune1.Error.InvalidArgument", 0), 0,
                           f"no 16 MiB log of a user was refused: {counts}")
        # The bus itself refuses what the daemon's queue cannot take (LimitsExceeded): the flood's.
        self.assertTrue(set(errors) <= {"org.rocmtune1.Error.InvalidArgument", "org.rocmtune1.Error.Busy",
                                        "org.freedesktop.DBus.Error.LimitsExceeded"},
                        f"the flood got other errors than InvalidArgument, Busy and LimitsExceeded: {errors}")
        self.assertGreater(sum(c["ok"] for c in counts), 0, f"no 2 MiB log was answered: {counts}")
        # ASan's shadow memory and quarantine (256 MiB of freed blocks) count in its RSS.
        bound = 700 if sanitized(CONFIG["rocmtuned"]) else 100
        self.assertLess(peak, bound, f"the daemon's peak RSS during the flood: {peak:.0f} MiB")
        self.assertIsNone(self.daemon.poll(), "rocmtuned died")

    def test_root_goes_on_when_the_bus_refuses_calls_for_the_daemon(self):
        # Two calls in flight on each of twelve connections (216 MiB) fill the bus's queue for
        # rocmtuned (127 MiB) as the review's twelve 16 MiB calls did: the bus answers
        # LimitsExceeded for it, to root too, while the queue is full. Root's rocmtunectl then goes on through the local helper (a --check:
        # nothing is written on this machine) within seconds, saying so, and the daemon, which
        # holds nothing of what it refused, stays small.
        run, procs = self.flood(2)
        time.sleep(3)
        start = time.monotonic()
        r = self.run_cmd([CONFIG["rocmtunectl"], "set", "amdgpu.noretry=0", "--check"], timeout=90)
        took = time.monotonic() - start
        peak = peak_rss_mib(self.daemon.pid)
        counts = self.stop_flood(run, procs)
        fell_back = "going on without it" in r.stderr
        print(f"root's check during the flood: exit {r.returncode} after {took:.1f} s,",
              f"{'through the local helper' if fell_back else 'through the daemon'}; daemon's peak RSS {peak:.0f} MiB;",
              f"flood outcomes: {counts}")
        self.assertEqual(r.returncode, 0, f"root's check failed during the flood: {r.stderr[-1500:]}")
        self.assertLess(took, 45, "root's client waited for the daemon the flood holds")
        bound = 700 if sanitized(CONFIG["rocmtuned"]) else 100
        self.assertLess(peak, bound, f"the daemon's peak RSS during the flood: {peak:.0f} MiB")
        self.assertIsNone(self.daemon.poll(), "rocmtuned died")

    def test_root_goes_on_without_a_daemon_that_does_not_answer(self):
        os.kill(self.daemon.pid, signal.SIGSTOP)
        try:
            start = time.monotonic()
            r = self.run_cmd([CONFIG["rocmtunectl"], "set", "amdgpu.noretry=0", "--check"], timeout=60)
            took = time.monotonic() - start
        finally:
            os.kill(self.daemon.pid, signal.SIGCONT)
        self.assertIn("rocmtuned did not take Set", r.stderr, f"no word of the fallback: {r.stderr}")
        self.assertIn("going on without it", r.stderr)
        self.assertNotIn("asking rocmtuned", r.stderr, r.stderr)
        print(f"root's check with a stopped daemon: exit {r.returncode} after {took:.1f} s")
        self.assertLess(took, 45, "root's client waited for the stopped daemon")


# A name owner that answers Ping (libdbus answers org.freedesktop.DBus.Peer itself) and takes
# every Manager call without ever replying: what root's client meets when rocmtuned is alive but
# stuck behind a queue. Root's --check must not wait out the call's 30-minute change timeout.
STUB = """
import sys, dbus, dbus.mainloop.glib
from gi.repository import GLib
from dbus.lowlevel import HANDLER_RESULT_HANDLED, HANDLER_RESULT_NOT_YET_HANDLED, MethodCallMessage
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus()
if bus.request_name("org.rocmtune1", dbus.bus.NAME_FLAG_DO_NOT_QUEUE) != dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
    sys.exit("the name is taken")
held = []
def take(connection, message):
    if isinstance(message, MethodCallMessage) and message.get_interface() == "org.rocmtune1.Manager":
        held.append(message)  # never answered
        with open(sys.argv[1], "a") as f:
            f.write(message.get_member() + "\\n")
        return HANDLER_RESULT_HANDLED
    return HANDLER_RESULT_NOT_YET_HANDLED
bus.add_message_filter(take)
open(sys.argv[2], "w").write("ready\\n")
GLib.MainLoop().run()
"""


class PingOnlyDaemonTest(DaemonTest):
    def setUp(self):
        super().setUp()
        if not is_root():
            self.skipTest("root's fallback to the local helper: the suite runs as a user")
        self.start_bus()

    def test_root_check_goes_on_when_the_daemon_answers_ping_but_not_the_call(self):
        calls, ready = self.path("stub.calls"), self.path("stub.ready")
        self.spawn("stub", ["/usr/bin/python3", "-c", STUB, calls, ready])
        self.wait_until(lambda: os.path.exists(ready), "the stub to own the name")
        start = time.monotonic()
        r = self.run_cmd([CONFIG["rocmtunectl"], "set", "amdgpu.noretry=0", "--check"], timeout=90)
        took = time.monotonic() - start
        print(f"root's check against a daemon that answers only Ping: exit {r.returncode} after {took:.1f} s")
        self.assertTrue(os.path.exists(calls), f"the client never called Set: {r.stderr}")
        self.assertIn("going on without it", r.stderr, r.stderr)
        self.assertEqual(r.returncode, 0, r.stderr[-1500:])
        self.assertIn("amdgpu.noretry", r.stdout)
        # The call's wait is 15 s; anything near the change timeout means it waited for the stub.
        self.assertLess(took, 45, "root's check waited for the daemon's answer")
