# rocmtuned's GPU faults (daemon/fault_methods.h) on a private system bus, the daemon as a test
# user rocmtune, the world's journal written by the real systemd-journal-remote:
#   - Faults(boot, since) for root and an admin (group adm) lists every record; for a user it
#     lists that user's own (a service entry's _UID) and not another user's process's fault nor
#     a fault whose user is unknown; BOOT above 1 is InvalidArgument;
#   - FaultsSeen(n): at start for this boot's faults, then after a new fault is logged, on the
#     next Describe, for the new ones only; never without a new one; and not again for the same
#     faults when the daemon starts again (its saved cursor, var/lib/rocmtune/daemon);
#   - a journal only root may read (as on a real system: root:systemd-journal 0640, the daemon's
#     user in neither group): the daemon asks rocmtune-helper (`read-log`) and still filters per
#     caller. Before, it saw no fault at all there.
import json
import os
import socket

from fixture import DaemonTest, dbus

TIMEOUT = 180
DAEMON_ID, USER_ID, ADMIN_ID, OTHER_ID = 64330, 64331, 64332, 64333
BOOT = "7a1c9e0d2b3f4a5c6d7e8f9012345678"
MACHINE = "3f1e2d4c5b6a79881726354453627180"
AT = 1795960980000000  # 2026-11-29T14:03:00Z
DEV = "amdgpu 0000:28:00.0: amdgpu: "

CALL = """
import dbus, json, sys
from busclient import manager
m = manager()
try:
    print(m.Faults(dbus.Int32(int(sys.argv[1])), dbus.UInt64(0), timeout=120))
except dbus.DBusException as e:
    print(json.dumps({"error": e.get_dbus_name()}))
"""


def kernel(usec, message):
    return [("__REALTIME_TIMESTAMP", str(usec)), ("__MONOTONIC_TIMESTAMP", str(usec % 1000000000)),
            ("_BOOT_ID", BOOT), ("_TRANSPORT", "kernel"), ("PRIORITY", "3"), ("SYSLOG_IDENTIFIER", "kernel"),
            ("MESSAGE", message)]


def service(usec, uid, message):
    return [("__REALTIME_TIMESTAMP", str(usec)), ("__MONOTONIC_TIMESTAMP", str(usec % 1000000000)),
            ("_BOOT_ID", BOOT), ("_TRANSPORT", "stdout"), ("PRIORITY", "6"), ("SYSLOG_IDENTIFIER", "ollama"),
            ("_PID", "900"), ("_UID", str(uid)), ("_GID", str(uid)), ("_COMM", "ollama"),
            ("_SYSTEMD_UNIT", "ollama.service"), ("MESSAGE", message)]


class FaultsWorld(DaemonTest):
    def setUp(self):
        super().setUp()
        self.require_root("the daemon runs as a test user rocmtune, the callers as other uids")
        self.require_tool(self.JOURNAL_REMOTE, "systemd-journal-remote")
        self.require_free_ids((DAEMON_ID, USER_ID, ADMIN_ID, OTHER_ID), no_user="rocmtune")
        self.use_test_accounts(
            [f"rocmtune:x:{DAEMON_ID}:{DAEMON_ID}::/:/usr/sbin/nologin",
             f"rtuser:x:{USER_ID}:{USER_ID}::/nonexistent:/usr/sbin/nologin",
             f"rtadmin:x:{ADMIN_ID}:{ADMIN_ID}::/nonexistent:/usr/sbin/nologin",
             f"rtother:x:{OTHER_ID}:{OTHER_ID}::/nonexistent:/usr/sbin/nologin"],
            [f"rocmtune:x:{DAEMON_ID}:", f"rtuser:x:{USER_ID}:", f"rtadmin:x:{ADMIN_ID}:", f"rtother:x:{OTHER_ID}:"])
        self.start_bus("/usr/share/dbus-1/system.d")
        self.w = self.world("rx5700xt")
        # The world's own accounts: what rocmtuned reads to tell an admin (etc/group's adm).
        with open(os.path.join(self.w, "etc/passwd"), "w") as f:
            f.write("root:x:0:0::/root:/bin/sh\n"
                    f"rtuser:x:{USER_ID}:{USER_ID}::/nonexistent:/bin/sh\n"
                    f"rtadmin:x:{ADMIN_ID}:{ADMIN_ID}::/nonexistent:/bin/sh\n"
                    f"rtother:x:{OTHER_ID}:{OTHER_ID}::/nonexistent:/bin/sh\n")
        with open(os.path.join(self.w, "etc/group"), "w") as f:
            f.write(f"root:x:0:\nadm:x:4:rtadmin\nrocmtune:x:{DAEMON_ID}:\n")
        # python3 pid 4242, still running, is rtother's.
        os.makedirs(os.path.join(self.w, "proc/4242"))
        for name, text in (("comm", "python3\n"), ("status", f"Name:\tpython3\nUid:\t{OTHER_ID}\t{OTHER_ID}\n")):
            with open(os.path.join(self.w, "proc/4242", name), "w") as f:
                f.write(text)
        os.makedirs(os.path.join(self.w, "proc/sys/kernel/random"), exist_ok=True)
        with open(os.path.join(self.w, "proc/sys/kernel/random/boot_id"), "w") as f:
            f.write("7a1c9e0d-2b3f-4a5c-6d7e-8f9012345678\n")
        self.write_journal("system.journal", [
            kernel(AT, DEV + "[gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32770)"),
            kernel(AT + 5, DEV + " Process python3 pid 4242 thread python3 pid 4251"),
            kernel(AT + 1000000, DEV + "GPU reset begin!"),
            service(AT + 2000000, USER_ID, "Memory access fault by GPU node-1 (Agent handle: 0x7d83e49250e0) on "
                                           "address 0x7d8475a03000. Reason: Page not present or supervisor privilege."),
        ])
        self._chmod_readable(self.w)

    def write_journal(self, name, entries, mode=0o644):
        self.write_world_journal(self.w, MACHINE, name, entries, mode)

    def faults_as(self, uid, boot=1):
        r = self.python(CALL, str(boot), argv_prefix=self.as_uid(uid, []) if uid else ())
        self.assertEqual(r.returncode, 0, f"Faults as uid {uid}: {r.stderr}")
        return json.loads(r.stdout)

    def kinds(self, doc):
        return sorted(f["kind"] for f in doc["faults"])


