# The daemon tests' fixture: every test gets its own work directory, a private "system" bus (a
# real dbus-daemon, tests/daemon/private-bus.conf.in with rocmtune's policy), and whatever it
# starts of a real polkitd, the helper behind its socket (systemd-socket-activate, as
# rocmtune-helper.socket serves it) and rocmtuned. Each process starts in its own process group;
# the cleanup ends every group, then looks for any process still carrying the test's mark
# (ROCMTUNE_TEST_WORK in its environment, tests/leftover_processes.sh) and fails the test if one
# outlived it. The logs of everything started are printed when a test fails.
#
# Waits poll a condition (a D-Bus name owner, a file, a property, a signal received) against a
# deadline; nothing sleeps a fixed time (assert_keeps_running alone waits out a period, for what
# only time shows: an idle timeout that must not fire, a SIGTERM that must wait for a change).
import glob
import grp
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

try:
    import dbus
except ImportError:  # --list runs without it; each test then skips with the reason
    dbus = None
try:  # only for signals (watch_signal), which a test without python3-gi skips
    import dbus.mainloop.glib
    from gi.repository import GLib
except ImportError:
    GLib = None

# Set by run.py from its arguments: rocmtuned, rocmtunectl, helper, fault_helper, src.
CONFIG = {}
NAME = "org.rocmtune1"
PATH = "/org/rocmtune1"
IFACE = "org.rocmtune1.Manager"
DEADLINE = 10.0  # seconds any wait for a process, name or file may take before the test fails
NOBODY = "nobody"


def is_root():
    return os.geteuid() == 0


