# Who may do what through rocmtuned (a real dbus-daemon with rocmtune's policy, a real polkitd
# with rocmtune's actions, the helper behind its socket):
#   - every read (Describe, ListProfiles, ShowProfile, Doctor, History, Plan, the properties,
#     GetAll, Introspect) and every change with check=true answers an unprivileged user as it
#     answers root, and writes nothing;
#   - each change (Apply, Set, Unset, Revert by id and last, Reset) that would write something is
#     denied to that user with AccessDenied / InteractiveAuthorizationRequired naming its polkit
#     action, and the whole tree (journal included) stays byte for byte;
#   - root may do each one (never asked), and so may a member of a group a polkit rule grants;
#     a group granted org.rocmtune1.set only may Set but not Apply or Reset;
#   - none of these users may own org.rocmtune1;
#   - one change is one question to polkit, also when it first rolls back an interrupted
#     transaction (a user polkit allows once must not be asked again, nor typed a password twice).
# The test users and groups exist only for the bus and polkitd (their own /etc/passwd, /etc/group).
import json
import os
import subprocess

from fixture import CONFIG, DaemonTest

TIMEOUT = 120
# uids/gids no account uses here: a granted user (group rocmtune-test), a set-only user, and a
# user polkit allows once.
GRANTED, SETTER, ONCE = 64301, 64302, 64303
RULES = """var rtonce_asked = 0;
polkit.addRule(function(action, subject) {
  if (action.id.indexOf("org.rocmtune1.") == 0 && subject.user == "rtonce")
    return ++rtonce_asked == 1 ? polkit.Result.YES : polkit.Result.NO;
  if (action.id.indexOf("org.rocmtune1.") == 0 && subject.isInGroup("rocmtune-test")) return polkit.Result.YES;
  if (action.id == "org.rocmtune1.set" && subject.isInGroup("rocmtune-setters")) return polkit.Result.YES;
});
"""
READS = """
import json, sys, dbus
from busclient import manager, properties, options
m, p = manager(), properties()
obj = dbus.SystemBus().get_object("org.rocmtune1", "/org/rocmtune1", introspect=False)
out = {
  "Describe": m.Describe(),
  "ListProfiles": m.ListProfiles(),
  "ShowProfile": m.ShowProfile("stock"),
  "Doctor": m.Doctor(""),
  "History": m.History(),
  "Plan": m.Plan("rdna1-safe", options(force=dbus.Boolean(True))),
  "Version": str(p.Get("org.rocmtune1.Manager", "Version")),
  "ActiveProfile": str(p.Get("org.rocmtune1.Manager", "ActiveProfile")),
  "PendingReboot": bool(p.Get("org.rocmtune1.Manager", "PendingReboot")),
  "GetAll": sorted(str(k) for k in p.GetAll("org.rocmtune1.Manager")),
  "Introspect": dbus.Interface(obj, "org.freedesktop.DBus.Introspectable").Introspect(),
  "Apply check": m.Apply("rdna2-consumer-compat", options(check=dbus.Boolean(True))),
  "Set check": m.Set(dbus.Dictionary({"amdgpu.noretry": "1"}, signature="ss"), options(check=dbus.Boolean(True))),
  "Unset check": m.Unset(["amdgpu.noretry"], options(check=dbus.Boolean(True))),
}
for k in ("Apply check", "Set check", "Unset check"):
    assert json.loads(out[k])["check"] is True, (k, out[k])
json.dump(out, sys.stdout, indent=1, sort_keys=True)
"""
# One change; EXPECT is "ok" (changed, a transaction), "unchanged", or "denied:ACTION" (a
# not-authorized error naming the polkit action).
CHANGE = """
import json, sys, dbus
from busclient import manager, outcome, EMPTY_OPTIONS, NOT_AUTHORIZED
method, expect, args = sys.argv[1], sys.argv[2], sys.argv[3:]
m = manager()
calls = {
  "Apply": lambda: m.Apply(args[0], EMPTY_OPTIONS, timeout=60),
  "Set": lambda: m.Set(dbus.Dictionary(dict(a.split("=", 1) for a in args), signature="ss"), EMPTY_OPTIONS, timeout=60),
  "Unset": lambda: m.Unset(dbus.Array(args, signature="s"), EMPTY_OPTIONS, timeout=60),
  "Revert": lambda: m.Revert(args[0] if args else "", timeout=60),
  "Reset": lambda: m.Reset(timeout=60),
}
name, text = outcome(calls[method])
what = f"{method} {' '.join(args)}"
if expect == "ok":
    assert not name, f"{what}: {name}: {text}"
    r = json.loads(text)
    assert r["changed"] is True and r["transaction"], f"{what}: {text}"
    print(f"{what}: transaction {r['transaction']}")
elif expect == "unchanged":
    assert not name and json.loads(text)["changed"] is False, f"{what}: {name} {text}"
else:
    action = "org.rocmtune1." + expect.split(":")[1]
    assert name in NOT_AUTHORIZED, f"{what}: wanted a denial, got {name or 'success'}: {text[:300]}"
    assert action in text, f"{what}: the denial does not name {action}: {text[:300]}"
    print(f"{what}: {name}")
"""
OWN_NAME = """
import dbus, sys
try:
    dbus.SystemBus().request_name("org.rocmtune1", dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
    sys.exit("RequestName succeeded")
except dbus.DBusException as e:
    assert e.get_dbus_name() == "org.freedesktop.DBus.Error.AccessDenied", e.get_dbus_name()
"""


