# Reads work for every user after rocmtune changed something. rocmtuned runs as user rocmtune on
# a private system bus with a real polkitd and the helper behind its socket, as in daemon.user;
# root applies a profile through it, so the journal is 0640 root:rocmtune. Then, as another user
# (uid 64321, no group rocmtune):
#   - `profiles`, `show`, `doctor` (with a log holding bytes that are not UTF-8 and a NUL) and bash
#     completion of `apply <TAB>` exit as for root, show the active profile, and answer from the
#     journal (rocmtuned's ListProfiles, ShowProfile, Doctor); doctor's findings are root's, its
#     check of who may open /dev/kfd is the caller's own;
#   - `snapshot` works and lists the journal as left out;
#   - with no daemon (--root, or the daemon gone), profiles/show/doctor still exit as before with
#     the active profile "unknown" and a note, and no error finding;
#   - bad input to the new methods: a log over 16 MiB (InvalidArgument), an unknown profile
#     (NotFound), a string that is not UTF-8 (refused by the bus before it reaches the daemon),
#     and the daemon goes on answering.
import glob
import json
import os
import re

from fixture import CONFIG, DaemonTest, dbus

TIMEOUT = 180
DAEMON_ID, USER_ID = 64320, 64321
PROFILE = "rdna2-consumer-compat"

BAD_INPUT = """
import dbus, json
from busclient import manager
m = manager()
def error_of(f, *a):
    try:
        f(*a, timeout=120)
    except dbus.DBusException as e:
        return e.get_dbus_name()
    return None
assert error_of(m.Doctor, "x" * ((16 << 20) + 1)) == "org.rocmtune1.Error.InvalidArgument"
assert error_of(m.ShowProfile, "no-such-profile") == "org.rocmtune1.Error.NotFound"
assert error_of(m.ShowProfile, "../../etc/passwd") == "org.rocmtune1.Error.NotFound"
# A string that is not UTF-8 never leaves the caller: libdbus refuses to send it.
try:
    m.Doctor(b"\\xff\\xfe crash")
    raise SystemExit("bytes that are not UTF-8 were sent as a string")
except (UnicodeError, TypeError, ValueError):
    pass
assert json.loads(m.Doctor(""))["schema"] == "rocmtune.doctor.v1"
"""


