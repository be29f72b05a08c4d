# rocmtunectl through rocmtuned (the default path) against the local path (--root): on a private
# system bus (a real dbus-daemon with rocmtune's policy), a real polkitd and the helper behind its
# socket as systemd serves it.
#   - every world (one scenario each: daemon.client.reads_<world>): `status`, `history`, `verify`,
#     `explain` print the same JSON and the same text over the bus (the daemon serving the world,
#     no --root) as with --root WORLD — as root and as an unprivileged user. The client has no
#     other way to see the world than the daemon, so equality proves the bus path was taken;
#   - rocmtuned's CheckCompute is the CLI's document for the world; bad arguments are refused;
#   - changes as root go through the daemon and the helper socket: the world ends as the local
#     path leaves a copy, the text and JSON are the same; unset, revert and reset too;
#   - refusals, drift, unknown names and polkit's no map to the documented exit codes with a
#     one-line hint; an unprivileged user's change writes nothing;
#   - without rocmtuned on the bus (not running, not activatable) the client uses the local path.
import json
import os
import re
import subprocess

from fixture import CONFIG, DaemonTest

TIMEOUT = 180
WORLDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "worlds")
WORLD_NAMES = sorted(d for d in os.listdir(WORLDS) if os.path.isdir(os.path.join(WORLDS, d)))
READ_VERBS = [["status"], ["history"], ["verify"], ["explain", "amdgpu.noretry"], ["check-compute"],
              ["check-compute", "--workload", "conv"], ["check-compute", "--workload", "gemm", "--device", "card0"]]


def tree(root):
    """The world's files and their hashes, rocmtune's own state aside."""
    return subprocess.run("find . -path ./var/lib/rocmtune -prune -o -type f -print0 | sort -z | xargs -0 sha256sum",
                          shell=True, cwd=root, capture_output=True, text=True, check=True).stdout


