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
    {.name = "status",
     .help = "Show GPUs, system facts and rocmtune's state",
     .json_help = "Print rocmtune.status.v1 JSON",
     .run = RunStatus},
    {.name = "doctor",
     .help = "Check everything that could stop ROCm here; with --log, name a crash's likely cause",
     .json_help = "Print rocmtune.doctor.v1 JSON",
     .run = RunDoctor,
     .add_options = AddDoctorOptions},
    {.name = "faults",
     .help = "List the GPU faults the system's log recorded: process, user, GPU and likely cause",
     .json_help = "Print rocmtune.faults.v1 JSON",
     .run = RunFaults,
     .add_options = AddFaultsOptions},
    {.name = "check-compute",
     .help = "Is running a workload on the GPUs here safe from known crashes? Ask before the program starts HIP; "
             "exit 0 safe, 1 not safe or no usable GPU",
     .json_help = "Print rocmtune.check_compute.v1 JSON",
     .run = RunCheckCompute,
     .add_options = AddCheckComputeOptions},
    {.name = "profiles",
     .help = "List profiles: origin, whether each fits this machine, and why",
     .json_help = "Print rocmtune.profiles.v1 JSON",
     .run = RunProfiles},
    {.name = "show",
     .help = "Show a profile: its items, their sources, and what each would do here",
     .operand_name = "profile",
     .operand_help = "PROFILE (see `rocmtunectl profiles`)",
     .min_operands = 1,
     .max_operands = 1,
     .flags = kVerbWith,
     .json_help = "Print rocmtune.profile.v1 JSON",
     .run = RunShow},
    {.name = "apply",
     .help = "Apply a profile (replacing the active one): plan, journal, change",
     .operand_name = "profile",
     .operand_help = "PROFILE (see `rocmtunectl profiles`)",
     .min_operands = 1,
     .max_operands = 1,
     .flags = kVerbChanges | kVerbWith,
     .json_help = "Print rocmtune.result.v1 JSON",
     .force_help = "Apply a profile that does not fit this machine, overwrite rocmtune's files someone else edited "
                   "(drift), and set parameters that do nothing here and taint the kernel",
     .run = RunApply,
     .add_options = AddTrialOption},
    {.name = "set",
     .help = "Set knobs: amdgpu.P=V, ttm.P=V, cmdline.O=V, sysfs.T.A=V, env.V=X",
     .operand_name = "assignments",
     .operand_help = "KEY=VALUE",
     .min_operands = 1,
     .max_operands = kManyOperands,
     .flags = kVerbChanges,
     .json_help = "Print rocmtune.result.v1 JSON",
     .force_help = kChangeForce,
     .run = RunSet,
     .add_options = AddSetUnsetOptions},
    {.name = "unset",
     .help = "Remove rocmtune's setting of knobs (with --admin-lines, comment out the admin's lines too)",
     .operand_name = "keys",
     .operand_help = "KEY",
     .min_operands = 1,
     .max_operands = kManyOperands,
     .flags = kVerbChanges,
     .json_help = "Print rocmtune.result.v1 JSON",
     .force_help = kChangeForce,
     .run = RunUnset,
     .add_options = AddSetUnsetOptions},
    {.name = "revert",
     .help = "Undo a transaction (default: the last one still in effect)",
     .operand_name = "id",
     .operand_help = "Transaction ID from `history`, or `last`",
     .min_operands = 0,
     .max_operands = 1,
     .flags = kVerbChanges,
     .json_help = "Print rocmtune.result.v1 JSON",
     .force_help = kChangeForce,
     .run = RunRevert},
    {.name = "reset",
     .help = "Back to stock: remove every setting rocmtune made",
     .flags = kVerbChanges,
     .json_help = "Print rocmtune.result.v1 JSON",
     .force_help = kChangeForce,
     .run = RunReset,
     .add_options = AddResetOptions},
    {.name = "reapply",
     .help = "Write back the runtime settings a reboot, GPU reset or resume undid",
     .operand_name = "card",
     .operand_help = "cardN or PCI address (default: every GPU)",
     .min_operands = 0,
     .max_operands = 1,
     .flags = kVerbChanges,
     .json_help = "Print rocmtune.result.v1 JSON",
     .force_help = "No effect: reapply writes only runtime attributes, never a file someone else could have edited",
     .run = RunReapply},
    {.name = "trial",
     .help = "Show the trial boot a --trial change prepared, or cancel it; check, commit and recover (with --boot) "
             "are run by the boot units",
     .operand_name = "action",
     .operand_help = "show (default), cancel; check, commit, recover with --boot",
     .min_operands = 0,
     .max_operands = 1,
     .json_help = "Print rocmtune.trial.v1 JSON (show), rocmtune.result.v1 JSON (the others)",
     .run = RunTrial,
     .add_options = AddTrialVerbOptions},
    {.name = "history",
     .help = "List rocmtune's transactions",
     .json_help = "Print rocmtune.history.v1 JSON",
     .run = RunHistory},
    {.name = "verify",
     .help = "Compare what rocmtune configured with what runs; exit 6 on differences",
     .json_help = "Print rocmtune.verify.v1 JSON",
     .run = RunVerify},
    {.name = "export",
     .help = "The verdict and rocmtune's state for fleet engines: Prometheus (node_exporter), NFD labels or JSON",
     .json_help = "Print rocmtune.export.v1 JSON (as --format json)",
     .run = RunExport,
     .add_options = AddExportOptions},
    {.name = "explain",
     .help = "What a knob is, its values here, whether it matters on each GPU, and why",
     .operand_name = "key",
     .operand_help = "KEY (e.g. amdgpu.mtype_local)",
     .min_operands = 1,
     .max_operands = 1,
     .json_help = "Print rocmtune.explain.v1 JSON",
     .run = RunExplain},
    {.name = "keys",
     .help = "List every knob key set, unset and explain take",
     .json_help = "Print rocmtune.keys.v1 JSON",
     .run = RunKeys},
    {.name = "snapshot",
     .help = "Write a world (sysfs/KFD/config copy) of this machine to DIR, or to FILE.tar.gz with --output",
     .operand_name = "dir",
     .operand_help = "Output directory (must not exist or be empty)",
     .min_operands = 0,
     .max_operands = 1,
     .json_help = "Print rocmtune.snapshot.v1 JSON",
     .run = RunSnapshot,
     .add_options = AddSnapshotOptions},
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
