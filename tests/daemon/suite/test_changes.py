# Changes through rocmtuned on a private system bus: the daemon writes nothing itself, every
# write goes to rocmtune-helper through its socket (served here as systemd serves
# rocmtune-helper.socket: systemd-socket-activate --accept --inetd, one helper per connection),
# and polkit (a real polkitd on the same bus) decides for callers other than root.
#   - root applies a profile: the world ends as `rocmtunectl apply` leaves a copy, the reply is
#     the result document, TransactionCommitted is emitted, ActiveProfile follows;
#   - a request that changes nothing replies without asking polkit (no polkitd running then);
#   - nobody, not allowed by polkit: InteractiveAuthorizationRequired, nothing written;
#   - nobody, allowed by a polkit rule: the change goes through;
#   - the helper refuses a peer that is not root, even through an open socket mode;
#   - while a change waits for the helper, reads are answered and a second change gets Busy.
import json
import os
import subprocess
import time

from fixture import CONFIG, DaemonTest, dbus

TIMEOUT = 180
PROFILE = "rdna2-consumer-compat"
RULES = """polkit.addRule(function(action, subject) {
  if (action.id == "org.rocmtune1.set" && subject.user == "nobody") return polkit.Result.YES;
});
"""
STUCK_HELPER = """
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)
conn, _ = s.accept()
open(sys.argv[3], "w").close()
while not os.path.exists(sys.argv[2]): time.sleep(0.05)
conn.close()
"""


def tree(root):
    """The world's files and their hashes, rocmtune's own state aside."""
    return subprocess.run("find . -path ./var/lib/rocmtune -prune -o -type f -print0 | sort -z | xargs -0 sha256sum",
                          shell=True, cwd=root, capture_output=True, text=True, check=True).stdout


