# Authorization before the change slot, and polkit seeing the whole change, with a real
# dbus-daemon, a real polkitd with rocmtune's actions and rules, the helper behind its socket,
# and test users only the bus and polkitd know:
#   - a profile-scoped rule ("rtprofile may apply instinct") does not let that user add optional
#     items (asked as org.rocmtune1.set) or force (org.rocmtune1.force); a rule that reads the
#     `with` detail does allow exactly that item: the details reach polkit; a rule that reads
#     `admin_lines` and `steps` allows Unset to comment out exactly etc/environment:2;
#   - a key-scoped rule ("rtwith may settle power-profiles-daemon": keys ==
#     service.power-profiles-daemon.amdgpu_dpm) lets that user write the drop-in, and the user
#     without it is denied org.rocmtune1.set with nothing written;
#   - an attacker whose polkit agent never answers (tests/daemon/silent_agent.py) holds an
#     interactive change pending: root's change through the daemon still goes through within
#     seconds, the attacker's second request is Busy at once (one pending authorization per
#     caller), the agent's message names what would change, and when the attacker's connection
#     goes away polkit cancels the agent's dialog (CancelCheckAuthorization) and the attacker may
#     ask again.
import json
import os

import fixture
from fixture import DaemonTest

TIMEOUT = 180
PROFILE_USER, WITH_USER, ATTACKER = 64321, 64322, 64323
RULES = """polkit.addRule(function(action, subject) {
  if (subject.user == "rtprofile" && action.id == "org.rocmtune1.apply" && action.lookup("profile") == "instinct")
    return polkit.Result.YES;
  if (subject.user == "rtwith" && action.id == "org.rocmtune1.set" && action.lookup("profile") == "instinct" &&
      action.lookup("with") == "mi-intel-iommu-on" && action.lookup("force") == "false")
    return polkit.Result.YES;
  // Settling power-profiles-daemon's action, and nothing else.
  if (subject.user == "rtwith" && action.id == "org.rocmtune1.set" &&
      action.lookup("keys") == "service.power-profiles-daemon.amdgpu_dpm")
    return polkit.Result.YES;
  // Unset --admin-lines: its own action, granted only when the details name the admin's file and line.
  if (subject.user == "rtwith" && action.id == "org.rocmtune1.admin-lines" &&
      action.lookup("steps") == "comment out etc/environment:2")
    return polkit.Result.YES;
  // A key-scoped rule of the kind an admin writes: rtprofile may set or unset the override.
  if (subject.user == "rtprofile" && action.id == "org.rocmtune1.set" &&
      action.lookup("keys") == "env.HSA_OVERRIDE_GFX_VERSION")
    return polkit.Result.YES;
});
"""
# EXPECT [with=ITEM] [force]: EXPECT is ok or denied:ACTION (a denial naming that action).
APPLY = """
import json, sys, dbus
from busclient import manager, outcome, options, NOT_AUTHORIZED
expect, extra = sys.argv[1], sys.argv[2:]
opts = {}
for e in extra:
    if e.startswith("with="): opts["with"] = dbus.Array([e[5:]], signature="s")
    if e == "force": opts["force"] = dbus.Boolean(True)
name, text = outcome(lambda: manager().Apply("instinct", options(**opts), timeout=60))
what = f"Apply instinct {' '.join(extra)}"
if expect == "ok":
    assert not name, f"{what}: {name}: {text[:400]}"
    assert json.loads(text)["changed"] is True, text
else:
    action = "org.rocmtune1." + expect.split(":")[1]
    assert name in NOT_AUTHORIZED, f"{what}: wanted a denial, got {name or 'success'}: {text[:400]}"
    assert action in text, f"{what}: the denial does not name {action}: {text[:400]}"
"""
UNSET_ADMIN_LINES = """
import json, dbus
from busclient import manager, outcome, options
name, text = outcome(lambda: manager().Unset(dbus.Array(["env.HSA_OVERRIDE_GFX_VERSION"], signature="s"),
                                              options(admin_lines=dbus.Boolean(True)), timeout=60))
assert not name, f"{name}: {text[:400]}"
r = json.loads(text)
assert r["changed"] is True and [c["path"] for c in r["changes"]] == ["etc/environment"], text
"""
SET = ["call", "org.rocmtune1", "/org/rocmtune1", "org.rocmtune1.Manager", "Set", "a{ss}a{sv}", "1", "amdgpu.noretry"]


def as_user(uid, argv):
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", f"--groups={uid}", "--"] + list(argv)


