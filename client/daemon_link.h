// rocmtunectl's way to rocmtuned (org.rocmtune1 on the system bus). Verbs ask the daemon by
// default, as systemctl asks systemd; `--root DIR` (a world, an image, or `--root /` in a boot
// unit) and a system without the daemon use the core in this process instead.
#pragma once

#include <systemd/sd-bus.h>

#include <functional>
#include <optional>
#include <string>

#include "client/context.h"

namespace rocmtune::client {

// A reply from the daemon: the method's string (a JSON document), or a D-Bus error.
struct BusReply {
  std::string text;        // the reply's string, or the error's message
  std::string error_name;  // empty on success
  bool ok() const { return error_name.empty(); }
};

using Append = std::function<int(sd_bus_message*)>;

struct CallOptions {
  bool change = false;       // a change may run an initramfs regeneration: a long timeout
  bool interactive = false;  // polkit may ask for a password (not with --no-ask-password)
  // A --check: it writes nothing, so root may plan it through the local helper when rocmtuned,
  // which answered the Ping, does not answer the call itself in time (a queue a flood refills).
  bool check = false;
};

// Asks rocmtuned: METHOD on /org/rocmtune1, `append` adding the arguments. nullopt when the
// daemon path does not apply and the verb runs locally: --root was given, no system bus is
// reachable (an admin's DBUS_SYSTEM_BUS_ADDRESS is honoured, as by busctl), or org.rocmtune1 is
// neither running nor activatable. One round trip: the call itself tells whether it is there.
std::optional<BusReply> AskDaemon(const Context& ctx, const char* method, const Append& append = {},
                                  CallOptions options = {});

// A D-Bus error as the CLI's exit code (client/exit_codes.h) and a one-line hint saying what to do.
int ExitForBusError(const std::string& error_name);
std::string HintForBusError(const std::string& error_name);

// A daemon error that is not a result document: the message on stderr with its hint and, under
// --json, an rocmtune.error.v1 document on stdout. Returns the exit code.
int BusFailed(const Context& ctx, const BusReply& reply);

}  // namespace rocmtune::client
