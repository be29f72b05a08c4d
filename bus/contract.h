// The bus contract rocmtuned serves and rocmtunectl asks, declared once for both
// (dbus/org.rocmtune1.Manager.xml is its interface, polkit/org.rocmtune1.policy its actions):
// the names, the error names, the polkit action ids and one table of errors that the daemon
// reads from a failure to a name and the client from a name to an exit code, an error code and
// a hint. After systemd's bus-common-errors.c: one map both ends use.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "api/change.h"
#include "plan/exit_codes.h"
#include "util/result.h"

namespace rocmtune::bus {

inline constexpr const char* kBusName = "org.rocmtune1";
inline constexpr const char* kObjectPath = "/org/rocmtune1";
inline constexpr const char* kInterface = "org.rocmtune1.Manager";

// rocmtune's own errors (the interface XML lists them) and the bus's that mean something here.
inline constexpr std::string_view kErrorPrefix = "org.rocmtune1.Error.";
inline constexpr const char* kErrorInvalidArgument = "org.rocmtune1.Error.InvalidArgument";
inline constexpr const char* kErrorNotFound = "org.rocmtune1.Error.NotFound";
inline constexpr const char* kErrorNotSupported = "org.rocmtune1.Error.NotSupported";
inline constexpr const char* kErrorRefused = "org.rocmtune1.Error.Refused";
inline constexpr const char* kErrorDrift = "org.rocmtune1.Error.Drift";
inline constexpr const char* kErrorBusy = "org.rocmtune1.Error.Busy";
inline constexpr const char* kErrorFailed = "org.rocmtune1.Error.Failed";
inline constexpr const char* kErrorAccessDenied = "org.freedesktop.DBus.Error.AccessDenied";
inline constexpr const char* kErrorInteractiveRequired = "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired";
inline constexpr const char* kErrorInvalidArgs = "org.freedesktop.DBus.Error.InvalidArgs";
inline constexpr const char* kErrorUnknownMethod = "org.freedesktop.DBus.Error.UnknownMethod";
inline constexpr const char* kErrorServiceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown";
inline constexpr const char* kErrorNameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner";
inline constexpr const char* kErrorTimeout = "org.freedesktop.DBus.Error.Timeout";
inline constexpr const char* kErrorNoReply = "org.freedesktop.DBus.Error.NoReply";
// The bus refused to queue a message for the daemon (its incoming queue is full): never delivered.
inline constexpr const char* kErrorLimitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded";

// The polkit actions (polkit/org.rocmtune1.policy; a test compares the two).
inline constexpr const char* kActionApply = "org.rocmtune1.apply";
inline constexpr const char* kActionSet = "org.rocmtune1.set";
inline constexpr const char* kActionRevert = "org.rocmtune1.revert";
inline constexpr const char* kActionForce = "org.rocmtune1.force";
// Commenting out an admin's lines in files rocmtune does not own (/etc/environment, profile.d,
// modprobe.d): as strict as force, so no key- or profile-scoped rule grants it by accident.
inline constexpr const char* kActionAdminLines = "org.rocmtune1.admin-lines";
// A trial boot: a one-shot boot entry and the boot loader's next-boot switch.
inline constexpr const char* kActionTrial = "org.rocmtune1.trial";
inline constexpr std::array<const char*, 6> kActions = {kActionApply, kActionSet,        kActionRevert,
                                                        kActionForce, kActionAdminLines, kActionTrial};

// rocmtunectl's exit codes, the helper's too: declared in plan/exit_codes.h, the lowest layer
// the helper shares with the front ends (the helper may not link this library).
using plan::kExitDrift;
using plan::kExitFailed;
using plan::kExitNotAuthorized;
using plan::kExitOk;
using plan::kExitRefused;
using plan::kExitUsage;
using plan::kExitVerifyDiffers;

// Other services' bus names rocmtuned and the probes call (each service's own documentation).
struct PeerService {
  const char* name;
  const char* path;
  const char* interface;
};
inline constexpr PeerService kBusDaemon = {"org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus"};
inline constexpr const char* kPropertiesInterface = "org.freedesktop.DBus.Properties";
inline constexpr const char* kPeerInterface = "org.freedesktop.DBus.Peer";
// polkit's authority (polkit(8), org.freedesktop.PolicyKit1.Authority).
inline constexpr PeerService kPolkitAuthority = {"org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority",
                                                 "org.freedesktop.PolicyKit1.Authority"};
// power-profiles-daemon, the new name first: 0.20 on owns both, and only its interface has
// Version and ActionsInfo.
inline constexpr std::array<PeerService, 2> kPowerProfilesServices = {{
    {"org.freedesktop.UPower.PowerProfiles", "/org/freedesktop/UPower/PowerProfiles",
     "org.freedesktop.UPower.PowerProfiles"},
    {"net.hadess.PowerProfiles", "/net/hadess/PowerProfiles", "net.hadess.PowerProfiles"},
}};

// One error of the contract. The daemon sends `name` for a failure with `code` when
// `names_code`, and for a change that ended with `status`; the client reads `name` back as
// `code`, `exit_code` and `hint` (empty: the message itself says what to do).
struct ErrorEntry {
  std::string_view name;
  ErrorCode code;
  bool names_code;
  std::optional<api::ChangeStatus> status;
  int exit_code;
  std::string_view hint;
};

// The table, in the order the daemon looks a code up (the first entry naming it wins).
const std::array<ErrorEntry, 11>& Errors();

// The entry of `name`; nullptr for a name the contract does not know.
const ErrorEntry* FindError(std::string_view name);

// The daemon's direction: the name for a failure with `code` (org.rocmtune1.Error.Failed for
// anything the table does not name) and for a change's status ("" for kOk).
std::string_view ErrorName(ErrorCode code);
std::string_view ErrorName(api::ChangeStatus status);

// The client's direction: what a reply's error name means to rocmtunectl.
ErrorCode CodeFor(std::string_view name);
int ExitFor(std::string_view name);
std::string_view HintFor(std::string_view name);

}  // namespace rocmtune::bus
