# Other writers of the GPU's performance level, as rocmtuned tells them (detect/other_writers.h,
# bus/power_profiles.h): power-profiles-daemon on the private system bus, the real one where it
# runs and a double of a newer one, beside its files in a world (rx6900xt, an AMD CPU).
#   - the real power-profiles-daemon 0.12 of Debian 12 (installed, or the .deb install-deps keeps
#     in /var/cache/rocmtune-tests, unpacked here): no Version property, its actions are
#     trickle_charge only; the finding says it has no amdgpu_dpm action (info, not the warning
#     its files alone give);
#   - a 0.30 double with amdgpu_dpm enabled and the card at `high`: a warning naming the version,
#     the profile and "card0's `high` will not last"; after SetActionEnabled(amdgpu_dpm, false)
#     on the double the next Describe says disabled (info): the daemon asks again each time;
#   - the double as tuned-ppd (its profiles' Driver is "tuned"): info, no amdgpu_dpm action;
#   - nothing on the bus: the warning from the files (unit enabled, AMD CPU);
#   - settled through rocmtuned (Set service.power-profiles-daemon.amdgpu_dpm=off, as root, the
#     helper behind its socket): with the 0.30 double on the bus the plan tells the running daemon
#     with busctl's SetActionEnabled(amdgpu_dpm, false) after `systemctl daemon-reload`, and the
#     Revert restarts it (an action it started without cannot be enabled) and leaves the world as
#     it was, byte for byte (its journal aside). A
#     world is not the running system: the helper leaves those commands pending (the VM scenario
#     service-ppd runs them).
import glob
import json
import os
import subprocess

from fixture import CONFIG, DaemonTest, dbus

DEB_CACHE = "/var/cache/rocmtune-tests"
PPD_BIN = "usr/libexec/power-profiles-daemon"
PPD_POLICY = "usr/share/dbus-1/system.d/net.hadess.PowerProfiles.conf"
DROP_IN = "etc/systemd/system/power-profiles-daemon.service.d/50-rocmtune.conf"
# Who may own and call the double's name on the private bus (power-profiles-daemon 0.30's own
# org.freedesktop.UPower.PowerProfiles.conf says the same for root).
DOUBLE_POLICY = """<busconfig>
  <policy user="root"><allow own="org.freedesktop.UPower.PowerProfiles"/></policy>
  <policy context="default">
    <allow send_destination="org.freedesktop.UPower.PowerProfiles"/>
  </policy>
</busconfig>
"""
AMD_CPU = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
UNIT = "[Unit]\nDescription=Power Profiles daemon\n[Service]\nType=dbus\nBusName=net.hadess.PowerProfiles\n" \
       "ExecStart=/usr/libexec/power-profiles-daemon\n[Install]\nWantedBy=graphical.target\n"


