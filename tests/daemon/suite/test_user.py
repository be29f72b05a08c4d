# rocmtuned as its own user, not root, on a private system bus with a real polkitd and the helper
# behind its socket:
#   - the daemon runs as user rocmtune (a test uid, named so in a test /etc/passwd that the bus,
#     polkitd and the helper see in their mount namespaces, and in the world's etc/group, whose
#     group the helper gives its journal to), owns org.rocmtune1 under the shipped bus policy,
#     and a change goes root -> daemon -> helper socket -> committed;
#   - a change by a user a polkit rule allows: the daemon, not root, asks polkit about its caller
#     (polkitd answers only root or an action owner: the policy's org.freedesktop.policykit.owner);
#   - the helper wrote its journal and lock 0640 root:rocmtune (directory 0750), and the daemon
#     answers History, Describe and Verify from it; another non-root user cannot read the records;
#   - the helper socket (0660 root:rocmtune, as rocmtune-helper.socket) serves the daemon's user,
#     and a process of another non-root uid, even through a socket opened to all, gets nothing;
#   - the daemon's process has uid rocmtune and no capabilities.
import glob
import json
import os
import subprocess

from fixture import DaemonTest, dbus

TIMEOUT = 120
# uids/gids no account uses here: the daemon's user, a user polkit allows Set, a stranger.
DAEMON_ID, GRANTED, STRANGER = 64310, 64312, 64311
RULES = """polkit.addRule(function(action, subject) {
  if (action.id == "org.rocmtune1.set" && subject.user == "rtgranted") return polkit.Result.YES;
});
"""
GRANTED_SET = """
import dbus, json
from busclient import manager, EMPTY_OPTIONS
r = json.loads(manager().Set({"amdgpu.noretry": "1"}, EMPTY_OPTIONS, timeout=60))
assert r["changed"] is True, r
"""
ASK_HELPER = """
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"recover\\n")
s.shutdown(socket.SHUT_WR); print(s.makefile("rb").read().decode(errors="replace"), end="")
"""


def files(root):
    return subprocess.run("find . -type f -print0 | sort -z | xargs -0 sha256sum", shell=True, cwd=root,
                          capture_output=True, text=True, check=True).stdout