class ClientTest(DaemonTest):
    def setUp(self):
        super().setUp()
        self.start_bus("/usr/share/dbus-1/system.d")

    def ctl(self, *args, prefix=()):
        return self.run_cmd(list(prefix) + [CONFIG["rocmtunectl"]] + list(args))

    def norm(self, text):
        """What differs between the two trees: their paths in messages, times."""
        text = text.replace(self.path("expected"), "ROOT").replace(self.path("world"), "ROOT")
        return re.sub(r'"time": "[^"]*"', '"time": "T"', text)

    def reads_on(self, name):
        # The reference is root's local output: a user's own local status adds its access checks
        # (access.unknown: whether it may open /dev/kfd), which the daemon's answers leave out.
        self.require_root("the reference is root's local output, compared with nobody's over the bus")
        w = self.world(name, f"w-{name}")
        self._chmod_readable(w)
        self.start_daemon(w, helper_socket=False)
        nobody = self.nobody([])
        for verb in READ_VERBS:
            local = self.ctl("--root", w, *verb, "--json")
            # check-compute never asks the daemon (it answers for the caller's own environment):
            # without --root it is this machine, not the daemon's world.
            compute = verb[0] == "check-compute"
            if not compute:
                bus = self.ctl(*verb, "--json")
                self.assertEqual(bus.returncode, local.returncode, f"{name}: '{verb} --json' exit over the bus")
                self.assertEqual(bus.stdout, local.stdout, f"{name}: '{verb} --json' differs over the bus")
            theirs = self.ctl(*(["--root", w] if compute else []), *verb, "--json", prefix=nobody)
            self.assertEqual(theirs.returncode, local.returncode, f"{name}: '{verb} --json' exit as nobody")
            self.assertEqual(theirs.stdout, local.stdout, f"{name}: '{verb} --json' as nobody differs")
        # profiles and show run here as root; nobody, who may not read a journal, asks the daemon
        # (ListProfiles, ShowProfile): the same documents and text.
        for verb in (["profiles"], ["show", "stock"], ["show", "rdna1-safe"]):
            for fmt in (["--json"], []):
                local = self.ctl("--root", w, *verb, *fmt)
                theirs = self.ctl(*verb, *fmt, prefix=nobody)
                self.assertEqual(theirs.returncode, local.returncode,
                                 f"{name}: '{verb} {fmt}' exit as nobody (rocmtuned)")
                self.assertEqual(theirs.stdout + theirs.stderr, local.stdout + local.stderr,
                                 f"{name}: '{verb} {fmt}' as nobody (rocmtuned) differs")
        for verb in (["status"], ["verify"], ["explain", "amdgpu.noretry"]):
            local, bus = self.ctl("--root", w, *verb), self.ctl(*verb)
            self.assertEqual(bus.stdout + bus.stderr, local.stdout + local.stderr,
                             f"{name}: '{verb}' text differs over the bus")

    def test_reads_cover_the_worlds(self):
        self.assertGreaterEqual(len(WORLD_NAMES), 10, f"only {len(WORLD_NAMES)} worlds are compared")

    def test_check_compute(self):
        # rocmtuned's CheckCompute answers what the world has (the daemon serves it), for programs
        # started with the system's environment: the same document as `rocmtunectl --root W
        # check-compute` (which never asks the daemon), and the usage errors as InvalidArgument.
        w = self.world("rx6900xt", "w-compute")
        self.start_daemon(w, helper_socket=False)
        for workload in ("conv", "gemm"):
            got = self.call_json("CheckCompute", "ss", workload, "")
            local = self.ctl("--root", w, "check-compute", "--workload", workload, "--json")
            # The daemon judges what a login shell starts, the CLI its caller's programs: the
            # program they name differs, nothing else may.
            mine, theirs = json.loads(got), json.loads(local.stdout)
            self.assertEqual(mine["program"]["kind"], "machine")
            self.assertEqual(theirs["program"]["kind"], "caller")
            for d in (mine, theirs):
                d["program"].pop("kind")
                d["program"].pop("name")
            self.assertEqual(self.norm(json.dumps(mine, indent=1)), self.norm(json.dumps(theirs, indent=1)),
                             f"CheckCompute {workload} differs from the CLI's")
        d = json.loads(got)
        self.assertEqual(d["schema"], "rocmtune.check_compute.v1")
        self.assertIs(d["safe"], False)
        self.assertIn("gpu.no-kfd", [r["id"] for r in d["gpus"][0]["reasons"]])
        for args in (("convolution", ""), ("conv", "card9")):
            r = self.busctl("call", "org.rocmtune1", "/org/rocmtune1", "org.rocmtune1.Manager", "CheckCompute", "ss",
                            *args)
            self.assertNotEqual(r.returncode, 0, f"CheckCompute {args} succeeded")
            self.assertRegex(r.stderr, "unknown workload|no GPU", f"CheckCompute {args}")

    def start_changes(self, polkit=False):
        self.w = self.world("rx6600")
        self.expected = self.world("rx6600", "expected")
        self.start_helper(self.w)
        if polkit:
            self.start_polkitd()
        self.start_daemon(self.w)

    def step(self, want, *args):
        """The same change over the bus (the world) and locally (the copy)."""
        local = self.ctl("--root", self.expected, *args, "--json")
        bus = self.ctl(*args, "--json")
        self.assertEqual(local.returncode, want, f"local {args}: {local.stdout}")
        self.assertEqual(bus.returncode, want, f"{args} over the bus: {bus.stdout} {self.log('daemon.log')[-2000:]}")
        self.assertEqual(self.norm(bus.stdout), self.norm(local.stdout), f"{args} result differs over the bus")
        self.assertEqual(tree(self.w), tree(self.expected), f"after {args} the world differs from the local copy")

    def test_changes_as_root_equal_the_local_path(self):
        self.require_root("changes through the helper, which serves root only")
        self.start_changes()
        self.step(0, "apply", "rdna2-consumer-compat", "--check")
        self.step(0, "apply", "rdna2-consumer-compat")
        self.step(0, "set", "sysfs.card1.pp_power_profile_mode=COMPUTE")
        self.step(0, "unset", "sysfs.card1.pp_power_profile_mode")
        self.step(0, "revert", "last")
        self.step(0, "set", "amdgpu.noretry=0")
        self.step(0, "reset")
        self.step(2, "apply", "no-such-profile")
        self.step(3, "apply", "strix-halo")
        self.assertEqual(self.norm(self.ctl("history", "--json").stdout),
                         self.norm(self.ctl("--root", self.expected, "history",
                                            "--json").stdout), "the histories differ")
        # Text: the same lines.
        local = self.ctl("--root", self.expected, "set", "amdgpu.noretry=0")
        bus = self.ctl("set", "amdgpu.noretry=0")
        self.assertEqual(self.norm(bus.stdout + bus.stderr), self.norm(local.stdout + local.stderr),
                         "the text of set differs over the bus")
        self.assertRegex(bus.stdout + bus.stderr, "Transaction [0-9A-Za-z-]+ committed",
                         "set over the bus did not say it committed")
        # Drift: an owned file edited behind rocmtune's back (on both), exit 5 both ways.
        for r in (self.w, self.expected):
            with open(os.path.join(r, "etc/modprobe.d/rocmtune.conf"), "a") as f:
                f.write("# edited\n")
        self.step(5, "set", "amdgpu.noretry=1")

    def test_unprivileged_change_refused_with_a_hint(self):
        # nobody: polkit says no (auth_admin, no agent) — exit 4, a hint, nothing written.
        self.require_helper_socket()
        self.require_nobody()
        self.start_changes(polkit=True)
        before = tree(self.w)
        r = self.ctl("set", "amdgpu.noretry=1", "--force", prefix=self.nobody([]))
        self.assertEqual(r.returncode, 4, f"nobody's set: {r.stdout}{r.stderr}")
        self.assertIn("run with sudo", r.stderr, "no hint for nobody")
        r = self.ctl("--no-ask-password", "--json", "apply", "stock", "--force", prefix=self.nobody([]))
        self.assertEqual(r.returncode, 4, "nobody's apply --no-ask-password")
        self.assertIn(json.loads(r.stdout)["schema"], ("rocmtune.result.v1", "rocmtune.error.v1"),
                      "nobody's --json is not one document")
        self.assertEqual(tree(self.w), before, "nobody's refused change wrote")

    def test_recorded_apply_says_so(self):
        # An apply whose settings the world already has writes nothing but is recorded (its
        # profile is active): the text says so, with the transaction to revert.
        w = self.world("mi210x8")
        r = self.ctl("--root", w, "apply", "instinct")
        self.assertEqual(r.returncode, 0, f"apply instinct on mi210x8: {r.stdout}{r.stderr}")
        self.assertRegex(r.stdout + r.stderr,
                         re.compile(r"^Transaction 1 recorded: nothing needed writing \(undo: rocmtunectl revert 1\)",
                                    re.M))

    def test_no_daemon_means_the_local_path(self):
        # No daemon on the bus (not running, not activatable): the local path of /.
        self.assertFalse(self.has_owner())
        r = self.ctl("status", "--json")
        self.assertEqual(r.returncode, 0, "status without a daemon")
        self.assertEqual(r.stdout, self.ctl("--root", "/", "status", "--json").stdout,
                         "without a daemon, status is not the local one of /")


def _reads_test(name):
    def test(self):
        self.reads_on(name)
    test.__doc__ = f"the reads on world {name}: the same over the bus as locally, as root and as nobody"
    return test


for _name in WORLD_NAMES:
    setattr(ClientTest, f"test_reads_{_name.replace('-', '_')}", _reads_test(_name))