class AuthorizationTest(DaemonTest):
    def setUp(self):
        super().setUp()
        self.require_root("test users polkit and the bus see")
        self.require_helper_socket()
        self.require_polkitd()
        self.require_free_ids((PROFILE_USER, WITH_USER, ATTACKER))
        users = (("rtprofile", PROFILE_USER), ("rtwith", WITH_USER), ("rtattacker", ATTACKER))
        self.use_test_accounts([f"{u}:x:{i}:{i}::/nonexistent:/usr/sbin/nologin" for u, i in users],
                               [f"{u}:x:{i}:" for u, i in users])
        rules = self.path("50-rocmtune-scoped.rules")
        with open(rules, "w") as f:
            f.write(RULES)
        self.start_bus("/usr/share/dbus-1/system.d")
        self.start_polkitd(rules)
        self.w = self.world("mi210x8")
        self.start_helper(self.w)
        self.start_daemon(self.w)

    def apply(self, who, expect, *extra):
        before = self.world_hash(self.w)
        r = self.run_cmd(as_user(who, ["/usr/bin/python3", "-c", APPLY, expect] + list(extra)))
        self.assertEqual(r.returncode, 0, f"as uid {who}: apply {expect} {extra}: {r.stderr}")
        if expect.startswith("denied:"):
            self.assertEqual(self.world_hash(self.w), before, f"a denied apply ({expect} {extra}) wrote to the world")

    def reset_world(self):
        self.call_json("Reset")

    def environment(self):
        with open(os.path.join(self.w, "etc/environment")) as f:
            return f.read()

    def test_settling_power_profiles_daemon_is_a_set_its_key_scopes(self):
        # power-profiles-daemon's files: its unit, a binary with the action and --block-action.
        for rel, data in (("lib/systemd/system/power-profiles-daemon.service",
                           b"[Service]\nExecStart=/usr/libexec/power-profiles-daemon\n"),
                          ("usr/libexec/power-profiles-daemon", b"\x7fELF\0--block-action\0amdgpu_dpm\0")):
            os.makedirs(os.path.dirname(os.path.join(self.w, rel)), exist_ok=True)
            with open(os.path.join(self.w, rel), "wb") as f:
                f.write(data)
        drop_in = os.path.join(self.w, "etc/systemd/system/power-profiles-daemon.service.d/50-rocmtune.conf")
        code = """
import json, sys, dbus
from busclient import manager, outcome, options, NOT_AUTHORIZED
name, text = outcome(lambda: manager().Set(dbus.Dictionary({"service.power-profiles-daemon.amdgpu_dpm": "off"},
                                                           signature="ss"), options(), timeout=60))
if sys.argv[1] == "ok":
    assert not name and json.loads(text)["changed"] is True, f"{name}: {text[:400]}"
else:
    assert name in NOT_AUTHORIZED and "org.rocmtune1.set" in text, f"{name}: {text[:400]}"
"""
        before = self.world_hash(self.w)
        r = self.run_cmd(as_user(PROFILE_USER, ["/usr/bin/python3", "-c", code, "denied"]))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.world_hash(self.w), before, "a denied Set wrote to the world")
        r = self.run_cmd(as_user(WITH_USER, ["/usr/bin/python3", "-c", code, "ok"]))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("--block-action=amdgpu_dpm", open(drop_in).read())

    def test_profile_scoped_rule_grants_no_items_or_force(self):
        self.apply(PROFILE_USER, "denied:set", "with=mi-intel-iommu-on")
        self.apply(PROFILE_USER, "denied:force", "force")
        self.apply(PROFILE_USER, "ok")

    def test_rule_reading_the_with_detail(self):
        self.apply(WITH_USER, "ok", "with=mi-intel-iommu-on")
        self.reset_world()
        self.apply(WITH_USER, "denied:apply")
        self.apply(WITH_USER, "denied:force", "with=mi-intel-iommu-on", "force")

    def test_a_key_scoped_rule_grants_neither_admin_lines_nor_a_trial(self):
        # rtprofile may set or unset env.HSA_OVERRIDE_GFX_VERSION (org.rocmtune1.set, keys). Before,
        # the same rule let it comment out the admin's line in root's /etc/environment with
        # admin_lines: it was asked as org.rocmtune1.set. (A trial is org.rocmtune1.trial, which a
        # rule must name: daemon.trial.a_rule_can_allow_trials_only; this world cannot boot one.)
        with open(os.path.join(self.w, "etc/environment"), "w") as f:
            f.write("LANG=C.UTF-8\nHSA_OVERRIDE_GFX_VERSION=9.0.10\n")
        before = self.world_hash(self.w)
        code = """
import sys, dbus
from busclient import manager, outcome, options, NOT_AUTHORIZED
keys = dbus.Array(["env.HSA_OVERRIDE_GFX_VERSION"], signature="s")
for what, call, action in (
        ("admin_lines", lambda: manager().Unset(keys, options(admin_lines=dbus.Boolean(True)), timeout=60),
         "org.rocmtune1.admin-lines"),):
    name, text = outcome(call)
    assert name in NOT_AUTHORIZED, f"{what}: wanted a denial, got {name or 'success'}: {text[:400]}"
    assert action in text, f"{what}: the denial does not name {action}: {text[:400]}"
"""
        r = self.run_cmd(as_user(PROFILE_USER, ["/usr/bin/python3", "-c", code]))
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        self.assertEqual(self.world_hash(self.w), before, "a denied admin_lines Unset or trial wrote to the world")
        # The rule itself still works for what it names: unsetting rocmtune's own setting.
        r = self.run_cmd(as_user(PROFILE_USER, ["/usr/bin/python3", "-c", """
import dbus
from busclient import manager, outcome, options, NOT_AUTHORIZED
name, text = outcome(lambda: manager().Set(dbus.Dictionary({"env.HSA_OVERRIDE_GFX_VERSION": "10.3.0"},
                                                           signature="ss"), options(), timeout=60))
assert name not in NOT_AUTHORIZED, f"{name}: {text[:400]}"
"""]))
        self.assertEqual(r.returncode, 0, f"the key-scoped rule does not grant its own key: {r.stderr[-2000:]}")

    def test_unset_admin_lines_rule_reads_the_steps(self):
        # Unset with admin_lines: the action is Unset's own (org.rocmtune1.set), the details name
        # the admin's file:line, the line is commented out, and Reset puts it back.
        with open(os.path.join(self.w, "etc/environment"), "w") as f:
            f.write("LANG=C.UTF-8\nHSA_OVERRIDE_GFX_VERSION=9.0.10\n")
        r = self.run_cmd(as_user(WITH_USER, ["/usr/bin/python3", "-c", UNSET_ADMIN_LINES]))
        self.assertEqual(r.returncode, 0, f"Unset with admin_lines as rtwith: {r.stderr}")
        self.assertEqual(self.environment().rstrip("\n"),
                         "LANG=C.UTF-8\n# rocmtune unset: HSA_OVERRIDE_GFX_VERSION=9.0.10",
                         "the admin's line was not commented out")
        self.reset_world()
        self.assertEqual(self.environment().rstrip("\n"), "LANG=C.UTF-8\nHSA_OVERRIDE_GFX_VERSION=9.0.10",
                         "Reset did not put the admin's line back")

    def attack(self):
        """The attacker: an interactive Set whose agent never answers. busctl waits for the agent
        to be registered for its process (the FIFO), then calls with interactive authorization
        allowed. Returns the attacker's busctl once polkit asked the agent."""
        if fixture.GLib is None:
            self.skipTest("python3-gi and python3-dbus are needed for the test's polkit agent")
        go = self.path("go")
        os.mkfifo(go)
        os.chmod(go, 0o666)
        attacker = self.spawn("attacker", as_user(ATTACKER, [
            "bash", "-c", 'read -r _ <"$1"; exec busctl --system --allow-interactive-authorization=yes --timeout=300 '
            '"${@:2}"', "_", go] + SET + ["1", "0"]))
        agent_log = self.path("agent.txt")
        open(agent_log, "w").close()
        os.chmod(agent_log, 0o666)
        self.spawn("agent", as_user(ATTACKER, ["/usr/bin/python3", os.path.join(self.pydir, "silent_agent.py"),
                                               str(attacker.pid), agent_log]))
        self.wait_until(lambda: '"registered"' in self.log("agent.txt"), "the attacker's agent to register")
        with open(go, "w") as f:
            f.write("go\n")
        self.wait_until(lambda: '"begin"' in self.log("agent.txt"), "polkit to ask the attacker's agent")
        self.assertIsNone(attacker.poll(), f"the attacker's call ended: {self.log('attacker.log')}")
        return attacker

    def attacker_set(self):
        return self.run_cmd(as_user(ATTACKER, ["busctl", "--system", "--timeout=10"] + SET + ["1", "0"]))

    def test_root_goes_through_while_the_attacker_is_asked(self):
        self.attack()
        begin = [json.loads(line) for line in self.log("agent.txt").splitlines() if '"begin"' in line][0]
        self.assertEqual(begin["action"], "org.rocmtune1.set")
        for want in ("amdgpu.noretry", "etc/modprobe.d/"):
            self.assertIn(want, begin["message"], "the agent's question does not say what would change")
        # Root's change while the attacker's question is open: through the daemon, within seconds.
        r = self.busctl("--timeout=15", "--json=short", *SET, "0", "0")
        self.assertEqual(r.returncode, 0,
                         f"root's Set failed while the attacker's authorization was pending: {r.stderr}")
        self.assertIn('"changed": true', json.loads(r.stdout)["data"][0], "root's Set did not change anything")
        with open(os.path.join(self.w, "etc/modprobe.d/rocmtune.conf")) as f:
            self.assertIn("options amdgpu noretry=0", f.read().splitlines(), "root's setting is not in the world")

    def test_attackers_second_request_is_busy(self):
        self.attack()
        r = self.attacker_set()
        self.assertNotEqual(r.returncode, 0, f"the attacker's second request succeeded: {r.stdout}")
        self.assertIn("already waiting", (r.stdout + r.stderr).lower(),
                      "the attacker's second request was not refused as pending")

    def test_attacker_going_away_cancels_its_question(self):
        attacker = self.attack()
        attacker.terminate()
        self.wait_until(lambda: '"cancel"' in self.log("agent.txt"),
                        "polkit to cancel the agent's dialog when the caller went away")
        before = self.world_hash(self.w)
        r = self.attacker_set()
        self.assertNotEqual(r.returncode, 0, f"the attacker's request succeeded: {r.stdout}")
        self.assertNotIn("already waiting", (r.stdout + r.stderr).lower(),
                         "the attacker's question is still pending after it went away")
        self.assertEqual(self.world_hash(self.w), before, "the attacker changed the world")