class UserTest(DaemonTest):
    def setUp(self):
        super().setUp()
        self.require_root("the daemon runs as a test user rocmtune, with test accounts the bus and polkitd see")
        self.require_helper_socket()
        self.require_polkitd()
        self.require_free_ids((DAEMON_ID, GRANTED, STRANGER), no_user="rocmtune")
        self.use_test_accounts(
            [f"rocmtune:x:{DAEMON_ID}:{DAEMON_ID}::/:/usr/sbin/nologin",
             f"rtgranted:x:{GRANTED}:{GRANTED}::/nonexistent:/usr/sbin/nologin",
             f"rtstranger:x:{STRANGER}:{STRANGER}::/nonexistent:/usr/sbin/nologin"],
            [f"rocmtune:x:{DAEMON_ID}:", f"rtgranted:x:{GRANTED}:", f"rtstranger:x:{STRANGER}:"])
        rules = self.path("50-rocmtune-user.rules")
        with open(rules, "w") as f:
            f.write(RULES)
        self.start_bus("/usr/share/dbus-1/system.d")
        self.start_polkitd(rules)
        # The world: its etc/group has the daemon's group (the tree's own decides whom its files
        # are given to). The helper's peer check reads the system's /etc/passwd: the test one,
        # bound over it in the helper's mount namespace.
        self.w = self.world("rx6600")
        with open(os.path.join(self.w, "etc/group"), "w") as f:
            f.write(f"root:x:0:\nrocmtune:x:{DAEMON_ID}:\n")
        self._chmod_readable(self.w)
        self.start_account_helper(self.w, DAEMON_ID)
        self.daemon = self.start_daemon(self.w, prefix=self.as_uid(DAEMON_ID, []))

    def root_apply(self):
        """Root applies a profile through the daemon: polkit is not asked for root, the helper
        takes the daemon's connection."""
        r = json.loads(self.manager().Apply("rdna2-consumer-compat", dbus.Dictionary({}, signature="sv"), timeout=120))
        self.assertIs(r["changed"], True, r)
        return r["transaction"]

    def granted_set(self):
        r = self.run_cmd(self.as_uid(GRANTED, ["/usr/bin/python3", "-c", GRANTED_SET]))
        self.assertEqual(r.returncode, 0, f"Set by a user polkit allows failed: {r.stderr}")

    def mode(self, path):
        st = os.stat(path)
        return f"{st.st_mode & 0o7777:o} {st.st_uid} {st.st_gid}"

    def test_daemon_runs_as_rocmtune_without_capabilities(self):
        with open(f"/proc/{self.daemon.pid}/status") as f:
            status = f.read()
        self.assertRegex(status, rf"(?m)^Uid:\s*{DAEMON_ID}\s", "the daemon's uid")
        self.assertRegex(status, r"(?m)^CapEff:\s*0000000000000000$", "the daemon has capabilities")
        self.assertTrue(self.has_owner(), "the daemon does not own org.rocmtune1")

    def test_root_applies_through_the_daemon(self):
        self.root_apply()
        with open(os.path.join(self.w, "etc/environment.d/90-rocmtune.conf")) as f:
            self.assertIn("HSA_OVERRIDE_GFX_VERSION", f.read(), "the Apply wrote no environment.d drop-in")

    def test_the_daemon_asks_polkit_for_its_caller(self):
        # A user polkit allows Set: the daemon asks polkit about its caller, as a non-root action owner.
        self.granted_set()
        with open(os.path.join(self.w, "etc/modprobe.d/rocmtune.conf")) as f:
            self.assertIn("noretry=1", f.read(), "the Set did not reach the drop-in")

    def test_journal_readable_by_group_rocmtune_only(self):
        self.root_apply()
        self.granted_set()
        j = os.path.join(self.w, "var/lib/rocmtune/journal")
        self.assertEqual(self.mode(j), f"750 0 {DAEMON_ID}", "journal directory")
        # The writers' lock is root's alone (security review 3, item 5): whoever may open it may
        # hold it with flock(2) and stall every writer.
        lock = os.path.join(self.w, "var/lib/rocmtune/lock")
        self.assertEqual(self.mode(lock), "600 0 0", "lock")
        self.assertNotEqual(self.run_cmd(self.as_uid(DAEMON_ID, ["cat", lock])).returncode, 0,
                            "the daemon's user opens the writers' lock")
        records = sorted(glob.glob(os.path.join(j, "*.jsonl")))
        self.assertGreaterEqual(len(records), 2, "expected the two transactions' records")
        for f in records:
            self.assertEqual(self.mode(f), f"640 0 {DAEMON_ID}", f)
            self.assertNotEqual(self.run_cmd(self.as_uid(STRANGER, ["cat", f])).returncode, 0,
                                f"another user ({STRANGER}) reads {f}")
            self.assertEqual(self.run_cmd(self.as_uid(DAEMON_ID, ["cat", f])).returncode, 0,
                             f"the daemon's user cannot read {f}")

    def test_reads_from_the_journal(self):
        # The daemon answers from the journal it reads as rocmtune.
        txn = self.root_apply()
        self.granted_set()
        history = self.call_json("History", prefix=self.nobody([]))
        self.assertIn(f'"{txn}"', history, "History does not show the transaction")
        self.assertIn('"profile": "rdna2-consumer-compat"', self.call_json("Describe"),
                      "Describe does not show the applied profile")
        d = json.loads(self.call_json("Verify"))
        self.assertEqual(d["schema"], "rocmtune.verify.v1")
        # The active profile and the pending regeneration come from the journal's transactions.
        self.assertEqual(d["active_profile"], "rdna2-consumer-compat")
        self.assertTrue(any("transaction 2" in x["message"] for x in d["differences"]), d["differences"])
        self.assertNotIn("Permission denied", json.dumps(d))

    def test_helper_serves_the_daemons_user_only(self):
        # The daemon's user is served, another non-root uid is not, even with the socket's mode
        # opened to everyone.
        sock = self.path("helper.sock")
        r = self.run_cmd(self.as_uid(DAEMON_ID, ["/usr/bin/python3", "-c", ASK_HELPER, sock]))
        self.assertEqual(r.returncode, 0, f"the daemon's user could not talk to the helper: {r.stderr}")
        self.assertIn('"schema": "rocmtune.helper.v1"', r.stdout, "the helper did not answer the daemon's user")
        r = self.run_cmd(self.as_uid(STRANGER, ["/usr/bin/python3", "-c", ASK_HELPER, sock]))
        self.assertNotEqual(r.returncode, 0, f"uid {STRANGER} connected to the 0660 root:rocmtune socket")
        os.chmod(sock, 0o666)
        before = files(self.w)
        r = self.run_cmd(self.as_uid(STRANGER, ["/usr/bin/python3", "-c", ASK_HELPER, sock]))
        os.chmod(sock, 0o660)
        self.assertEqual(r.stdout, "", f"the helper answered uid {STRANGER}")
        why = (f"refused: the peer (uid {STRANGER}) is not root and not the daemon's user rocmtune "
               f"(uid {DAEMON_ID} in /etc/passwd)")
        self.wait_until(lambda: why in self.log("helper.log"), "the helper to say why it refused")
        self.assertEqual(files(self.w), before, "a refused peer changed the world")
