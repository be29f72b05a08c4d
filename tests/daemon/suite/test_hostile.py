# Hostile arguments to rocmtuned, sent as root (never asked by polkit: whatever the daemon let
# through would be written): wrong signatures, 1 MiB strings, unknown options and options of
# the wrong type, repeated options, newlines and shell metacharacters in profile names, ids,
# knob keys and values, keys holding '=', 10,000-entry dictionaries and lists, empty things
# (tests/daemon/hostile_calls.py). Each gets a typed error (org.rocmtune1.Error.* or the bus's
# InvalidArgs); afterwards the daemon still answers, no command ran, and nothing was written
# (the whole tree, journal included, byte for byte).
import os

from fixture import CONFIG, DaemonTest

TIMEOUT = 120


class HostileTest(DaemonTest):
    def setUp(self):
        super().setUp()
        self.require_root("root's calls are never asked by polkit: the point is what the daemon lets through")
        self.require_helper_socket()
        self.start_bus()
        self.w = self.world("rx6600")
        # One transaction in the journal, so an id that parses loosely would find something to revert.
        r = self.run_cmd([CONFIG["rocmtunectl"], "--root", self.w, "apply", "rdna2-consumer-compat"])
        self.assertEqual(r.returncode, 0, f"rocmtunectl apply failed: {r.stderr}")
        self.start_helper(self.w)
        self.daemon = self.start_daemon(self.w)
        self.before = self.world_hash(self.w)
        self.marker = self.path("pwned")

    def assert_nothing_happened(self):
        self.assertIsNone(self.daemon.poll(), "rocmtuned died")
        self.call_json("Describe")
        self.assertFalse(os.path.exists(self.marker), "a command in an argument ran")
        self.assertEqual(self.world_hash(self.w), self.before, "a hostile call wrote to the world")

    def test_hostile_calls_get_typed_errors(self):
        r = self.run_cmd(["/usr/bin/python3", os.path.join(self.pydir, "hostile_calls.py"), self.marker], timeout=300)
        print(r.stdout[-4000:])
        self.assertEqual(r.returncode, 0, "hostile calls without their typed error:\n" + r.stdout[-4000:] + r.stderr)
        self.assert_nothing_happened()

    def expect_invalid(self, *args):
        r = self.busctl("--timeout=30", "call", "org.rocmtune1", "/org/rocmtune1", "org.rocmtune1.Manager", *args)
        self.assertNotEqual(r.returncode, 0, f"succeeded: {args} -> {r.stdout}")
        return r.stderr + r.stdout

    def test_options_given_twice_are_refused(self):
        # An option given twice: the bus allows a repeated dict key; the daemon must not pick one
        # of them silently (check then no check would write).
        for args in (("Set", "a{ss}a{sv}", "1", "amdgpu.noretry", "1", "2", "check", "b", "true", "check", "b",
                      "false"),
                     ("Apply", "sa{sv}", "rdna2-consumer-compat", "2", "check", "b", "true", "check", "b", "false"),
                     ("Unset", "asa{sv}", "1", "amdgpu.noretry", "2", "check", "b", "true", "check", "b", "false"),
                     ("Apply", "sa{sv}", "rdna2-consumer-compat", "2", "with", "as", "0", "with", "as", "0")):
            with self.subTest(args[0]):
                self.assertIn("Call failed: options: ", self.expect_invalid(*args), f"not an option error: {args}")
        # A knob key given twice in the a{ss}: refused as the CLI refuses `set K=0 K=1`.
        out = self.expect_invalid("Set", "a{ss}a{sv}", "2", "amdgpu.noretry", "0", "amdgpu.noretry", "1", "0")
        self.assertIn("given twice", out, "a knob key given twice: not refused as such")
        self.assert_nothing_happened()