class ChangesTest(DaemonTest):
    def setUp(self):
        super().setUp()
        self.require_helper_socket()
        self.require_nobody()
        self.start_bus("/usr/share/dbus-1/system.d")
        self.w = self.world("rx6600")

    def start(self):
        self.start_helper(self.w)
        return self.start_daemon(self.w)

    def root_apply(self):
        return json.loads(self.manager().Apply(PROFILE, dbus.Dictionary({}, signature="sv"), timeout=120))

    def as_nobody(self, code):
        return self.python(code, argv_prefix=self.nobody([]))

    def start_polkitd_with_rule(self):
        rules = self.path("50-rocmtune-test.rules")
        with open(rules, "w") as f:
            f.write(RULES)
        self.start_polkitd(rules)

    def test_root_applies_a_profile(self):
        expected = self.world("rx6600", "expected")
        r = self.run_cmd([CONFIG["rocmtunectl"], "--root", expected, "apply", PROFILE, "--json"])
        self.assertEqual(r.returncode, 0, f"rocmtunectl apply on the copy: {r.stderr}")
        want = json.loads(r.stdout)
        self.start()
        committed = self.watch_signal("TransactionCommitted")
        changed = self.watch_signal("PropertiesChanged", interface="org.freedesktop.DBus.Properties")
        # polkit is not running: root is never asked.
        got = self.root_apply()
        self.assertIs(got["changed"], True)
        self.assertIs(got["check"], False)
        self.assertTrue(got["transaction"])
        for k in ("changes", "refused", "reboot_required"):
            self.assertEqual(got[k], want[k], f"Apply's {k} differs from rocmtunectl's")
        self.assertEqual(tree(self.w), tree(expected), "the world differs from the one rocmtunectl apply made")
        self.wait_until(lambda: committed, "TransactionCommitted")
        self.assertIn(got["transaction"], [str(a) for args in committed for a in args],
                      "TransactionCommitted does not carry the transaction")
        self.wait_until(lambda: any("ActiveProfile" in args[1] for args in changed),
                        "PropertiesChanged for ActiveProfile")
        self.assertEqual(str(self.get_property("ActiveProfile")), PROFILE)

    def test_nothing_to_change_needs_no_polkit(self):
        # The reply comes without polkit (which is not running), even for nobody.
        self.start()
        self.root_apply()
        r = self.as_nobody(f"""
import json
from busclient import manager, EMPTY_OPTIONS
print(json.loads(manager().Apply("{PROFILE}", EMPTY_OPTIONS, timeout=60))["changed"])""")
        self.assertEqual(r.returncode, 0, f"an unchanged Apply as nobody was refused: {r.stderr}")
        self.assertEqual(r.stdout.strip(), "False", "an unchanged Apply reported a change")

    def test_refused_change_writes_nothing(self):
        # nobody, polkit running with rocmtune's actions (auth_admin): no change, a typed error.
        self.start()
        self.root_apply()
        self.start_polkitd_with_rule()
        before = tree(self.w)
        r = self.as_nobody("""
import dbus, json, sys
from busclient import manager
try:
    manager().Reset()
    sys.exit("Reset as nobody succeeded")
except dbus.DBusException as e:
    print("Reset as nobody:", e.get_dbus_name(), json.loads(e.get_dbus_message())["errors"])
    # No session here, so polkit's allow_any (auth_admin) applies: it would ask for a password,
    # and this call did not allow interaction.
    sys.exit(0 if e.get_dbus_name() == "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired" else 1)""")
        self.assertEqual(r.returncode, 0, f"nobody's Reset was not refused as expected: {r.stdout}{r.stderr}")
        self.assertEqual(tree(self.w), before, "a refused Reset changed the world")

    def test_change_allowed_by_a_polkit_rule(self):
        # nobody, allowed org.rocmtune1.set by a polkit rule: the change goes through the helper.
        self.start()
        self.start_polkitd_with_rule()
        r = self.as_nobody("""
import dbus, json
from busclient import manager, EMPTY_OPTIONS
r = json.loads(manager().Set({"amdgpu.noretry": "1"}, EMPTY_OPTIONS, timeout=60))
assert r["changed"] is True, r""")
        self.assertEqual(r.returncode, 0, f"nobody's Set allowed by polkit failed: {r.stderr}")
        with open(os.path.join(self.w, "etc/modprobe.d/rocmtune.conf")) as f:
            self.assertIn("noretry=1", f.read(), "the Set did not reach the drop-in")

    def test_helper_refuses_a_peer_not_root(self):
        # The helper's own fence: a peer that is not root gets nothing, even through an open socket mode.
        self.start()
        os.chmod(self.path("helper.sock"), 0o666)
        before = tree(self.w)
        r = self.run_cmd(self.nobody(["/usr/bin/python3", "-c", """
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.stdin.buffer.read())
s.shutdown(socket.SHUT_WR); print(s.makefile("rb").read().decode(errors="replace"), end="")""",
                                          self.path("helper.sock")]), input="recover\n")
        os.chmod(self.path("helper.sock"), 0o600)
        self.assertEqual(r.stdout, "", "the helper answered a peer that is not root")
        self.wait_until(lambda: "is not root" in self.log("helper.log"), "the helper to say why it refused")
        self.assertEqual(tree(self.w), before, "a refused peer changed the world")

    def test_reads_while_a_change_waits_for_the_helper(self):
        # A helper that does not answer: reads are still served, a second change is Busy, and the
        # first change fails with a message once the helper goes away.
        stuck = self.path("stuck.sock")
        self.spawn("stuck-helper", ["/usr/bin/python3", "-c", STUCK_HELPER, stuck, self.path("release"),
                                    self.path("accepted")])
        self.wait_until(lambda: os.path.exists(stuck), "the stuck helper's socket")
        daemon = self.start_daemon(self.w, "--helper-socket", stuck, helper_socket=False, idle="0.2")
        # The first change, from another process (a busctl that waits up to 60 s for its reply).
        first = self.spawn("first", ["busctl", "--system", "--no-pager", "--timeout=60", "call", "org.rocmtune1",
                                     "/org/rocmtune1", "org.rocmtune1.Manager", "Set", "a{ss}a{sv}", "1",
                                     "amdgpu.noretry", "0", "0"])
        self.wait_until(lambda: os.path.exists(self.path("accepted")), "the change to reach the helper")
        # Longer than the idle timeout: the daemon must not leave with a change running.
        self.assert_keeps_running(daemon, 1.0, "the daemon exited for being idle while a change was running")
        start = time.monotonic()
        self.call_json("Describe")
        took = time.monotonic() - start
        print(f"Describe while a change waits for the helper: {took * 1000:.0f} ms")
        self.assertLess(took, 5, "reads wait for the change")
        with self.assertRaises(dbus.DBusException, msg="a second change ran while one was running") as cm:
            self.manager().Reset()
        self.assertIn("another change is running", cm.exception.get_dbus_message().lower(),
                      "the second change was not refused as busy")
        self.assertIsNone(first.poll(), f"the first change ended before the helper answered: {self.log('first.log')}")
        open(self.path("release"), "w").close()
        self.assertNotEqual(self.wait_exit(first, "the first change to end"), 0,
                            "the first change succeeded without a helper reply")
        self.assertIn("without a result", self.log("first.log"), "the first change's error does not say what happened")
