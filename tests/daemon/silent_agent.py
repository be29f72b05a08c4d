# A polkit authentication agent that never answers: registered
# for one process (a unix-process subject, as `pkttyagent --process` does), it records each
# BeginAuthentication (action, message, details) and CancelAuthentication as a JSON line in LOG
# and holds every request open. usage: silent_agent.py PID LOG
import json
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

AGENT = "org.freedesktop.PolicyKit1.AuthenticationAgent"
PATH = "/org/rocmtune/test/SilentAgent"
pid, log_path = int(sys.argv[1]), sys.argv[2]
held = []  # the pending replies: never sent


def log(**event):
    with open(log_path, "a") as f:
        f.write(json.dumps(event) + "\n")


class Agent(dbus.service.Object):
    @dbus.service.method(AGENT, in_signature="sssa{ss}sa(sa{sv})", out_signature="",
                         async_callbacks=("ok", "err"))
    def BeginAuthentication(self, action_id, message, icon, details, cookie, identities, ok, err):
        held.append((ok, err))
        log(event="begin", action=str(action_id), message=str(message),
            details={str(k): str(v) for k, v in details.items()})

    @dbus.service.method(AGENT, in_signature="s", out_signature="")
    def CancelAuthentication(self, cookie):
        log(event="cancel")


dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus()
Agent(bus, PATH)
with open(f"/proc/{pid}/stat") as f:
    start_time = int(f.read().rsplit(")", 1)[1].split()[19])  # field 22: starttime
authority = dbus.Interface(bus.get_object("org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority"),
                           "org.freedesktop.PolicyKit1.Authority")
subject = ("unix-process", {"pid": dbus.UInt32(pid), "start-time": dbus.UInt64(start_time)})
authority.RegisterAuthenticationAgent(subject, "C", PATH)
log(event="registered")
GLib.MainLoop().run()
