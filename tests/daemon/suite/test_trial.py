# `--trial` through rocmtuned on a private system bus (the helper behind its socket): the option
# `trial` (b) of Set reaches the core, whose plan is the trial's (the one-shot GRUB entry, its
# switch, the trial's state; nothing permanent); a --root tree plans a trial only, so the run is
# Refused before anything is asked or written; a `trial` that is not a boolean is an
# InvalidArgument naming it. (A trial on a tree never reaches polkit: the `trial` detail polkit
# sees is for the live machine.)
import json
import os

from fixture import DaemonTest, dbus

TIMEOUT = 180
WORLD = "rx5700xt"  # Debian GRUB (grub-debian)


def options(**kw):
    return dbus.Dictionary(kw, signature="sv")


class TrialTest(DaemonTest):
    def setUp(self):
        super().setUp()
        self.require_helper_socket()
        self.start_bus("/usr/share/dbus-1/system.d")
        self.w = self.world(WORLD)
        # What a grub-debian machine has that the captured world lacks: grub-editenv (never run on
        # a tree), the package's /etc/grub.d/42_rocmtune, /boot/grub on ext4.
        self.write("usr/bin/grub-editenv", "#!/bin/sh\nexit 0\n")
        with open(os.path.join(self.src, "grub/42_rocmtune")) as f:
            self.write("etc/grub.d/42_rocmtune", f.read())
        self.write("proc/self/mountinfo", "22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw\n")
        self.start_helper(self.w)
        self.start_daemon(self.w)

    def write(self, rel, text):
        path = os.path.join(self.w, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def set_noretry(self, **opts):
        knobs = dbus.Dictionary({"amdgpu.noretry": "0"}, signature="ss")
        try:
            return "", json.loads(self.manager().Set(knobs, options(**opts), timeout=120))
        except dbus.DBusException as e:
            return e.get_dbus_name(), e.get_dbus_message()

    def test_trial_check_plans_the_entry_and_the_state_only(self):
        before = self.world_hash(self.w)
        name, got = self.set_noretry(trial=dbus.Boolean(True), check=dbus.Boolean(True))
        self.assertEqual(name, "", f"Set trial check: {name}: {str(got)[:400]}")
        paths = [c["path"] for c in got["changes"]]
        self.assertIn("boot/grub/rocmtune-trial.cfg", paths, got)
        self.assertIn("var/lib/rocmtune/trial", paths, got)
        self.assertNotIn("etc/modprobe.d/rocmtune.conf", paths, "a trial writes nothing permanent")
        self.assertIs(got["check"], True)
        self.assertEqual(self.world_hash(self.w), before, "a check wrote to the world")

    def test_trial_on_a_tree_is_refused_and_writes_nothing(self):
        before = self.world_hash(self.w)
        name, text = self.set_noretry(trial=dbus.Boolean(True))
        self.assertEqual(name, "org.rocmtune1.Error.Refused", text[:400])
        self.assertIn("planned only", text)
        self.assertEqual(self.world_hash(self.w), before, "a refused trial wrote to the world")

    def test_trial_must_be_a_boolean(self):
        name, text = self.set_noretry(trial="yes")
        self.assertEqual(name, "org.rocmtune1.Error.InvalidArgument", text[:400])
        self.assertIn("trial", text)