class PermissionsTest(DaemonTest):
    def setUp(self):
        super().setUp()
        self.require_root("test users polkit and the bus see, root's changes through the helper")
        self.require_helper_socket()
        self.require_polkitd()
        self.require_nobody()
        self.require_free_ids((GRANTED, SETTER, ONCE))
        self.use_test_accounts(
            [f"{u}:x:{i}:{i}::/nonexistent:/usr/sbin/nologin" for u, i in
             (("rtgranted", GRANTED), ("rtsetter", SETTER), ("rtonce", ONCE))],
            [f"rocmtune-test:x:{GRANTED}:", f"rocmtune-setters:x:{SETTER}:", f"rtonce:x:{ONCE}:"])
        rules = self.path("50-rocmtune-groups.rules")
        with open(rules, "w") as f:
            f.write(RULES)
        self.start_bus("/usr/share/dbus-1/system.d")
        self.start_polkitd(rules)
        self.w = self.world("rx6600")
        self.start_helper(self.w)
        self.daemon = self.start_daemon(self.w)

    def run_as(self, who, code, *args):
        """The caller's part: who is root, nobody, or a uid (with its own group)."""
        argv = ["/usr/bin/python3", "-c", code] + list(args)
        if who == "nobody":
            argv = self.nobody(argv)
        elif who != "root":
            argv = ["setpriv", f"--reuid={who}", f"--regid={who}", f"--groups={who}", "--"] + argv
        return self.run_cmd(argv)

    def change(self, who, method, expect, *args):
        before = self.world_hash(self.w)
        r = self.run_as(who, CHANGE, method, expect, *args)
        self.assertEqual(r.returncode, 0, f"as {who}: {method} {expect} {args}: {r.stdout}{r.stderr}")
        if expect == "unchanged" or expect.startswith("denied:"):
            self.assertEqual(self.world_hash(self.w), before, f"as {who}, {method} {args} wrote to the world")

    def root_history(self):
        r = self.run_cmd([CONFIG["rocmtunectl"], "--root", self.w, "history", "--json"])
        return json.loads(r.stdout)["transactions"]

    def test_root_may_do_each_change(self):
        # Never asking polkit (root is not asked even with polkitd running).
        self.change("root", "Apply", "ok", "rdna2-consumer-compat")
        self.change("root", "Set", "ok", "amdgpu.noretry=1")
        self.change("root", "Unset", "ok", "amdgpu.noretry")
        self.change("root", "Revert", "ok", "")
        self.change("root", "Reset", "ok")

    def test_reads_and_checks_are_the_same_for_everyone(self):
        self.change("root", "Apply", "ok", "rdna2-consumer-compat")  # a history to read
        before = self.world_hash(self.w)
        reads = {}
        for who in ("root", "nobody", GRANTED):
            r = self.run_as(who, READS)
            self.assertEqual(r.returncode, 0, f"reads as {who}: {r.stderr}")
            reads[who] = r.stdout
        self.assertEqual(reads["nobody"], reads["root"], "nobody's reads differ from root's")
        self.assertEqual(reads[GRANTED], reads["root"], "a granted user's reads differ from root's")
        self.assertEqual(self.world_hash(self.w), before, "reads or checks wrote to the world")

    def test_at_stock_nobody_may_change_nothing(self):
        self.change("root", "Apply", "ok", "rdna2-consumer-compat")
        self.change("root", "Reset", "ok")
        reset_id = self.root_history()[-1]["id"]
        # Now stock: nobody may not apply, set, or revert the reset (by id or last).
        self.change("nobody", "Apply", "denied:apply", "rdna2-consumer-compat")
        self.change("nobody", "Set", "denied:set", "amdgpu.noretry=1")
        self.change("nobody", "Revert", "denied:revert", "")
        self.change("nobody", "Revert", "denied:revert", str(reset_id))
        self.change("nobody", "Reset", "unchanged")  # stock already: nothing to authorize

    def test_set_only_group(self):
        # The set-only group: Set yes; Apply, Reset and Revert no.
        self.change(SETTER, "Apply", "denied:apply", "rdna2-consumer-compat")
        self.change(SETTER, "Set", "ok", "amdgpu.noretry=1")
        self.change(SETTER, "Reset", "denied:revert")
        self.change(SETTER, "Revert", "denied:revert", "")

    def test_granted_group_may_do_each_change(self):
        self.change(GRANTED, "Apply", "ok", "rdna2-consumer-compat")
        self.change(GRANTED, "Set", "ok", "amdgpu.noretry=0")
        self.change(GRANTED, "Unset", "ok", "amdgpu.noretry")
        self.change(GRANTED, "Revert", "ok", "")
        self.change(GRANTED, "Reset", "ok")

    def test_nobody_may_not_undo(self):
        # Something to unset, revert and reset: nobody is denied.
        self.change("root", "Apply", "ok", "rdna2-consumer-compat")
        self.change("root", "Set", "ok", "amdgpu.noretry=0")
        self.change("nobody", "Unset", "denied:set", "amdgpu.noretry")
        self.change("nobody", "Reset", "denied:revert")
        self.change("nobody", "Revert", "denied:revert", "")
        self.change("nobody", "Apply", "denied:apply", "stock")
        # busctl allows interactive authorization (no agent runs here): still denied, nothing written.
        before = self.world_hash(self.w)
        r = self.busctl("--allow-interactive-authorization=yes", "--timeout=30", "call", "org.rocmtune1",
                        "/org/rocmtune1", "org.rocmtune1.Manager", "Reset", prefix=self.nobody([]))
        self.assertNotEqual(r.returncode, 0, f"an interactive Reset as nobody succeeded: {r.stdout}")
        self.assertEqual(self.world_hash(self.w), before, "an interactive Reset as nobody wrote to the world")

    def test_no_test_user_may_own_the_name(self):
        # Owning the name is root's alone, polkit rules or not (the daemon holds it now; the
        # policy check comes first either way).
        for who in ("nobody", GRANTED, SETTER):
            r = self.run_as(who, OWN_NAME)
            self.assertEqual(r.returncode, 0, f"{who} could ask for org.rocmtune1: {r.stderr}")

    def test_rollback_and_change_are_one_authorization(self):
        # An interrupted transaction (the helper killed at its first rename), then a change by the
        # user polkit allows once: the roll-back and the change are one authorization.
        fault = CONFIG["fault_helper"]
        self.assertTrue(fault and os.access(fault, os.X_OK), f"no rocmtune-fault-helper at {fault}")
        count = self.path("count")
        subprocess.run(["cp", "-a", self.w, count], check=True)
        env = dict(os.environ, ROCMTUNE_HELPER=fault, ROCMTUNE_FAULT_LOG=self.path("steps.txt"))
        r = self.run_cmd([CONFIG["rocmtunectl"], "--root", count, "set", "amdgpu.noretry=1"], env=env)
        self.assertEqual(r.returncode, 0, f"counting the steps failed: {r.stderr}")
        with open(self.path("steps.txt")) as f:
            n = next(line.split()[0] for line in f if line.split()[1:2] == ["rename"])
        env = dict(os.environ, ROCMTUNE_HELPER=fault, ROCMTUNE_FAULT=f"kill:{n}")
        r = self.run_cmd([CONFIG["rocmtunectl"], "--root", self.w, "set", "amdgpu.noretry=1"], env=env)
        self.assertNotEqual(r.returncode, 0, f"the fault helper did not die at step {n}")
        self.assertIn("interrupted", [t["state"] for t in self.root_history()], "no interrupted transaction")
        self.change(ONCE, "Set", "ok", "amdgpu.noretry=1")
        self.assertNotIn("interrupted", [t["state"] for t in self.root_history()],
                         "the interrupted transaction is still there")
        self.assertIsNone(self.daemon.poll(), "rocmtuned died")