class DaemonTest(unittest.TestCase):
    """A test on a private bus. Subclasses call the start_* methods in setUp or the test."""

    maxDiff = None  # a failed comparison of two documents shows the whole difference

    # --- setup and cleanup ---------------------------------------------------------------
    def setUp(self):
        self.src = CONFIG["src"]
        if dbus is None:
            raise unittest.SkipTest("python3-dbus is needed to call with typed arguments")
        self.require_tool("dbus-daemon", "dbus")
        self.require_tool("busctl", "systemd")
        self.work = tempfile.mkdtemp(prefix="rocmtune-bus-", dir=os.environ.get("TMPDIR", "/tmp"))
        os.chmod(self.work, 0o755)
        self._procs = []  # (name, Popen)
        self._conns = []
        self._env_before = dict(os.environ)
        # Every process the test starts inherits the mark, whatever it forks (a helper per
        # connection, polkitd's children); systemd-socket-activate gets it passed on with -E.
        os.environ["ROCMTUNE_TEST_WORK"] = self.work
        self.addCleanup(self._end)
        # The Python helpers where an unprivileged caller can read them (a clone may sit in a
        # 0700 directory).
        self.pydir = os.path.join(self.work, "py")
        os.mkdir(self.pydir)
        for f in glob.glob(os.path.join(self.src, "tests/daemon/*.py")):
            shutil.copy(f, self.pydir)
        self._chmod_readable(self.pydir)
        os.environ["PYTHONPATH"] = self.pydir
        self.bus_address = None

    def _end(self):
        # Whether the test failed so far (the outcome's result has it; unittest's own flag is
        # reset for each cleanup).
        result = getattr(self._outcome, "result", None)
        failed = result is not None and any(t is self for t, _ in result.failures + result.errors)
        for c in self._conns:
            try:
                c.close()
            except Exception:  # noqa: BLE001 -- the bus may be gone already
                pass
        self._conns = []
        for _, p in reversed(self._procs):
            self._signal_group(p, signal.SIGTERM)
        deadline = time.monotonic() + 3
        for _, p in self._procs:
            try:
                p.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        for _, p in self._procs:
            self._signal_group(p, signal.SIGKILL)
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                pass
        leftover = self._marked_processes()
        if leftover:
            described = [f"  pid {p}: {self._cmdline(p)}" for p in leftover]
            for p in leftover:
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if failed or leftover or os.environ.get("ROCMTUNE_TEST_LOGS"):
            self.print_logs()
        if os.environ.get("KEEP_WORK"):
            shutil.copytree(self.work, os.environ["KEEP_WORK"], symlinks=True, dirs_exist_ok=True)
        shutil.rmtree(self.work, ignore_errors=True)
        os.environ.clear()
        os.environ.update(self._env_before)
        if leftover:
            self.fail("processes outlived the test:\n" + "\n".join(described))

    @staticmethod
    def _signal_group(p, sig):
        # Each process was started in its own session: its pid is its group's id, and every
        # child (a helper per connection, setpriv's target, unshare's) is in that group.
        try:
            os.killpg(p.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def _marked_processes(self):
        """The pids still running with this test's mark (not this process or its ancestors),
        after up to 2 s for those on their way out."""
        mark = f"ROCMTUNE_TEST_WORK={self.work}".encode()
        mine, pid = set(), os.getpid()
        while pid > 0:
            mine.add(pid)
            pid = self._ppid(pid)
        found = []
        deadline = time.monotonic() + 2
        while True:
            found = []
            for d in os.listdir("/proc"):
                if not d.isdigit() or int(d) in mine:
                    continue
                try:
                    with open(f"/proc/{d}/environ", "rb") as f:
                        if mark in f.read().split(b"\0"):
                            found.append(int(d))
                except OSError:
                    pass
            if not found or time.monotonic() > deadline:
                return found
            time.sleep(0.05)

    @staticmethod
    def _ppid(pid):
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("PPid:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return 0

    @staticmethod
    def _cmdline(pid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                return f.read().replace(b"\0", b" ").decode(errors="replace") or "(a zombie)"
        except OSError:
            return "(exited)"

    def print_logs(self):
        for path in sorted(glob.glob(os.path.join(self.work, "*.log"))):
            with open(path, errors="replace") as f:
                text = f.read()
            print(f"----- {os.path.basename(path)} ({len(text)} bytes)" + ("" if text else ": empty"))
            if text:
                print(text[-20000:], end="" if text.endswith("\n") else "\n")
        sys.stdout.flush()

    # --- skips ---------------------------------------------------------------------------
    def require_tool(self, tool, package):
        if not shutil.which(tool):
            raise unittest.SkipTest(f"{tool} is not installed (package {package})")

    def require_root(self, why):
        if not is_root():
            raise unittest.SkipTest(f"needs root: {why}")

    def require_polkitd(self):
        self.require_root("polkitd runs in a mount namespace with rocmtune's actions bound in")
        if not os.access("/usr/lib/polkit-1/polkitd", os.X_OK):
            raise unittest.SkipTest("polkitd is not installed (package polkitd)")
        self.require_tool("unshare", "util-linux")

    def require_helper_socket(self):
        # The helper serves root and rocmtuned's user only (helper/peer_check.h).
        self.require_root("the helper accepts only root and rocmtune as its peer")
        self.require_tool("systemd-socket-activate", "systemd")

    def require_nobody(self):
        try:
            pwd.getpwnam(NOBODY)
        except KeyError:
            raise unittest.SkipTest("no user 'nobody' to call as an unprivileged user") from None
        self.require_tool("setpriv", "util-linux")

    # --- processes -----------------------------------------------------------------------
    def path(self, *parts):
        return os.path.join(self.work, *parts)

    def spawn(self, name, argv, log=None, env=None, stdout=None):
        """Starts argv in its own process group, its output appended to WORK/LOG (default
        NAME.log); ended by the cleanup."""
        out = stdout or open(self.path(log or f"{name}.log"), "ab")
        try:
            p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                 start_new_session=True, env=env)
        finally:
            if stdout is None:
                out.close()
        self._procs.append((name, p))
        return p

    def run_cmd(self, argv, input=None, timeout=120, env=None):
        """Runs argv to its end: CompletedProcess with text stdout and stderr."""
        return subprocess.run(argv, input=input, capture_output=True, text=True, timeout=timeout,
                              env=env, stdin=None if input is not None else subprocess.DEVNULL)

    def nobody(self, argv):
        """argv as an unprivileged user: 'nobody' when the suite runs as root, else the invoking
        user (who is unprivileged already)."""
        if not is_root():
            return list(argv)
        self.require_nobody()
        return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"] + list(argv)

    @staticmethod
    def as_uid(uid, argv):
        return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"] + list(argv)

    def python(self, code, *args, argv_prefix=(), timeout=120):
        """Runs a Python snippet with /usr/bin/python3 (busclient importable), as argv_prefix."""
        return self.run_cmd(list(argv_prefix) + ["/usr/bin/python3", "-c", code] + list(args), timeout=timeout)

    def wait_until(self, cond, what, timeout=DEADLINE):
        """Polls cond() (running the GLib main loop in between, so signals arrive) until it returns
        something true; fails the test with `what` at the deadline."""
        deadline = time.monotonic() + timeout
        while True:
            self.pump()
            value = cond()
            if value:
                return value
            if time.monotonic() > deadline:
                self.fail(f"waited {timeout} s for {what}")
            time.sleep(0.02)

    @staticmethod
    def pump():
        """Dispatches what arrived on the connections (signals to their receivers)."""
        if GLib is None:
            return
        ctx = GLib.MainContext.default()
        while ctx.pending():
            ctx.iteration(False)

    def wait_exit(self, proc, what, timeout=DEADLINE):
        try:
            return proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.fail(f"waited {timeout} s for {what}")

    def log(self, name):
        try:
            with open(self.path(name), errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    # --- accounts seen by the bus and polkitd only ----------------------------------------
    def require_free_ids(self, ids, no_user=None):
        """Skips unless every id is free as a uid and a gid here (the test's accounts take them),
        and, with no_user, unless this machine has no user of that name (it would shadow the test's)."""
        for i in ids:
            for db, what in ((pwd.getpwuid, "uid"), (grp.getgrgid, "gid")):
                try:
                    db(i)
                    self.skipTest(f"{what} {i} is in use")
                except KeyError:
                    pass
        if no_user:
            try:
                pwd.getpwnam(no_user)
                self.skipTest(f"this machine has a user {no_user}: the test's own would be shadowed")
            except KeyError:
                pass

    def use_test_accounts(self, passwd_lines, group_lines):
        """Files the bus and polkitd (started after this) read as /etc/passwd and /etc/group in
        their own mount namespaces: the machine's accounts plus these lines."""
        self.require_root("test accounts are bound over /etc/passwd in a mount namespace")
        self.passwd, self.group = self.path("passwd"), self.path("group")
        for src, dst, lines in (("/etc/passwd", self.passwd, passwd_lines), ("/etc/group", self.group, group_lines)):
            with open(src) as f:
                text = f.read()
            with open(dst, "w") as f:
                f.write(text + "".join(line + "\n" for line in lines))

    def _with_accounts(self, argv, binds=()):
        binds = list(binds)
        if getattr(self, "passwd", None):
            binds += [(self.passwd, "/etc/passwd"), (self.group, "/etc/group")]
        if not binds:
            return list(argv)
        script = " && ".join(f"mount --bind '{a}' '{b}'" for a, b in binds) + ' && exec "$@"'
        return ["unshare", "-m", "--propagation", "private", "bash", "-c", script, "bash"] + list(argv)

    # --- the bus -------------------------------------------------------------------------
    def start_bus(self, *policy_dirs):
        """A private system bus with rocmtune's policy (and the given policy directories). When
        the suite does not run as root, a policy for the invoking user lets it own the name, as
        rocmtune's file lets root and rocmtune."""
        policy = self.path("policy")
        os.mkdir(policy)
        shutil.copy(os.path.join(self.src, "dbus/org.rocmtune1.conf"), policy)
        if not is_root():
            user = pwd.getpwuid(os.getuid()).pw_name
            with open(os.path.join(policy, "test-user.conf"), "w") as f:
                f.write(f'<busconfig><policy user="{user}"><allow own="{NAME}"/><allow send_destination="{NAME}"/>'
                        f'<allow receive_sender="{NAME}"/></policy></busconfig>\n')
        sock = self.path("bus.sock")
        with open(os.path.join(self.src, "tests/daemon/private-bus.conf.in")) as f:
            conf = f.read()
        extra = "".join(f"<includedir>{d}</includedir>" for d in policy_dirs)
        conf = conf.replace("@SOCKET@", sock).replace("@POLICY_DIR@", policy).replace("<!-- @EXTRA@ -->", extra)
        with open(self.path("bus.conf"), "w") as f:
            f.write(conf)
        self.bus_proc = self.spawn("bus", self._with_accounts(
            ["dbus-daemon", f"--config-file={self.path('bus.conf')}", "--nofork", "--nopidfile"]))
        self.wait_until(lambda: os.path.exists(sock) or self.bus_proc.poll() is not None, "the bus's socket")
        if not os.path.exists(sock):
            self.fail(f"the private bus did not start: {self.log('bus.log')}")
        os.chmod(sock, 0o666)
        self.bus_address = f"unix:path={sock}"
        os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = self.bus_address
        # The socket file exists once dbus-daemon bound it, before it listens (a connection then
        # is refused): ready is when a connection is accepted.
        def accepts():
            try:
                return self.conn is not None
            except dbus.DBusException as e:
                if self.bus_proc.poll() is not None:
                    self.fail(f"the private bus exited: {self.log('bus.log')}")
                if e.get_dbus_name() != "org.freedesktop.DBus.Error.NoServer":
                    raise
                return False
        self.wait_until(accepts, "the private bus to accept a connection")

    def connect(self):
        """A new connection to the private bus (with the GLib main loop, for signals)."""
        if GLib is None:
            conn = dbus.bus.BusConnection(self.bus_address)
        else:
            conn = dbus.bus.BusConnection(self.bus_address, mainloop=dbus.mainloop.glib.DBusGMainLoop())
        self._conns.append(conn)
        return conn

    @property
    def conn(self):
        if not getattr(self, "_conn", None) or self._conn not in self._conns:
            self._conn = self.connect()
        return self._conn

    def manager(self, conn=None, introspect=False):
        """The Manager interface; introspect: dbus-python learns the signatures (an a{sv} then
        takes plain Python values)."""
        c = conn or self.conn
        return dbus.Interface(c.get_object(NAME, PATH, introspect=introspect), IFACE)

    def get_property(self, prop):
        c = self.conn
        return dbus.Interface(c.get_object(NAME, PATH, introspect=False),
                              "org.freedesktop.DBus.Properties").Get(IFACE, prop)

    def has_owner(self, name=NAME):
        return bool(self.conn.name_has_owner(name))

    def wait_name(self, present=True, name=NAME, proc=None, log="daemon.log", timeout=DEADLINE):
        """Waits until `name` has an owner (or none); with proc, fails early if it exited."""
        def ready():
            if self.has_owner(name) == present:
                return True
            if present and proc is not None and proc.poll() is not None:
                self.fail(f"{name}'s owner exited with {proc.returncode}: {self.log(log)}")
            return False
        self.wait_until(ready, f"{name} to be {'owned' if present else 'released'}", timeout=timeout)

    def busctl(self, *args, timeout=120, prefix=()):
        return self.run_cmd(list(prefix) + ["busctl", "--system", "--no-pager"] + list(args), timeout=timeout)

    def call_json(self, method, *args, prefix=()):
        """busctl --json=short call's one returned string (a method's JSON document), as text."""
        r = self.busctl("--json=short", "call", NAME, PATH, IFACE, method, *args, prefix=prefix)
        self.assertEqual(r.returncode, 0, f"{method} failed: {r.stderr}")
        return json.loads(r.stdout)["data"][0] + "\n"  # as rocmtunectl prints it

    def watch_signal(self, member, conn=None, interface=IFACE):
        """The list the signal `member`'s argument tuples are appended to as they arrive (the
        match is in place when this returns)."""
        if GLib is None:
            raise unittest.SkipTest("python3-gi is needed to receive signals (a GLib main loop for dbus-python)")
        got = []
        (conn or self.conn).add_signal_receiver(lambda *a: got.append(a), signal_name=member,
                                                dbus_interface=interface, path=PATH)
        return got

    def assert_keeps_running(self, proc, seconds, what):
        """proc is still running after `seconds` (for what only time can show: an idle timeout
        that must not fire)."""
        try:
            proc.wait(seconds)
            self.fail(f"{what}: it exited with {proc.returncode}")
        except subprocess.TimeoutExpired:
            pass

    # --- polkitd, the helper, rocmtuned --------------------------------------------------
    def start_polkitd(self, rules=None):
        """The real polkitd on the private bus, rocmtune's actions and one rules file bound over
        the compiled-in directories in its own mount namespace."""
        self.require_polkitd()
        actions, rules_d = self.path("pk/actions"), self.path("pk/rules.d")
        os.makedirs(actions)
        os.makedirs(rules_d)
        shutil.copy(os.path.join(self.src, "polkit/org.rocmtune1.policy"), actions)
        if rules:
            shutil.copy(rules, rules_d)
        subprocess.run(["chown", "-R", "polkitd", rules_d], capture_output=True)
        os.chmod(rules_d, 0o700)
        p = self.spawn("polkitd", self._with_accounts(
            ["/usr/lib/polkit-1/polkitd", "--no-debug"],
            [(actions, "/usr/share/polkit-1/actions"), (rules_d, "/etc/polkit-1/rules.d")]))
        # polkitd reads every action and rule file before it takes its name: on a loaded machine
        # (a fresh clone's make check beside other builds) that took over 10 s once.
        self.wait_name(True, "org.freedesktop.PolicyKit1", proc=p, log="polkitd.log", timeout=3 * DEADLINE)

    def _ssa_marks(self):
        marks = ["-E", "ROCMTUNE_TEST_WORK"]
        if os.environ.get("ROCMTUNE_TEST_RUN"):
            marks += ["-E", "ROCMTUNE_TEST_RUN"]
        return marks

    def start_helper(self, root, helper=None, env=(), accounts=False):
        """The helper (default rocmtune-helper) behind WORK/helper.sock as systemd serves
        rocmtune-helper.socket: one helper per connection, stdin/stdout the connection. Each ENV
        (NAME=VALUE) goes to every helper. accounts: in the test accounts' mount namespace."""
        self.require_helper_socket()
        sock = self.path("helper.sock")
        if os.path.lexists(sock):
            os.unlink(sock)
        argv = ["systemd-socket-activate", "-l", sock, "--accept", "--inetd"] + self._ssa_marks()
        for e in env:
            argv += ["-E", e]
        argv += [helper or CONFIG["helper"], "--root", root, "socket"]
        p = self.spawn("helper", self._with_accounts(argv) if accounts else argv)
        self.wait_until(lambda: os.path.exists(sock) or p.poll() is not None, "the helper's socket")
        if not os.path.exists(sock):
            self.fail(f"the helper socket did not appear: {self.log('helper.log')}")
        os.chmod(sock, 0o600)
        self.helper_proc = p
        return p

    def start_account_helper(self, root, gid):
        """The helper for a daemon running as the test account rocmtune: the socket as
        rocmtune-helper.socket makes it, SocketUser=root, SocketGroup=rocmtune, SocketMode=0660."""
        p = self.start_helper(root, accounts=True)
        os.chown(self.path("helper.sock"), 0, gid)
        os.chmod(self.path("helper.sock"), 0o660)
        return p

    def start_daemon(self, root, *extra, prefix=(), helper_socket=True, idle="0", log="daemon.log", wait=True):
        """rocmtuned serving root (writing through WORK/helper.sock); waits for the name."""
        argv = list(prefix) + [CONFIG["rocmtuned"], "--root", root]
        if helper_socket:
            argv += ["--helper-socket", self.path("helper.sock")]
        argv += ["--idle-timeout", idle] + list(extra)
        p = self.spawn("daemon", argv, log=log)
        if wait:
            self.wait_name(True, proc=p, log=log)
        self.daemon_proc = p
        return p

    def stop(self, proc, what="the process"):
        proc.terminate()
        return self.wait_exit(proc, f"{what} to exit after SIGTERM")

    # --- worlds --------------------------------------------------------------------------
    def world(self, name, dest="world"):
        w = self.path(dest)
        subprocess.run(["cp", "-a", os.path.join(self.src, "tests/worlds", name), w], check=True)
        return w

    JOURNAL_REMOTE = "/lib/systemd/systemd-journal-remote"

    def write_world_journal(self, world, machine, name, entries, mode=0o644):
        """WORLD/var/log/journal/MACHINE/NAME as the real systemd-journal-remote writes it from a
        journal export file of ENTRIES (lists of (field, value)). Call require_tool(JOURNAL_REMOTE)."""
        directory = os.path.join(world, "var/log/journal", machine)
        os.makedirs(directory, exist_ok=True)
        export = self.path(name + ".export")
        with open(export, "wb") as f:
            for entry in entries:
                for key, value in entry:
                    f.write(f"{key}={value}\n".encode())
                f.write(b"\n")
        out = os.path.join(directory, name)
        r = subprocess.run([self.JOURNAL_REMOTE, "--split-mode=none", f"--output={out}", export],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, f"systemd-journal-remote: {r.stderr}")
        os.chmod(out, mode)

    @staticmethod
    def world_hash(root):
        """Every file's path and content hash, and every directory and symlink."""
        return subprocess.run(
            "find . \\( -type f -exec sha256sum {} + \\) -o \\( ! -type f -printf '%y %p %l\\n' \\) | sort | sha256sum",
            shell=True, cwd=root, capture_output=True, text=True, check=True).stdout

    @staticmethod
    def _chmod_readable(path):
        subprocess.run(["chmod", "-R", "a+rX", path], check=True)

    def copy_readable(self, src, name):
        """A copy of src in WORK/bin that every user can run or read."""
        d = self.path("bin")
        os.makedirs(d, exist_ok=True)
        dst = os.path.join(d, name)
        shutil.copy(src, dst)
        self._chmod_readable(d)
        return dst
