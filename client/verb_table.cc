// Every verb of rocmtunectl, in the order `--help` lists them.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/error_json.h"
#include "api/status_json.h"
#include "client/verbs.h"
#include "util/json_text.h"

namespace rocmtune::client {
namespace {

constexpr std::string_view kChangeForce =
    "Overwrite rocmtune's files even where someone else edited them (drift); set a parameter that does nothing on "
    "this machine's GPUs and taints the kernel";

constexpr Verb kVerbs[] = {
    {"status", "Show GPUs, system facts and rocmtune's state", "", "", 0, 0, 0, "Print rocmtune.status.v1 JSON", "",
     RunStatus},
    {"doctor", "Check everything that could stop ROCm here; with --log, name a crash's likely cause", "", "", 0, 0, 0,
     "Print rocmtune.doctor.v1 JSON", "", RunDoctor, AddDoctorOptions},
    {"check-compute",
     "Is running a workload on the GPUs here safe from known crashes? Ask before the program starts HIP; exit 0 "
     "safe, 1 not safe or no usable GPU",
     "", "", 0, 0, 0, "Print rocmtune.check_compute.v1 JSON", "", RunCheckCompute, AddCheckComputeOptions},
    {"profiles", "List profiles: origin, whether each fits this machine, and why", "", "", 0, 0, 0,
     "Print rocmtune.profiles.v1 JSON", "", RunProfiles},
    {"show", "Show a profile: its items, their sources, and what each would do here", "profile",
     "PROFILE (see `rocmtunectl profiles`)", 1, 1, kVerbWith, "Print rocmtune.profile.v1 JSON", "", RunShow},
    {"apply", "Apply a profile (replacing the active one): plan, journal, change", "profile",
     "PROFILE (see `rocmtunectl profiles`)", 1, 1, kVerbChanges | kVerbWith, "Print rocmtune.result.v1 JSON",
     "Apply a profile that does not fit this machine, overwrite rocmtune's files someone else edited (drift), and "
     "set parameters that do nothing here and taint the kernel",
     RunApply},
    {"set", "Set knobs: amdgpu.P=V, ttm.P=V, cmdline.O=V, sysfs.T.A=V, env.V=X", "assignments", "KEY=VALUE", 1,
     kManyOperands, kVerbChanges, "Print rocmtune.result.v1 JSON", kChangeForce, RunSet, AddAdminLinesOption},
    {"unset", "Remove rocmtune's setting of knobs (with --admin-lines, comment out the admin's lines too)", "keys",
     "KEY", 1, kManyOperands, kVerbChanges, "Print rocmtune.result.v1 JSON", kChangeForce, RunUnset,
     AddAdminLinesOption},
    {"revert", "Undo a transaction (default: the last one still in effect)", "id",
     "Transaction ID from `history`, or `last`", 0, 1, kVerbChanges, "Print rocmtune.result.v1 JSON", kChangeForce,
     RunRevert},
    {"reset", "Back to stock: remove every setting rocmtune made", "", "", 0, 0, kVerbChanges,
     "Print rocmtune.result.v1 JSON", kChangeForce, RunReset, AddResetOptions},
    {"reapply", "Write back the runtime settings a reboot, GPU reset or resume undid", "card",
     "cardN or PCI address (default: every GPU)", 0, 1, kVerbChanges, "Print rocmtune.result.v1 JSON",
     "No effect: reapply writes only runtime attributes, never a file someone else could have edited", RunReapply},
    {"history", "List rocmtune's transactions", "", "", 0, 0, 0, "Print rocmtune.history.v1 JSON", "", RunHistory},
    {"verify", "Compare what rocmtune configured with what runs; exit 6 on differences", "", "", 0, 0, 0,
     "Print rocmtune.verify.v1 JSON", "", RunVerify},
    {"explain", "What a knob is, its values here, whether it matters on each GPU, and why", "key",
     "KEY (e.g. amdgpu.mtype_local)", 1, 1, 0, "Print rocmtune.explain.v1 JSON", "", RunExplain},
    {"keys", "List every knob key set, unset and explain take", "", "", 0, 0, 0, "Print rocmtune.keys.v1 JSON", "",
     RunKeys},
    {"snapshot", "Write a world (sysfs/KFD/config copy) of this machine to DIR, or to FILE.tar.gz with --output", "dir",
     "Output directory (must not exist or be empty)", 0, 1, 0, "Print rocmtune.snapshot.v1 JSON", "", RunSnapshot,
     AddSnapshotOptions},
};

}  // namespace

std::span<const Verb> Verbs() { return kVerbs; }

void PrintError(std::string_view message) { fmt::print(stderr, "rocmtunectl: {}\n", message); }

int Failed(const Context& ctx, const Error& error, int exit_code) {
  PrintError(error.message);
  if (ctx.json) fmt::print("{}\n", JsonText(api::ErrorJson(error)));
  return exit_code;
}

}  // namespace rocmtune::client
