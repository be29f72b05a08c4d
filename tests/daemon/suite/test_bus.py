# rocmtuned on a private system bus (a real dbus-daemon with rocmtune's bus policy), serving a
# copy of a world: the live object equals the contract file, each read equals what rocmtunectl
# prints for the same world, bad arguments get typed errors, anyone may call but only root may
# own the name, and an idle daemon gives its name back and exits.
import json
import os
import subprocess

from fixture import CONFIG, DaemonTest, dbus, is_root

TIMEOUT = 120


class BusTest(DaemonTest):
    def setUp(self):
        super().setUp()
        self.start_bus()
        self.w = self.world("rx5700xt")
        with open(os.path.join(self.w, "etc/environment"), "a") as f:
            f.write("HSA_OVERRIDE_GFX_VERSION=10.3.0\n")

    def ctl(self, *args):
        return self.run_cmd([CONFIG["rocmtunectl"], "--root", self.w] + list(args))

    def assert_same_as_cli(self, method, args, cli):
        got = self.call_json(method, *args)
        r = self.ctl(*cli)
        self.assertEqual(r.returncode, 0, f"rocmtunectl {' '.join(cli)} failed: {r.stderr}")
        if is_root() or method != "Describe":
            self.assertEqual(got, r.stdout, f"{method} differs from 'rocmtunectl {' '.join(cli)}'")
        else:
            # The CLI adds the caller's own access checks (access.*: whether this user may open
            # /dev/kfd), which root never gets and the daemon leaves to the caller: as a user
            # the documents are equal without them (byte for byte as root).
            def without_access(text):
                d = json.loads(text)
                d["findings"] = [f for f in d["findings"] if not f["id"].startswith("access.")]
                return d
            self.assertEqual(without_access(got), without_access(r.stdout),
                             f"{method} differs from 'rocmtunectl {' '.join(cli)}' (access.* aside)")
        return got

    def test_usage_error_exits_2(self):
        # A usage error exits 2 (as rocmtunectl's), with the message on stderr.
        r = self.run_cmd([CONFIG["rocmtuned"], "--no-such-option"])
        self.assertEqual(r.returncode, 2, "rocmtuned --no-such-option")
        self.assertIn("no-such-option", r.stderr, "the usage error does not name the option")

    def test_live_object_is_the_contract(self):
        self.start_daemon(self.w, helper_socket=False)
        r = self.busctl("--json=short", "call", "org.rocmtune1", "/org/rocmtune1",
                        "org.freedesktop.DBus.Introspectable", "Introspect")
        self.assertEqual(r.returncode, 0, f"Introspect failed: {r.stderr}")
        with open(self.path("live.xml"), "w") as f:
            f.write(json.loads(r.stdout)["data"][0] + "\n")
        r = self.run_cmd(["/usr/bin/python3", os.path.join(self.src, "tests/daemon/compare_introspection.py"),
                          os.path.join(self.src, "dbus/org.rocmtune1.Manager.xml"), self.path("live.xml")])
        self.assertEqual(r.returncode, 0, "the live object differs from dbus/org.rocmtune1.Manager.xml:\n"
                         + r.stdout + r.stderr)

    def test_reads_equal_the_cli(self):
        self.start_daemon(self.w, helper_socket=False)
        describe = self.assert_same_as_cli("Describe", [], ["status", "--json"])
        # The world's /etc/environment override on an RDNA1 GPU: the known issue that names it.
        self.assertIn('"issue.rdna1-override-gfx1030"', describe, "Describe lacks the environment's override")
        self.assert_same_as_cli("History", [], ["history", "--json"])
        profiles = self.assert_same_as_cli("ListProfiles", [], ["profiles", "--json"])
        self.assert_same_as_cli("ShowProfile", ["s", "stock"], ["show", "stock", "--json"])
        names = {p["name"] for p in json.loads(profiles)["profiles"]}
        self.assertFalse({"stock", "rdna1-safe", "strix-halo", "instinct"} - names,
                         "ListProfiles lacks the built-in profiles")
        version = subprocess.run([CONFIG["rocmtunectl"], "--version"], capture_output=True,
                                 text=True).stdout.split()[-1]
        self.assertEqual(str(self.get_property("Version")), version, "Version property")
        self.assertEqual(str(self.get_property("ActiveProfile")), "",
                         "ActiveProfile of a world without transactions is not empty")

    def test_plan_is_a_check(self):
        # Plan: the same plan as `apply --check`, and nothing written.
        self.start_daemon(self.w, helper_socket=False)
        before = self.world_hash(self.w)
        plan = self.call_json("Plan", "sa{sv}", "rdna1-safe", "0")
        r = self.ctl("apply", "rdna1-safe", "--check", "--json")
        self.assertEqual(plan, r.stdout, "Plan differs from 'rocmtunectl apply --check --json'")
        self.assertEqual(self.world_hash(self.w), before, "Plan wrote to the world")

    def test_bad_arguments_get_typed_errors(self):
        # Typed errors that name the problem; the daemon keeps serving.
        self.start_daemon(self.w, helper_socket=False)
        m = self.manager(introspect=True)
        none = dbus.Dictionary({}, signature="sv")
        cases = [
            ("unknown profile", lambda: m.Plan("no-such-profile", none),
             "org.rocmtune1.Error.NotFound", "no-such-profile"),
            ("unknown option", lambda: m.Plan("rdna1-safe", {"bogus": dbus.Boolean(True)}),
             "org.rocmtune1.Error.InvalidArgument", "unknown option 'bogus'"),
            ("force as a string", lambda: m.Plan("rdna1-safe", {"force": "yes"}),
             "org.rocmtune1.Error.InvalidArgument", "'force' must be a boolean"),
            ("with as a string", lambda: m.Plan("rdna1-safe", {"with": "x"}),
             "org.rocmtune1.Error.InvalidArgument", "'with' must be a list of strings"),
            ("unknown --with item", lambda: m.Plan("rdna1-safe", {"with": dbus.Array(["no-such-item"], signature="s")}),
             "org.rocmtune1.Error.InvalidArgument", "no-such-item"),
            ("Set with a key holding '='", lambda: m.Set({"a=b": "1"}, none),
             "org.rocmtune1.Error.InvalidArgument", "has no '='"),
            ("Set of nothing", lambda: m.Set(dbus.Dictionary({}, signature="ss"), none),
             "org.rocmtune1.Error.InvalidArgument", "no knobs"),
            ("Apply with 'with' of the wrong type", lambda: m.Apply("rdna1-safe", {"with": dbus.Boolean(True)}),
             "org.rocmtune1.Error.InvalidArgument", "'with' must be a list of strings"),
        ]
        for what, call, name, text in cases:
            with self.subTest(what):
                with self.assertRaises(dbus.DBusException, msg=f"{what}: succeeded") as cm:
                    call()
                self.assertEqual(cm.exception.get_dbus_name(), name, cm.exception.get_dbus_message())
                self.assertIn(text, cm.exception.get_dbus_message())
        r = self.busctl("call", "org.rocmtune1", "/org/rocmtune1", "org.rocmtune1.Manager", "Plan", "s", "rdna1-safe")
        self.assertNotEqual(r.returncode, 0, "Plan without its options succeeded")
        self.call_json("Describe")  # the daemon still serves

    def test_anyone_may_call(self):
        self.start_daemon(self.w, helper_socket=False)
        mine = self.call_json("Describe")
        theirs = self.call_json("Describe", prefix=self.nobody([]))
        self.assertEqual(mine, theirs, "an unprivileged user got another answer")

    def test_name_given_back_on_sigterm(self):
        p = self.start_daemon(self.w, helper_socket=False)
        self.stop(p, "rocmtuned")
        self.wait_name(False)

    def test_only_root_may_own_the_name(self):
        self.require_root("the daemon is started as 'nobody', whom the policy does not let own the name")
        p = self.start_daemon(self.w, helper_socket=False, prefix=self.nobody([]), log="daemon-nobody.log", wait=False)
        self.wait_exit(p, "rocmtuned as nobody to exit (the policy must not let it own the name)")
        self.assertIn("cannot own org.rocmtune1", self.log("daemon-nobody.log"), "no clear error as nobody")

    def test_idle_exit(self):
        # The name is given back, and a request after that is not lost (here: answered by a new
        # instance, as bus activation would start one).
        p = self.start_daemon(self.w, helper_socket=False, idle="0.5", log="daemon-idle.log")
        self.call_json("Describe")
        self.assertEqual(self.wait_exit(p, "rocmtuned to exit after being idle"), 0, "idle exit status")
        self.wait_name(False)
        self.start_daemon(self.w, helper_socket=False, idle="0.5", log="daemon-idle2.log")
        self.call_json("Describe")