class ReadsTest(DaemonTest):
    def setUp(self):
        super().setUp()
        self.require_root("the daemon runs as a test user rocmtune, the reader as another uid")
        self.require_helper_socket()
        self.require_polkitd()
        self.require_free_ids((DAEMON_ID, USER_ID), no_user="rocmtune")
        self.use_test_accounts(
            [f"rocmtune:x:{DAEMON_ID}:{DAEMON_ID}::/:/usr/sbin/nologin",
             f"rtreader:x:{USER_ID}:{USER_ID}::/nonexistent:/usr/sbin/nologin"],
            [f"rocmtune:x:{DAEMON_ID}:", f"rtreader:x:{USER_ID}:"])
        self.start_bus("/usr/share/dbus-1/system.d")
        self.start_polkitd()
        # What the user runs, where it can reach it.
        self.uctl = self.copy_readable(CONFIG["rocmtunectl"], "rocmtunectl")
        self.completion = self.copy_readable(os.path.join(self.src, "completions/rocmtunectl.bash"), "rocmtunectl.bash")
        self.w = self.world("rx6600")
        with open(os.path.join(self.w, "etc/group"), "w") as f:
            f.write(f"root:x:0:\nrocmtune:x:{DAEMON_ID}:\n")
        self._chmod_readable(self.w)
        self.start_account_helper(self.w, DAEMON_ID)
        self.daemon = self.start_daemon(self.w, prefix=self.as_uid(DAEMON_ID, []))
        self.manager().Apply(PROFILE, dbus.Dictionary({}, signature="sv"), timeout=120)
        st = os.stat(os.path.join(self.w, "var/lib/rocmtune/journal"))
        self.assertEqual((oct(st.st_mode & 0o7777), st.st_uid, st.st_gid), (oct(0o750), 0, DAEMON_ID),
                         "journal directory")
        r = self.reader(["ls", os.path.join(self.w, "var/lib/rocmtune/journal")])
        self.assertNotEqual(r.returncode, 0, "the reader can list the journal: the test shows nothing")

    def reader(self, argv):
        return self.run_cmd(self.as_uid(USER_ID, ["env", "HOME=/nonexistent"] + list(argv)))

    def ctl(self, *args):
        r = self.reader([self.uctl] + list(args))
        return r

    def root_ctl(self, *args):
        return self.run_cmd([CONFIG["rocmtunectl"], "--root", self.w] + list(args))

    def test_profiles_as_a_user(self):
        r = self.ctl("profiles", "--json")
        self.assertEqual(r.returncode, 0, f"profiles --json as a user: {r.stderr}")
        d = json.loads(r.stdout)
        self.assertEqual(d["schema"], "rocmtune.profiles.v1")
        self.assertEqual(d["active_profile"], PROFILE)
        rows = {p["name"]: p for p in d["profiles"]}
        self.assertIs(rows[PROFILE]["active"], True)
        self.assertIs(rows["stock"]["active"], False)
        self.assertEqual(d["notes"], [])
        r = self.ctl("profiles")
        self.assertEqual(r.returncode, 0, f"profiles as a user: {r.stdout}{r.stderr}")
        self.assertIn(f"Active profile: {PROFILE}", r.stdout.splitlines(), "profiles does not show the active profile")

    def test_show_as_a_user(self):
        r = self.ctl("show", PROFILE, "--json")
        self.assertEqual(r.returncode, 0, f"show --json as a user: {r.stderr}")
        d = json.loads(r.stdout)
        self.assertEqual((d["schema"], d["active"]), ("rocmtune.profile.v1", True))
        root = self.root_ctl("show", PROFILE, "--json")
        self.assertEqual(root.returncode, 0, "show as root failed")
        self.assertEqual(r.stdout, root.stdout, "the user's show differs from root's")
        r = self.ctl("show", PROFILE)
        self.assertEqual(r.returncode, 0, f"show as a user: {r.stdout}{r.stderr}")
        self.assertIn("  active:   yes", r.stdout.splitlines(), "show does not say the profile is active")
        root = self.root_ctl("show", PROFILE)
        self.assertEqual(r.stdout, root.stdout, "the user's show text differs from root's")

    def test_doctor_as_a_user(self):
        # A crash log that holds a NUL and bytes that are not UTF-8 around a known symptom.
        log = self.path("crash.txt")
        with open(log, "wb") as f:
            f.write(b"garbage \xff\xfe and a NUL \x00 here\nMemory access fault by GPU node-1 (Agent handle: 0x55d0) "
                    b"on address 0x7f00. Reason: Page not present or supervisor privilege.\n")
        os.chmod(log, 0o644)
        r = self.ctl("doctor", "--json", "--log", log)
        root = self.root_ctl("doctor", "--json", "--log", log)
        self.assertEqual(r.returncode, root.returncode, f"doctor as a user and as root: {r.stderr}")
        d, rd = json.loads(r.stdout), json.loads(root.stdout)
        self.assertEqual(d["schema"], "rocmtune.doctor.v1")

        def ids(doc):
            return sorted(f["id"] for f in doc["findings"] if not f["id"].startswith("access."))
        self.assertEqual(ids(d), ids(rd))
        self.assertFalse({"journal.not-permitted", "journal.unreadable"} & set(ids(d)), "the daemon read the journal")
        self.assertTrue(all(f["id"] != "access.not-checked" for f in d["findings"]),
                        "the caller's access checks replace the daemon's note")
        self.assertIsNotNone(d["log"])
        self.assertEqual([m["id"] for m in d["log"]["matches"]], [m["id"] for m in rd["log"]["matches"]])
        self.assertTrue(d["log"]["matches"], "the symptom in the log is matched")
        self.assertEqual(d["problems"], rd["problems"])
        r = self.ctl("doctor")
        self.assertIsNone(re.search(r"journal.(not-permitted|unreadable)|Permission denied", r.stdout + r.stderr),
                          f"doctor as a user could not read the journal: {r.stdout}")

    def test_completion_as_a_user(self):
        # bash completion of `rocmtunectl apply <TAB>`: asks `profiles --json` as the user.
        r = self.reader(["bash", "-c", '. "$1"; COMP_WORDS=("$2" apply ""); COMP_CWORD=2; _rocmtunectl; '
                         'printf "%s\\n" "${COMPREPLY[@]}"', "_", self.completion, self.uctl])
        offered = r.stdout.splitlines()
        self.assertIn(PROFILE, offered, f"completion of apply <TAB> as a user: {r.stdout[:300]}{r.stderr}")
        self.assertIn("stock", offered)

    def test_snapshot_as_a_user(self):
        # Made by the user, without the journal, which it lists as left out.
        user_dir = self.path("user")
        os.mkdir(user_dir)
        os.chown(user_dir, USER_ID, USER_ID)
        r = self.ctl("--root", self.w, "snapshot", "--json", os.path.join(user_dir, "snap"))
        self.assertEqual(r.returncode, 0, f"snapshot as a user: {r.stderr}{r.stdout}")
        self.assertIn("var/lib/rocmtune/journal", json.loads(r.stdout)["left_out"],
                      "the snapshot does not list the journal as left out")
        self.assertEqual(glob.glob(os.path.join(user_dir, "snap/var/lib/rocmtune/journal/*.jsonl")), [],
                         "the user's snapshot holds journal records")
        r = self.ctl("--root", self.w, "snapshot", os.path.join(user_dir, "snap2"))
        self.assertEqual(r.returncode, 0, f"snapshot as a user: {r.stdout}{r.stderr}")
        self.assertIn("  /var/lib/rocmtune/journal", r.stdout.splitlines(), "snapshot's text does not name the journal")

    def test_bad_input_to_the_new_methods(self):
        r = self.run_cmd(self.as_uid(USER_ID, ["/usr/bin/python3", "-c", BAD_INPUT]), timeout=150)
        self.assertEqual(r.returncode, 0, f"bad input to Doctor/ShowProfile: {r.stdout}{r.stderr}")
        self.assertRegex(self.log("daemon.log"),
                         "Doctor from .*: org.rocmtune1.Error.InvalidArgument: the log given is larger than 16 MiB",
                         "the daemon did not log the refusal")

    def test_reads_without_the_daemon(self):
        r = self.ctl("--root", self.w, "profiles", "--json")
        self.assertEqual(r.returncode, 0, f"profiles --root as a user: {r.stderr}")
        d = json.loads(r.stdout)
        self.assertIsNone(d["active_profile"])
        self.assertTrue(all(p["active"] is None for p in d["profiles"]), d)
        self.assertEqual(len(d["notes"]), 1, d["notes"])
        self.assertIn("unknown to this user", d["notes"][0])
        r = self.ctl("--root", self.w, "profiles")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("Active profile: unknown", r.stdout.splitlines())
        r = self.ctl("--root", self.w, "show", PROFILE)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("  active:   unknown", r.stdout.splitlines())
        r = self.ctl("--root", self.w, "doctor", "--json")
        j = [(f["id"], f["severity"]) for f in json.loads(r.stdout)["findings"] if f["id"].startswith("journal.")]
        self.assertEqual(j, [("journal.not-permitted", "info")])

    def test_reads_with_the_daemon_gone(self):
        self.stop(self.daemon, "rocmtuned")
        self.wait_name(False)
        r = self.ctl("profiles", "--json")
        self.assertEqual(r.returncode, 0, f"profiles with the daemon gone: {r.stdout}{r.stderr}")
        r = self.ctl("show", "stock", "--json")
        self.assertEqual(r.returncode, 0, f"show with the daemon gone: {r.stderr}")
