# The shipped units, udev rules and bus/polkit files as systemd, udev, dbus-daemon and polkit
# read them: `systemd-analyze verify` prints nothing for each unit (every one under systemd/, the
# expected ones present), the exposure (`systemd-analyze security --offline=true`) of
# rocmtuned.service and rocmtune-apply@.service is at most 1.5 and is printed, the udev rules pass
# `udevadm verify` (or, where udevadm has none, tests/daemon/udev_rules_check.py, which is first
# shown to fail on a broken rule) and start units that exist, the boot units are ordered as
# promised, the activation file names the unit and the bus name, and the polkit actions parse
# with the defaults promised; no unit but rocmtuned.service sets RestrictSUIDSGID= (see below).
# No bus or daemon here: a plain TestCase.
import glob
import os
import re
import shutil
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET

from fixture import CONFIG

TIMEOUT = 120
EXPECTED = ["rocmtuned.service", "rocmtune-helper.socket", "rocmtune-helper@.service", "rocmtune-apply@.service",
            "rocmtune-resume.service", "rocmtune-recover.service", "rocmtune-reset.service",
            "rocmtune-trial-check.service", "rocmtune-trial-commit.service", "rocmtune-trial-recover.service",
            "rocmtune-export.service", "rocmtune-export.timer"]


def read(path):
    with open(path) as f:
        return f.read()