class GpuFaultsTest(FaultsWorld):
    def test_each_caller_sees_what_it_may(self):
        self.start_daemon(self.w, prefix=self.as_uid(DAEMON_ID, []), helper_socket=False)
        everything = ["gpu-reset", "page-fault", "runtime-fault"]
        self.assertEqual(self.kinds(self.faults_as(0)), everything, "root")
        self.assertEqual(self.kinds(self.faults_as(ADMIN_ID)), everything, "an admin (group adm)")
        mine = self.faults_as(USER_ID)
        self.assertEqual(self.kinds(mine), ["runtime-fault"], "a user: its own service's fault only")
        self.assertEqual(mine["faults"][0]["uid"], USER_ID)
        other = self.faults_as(OTHER_ID)
        self.assertEqual(self.kinds(other), ["page-fault"], "rtother: its python3's fault, not the reset")
        self.assertEqual(other["faults"][0]["process"], "python3")
        self.assertEqual(self.faults_as(0, boot=2), {"error": "org.rocmtune1.Error.InvalidArgument"})

    def test_faults_seen_at_start_and_for_new_ones(self):
        seen = self.watch_signal("FaultsSeen")
        self.start_daemon(self.w, prefix=self.as_uid(DAEMON_ID, []), helper_socket=False)
        self.wait_until(lambda: seen, "FaultsSeen at start")
        self.assertEqual([int(a[0]) for a in seen], [3], "this boot's three records at start")
        self.manager().Describe(timeout=120)
        self.pump()
        self.assertEqual(len(seen), 1, "FaultsSeen without a new fault")
        self.write_journal("system@new.journal", [
            kernel(AT + 60000000, DEV + "ring gfx_0.0.0 timeout, signaled seq=10, emitted seq=12"),
        ])
        self.manager().Describe(timeout=120)
        self.wait_until(lambda: len(seen) > 1, "FaultsSeen after a new fault")
        self.assertEqual(int(seen[1][0]), 1, "only the new fault")

    def test_faults_seen_not_again_after_a_restart(self):
        state = os.path.join(self.w, "var/lib/rocmtune/daemon")  # StateDirectory=rocmtune/daemon
        os.makedirs(state)
        os.chown(state, DAEMON_ID, DAEMON_ID)
        os.chmod(state, 0o700)
        seen = self.watch_signal("FaultsSeen")
        self.start_daemon(self.w, prefix=self.as_uid(DAEMON_ID, []), helper_socket=False)
        self.wait_until(lambda: seen, "FaultsSeen at the first start")
        self.assertEqual([int(a[0]) for a in seen], [3], "this boot's three records at the first start")
        self.assertTrue(os.path.exists(os.path.join(state, "faults-cursor")), "no cursor saved")
        self.stop(self.daemon_proc, "rocmtuned")
        self.start_daemon(self.w, prefix=self.as_uid(DAEMON_ID, []), helper_socket=False, log="daemon2.log")
        self.manager().Describe(timeout=120)
        self.pump()
        self.assertEqual([int(a[0]) for a in seen], [3], "FaultsSeen again for the faults announced before")
        self.write_journal("system@new.journal", [
            kernel(AT + 60000000, DEV + "ring gfx_0.0.0 timeout, signaled seq=10, emitted seq=12"),
        ])
        self.manager().Describe(timeout=120)
        self.wait_until(lambda: len(seen) > 1, "FaultsSeen after a new fault")
        self.assertEqual([int(a[0]) for a in seen], [3, 1], "only the new fault")


