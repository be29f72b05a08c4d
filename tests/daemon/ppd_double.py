#!/usr/bin/python3
# A test double of power-profiles-daemon >= 0.30 on the system bus (the real one in Debian 12 is
# 0.12, without Version, ActionsInfo or SetActionEnabled): org.freedesktop.UPower.PowerProfiles
# at /org/freedesktop/UPower/PowerProfiles with the properties rocmtune reads (Version, Actions,
# ActionsInfo, Profiles with their Driver, ActiveProfile) and SetActionEnabled(s, b), the API of
# power-profiles-daemon 0.30's src/power-profiles-daemon.xml as LACT calls it
# (lact-daemon/src/system/power_profiles_daemon.rs). Each SetActionEnabled call is appended to
# --calls as "NAME ENABLED" lines, so a test sees what rocmtune asked.
#
# ppd_double.py --version 0.30 --actions amdgpu_dpm,trickle_charge --disabled '' --driver amd_pstate
#               [--calls FILE] [--block-action=ACTION ...]
# The defaults come from the environment too (PPD_DOUBLE_VERSION, PPD_DOUBLE_CALLS), so a systemd
# unit can start it as power-profiles-daemon with the real one's arguments only (the VM scenario
# service-ppd). Before 0.30 (a --version below it) there is no ActionsInfo and no
# SetActionEnabled; --block-action leaves an action out, as the real daemon does.
import argparse
import os

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

IFACE = "org.freedesktop.UPower.PowerProfiles"
PATH = "/org/freedesktop/UPower/PowerProfiles"
PROPS = "org.freedesktop.DBus.Properties"


class PowerProfiles(dbus.service.Object):
    def __init__(self, bus, args):
        super().__init__(bus, PATH)
        self.args = args
        self.enabled = {a: a not in args.disabled.split(",") for a in args.actions.split(",")
                        if a and a not in args.block_action}
        major, minor = (int(x) for x in args.version.split(".")[:2]) if args.version else (0, 0)
        self.has_set_action = (major, minor) >= (0, 30)

    def props(self):
        info = dbus.Array([dbus.Dictionary({"Name": dbus.String(a), "Description": dbus.String(a),
                                            "Profiles": dbus.Array(["power-saver", "balanced", "performance"],
                                                                   signature="s"),
                                            "Enabled": dbus.Boolean(e)}, signature="sv")
                           for a, e in self.enabled.items()], signature="a{sv}")
        profiles = dbus.Array([dbus.Dictionary({"Profile": dbus.String(p), "CpuDriver": dbus.String(self.args.driver),
                                                "Driver": dbus.String(self.args.driver)}, signature="sv")
                               for p in ("power-saver", "balanced", "performance")], signature="a{sv}")
        out = {"ActiveProfile": dbus.String(self.args.profile), "Profiles": profiles,
               "Actions": dbus.Array(list(self.enabled), signature="s"),
               "PerformanceDegraded": dbus.String(""), "ActiveProfileHolds": dbus.Array([], signature="a{sv}")}
        if self.args.version:
            out["Version"] = dbus.String(self.args.version)
        if self.has_set_action:
            out["ActionsInfo"] = info
        return out

    @dbus.service.method(PROPS, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        if interface != IFACE:
            raise dbus.exceptions.DBusException(f"no interface {interface}",
                                                name="org.freedesktop.DBus.Error.UnknownInterface")
        return self.props()

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return self.GetAll(interface)[name]

    @dbus.service.method(IFACE, in_signature="sb", out_signature="")
    def SetActionEnabled(self, action, enabled):
        if not self.has_set_action:
            raise dbus.exceptions.DBusException("no such method before 0.30",
                                                name="org.freedesktop.DBus.Error.UnknownMethod")
        if action not in self.enabled:
            raise dbus.exceptions.DBusException(f"no action {action}", name="org.freedesktop.DBus.Error.InvalidArgs")
        self.enabled[str(action)] = bool(enabled)
        if self.args.calls:
            with open(self.args.calls, "a") as f:
                f.write(f"{action} {'true' if enabled else 'false'}\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--version", default=os.environ.get("PPD_DOUBLE_VERSION", "0.30"))
    p.add_argument("--actions", default="amdgpu_dpm,amdgpu_panel_power,trickle_charge")
    p.add_argument("--disabled", default="")
    p.add_argument("--driver", default="amd_pstate")
    p.add_argument("--profile", default="balanced")
    p.add_argument("--calls", default=os.environ.get("PPD_DOUBLE_CALLS", ""))
    p.add_argument("--block-action", action="append", default=[])
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args()
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    obj = PowerProfiles(bus, args)
    name = dbus.service.BusName(IFACE, bus)  # noqa: F841 (held while the loop runs)
    GLib.MainLoop().run()
    del obj, name


if __name__ == "__main__":
    main()