class UnitsTest(unittest.TestCase):
    def setUp(self):
        if not shutil.which("systemd-analyze"):
            self.skipTest("systemd-analyze is not installed (package systemd)")
        self.src = CONFIG["src"]
        self.work = tempfile.mkdtemp(prefix="rocmtune-units-", dir=os.environ.get("TMPDIR", "/tmp"))
        self.addCleanup(shutil.rmtree, self.work, True)
        # The units name installed paths; point them at the build so verify can check the command.
        paths = {"/usr/libexec/rocmtune/rocmtuned": CONFIG["rocmtuned"],
                 "/usr/libexec/rocmtune/rocmtune-helper": CONFIG["helper"],
                 "/usr/bin/rocmtunectl": CONFIG["rocmtunectl"]}
        for unit in glob.glob(os.path.join(self.src, "systemd/*.service")) + \
                glob.glob(os.path.join(self.src, "systemd/*.socket")) + glob.glob(os.path.join(self.src, "systemd/*.timer")):
            text = read(unit)
            for installed, built in paths.items():
                text = text.replace(installed, os.path.realpath(built))
            with open(os.path.join(self.work, os.path.basename(unit)), "w") as f:
                f.write(text)

    def analyze(self, *args):
        return subprocess.run(["systemd-analyze"] + list(args), cwd=self.work, capture_output=True, text=True)

    def test_units_verify_clean(self):
        for expected in EXPECTED:
            self.assertTrue(os.path.exists(os.path.join(self.work, expected)), f"systemd/{expected} is missing")
        services = sorted(glob.glob(os.path.join(self.work, "*.service")))
        self.assertTrue(services, "no units under systemd/")
        # RestrictSUIDSGID=yes makes openat2 fail with ENOSYS (systemd's filter cannot look into
        # its struct open_how), and rocmtune opens every path with openat2: a unit with it reads
        # or writes nothing.
        bad = [os.path.basename(s) for s in services if os.path.basename(s) != "rocmtuned.service"
               and re.search(r"(?m)^RestrictSUIDSGID=(yes|true|on|1)", read(s))]
        self.assertEqual(bad, [], "RestrictSUIDSGID= breaks openat2")
        for unit in sorted(os.listdir(self.work)):
            r = self.analyze("verify", "--man=no", f"./{unit}")
            self.assertEqual(r.stdout + r.stderr, "", f"systemd-analyze verify {unit}")

    def test_apply_instance_after_dashes(self):
        # The instance is CARD even when it starts with a dash: `reapply --force` must not be an
        # option (reapply refuses a dash-led or empty CARD, tests/world/small_holes_cli_test.cc).
        self.assertRegex(read(os.path.join(self.work, "rocmtune-apply@.service")),
                         r"(?m)^ExecStart=[^ ]*rocmtunectl --root / reapply -- %I$",
                         "rocmtune-apply@.service does not pass its instance after --")

    def test_helper_mount_namespace_of_its_own(self):
        # bootc's set-options-for-source and libostree skip unshare(CLONE_NEWNS), which
        # RestrictNamespaces=yes would refuse, only because the helper's mount namespace is not
        # pid 1's (bootc cli.rs ensure_self_unshared_mount_namespace; ostree-sysroot.c
        # ostree_sysroot_initialize_with_mount_namespace): PrivateTmp= gives it one.
        text = read(os.path.join(self.src, "systemd/rocmtune-helper@.service"))
        self.assertRegex(text, r"(?m)^RestrictNamespaces=yes$")
        self.assertRegex(text, r"(?m)^PrivateTmp=yes$",
                         "rocmtune-helper@.service without a mount namespace of its own: bootc would unshare one")
        r = self.analyze("security", "--offline=true", "./rocmtune-helper@.service")
        self.assertRegex(r.stdout, r"✓ RestrictNamespaces=~mnt", r.stdout)

    def test_exposure_at_most_1_5(self):
        # A template is analyzed as an instance (systemd-analyze names it rocmtune-apply@i.service).
        for unit in ("rocmtuned.service", "rocmtune-apply@.service"):
            r = self.analyze("security", "--offline=true", f"./{unit}")
            m = re.search(r"Overall exposure level for [^:]*: ([0-9.]+)", r.stdout + r.stderr)
            self.assertIsNotNone(m, f"no exposure for {unit} in: {r.stdout}{r.stderr}")
            print("\n".join(line for line in r.stdout.splitlines() if "✗" in line))
            print(f"{unit} exposure: {m.group(1)} (limit 1.5)")
            self.assertLessEqual(float(m.group(1)), 1.5, f"{unit}: exposure over 1.5")

    def test_daemon_is_not_root(self):
        # rocmtuned is not root: its own system user, made by the shipped sysusers.d file (read by
        # the real systemd-sysusers into a scratch root), the only other user the helper's socket
        # lets connect.
        unit = read(os.path.join(self.src, "systemd/rocmtuned.service")).splitlines()
        self.assertIn("User=rocmtune", unit, "rocmtuned.service does not run as user rocmtune")
        self.assertIn("Group=rocmtune", unit, "rocmtuned.service does not run as group rocmtune")
        r = self.analyze("security", "--offline=true", "./rocmtuned.service")
        self.assertNotIn("✗ User=/DynamicUser=", r.stdout, "systemd-analyze says rocmtuned.service runs as root")
        socket_unit = read(os.path.join(self.src, "systemd/rocmtune-helper.socket")).splitlines()
        for line in ("SocketUser=root", "SocketGroup=rocmtune", "SocketMode=0660"):
            self.assertIn(line, socket_unit, f"rocmtune-helper.socket lacks {line}")
        if not shutil.which("systemd-sysusers"):
            return
        sysroot = os.path.join(self.work, "sysroot")
        os.makedirs(os.path.join(sysroot, "etc"))
        with open(os.path.join(self.src, "systemd/sysusers.d/rocmtune.conf")) as conf:
            r = subprocess.run(["systemd-sysusers", f"--root={sysroot}", "-"], stdin=conf, capture_output=True,
                               text=True)
        self.assertEqual(r.returncode, 0, f"systemd-sysusers rejects systemd/sysusers.d/rocmtune.conf: {r.stderr}")
        passwd = read(os.path.join(sysroot, "etc/passwd")).splitlines()
        users = [line for line in passwd if line.startswith("rocmtune:")]
        self.assertTrue(users, "sysusers.d/rocmtune.conf makes no user rocmtune")
        self.assertRegex(read(os.path.join(sysroot, "etc/group")), "(?m)^rocmtune:",
                         "sysusers.d/rocmtune.conf makes no group rocmtune")
        user = users[0]
        self.assertTrue(user.endswith(":/:/usr/sbin/nologin"), f"user rocmtune has a home or a login shell: {user}")
        self.assertTrue(0 < int(user.split(":")[2]) < 1000, f"user rocmtune is not a system user: {user}")
        # rocm-smi-lib's child, when root starts it, runs as an account of its own (sys/sandbox.h).
        probe = [line for line in passwd if line.startswith("rocmtune-smi:")]
        self.assertTrue(probe, "sysusers.d/rocmtune.conf makes no user rocmtune-smi")
        self.assertTrue(probe[0].endswith(":/:/usr/sbin/nologin"), probe[0])
        self.assertNotEqual(probe[0].split(":")[2], user.split(":")[2], "rocmtune-smi shares rocmtune's uid")
        print(f"sysusers.d/rocmtune.conf: {user}; {probe[0]}")

    def test_boot_units_order(self):
        # Before anything reads modprobe.d, after / is writable and the journal mounted.
        for unit in ("rocmtune-recover.service", "rocmtune-reset.service"):
            text = read(os.path.join(self.src, "systemd", unit))
            self.assertIn("DefaultDependencies=no", text.splitlines(), f"{unit} keeps the default dependencies")
            for before in ("systemd-udev-trigger.service", "systemd-modules-load.service"):
                self.assertRegex(text, rf"(?m)^Before=.*\b{re.escape(before)}\b",
                                 f"{unit} is not ordered before {before}")
            self.assertRegex(text, r"(?m)^After=.*systemd-remount-fs\.service",
                             f"{unit} is not after systemd-remount-fs")
            self.assertRegex(text, r"(?m)^RequiresMountsFor=.*/var/lib/rocmtune",
                             f"{unit} does not wait for /var/lib/rocmtune")
        self.assertIn("ConditionKernelCommandLine=rocmtune.reset=1",
                      read(os.path.join(self.src, "systemd/rocmtune-reset.service")).splitlines(),
                      "rocmtune-reset.service does not depend on rocmtune.reset=1")
        self.assertIn("rocmtune.reset=1", read(os.path.join(self.src, "README.md")), "README.md does not document it")
        self.assertIn("rocmtune.reset=1", read(os.path.join(self.src, "systemd/README.md")),
                      "systemd/README.md does not document it")

    def test_trial_units_gate_boot_complete(self):
        # systemd.special(7), boot-complete.target: the units that must succeed are ordered before
        # it and required by it; the units that run only on a successful boot are ordered after it
        # and pull it in with Requires= (it is not part of the boot transaction by itself). systemd
        # itself, loading the units with the build's rocmtunectl, must see exactly that.
        check = read(os.path.join(self.src, "systemd/rocmtune-trial-check.service")).splitlines()
        commit = read(os.path.join(self.src, "systemd/rocmtune-trial-commit.service")).splitlines()
        recover = read(os.path.join(self.src, "systemd/rocmtune-trial-recover.service")).splitlines()
        for unit, text in (("check", check), ("commit", commit)):
            self.assertIn("ConditionKernelCommandLine=rocmtune.trial", text, f"trial-{unit} runs on every boot")
        self.assertIn("ConditionKernelCommandLine=!rocmtune.trial", recover, "trial-recover runs in the trial boot")
        self.assertIn("Before=boot-complete.target", check)
        self.assertIn("RequiredBy=boot-complete.target", check)
        self.assertIn("Requires=boot-complete.target", commit)
        self.assertRegex("\n".join(commit), r"(?m)^After=.*\bboot-complete\.target\b")
        self.assertRegex("\n".join(check), r"(?m)^ExecStart=/usr/bin/rocmtunectl --root / trial check --boot$")
        self.assertRegex("\n".join(commit), r"(?m)^ExecStart=/usr/bin/rocmtunectl --root / trial commit --boot$")
        self.assertRegex("\n".join(recover), r"(?m)^ExecStart=/usr/bin/rocmtunectl --root / trial recover --boot$")
        # No ordering cycle once installed: multi-user.target wants the commit, the commit waits for
        # boot-complete.target, which waits for the check. systemd-analyze verify reports cycles
        # of the units it loads; load the three with the target that wants them.
        r = self.analyze("verify", "--man=no", "./rocmtune-trial-check.service", "./rocmtune-trial-commit.service",
                         "./rocmtune-trial-recover.service")
        self.assertEqual(r.stdout + r.stderr, "", "systemd-analyze verify of the trial units together")

    def test_udev_rules(self):
        # udevadm's own check where it has one (systemd >= 254), else ours, which must first fail on
        # a rule with a wrong operator and a missing tag.
        rules = os.path.join(self.src, "udev/70-rocmtune.rules")
        self.assertTrue(os.path.isfile(rules), "udev/70-rocmtune.rules is missing")
        if shutil.which("udevadm") and subprocess.run(["udevadm", "verify", "--help"],
                                                      capture_output=True).returncode == 0:
            r = subprocess.run(["udevadm", "verify", "--no-summary", rules], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, f"udevadm verify: {r.stdout}{r.stderr}")
        else:
            print("udevadm verify is not available: checking the syntax with tests/daemon/udev_rules_check.py")
            check = os.path.join(self.src, "tests/daemon/udev_rules_check.py")
            bad = os.path.join(self.work, "bad.rules")
            with open(bad, "w") as f:
                f.write('ACTION="add", SUBSYSTEM=="drm", ENV{SYSTEMD_WANTS}+="x.service"\n')
            self.assertNotEqual(subprocess.run(["/usr/bin/python3", check, bad], capture_output=True).returncode, 0,
                                "udev_rules_check.py accepts a broken rule")
            r = subprocess.run(["/usr/bin/python3", check, rules], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, f"udev rules: {r.stdout}{r.stderr}")
        text = read(rules)
        # Every unit the rules start is shipped.
        for wanted in sorted(set(re.findall(r"rocmtune-[a-z-]*@%k\.service", text))):
            wanted = wanted.replace("%k", "")
            self.assertTrue(os.path.exists(os.path.join(self.src, "systemd", wanted)),
                            f"70-rocmtune.rules starts {wanted}, which systemd/ does not ship")
        self.assertRegex(text, r'(?m)^ACTION=="add".*SYSTEMD_WANTS', "no rule for a card that appears")
        self.assertRegex(text, r'(?m)^ACTION=="change".*ENV\{WEDGED\}', "no rule for a GPU reset (WEDGED)")

    def test_activation_file(self):
        act = read(os.path.join(self.src, "dbus/org.rocmtune1.service")).splitlines()
        self.assertIn("Name=org.rocmtune1", act, "the activation file does not name org.rocmtune1")
        self.assertIn("SystemdService=rocmtuned.service", act, "the activation file does not start rocmtuned.service")
        self.assertIn("BusName=org.rocmtune1", read(os.path.join(self.src, "systemd/rocmtuned.service")).splitlines(),
                      "rocmtuned.service has another BusName")

    def test_polkit_actions(self):
        root = ET.parse(os.path.join(self.src, "polkit/org.rocmtune1.policy")).getroot()
        actions = {a.get("id"): a for a in root.findall("action")}
        self.assertEqual(set(actions), {"org.rocmtune1.apply", "org.rocmtune1.set", "org.rocmtune1.revert",
                                        "org.rocmtune1.force", "org.rocmtune1.admin-lines", "org.rocmtune1.trial"})
        for name, a in actions.items():
            d = {c.tag: c.text for c in a.find("defaults")}
            # force overrides rocmtune's own refusals and admin-lines edits the admin's own files: an
            # admin's password every time, never kept.
            strict = ("org.rocmtune1.force", "org.rocmtune1.admin-lines")
            active = "auth_admin" if name in strict else "auth_admin_keep"
            self.assertEqual(d, {"allow_any": "auth_admin", "allow_inactive": "auth_admin", "allow_active": active},
                             name)
            self.assertTrue(a.findtext("description") and a.findtext("message"), f"{name}: no description or message")
