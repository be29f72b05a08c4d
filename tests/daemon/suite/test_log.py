# The daemon logs: every call it answers with an error is logged once, at the
# edge, naming the caller (uid, pid, unique name) and the request (method, key argument), so
# that the client's hint "see `journalctl -u rocmtuned`" shows something. Outside systemd the
# log is the daemon's stderr, as here (WORK/daemon.log); under the unit, journald's fields.
#   - nobody's Explain of an unknown key: an error returned by the handler (the guard logs it);
#   - nobody's Apply that would write: AccessDenied / InteractiveAuthorizationRequired after
#     polkit said no (an asynchronous reply);
#   - nobody's Apply of an unknown profile: NotFound, answered before polkit is asked;
#   - a successful call logs nothing.
import pwd
import re

from fixture import DaemonTest

TIMEOUT = 120

CALLS = """
import os, dbus
from busclient import manager, outcome, EMPTY_OPTIONS, NOT_AUTHORIZED
bus = dbus.SystemBus()
m = manager(bus)
assert outcome(m.Describe)[0] == "", "Describe failed"
explain, _ = outcome(lambda: m.Explain("no.such_key"))
assert explain in ("org.rocmtune1.Error.NotFound", "org.rocmtune1.Error.InvalidArgument"), explain
denied, _ = outcome(lambda: m.Apply("rdna2-consumer-compat", EMPTY_OPTIONS, timeout=60))
assert denied in NOT_AUTHORIZED, denied
name, _ = outcome(lambda: m.Apply("no-such-profile", EMPTY_OPTIONS, timeout=60))
assert name == "org.rocmtune1.Error.NotFound", name
print(bus.get_unique_name(), os.getpid(), explain, denied)
"""


class LogTest(DaemonTest):
    def setUp(self):
        super().setUp()
        self.require_nobody()
        self.require_helper_socket()
        self.start_bus("/usr/share/dbus-1/system.d")
        self.start_polkitd()
        self.w = self.world("rx6600")
        self.start_helper(self.w)
        self.start_daemon(self.w)

    def test_error_replies_logged_once_naming_the_caller(self):
        r = self.python(CALLS, argv_prefix=self.nobody([]))
        self.assertEqual(r.returncode, 0, f"the calls did not answer as expected: {r.stdout}{r.stderr}")
        sender, pid, explain_error, denied_error = r.stdout.split()
        log = self.log("daemon.log")
        who = f"from uid {pwd.getpwnam('nobody').pw_uid} pid {pid} \\({re.escape(sender)}\\)"
        for what, regex in ((f"Explain's {explain_error}",
                             f"^rocmtuned: Explain 'no.such_key' {who}: {re.escape(explain_error)}: "),
                            (f"Apply's {denied_error}",
                             f"^rocmtuned: Apply 'rdna2-consumer-compat' {who}: {re.escape(denied_error)}: "),
                            ("Apply's NotFound",
                             f"^rocmtuned: Apply 'no-such-profile' {who}: org\\.rocmtune1\\.Error\\.NotFound: ")):
            n = len(re.findall(regex, log, re.M))
            self.assertEqual(n, 1, f"{what}: {n} lines match /{regex}/ in the daemon's log (one expected):\n{log}")

    def test_successful_call_logs_nothing(self):
        r = self.python("from busclient import manager; manager().Describe()", argv_prefix=self.nobody([]))
        self.assertEqual(r.returncode, 0, r.stderr)
        # An error line is in the log once its reply arrived (the test above): so would this be.
        self.assertNotIn("Describe", self.log("daemon.log"), "a successful Describe was logged")
