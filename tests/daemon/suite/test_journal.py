# rocmtuned's journal entries carry who asked: in a private mount and pid namespace with its own
# systemd-journald (tmpfs on /run/systemd, /run/log, /var/log/journal), a private bus, the helper
# behind its socket and, for the refusal, a real polkitd with rocmtune's actions and no rule:
#   - root's Apply is one `applied` entry with ROCMTUNE_CALLER_UID=0 and the reply's transaction;
#   - nobody's Reset, which polkit does not allow without a password, is one `refused` entry with
#     nobody's uid and the reason, and nothing is written;
#   - a flood from nobody is not a flood of root's journal: 200 requests refused before polkit is
#     asked (an invalid value, nothing to change) make no entry at all, and 30 more polkit denials
#     make at most RefusalLimiter::kBurst entries for that uid in all (daemon/refusal_limiter.h).
# Each scenario runs itself again inside `unshare -m -p -f --mount-proc` (in_namespace): the
# journald, bus and daemon it starts end with the namespace.
import functools
import json
import os
import pwd
import socket
import subprocess
import unittest

from fixture import CONFIG, DaemonTest, dbus, is_root

TIMEOUT = 120
LABELS = "journald"
INSIDE = "ROCMTUNE_TEST_NAMESPACE"
FLOOD = """
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
"""
RESET = """
import dbus, sys
from busclient import manager
try:
    manager().Reset()
    sys.exit("Reset as nobody succeeded")
except dbus.DBusException as e:
    print("Reset as nobody:", e.get_dbus_name())
"""


def in_namespace(test):
    """Outside: runs this scenario again in a new mount and pid namespace (its outcome is the
    inner run's: passed, skipped with the inner reason, or failed with its output)."""
    @functools.wraps(test)
    def wrapper(self):
        if os.environ.get(INSIDE):
            return test(self)
        if not is_root():
            raise unittest.SkipTest("needs root: a private /run/systemd/journal and the bus policy")
        if subprocess.run(["unshare", "-m", "-p", "-f", "--mount-proc", "true"], capture_output=True).returncode:
            raise unittest.SkipTest("cannot make a mount and pid namespace here")
        argv = ["unshare", "-m", "-p", "-f", "--mount-proc", "/usr/bin/python3",
                os.path.join(os.path.dirname(os.path.abspath(__file__)), "run.py"),
                "--rocmtuned", CONFIG["rocmtuned"], "--rocmtunectl", CONFIG["rocmtunectl"],
                "--helper", CONFIG["helper"],
                "--fault-helper", CONFIG["fault_helper"] or "", "--src", CONFIG["src"], self.id()]
        r = subprocess.run(argv, env=dict(os.environ, **{INSIDE: "1"}), stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT - 10)
        print(r.stdout)
        if r.returncode == 77:
            reasons = [line[len("SKIP: "):] for line in r.stdout.splitlines() if line.startswith("SKIP: ")]
            raise unittest.SkipTest(reasons[-1] if reasons else "skipped inside the namespace")
        self.assertEqual(r.returncode, 0, "the scenario failed inside its namespace (above)")
    return wrapper


