# Shared by the daemon tests' Python parts (imported with sys.path set to this directory): the
# Manager proxy and a call that returns what came back instead of raising.
import dbus

EMPTY_OPTIONS = dbus.Dictionary({}, signature="sv")
NOT_AUTHORIZED = {"org.freedesktop.DBus.Error.AccessDenied",
                  "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired"}


def manager(bus=None):
    bus = bus or dbus.SystemBus()
    return dbus.Interface(bus.get_object("org.rocmtune1", "/org/rocmtune1", introspect=False),
                          "org.rocmtune1.Manager")


def properties(bus=None):
    bus = bus or dbus.SystemBus()
    return dbus.Interface(bus.get_object("org.rocmtune1", "/org/rocmtune1", introspect=False),
                          "org.freedesktop.DBus.Properties")


def outcome(fn):
    """("", value) when the call returned, (error name, message) when it failed."""
    try:
        return "", fn()
    except dbus.DBusException as e:
        return e.get_dbus_name() or "?", e.get_dbus_message() or ""


def options(**kw):
    """An a{sv} of the given options (dbus-python cannot guess 'v' without introspection)."""
    return dbus.Dictionary(kw, signature="sv")
