# Reapply on the bus (`rocmtunectl reapply` as rocmtuned runs it): a runtime attribute rocmtune
# set (power_dpm_force_performance_level=high on an RX 6900 XT) that a GPU reset put back to
# `auto` is written again by root's Reapply, with the result document and TransactionCommitted;
# a second Reapply has nothing to do; nobody is refused by a real polkitd (the set action, the
# card as its detail) with nothing written; a card that is not a card is an InvalidArgument.
import json
import os

from fixture import CONFIG, DaemonTest, dbus

TIMEOUT = 120
WORLD = "rx6900xt"
ATTR = "sys/devices/pci0000:00/0000:0c:00.0/power_dpm_force_performance_level"
KEY = "sysfs.all.power_dpm_force_performance_level"


class ReapplyTest(DaemonTest):
    def setUp(self):
        super().setUp()
        self.require_helper_socket()
        self.start_bus("/usr/share/dbus-1/system.d")
        self.start_polkitd()
        self.w = self.world(WORLD)
        self.start_helper(self.w)
        self.start_daemon(self.w)

    def attr(self):
        with open(os.path.join(self.w, ATTR)) as f:
            return f.read()

    def reapply_as_nobody(self, card):
        return self.busctl("call", "org.rocmtune1", "/org/rocmtune1", "org.rocmtune1.Manager", "Reapply", "s", card,
                           prefix=self.nobody([]))

    def test_reapply_writes_back_what_a_reset_undid(self):
        untouched = self.attr()
        knobs = dbus.Dictionary({KEY: "high"}, signature="ss")
        json.loads(self.manager().Set(knobs, dbus.Dictionary({}, signature="sv"), timeout=120))
        self.assertTrue(self.attr().startswith("high"), self.attr()[:40])
        # A GPU reset: the driver's default is back behind rocmtune's back.
        with open(os.path.join(self.w, ATTR), "w") as f:
            f.write(untouched)
        before = self.world_hash(self.w)
        r = self.reapply_as_nobody("card0")
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("org.rocmtune1.set", r.stderr)
        self.assertEqual(self.world_hash(self.w), before, "a refused Reapply wrote to the world")

        committed = self.watch_signal("TransactionCommitted")
        done = json.loads(self.manager().Reapply("", timeout=120))
        self.assertTrue(done["changed"], done)
        self.assertIn("sys/class/drm/card0/device/power_dpm_force_performance_level",
                      [c["path"] for c in done["changes"]])
        self.assertTrue(self.attr().startswith("high"), self.attr()[:40])
        self.wait_until(lambda: committed, "TransactionCommitted after Reapply")
        again = json.loads(self.manager().Reapply("card0", timeout=120))
        self.assertFalse(again["changed"], again)
        # rocmtunectl reapply (no --root) asks rocmtuned too: after another reset, nobody's is
        # refused by polkit (nothing written), root's writes the world's value back (run here
        # instead, it would have looked at this machine's own /sys).
        with open(os.path.join(self.w, ATTR), "w") as f:
            f.write(untouched)
        before = self.world_hash(self.w)
        r = self.run_cmd(self.nobody([CONFIG["rocmtunectl"], "--no-ask-password", "reapply"]))
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        self.assertIn("org.rocmtune1.set", r.stdout + r.stderr)
        self.assertEqual(self.world_hash(self.w), before, "a refused rocmtunectl reapply wrote to the world")
        r = self.run_cmd([CONFIG["rocmtunectl"], "--json", "reapply", "card0"])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertTrue(json.loads(r.stdout)["changed"], r.stdout)
        self.assertTrue(self.attr().startswith("high"), self.attr()[:40])

    def test_a_card_that_is_not_a_card_is_refused(self):
        for card in ("-f", "../card0", "card0\n", "card0 x", "c" * 65):
            try:
                self.manager().Reapply(card, timeout=60)
                self.fail(f"Reapply({card!r}) succeeded")
            except dbus.DBusException as e:
                self.assertEqual(e.get_dbus_name(), "org.rocmtune1.Error.InvalidArgument",
                                 f"{card!r}: {e.get_dbus_message()[:300]}")
