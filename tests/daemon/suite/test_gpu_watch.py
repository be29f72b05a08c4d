# rocmtuned keeps its detection and refreshes it from udev's monitor on the drm subsystem (real
# libudev, real netlink): in its own network namespace, a datagram as systemd-udevd sends one
# (tests/daemon/send_uevent.py) stands in for a GPU going away and coming back.
#   - a change to the world without an event is not seen (the inventory is kept, no polling);
#   - a drm "remove" event: GpusChanged carries the GPUs now, Describe shows them;
#   - an event of another subsystem changes nothing; a drm "add" brings the GPU back;
#   - a drm "change" for the same GPUs (a reset): no signal.
# No wait is a fixed time: after an event is sent, the test waits until the daemon's uevent socket
# holds nothing (/proc/PID/net/netlink, Rmem: it read the datagram, or the socket filter dropped
# it), then calls Describe: a signal the event caused was sent before that reply, and the bus
# keeps one sender's messages in order, so it has arrived when the reply has.
import json
import os
import shutil

from fixture import DaemonTest

TIMEOUT = 120
NETLINK_KOBJECT_UEVENT = 15


class GpuWatchTest(DaemonTest):
    def setUp(self):
        super().setUp()
        self.require_root("udev's monitor takes events from uid 0 only; the daemon runs in a network namespace")
        self.require_tool("nsenter", "util-linux")
        if self.run_cmd(["unshare", "-n", "true"]).returncode != 0:
            self.skipTest("cannot create a network namespace here")
        self.start_bus()
        self.w = self.world("rx6600")
        card = os.readlink(os.path.join(self.w, "sys/class/drm/card1"))
        self.devpath = "/" + card.removeprefix("../../")
        self.daemon = self.start_daemon(self.w, helper_socket=False, prefix=["unshare", "-n", "--"])
        self.assertNotIn("detecting on every request", self.log("daemon.log"), "the daemon did not open udev's monitor")
        self.signals = self.watch_signal("GpusChanged")
        self.before = self.gpus()
        self.assertTrue(self.before, "no GPU in the world to start with")

    def gpus(self):
        got = [g["id"] for g in json.loads(str(self.manager().Describe()))["gpus"]]
        self.pump()  # the signals that came before the reply
        return got

    def uevents_queued(self):
        with open(f"/proc/{self.daemon.pid}/net/netlink") as f:
            rows = [line.split() for line in f.readlines()[1:]]
        return sum(int(r[4]) for r in rows if int(r[1]) == NETLINK_KOBJECT_UEVENT)

    def send(self, *event):
        r = self.run_cmd(["nsenter", "-n", "-t", str(self.daemon.pid), "/usr/bin/python3",
                          os.path.join(self.pydir, "send_uevent.py")] + list(event))
        self.assertEqual(r.returncode, 0, f"could not send the event: {r.stderr}")
        self.wait_until(lambda: self.uevents_queued() == 0, "the daemon to read the event")

    def card_goes(self):
        shutil.move(os.path.join(self.w, "sys/class/drm"), self.path("drm.saved"))
        os.mkdir(os.path.join(self.w, "sys/class/drm"))

    def card_comes_back(self):
        shutil.rmtree(os.path.join(self.w, "sys/class/drm"))
        shutil.move(self.path("drm.saved"), os.path.join(self.w, "sys/class/drm"))

    def test_no_event_no_detection(self):
        # The GPU goes: its card disappears from the world. Without an event the daemon does not look.
        self.card_goes()
        self.assertEqual(self.gpus(), self.before, "the daemon detected again without an event (it polls)")

    def test_event_of_another_subsystem_changes_nothing(self):
        self.card_goes()
        self.send("change", "/devices/virtual/net/lo", "net")
        self.assertEqual(self.gpus(), self.before, "a net event refreshed the GPUs")
        self.assertEqual(self.signals, [], "GpusChanged for a net event")

    def test_drm_remove_and_add(self):
        # udev says the card went away.
        self.card_goes()
        self.send("remove", self.devpath, "drm", "DEVTYPE=drm_minor", "DEVNAME=dri/card1")
        self.wait_until(lambda: self.signals, "GpusChanged after a drm remove event")
        self.assertEqual(self.gpus(), [], "Describe still shows the GPU after the card went")
        self.assertEqual([list(a[0]) for a in self.signals], [[]], "GpusChanged after the remove")
        # And comes back.
        self.card_comes_back()
        self.send("add", self.devpath, "drm", "DEVTYPE=drm_minor", "DEVNAME=dri/card1")
        self.wait_until(lambda: len(self.signals) >= 2, "GpusChanged after the card came back")
        self.assertIn(self.before[0], [str(g) for g in self.signals[1][0]], "GpusChanged does not list the GPU")
        self.assertEqual(self.gpus(), self.before, "Describe after the card came back")

    def test_change_event_for_the_same_gpus_sends_no_signal(self):
        # A change event for the same GPUs (a reset): no signal, the inventory is as before.
        self.send("change", self.devpath, "drm", "DEVTYPE=drm_minor", "WEDGED=vendor-specific")
        self.assertEqual(self.gpus(), self.before)
        self.assertEqual(self.signals, [], "GpusChanged although the GPUs are the same")
        self.assertIsNone(self.daemon.poll(), "rocmtuned died")