class WritersTest(DaemonTest):
    def setUp(self):
        super().setUp()
        self.require_root("power-profiles-daemon's bus policy lets only root own its names")
        self.w = self.world("rx6900xt")
        self.write("lib/systemd/system/power-profiles-daemon.service", UNIT)
        os.makedirs(os.path.join(self.w, "etc/systemd/system/graphical.target.wants"), exist_ok=True)
        os.symlink("/lib/systemd/system/power-profiles-daemon.service",
                   os.path.join(self.w, "etc/systemd/system/graphical.target.wants/power-profiles-daemon.service"))
        self.write("proc/cpuinfo", AMD_CPU)
        level = glob.glob(os.path.join(self.w, "sys/devices/*/*/power_dpm_force_performance_level"))
        self.assertEqual(len(level), 1, "the world's card has no performance level: nothing is tested")
        with open(level[0], "w") as f:
            f.write("high\n")

    def write(self, rel, text):
        path = os.path.join(self.w, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def finding(self):
        status = json.loads(self.call_json("Describe"))
        found = [f for f in status["findings"] if f["id"] == "writer.power-profiles-daemon"]
        self.assertEqual(len(found), 1, [f["id"] for f in status["findings"]])
        return found[0]

    def start_double(self, *args, helper=False):
        policy = self.path("double-policy")
        os.mkdir(policy)
        with open(os.path.join(policy, "ppd-double.conf"), "w") as f:
            f.write(DOUBLE_POLICY)
        self.start_bus(policy)
        self.calls = self.path("calls")
        p = self.spawn("ppd-double", ["/usr/bin/python3", os.path.join(self.src, "tests/daemon/ppd_double.py"),
                                      "--calls", self.calls, *args])
        self.wait_name(True, name="org.freedesktop.UPower.PowerProfiles", proc=p, log="ppd-double.log")
        if helper:
            self.start_helper(self.w)
        self.start_daemon(self.w, helper_socket=helper)

    def real_ppd(self):
        """The directory power-profiles-daemon 0.12's files are under: / or an unpacked .deb."""
        if os.access("/" + PPD_BIN, os.X_OK) and os.path.exists("/" + PPD_POLICY):
            return "/"
        debs = sorted(glob.glob(os.path.join(DEB_CACHE, "power-profiles-daemon_*.deb")))
        if not debs:
            self.skipTest(f"power-profiles-daemon is neither installed nor kept in {DEB_CACHE} "
                          "(scripts/install-deps.sh downloads it)")
        self.require_tool("dpkg-deb", "dpkg")
        d = self.path("ppd-deb")
        subprocess.run(["dpkg-deb", "-x", debs[-1], d], check=True)
        return d

    def test_the_real_012_has_no_amdgpu_dpm_action(self):
        top = self.real_ppd()
        policy = self.path("ppd-policy")
        os.mkdir(policy)
        with open(os.path.join(top, PPD_POLICY)) as src, open(os.path.join(policy, "ppd.conf"), "w") as dst:
            dst.write(src.read())
        self.start_bus(policy)
        p = self.spawn("ppd", [os.path.join(top, PPD_BIN), "-v"])
        self.wait_name(True, name="net.hadess.PowerProfiles", proc=p, log="ppd.log")
        self.start_daemon(self.w, helper_socket=False)
        f = self.finding()
        self.assertEqual(f["severity"], "info", f)
        self.assertIn("without the Version property", f["message"])
        self.assertIn("runs without an amdgpu_dpm action", f["message"])
        self.assertIn("trickle_charge", f["message"])

    def test_030_with_the_action_warns_then_says_disabled(self):
        self.start_double("--version", "0.30", "--profile", "performance")
        f = self.finding()
        self.assertEqual(f["severity"], "warning", f)
        self.assertIn("power-profiles-daemon 0.30 resets power_dpm_force_performance_level to auto", f["message"])
        self.assertIn("its profile now: performance", f["message"])
        self.assertIn("card0's `high` will not last", f["message"])
        self.assertIn("service.power-profiles-daemon.amdgpu_dpm=off", json.dumps(f))
        r = self.busctl("call", "org.freedesktop.UPower.PowerProfiles", "/org/freedesktop/UPower/PowerProfiles",
                        "org.freedesktop.UPower.PowerProfiles", "SetActionEnabled", "sb", "amdgpu_dpm", "false")
        self.assertEqual(r.returncode, 0, r.stderr)
        f = self.finding()
        self.assertEqual(f["severity"], "info", f)
        self.assertIn("has its amdgpu_dpm action disabled now", f["message"])

    def test_tuned_ppd_has_no_such_action(self):
        self.start_double("--version", "0.30", "--driver", "tuned", "--actions", "")
        f = self.finding()
        self.assertEqual(f["severity"], "info", f)
        self.assertIn("tuned-ppd answers power-profiles-daemon's API", f["message"])

    def test_not_running_the_files_say_it(self):
        self.start_bus()
        self.start_daemon(self.w, helper_socket=False)
        f = self.finding()
        self.assertEqual(f["severity"], "warning", f)
        self.assertIn("installed and enabled on an AMD CPU", f["message"])
        self.assertIn("card0's `high` will not last", f["message"])

    def test_settled_through_the_daemon_and_reverted(self):
        self.require_helper_socket()
        # What a power-profiles-daemon with the action and the option has in its binary.
        os.makedirs(os.path.dirname(os.path.join(self.w, PPD_BIN)), exist_ok=True)
        with open(os.path.join(self.w, PPD_BIN), "wb") as f:
            f.write(b"\x7fELF\0--block-action\0amdgpu_dpm\0")
        before = self.world_hash_without_var()
        self.start_double("--version", "0.30", helper=True)
        knobs = dbus.Dictionary({"service.power-profiles-daemon.amdgpu_dpm": "off"}, signature="ss")
        got = json.loads(self.manager().Set(knobs, dbus.Dictionary({}, signature="sv"), timeout=120))
        self.assertEqual((got["errors"], got["refused"]), ([], []), got)
        cmds = [c.get("argv") for c in got["changes"] if c.get("argv")]
        self.assertEqual(cmds, [["systemctl", "daemon-reload"],
                                ["busctl", "call", "org.freedesktop.UPower.PowerProfiles",
                                 "/org/freedesktop/UPower/PowerProfiles", "org.freedesktop.UPower.PowerProfiles",
                                 "SetActionEnabled", "sb", "amdgpu_dpm", "false"]], got["changes"])
        self.assertIn("--block-action=amdgpu_dpm", open(os.path.join(self.w, DROP_IN)).read())
        got = json.loads(self.manager().Revert(got["transaction"], timeout=120))
        self.assertEqual((got["errors"], got["refused"]), ([], []), got)
        cmds = [c.get("argv") for c in got["changes"] if c.get("argv")]
        self.assertEqual(cmds, [["systemctl", "daemon-reload"],
                                ["systemctl", "try-restart", "power-profiles-daemon.service"]], got["changes"])
        self.assertFalse(os.path.exists(os.path.join(self.w, DROP_IN)))
        self.assertEqual(self.world_hash_without_var(), before)

    def world_hash_without_var(self):
        return subprocess.run(
            "find . -path ./var -prune -o \\( -type f -exec sha256sum {} + \\) -o \\( ! -type f -printf '%y %p %l\\n' \\) "
            "| sort | sha256sum", shell=True, cwd=self.w, capture_output=True, text=True, check=True).stdout
