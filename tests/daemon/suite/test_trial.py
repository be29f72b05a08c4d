# `--trial` through rocmtuned on a private system bus (the helper behind its socket): the option
# `trial` (b) of Set reaches the core, whose plan is the trial's (the one-shot GRUB entry, its
# switch, the trial's state; nothing permanent); a --root tree plans a trial only, so the run is
# Refused before anything is written; a `trial` that is not a boolean is an InvalidArgument naming
# it; and polkit (a real polkitd) sees the detail `trial`: a rule can allow a user trials only.
import json
import os

from fixture import CONFIG, DaemonTest, dbus

TIMEOUT = 180
WORLD = "rx5700xt"  # Debian GRUB (grub-debian)


def options(**kw):
    return dbus.Dictionary(kw, signature="sv")


class TrialWorld(DaemonTest):
    """A grub-debian world that can plan a trial, the helper behind its socket, the daemon."""

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



class TrialTest(TrialWorld):
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


TRIAL_USER = 64331
# A site that lets a user try boot changes but not make them: a trial is its own action
# (org.rocmtune1.trial; the detail `trial` says "true" too).
TRIAL_RULES = """polkit.addRule(function(action, subject) {
  if (subject.user == "rttrial" && action.id == "org.rocmtune1.trial" && action.lookup("trial") == "true")
    return polkit.Result.YES;
});
"""
# TRIAL (true/false) EXPECT: EXPECT is the bus error name, or "denied" (polkit said no).
SET_AS_USER = """
import sys, dbus
from busclient import manager, outcome, options, NOT_AUTHORIZED
trial, expect = sys.argv[1] == "true", sys.argv[2]
knobs = dbus.Dictionary({"amdgpu.noretry": "0"}, signature="ss")
name, text = outcome(lambda: manager().Set(knobs, options(trial=dbus.Boolean(trial)), timeout=60))
if expect == "denied":
    assert name in NOT_AUTHORIZED, f"trial={trial}: wanted polkit's no, got {name or 'success'}: {text[:400]}"
else:
    assert name == expect, f"trial={trial}: wanted {expect}, got {name or 'success'}: {text[:400]}"
    assert "planned only" in text, text[:400]
"""


class TrialPolkitTest(TrialWorld):
    """polkit sees whether a change is a trial (the detail `trial`), with a real polkitd: a rule
    that allows only trials lets the user's trial past polkit (and the tree then refuses to boot
    it: planned only), and the same change without --trial is denied. Nothing is written."""

    def start_bus(self, *args, **kw):
        # The test account and the rule before the bus and polkitd, which read them.
        self.require_polkitd()
        self.require_free_ids((TRIAL_USER,))
        self.use_test_accounts([f"rttrial:x:{TRIAL_USER}:{TRIAL_USER}::/nonexistent:/usr/sbin/nologin"],
                               [f"rttrial:x:{TRIAL_USER}:"])
        rules = self.path("50-rocmtune-trial.rules")
        with open(rules, "w") as f:
            f.write(TRIAL_RULES)
        super().start_bus(*args, **kw)
        self.start_polkitd(rules)

    def set_as_user(self, trial, expect):
        before = self.world_hash(self.w)
        r = self.run_cmd(["setpriv", f"--reuid={TRIAL_USER}", f"--regid={TRIAL_USER}", f"--groups={TRIAL_USER}", "--",
                          "/usr/bin/python3", "-c", SET_AS_USER, trial, expect])
        self.assertEqual(r.returncode, 0, f"Set trial={trial} as rttrial: {r.stderr}")
        self.assertEqual(self.world_hash(self.w), before, f"Set trial={trial} as rttrial wrote to the world")

    def test_a_rule_can_allow_trials_only(self):
        self.set_as_user("true", "org.rocmtune1.Error.Refused")
        self.set_as_user("false", "denied")


class TrialStateTest(TrialWorld):
    """Trial and CancelTrial: the state a trial left, read by anyone (what `rocmtunectl trial`
    prints); dismissing it asks polkit for the revert action (a real polkitd says no to nobody,
    nothing written). The state here is written by the test, not journaled by the helper, so
    root's cancel is refused as drift (rocmtune never overwrites a file it did not write, even its
    own state's); the cancel itself is ApiTrialTest's (tests/unit/api/trial_test.cc)."""

    def start_bus(self, *args, **kw):
        super().start_bus(*args, **kw)
        self.start_polkitd()

    def seed_failed(self):
        # The state as the core writes it: the content the trial's own plan would write (Set
        # --trial --check), then as a trial boot whose check failed leaves it.
        name, plan = self.set_noretry(trial=dbus.Boolean(True), check=dbus.Boolean(True))
        self.assertEqual(name, "", str(plan)[:400])
        diff = next(c["diff"] for c in plan["changes"] if c["path"] == "var/lib/rocmtune/trial")
        state = json.loads("".join(line[1:] + "\n" for line in diff.splitlines()
                                   if line.startswith("+") and not line.startswith("+++")))
        state["state"] = "failed"
        state["seen"] = ["FAILED: a GPU reset in this boot's kernel log"]
        self.write("var/lib/rocmtune/trial", json.dumps(state, indent=2) + "\n")
        return state

    def test_trial_is_read_by_anyone_and_cancel_asks_for_the_revert_action(self):
        self.assertEqual(json.loads(self.call_json("Trial"))["state"], "none")
        nothing = json.loads(self.manager().CancelTrial(timeout=60))
        self.assertFalse(nothing["changed"], nothing)
        state = self.seed_failed()
        got = json.loads(self.call_json("Trial"))
        self.assertEqual(got["state"], "failed", got)
        self.assertEqual(got["id"], state["id"])
        self.assertEqual(got["seen"], state["seen"])
        cli = self.run_cmd([CONFIG["rocmtunectl"], "--root", self.w, "trial", "--json"])
        self.assertEqual(json.loads(cli.stdout), got, "Trial differs from rocmtunectl trial --json")
        self.assertEqual(json.loads(self.call_json("Trial", prefix=self.nobody([]))), got)

        before = self.world_hash(self.w)
        r = self.busctl("call", "org.rocmtune1", "/org/rocmtune1", "org.rocmtune1.Manager", "CancelTrial",
                        prefix=self.nobody([]))
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("org.rocmtune1.revert", r.stderr)
        self.assertEqual(self.world_hash(self.w), before, "a refused CancelTrial wrote to the world")
        # rocmtunectl trial cancel (no --root) asks rocmtuned the same.
        r = self.run_cmd(self.nobody([CONFIG["rocmtunectl"], "--no-ask-password", "trial", "cancel"]))
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        self.assertIn("org.rocmtune1.revert", r.stdout + r.stderr)
        self.assertEqual(self.world_hash(self.w), before, "a refused trial cancel wrote to the world")
        name, text = "", ""
        try:
            self.manager().CancelTrial(timeout=60)
        except dbus.DBusException as e:
            name, text = e.get_dbus_name(), e.get_dbus_message()
        self.assertEqual(name, "org.rocmtune1.Error.Drift", text[:400])
        self.assertIn("var/lib/rocmtune/trial", text)
        # The helper ran this time: its writer lock and (empty) journal directory are all it made.
        os.unlink(os.path.join(self.w, "var/lib/rocmtune/lock"))
        self.assertEqual(os.listdir(os.path.join(self.w, "var/lib/rocmtune/journal")), [])
        os.rmdir(os.path.join(self.w, "var/lib/rocmtune/journal"))
        self.assertEqual(self.world_hash(self.w), before, "a refused CancelTrial wrote to the world")