class JournalTest(DaemonTest):
    def setUp(self):
        if not os.environ.get(INSIDE):
            return  # the scenario runs again inside its namespace (in_namespace)
        super().setUp()
        self.require_helper_socket()
        self.require_polkitd()
        self.require_tool("journalctl", "systemd")
        journald = next((j for j in ("/lib/systemd/systemd-journald", "/usr/lib/systemd/systemd-journald")
                         if os.access(j, os.X_OK)), None)
        if not journald:
            self.skipTest("systemd-journald is not installed")
        r = self.run_cmd(["mount", "--make-rprivate", "/"])
        self.assertEqual(r.returncode, 0, f"cannot make the mounts private: {r.stderr}")
        for d in ("/run/systemd", "/run/log", "/var/log/journal"):
            if not os.path.isdir(d) and d != "/run/log":
                continue
            os.makedirs(d, exist_ok=True)
            r = self.run_cmd(["mount", "-t", "tmpfs", "tmpfs", d])
            self.assertEqual(r.returncode, 0, f"cannot mount a tmpfs on {d}: {r.stderr}")
        os.makedirs("/run/systemd/journal", exist_ok=True)
        os.makedirs("/run/log/journal", exist_ok=True)
        p = self.spawn("journald", [journald])
        sock = "/run/systemd/journal/socket"
        self.wait_until(lambda: os.path.exists(sock) or p.poll() is not None, "journald's socket")
        if not os.path.exists(sock):
            self.skipTest(f"systemd-journald does not start here: {self.log('journald.log')[:300]}")
        self.start_bus("/usr/share/dbus-1/system.d")
        self.w = self.world("rx6600")
        self.start_helper(self.w)
        self.start_daemon(self.w)

    def entries(self, *filters):
        r = self.run_cmd(["journalctl", "-D", "/run/log/journal", "-o", "json", "--no-pager",
                          "SYSLOG_IDENTIFIER=rocmtune"] + list(filters))
        return [json.loads(line) for line in r.stdout.splitlines() if line.strip()]

    def barrier(self):
        """Waits until journald stored everything sent to its socket so far: a marker sent after it
        to the same datagram socket, which journald reads in order, is in the journal."""
        marker = f"barrier-{os.getpid()}-{len(self._procs)}-{id(object())}"
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.sendto(f"SYSLOG_IDENTIFIER=rocmtune-test\nMESSAGE={marker}\n".encode(), "/run/systemd/journal/socket")
        s.close()
        self.wait_until(lambda: self.run_cmd(["journalctl", "-D", "/run/log/journal", "--no-pager", "-o", "cat",
                                              "SYSLOG_IDENTIFIER=rocmtune-test", f"MESSAGE={marker}"]).stdout.strip(),
                        "journald to store the entries sent before the marker")

    def root_apply(self):
        return json.loads(self.manager().Apply("rdna2-consumer-compat", dbus.Dictionary({}, signature="sv"),
                                               timeout=120))["transaction"]

    @in_namespace
    def test_applied_entry_names_root(self):
        txn = self.root_apply()
        self.barrier()
        applied = self.entries("ROCMTUNE_EVENT=applied")
        self.assertEqual(len(applied), 1, applied)
        for name, want in (("ROCMTUNE_CALLER_UID", "0"), ("ROCMTUNE_TRANSACTION", txn),
                           ("ROCMTUNE_PROFILE", "rdna2-consumer-compat"), ("ROCMTUNE_ROOT", self.w),
                           ("MESSAGE_ID", "31b17bd470574ca58f0e00961cc198c9")):
            self.assertEqual(applied[0].get(name), want, f"applied: {name}")

    def world_files(self):
        return subprocess.run("find . -path ./var/lib/rocmtune -prune -o -type f -print0 | sort -z | "
                              "xargs -0 sha256sum",
                              shell=True, cwd=self.w, capture_output=True, text=True, check=True).stdout

    @in_namespace
    def test_refused_entry_names_nobody(self):
        self.root_apply()
        self.start_polkitd()
        before = self.world_files()
        r = self.python(RESET, argv_prefix=self.nobody([]))
        self.assertEqual(r.returncode, 0, f"nobody's Reset was not refused as expected: {r.stdout}{r.stderr}")
        self.assertEqual(self.world_files(), before, "a refused Reset changed the world")
        self.barrier()
        refused = self.entries("ROCMTUNE_EVENT=refused")
        self.assertEqual(len(refused), 1, refused)
        r = refused[0]
        for name, want in (("ROCMTUNE_CALLER_UID", str(pwd.getpwnam("nobody").pw_uid)), ("ROCMTUNE_VERB", "reset"),
                           ("ROCMTUNE_ROOT", self.w), ("MESSAGE_ID", "f969897a3172464b968415ceaccb55c1")):
            self.assertEqual(r.get(name), want, f"refused: {name}")
        self.assertNotIn("ROCMTUNE_TRANSACTION", r)
        reason = r.get("ROCMTUNE_REASON")
        reason = reason[0] if isinstance(reason, list) else reason
        self.assertIn("org.rocmtune1.revert", reason or "", "the refusal's reason")

    @in_namespace
    def test_a_flood_is_not_a_flood_of_entries(self):
        # After one refused Reset (as in the sequence the limit was set for), the flood, from one
        # connection (as a script would send it).
        self.root_apply()
        self.start_polkitd()
        self.assertEqual(self.python(RESET, argv_prefix=self.nobody([])).returncode, 0, "nobody's Reset")
        r = self.python(FLOOD, argv_prefix=self.nobody([]), timeout=100)
        self.assertEqual(r.returncode, 0, f"the flood did not go as expected: {r.stdout}{r.stderr}")
        print(r.stdout)
        # The daemon logs a denial before it replies, so every entry is sent by now.
        self.barrier()
        refused = self.entries("ROCMTUNE_EVENT=refused")
        print(f"refused entries after the flood: {len(refused)}")
        self.assertLessEqual(len(refused), 5, "refused entries for one caller's flood (RefusalLimiter::kBurst)")
        self.assertGreaterEqual(len(refused), 2, "the polkit denials of the flood were not logged at all")
        self.assertNotIn("bogus", json.dumps(refused), "a request refused before polkit was logged")
