// The reads a user's `rocmtunectl` asks rocmtuned because the journal is not readable by
// every user: Doctor(log), ListProfiles(), ShowProfile(name). No
// authorization, like Describe; each answers the document the CLI prints with --json.
#pragma once

#include <systemd/sd-bus.h>

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "daemon/manager.h"

namespace rocmtune::daemon {

// rocmtune.doctor.v1 of the served root; `log` "" for none. InvalidArgument for a log larger
// than 16 MiB or not UTF-8 text (api/log_input.h). The checks of who may open /dev/kfd are
// about the process that runs them, here user rocmtune: they are replaced by the info finding
// kAccessNotChecked, and `rocmtunectl doctor` adds its own caller's.
int DoctorMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret);
// rocmtune.profiles.v1, with the active profile.
int ListProfilesMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret);
// rocmtune.profile.v1 of one profile; NotFound for a profile that does not exist.
int ShowProfileMethod(sd_bus_message* call, Manager& self, sd_bus_error* ret);

// A read method's reply: one string, the document.
int ReplyText(sd_bus_message* call, const std::string& text);
// The same for a document: JsonText's text, which is valid UTF-8 without NUL (invalid bytes are
// U+FFFD, NUL is \u0000), is written into the message's own space, so sd-bus neither scans nor
// copies it again (81 KB on a 64-partition MI300X: BENCHMARKS.md, "Over the bus").
int ReplyJson(sd_bus_message* call, const nlohmann::ordered_json& doc);

inline constexpr const char* kAccessNotChecked = "access.not-checked";

}  // namespace rocmtune::daemon
