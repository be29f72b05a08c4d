# rocmtuned keeps the fleet export current (rocmtunectl(1), EXPORT) when /etc/rocmtune/export.toml
# exists: at its start, after each committed transaction, through the helper's socket (`publish`,
# the helper's own content rules) — never without the file, and a refused publish is logged, the
# daemon keeps serving.
import json
import os
import time

from fixture import DaemonTest, dbus

PROFILE = "rdna2-consumer-compat"
CONFIG_TOML = '[prometheus]\nenabled = true\ndirectory = "/textfile"\n'


class ExportTest(DaemonTest):
    def setUp(self):
        super().setUp()
        self.require_helper_socket()
        self.start_bus("/usr/share/dbus-1/system.d")
        self.w = self.world("rx6600")
        os.makedirs(os.path.join(self.w, "textfile"))
        self.prom = os.path.join(self.w, "textfile/rocmtune.prom")

    def configure(self, text=CONFIG_TOML):
        os.makedirs(os.path.join(self.w, "etc/rocmtune"), exist_ok=True)
        with open(os.path.join(self.w, "etc/rocmtune/export.toml"), "w") as f:
            f.write(text)

    def start(self):
        self.start_helper(self.w)
        return self.start_daemon(self.w)

    def lines(self):
        try:
            with open(self.prom) as f:
                return f.read().splitlines()
        except FileNotFoundError:
            return []

    def test_published_at_start_and_after_a_transaction(self):
        self.configure()
        self.start()
        self.wait_until(lambda: 'rocmtune_profile_info{profile=""} 1' in self.lines(),
                        "the export rocmtuned writes at its start")
        got = json.loads(self.manager().Apply(PROFILE, dbus.Dictionary({}, signature="sv"), timeout=120))
        self.assertTrue(got["transaction"], got)
        self.wait_until(lambda: f'rocmtune_profile_info{{profile="{PROFILE}"}} 1' in self.lines(),
                        "the export after the transaction names the applied profile")
        self.assertIn("rocmtune_transactions{state=\"committed\"} 1", self.lines())

    def test_nothing_without_the_config(self):
        self.start()
        self.manager().Describe(timeout=60)
        time.sleep(1)
        self.assertFalse(os.path.exists(self.prom), "rocmtuned published without /etc/rocmtune/export.toml")
        self.assertEqual(os.listdir(os.path.join(self.w, "textfile")), [])

    def test_a_bad_config_is_logged_and_the_daemon_serves(self):
        self.configure('[prometheus]\nenabled = true\ndirectory = "textfile"\n')
        self.start()
        self.wait_until(lambda: "the fleet export (rocmtuned started)" in self.log("daemon.log"),
                        "the refused export in rocmtuned's log")
        self.assertIn("directory must be an absolute path", self.log("daemon.log"))
        self.assertTrue(json.loads(self.manager().Describe(timeout=60))["gpus"], "Describe after the bad config")
        self.assertFalse(os.path.exists(self.prom))