class RootOnlyJournalTest(FaultsWorld):
    def setUp(self):
        super().setUp()
        self.require_helper_socket()
        self.journal_dir = os.path.join(self.w, "var/log/journal", MACHINE)
        os.chmod(os.path.join(self.journal_dir, "system.journal"), 0o600)  # root's only
        self.start_account_helper(self.w, DAEMON_ID)

    def ask_helper(self, request):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as c:
            c.settimeout(60)
            c.connect(self.path("helper.sock"))
            c.sendall(request.encode())
            c.shutdown(socket.SHUT_WR)
            reply = b""
            while chunk := c.recv(65536):
                reply += chunk
        return reply.decode()

    def test_read_log_returns_only_the_gpu_lines(self):
        self.write_journal("system@other.journal", [
            kernel(AT + 3000000, "usb 1-1: new high-speed USB device number 2 using xhci_hcd"),
            service(AT + 4000000, USER_ID, "Accepted publickey for rtuser from 192.0.2.1 port 52222 ssh2"),
        ], mode=0o600)
        got = json.loads(self.ask_helper('read-log\n{"boot":null,"since_usec":null,"after_cursor":""}\n'))
        self.assertEqual(got["source"], "journal", got)
        messages = [e["message"] for e in got["entries"]]
        self.assertEqual(len(messages), 4, messages)  # the fault, its process line, the reset, the runtime's
        self.assertFalse([m for m in messages if "usb" in m or "publickey" in m], "lines of no GPU fault")
        self.assertEqual(got["entries"][-1]["uid"], USER_ID)
        self.assertTrue(got["last_cursor"])
        # The query is read strictly: a member too many is refused, nothing read.
        bad = json.loads(self.ask_helper('read-log\n{"boot":0,"since_usec":null,"after_cursor":"","all":true}\n'))
        self.assertEqual(bad["status"], "refused", bad)

    def test_the_daemons_user_cannot_read_the_journal(self):
        # The premise of the tests below.
        r = self.run_cmd(self.as_uid(DAEMON_ID, ["cat", os.path.join(self.journal_dir, "system.journal")]))
        self.assertNotEqual(r.returncode, 0, "the daemon's user reads the journal: nothing is tested")
        self.assertIn("Permission denied", r.stderr)

    def test_each_caller_sees_what_it_may_through_the_helper(self):
        self.start_daemon(self.w, prefix=self.as_uid(DAEMON_ID, []))
        everything = ["gpu-reset", "page-fault", "runtime-fault"]
        self.assertEqual(self.kinds(self.faults_as(0)), everything, "root, through the helper")
        self.assertEqual(self.kinds(self.faults_as(ADMIN_ID)), everything, "an admin (group adm)")
        mine = self.faults_as(USER_ID)
        self.assertEqual(self.kinds(mine), ["runtime-fault"], "a user: its own service's fault only")
        self.assertEqual(mine["faults"][0]["uid"], USER_ID)
        self.assertEqual(self.kinds(self.faults_as(OTHER_ID)), ["page-fault"], "rtother: its python3's fault")

    def test_faults_seen_through_the_helper(self):
        seen = self.watch_signal("FaultsSeen")
        self.start_daemon(self.w, prefix=self.as_uid(DAEMON_ID, []))
        self.wait_until(lambda: seen, "FaultsSeen at start")
        self.assertEqual([int(a[0]) for a in seen], [3], "this boot's three records at start")
        self.write_journal("system@new.journal", [
            kernel(AT + 60000000, DEV + "ring gfx_0.0.0 timeout, signaled seq=10, emitted seq=12"),
        ], mode=0o600)
        self.manager().Describe(timeout=120)
        self.wait_until(lambda: len(seen) > 1, "FaultsSeen after a new fault")
        self.assertEqual([int(a[0]) for a in seen], [3, 1], "only the new fault")

    def test_a_users_loop_starts_few_helpers(self):
        # Any user may call Faults and Describe, and each read through the helper starts a root
        # helper against the socket's trigger limit, which changes share: the same query is
        # answered from the last reply, other ones beyond 10 in 5 s are Busy.
        self.start_daemon(self.w, prefix=self.as_uid(DAEMON_ID, []))
        spawned = self.log("helper.log").count("Spawned ")
        code = """
import dbus, json, sys
from busclient import manager
m, names = manager(), {}
for i in range(60):
    try:
        m.Faults(dbus.Int32(1), dbus.UInt64(i % 2 and 1000 + i or 0), timeout=60)
        name = ""
    except dbus.DBusException as e:
        name = e.get_dbus_name()
    names[name] = names.get(name, 0) + 1
print(json.dumps(names))
"""
        r = self.python(code, argv_prefix=self.as_uid(USER_ID, []), timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        names = json.loads(r.stdout)
        started = self.log("helper.log").count("Spawned ") - spawned
        print(f"60 Faults of a user: {names}; rocmtune-helper started {started} times")
        self.assertLessEqual(started, 12, "the user's calls started a root helper each")
        self.assertIn("org.rocmtune1.Error.Busy", names, names)
        self.assertGreaterEqual(names.get("", 0), 30, "the repeated query was not answered from the last reply")
