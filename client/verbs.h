// The verb table (as systemctl's and hostnamectl's): each verb's name, operands, options and
// the function that runs it. Verbs parse nothing themselves and build no JSON: they call the
// core (core/api) and render its report as a table or print its document.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "client/context.h"
#include "client/daemon_link.h"

namespace CLI {  // NOLINT(readability-identifier-naming): CLI11's namespace, declared here
class App;
}  // namespace CLI

namespace rocmtune::client {

struct Args {
  std::vector<std::string> operands;
  std::vector<std::string> with;  // apply/show --with
  bool check = false;             // plan only
  bool diff = false;              // print unified diffs
  bool force = false;
  bool admin_lines = false;     // set/unset --admin-lines
  std::string output;           // snapshot --output FILE
  std::string log;              // doctor --log FILE ("-": stdin)
  std::string purge_plan;       // reset --purge-plan DIR
  std::string workload;         // check-compute --workload W ("": any)
  std::string device;           // check-compute --device ID ("": every GPU)
  std::string unit;             // check-compute --unit NAME: a systemd unit's environment
  bool user_unit = false;       // check-compute --user: NAME is the caller's user unit
  std::string conda;            // check-compute --conda ENV
  std::string env_file;         // check-compute --env-file FILE
  bool trial = false;           // apply/set/unset --trial
  bool reboot = false;          // apply/set/unset --trial --reboot
  bool boot = false;            // trial check|commit|recover --boot
  std::string kernel_log;       // trial check --kernel-log FILE
  std::string format;           // export --format F ("": prometheus, json under --json)
  bool no_live = false;         // export --no-live
  bool write = false;           // export --write
  std::optional<int> log_boot;  // faults --boot N
  std::string since;            // faults --since TIME
};

enum VerbFlags : unsigned {
  kVerbChanges = 1u << 0,  // --check, --diff, --force; prints rocmtune.result.v1
  kVerbWith = 1u << 1,     // --with ID (repeatable)
};

inline constexpr int kManyOperands = -1;

// Written with designated initializers (client/verb_table.cc): every member has a default, so a
// row names only what it sets and a new member cannot shift the values of the others.
struct Verb {
  std::string_view name = {};
  std::string_view help = {};
  std::string_view operand_name = {};  // "" when the verb takes none
  std::string_view operand_help = {};
  int min_operands = 0;
  int max_operands = 0;  // kManyOperands: no limit
  unsigned flags = 0;
  std::string_view json_help = {};
  std::string_view force_help = {};  // kVerbChanges: what --force means for this verb
  int (*run)(const Context& ctx, const Args& args) = nullptr;
  // A verb's own options and checks beyond the table's (snapshot's --output); called after the
  // operands and the options the flags give are declared.
  void (*add_options)(CLI::App& sub, Args& args) = nullptr;
};

std::span<const Verb> Verbs();

int RunStatus(const Context& ctx, const Args& args);
int RunSnapshot(const Context& ctx, const Args& args);
void AddSnapshotOptions(CLI::App& sub, Args& args);
void AddDoctorOptions(CLI::App& sub, Args& args);
void AddResetOptions(CLI::App& sub, Args& args);
void AddAdminLinesOption(CLI::App& sub, Args& args);
void AddTrialOption(CLI::App& sub, Args& args);
// --trial --reboot, after the change ran with exit code `rc`: reboots into the trial boot when the
// change prepared one (`changed`, not --check); returns the exit code to give.
int RebootIntoTrial(const Args& args, bool changed, int rc);
void AddSetUnsetOptions(CLI::App& sub, Args& args);
void AddTrialVerbOptions(CLI::App& sub, Args& args);
int RunTrial(const Context& ctx, const Args& args);
// A change as rocmtuned's METHOD (`append` adds its arguments), shown as apply's is: the exit code,
// or nullopt when the daemon path does not apply (--root, no daemon) and the verb runs it here.
std::optional<int> ChangeThroughDaemon(const Context& ctx, const Args& args, const char* method, const Append& append);
// doctor --log's reader (a regular file or "-", bounded), also trial check --kernel-log's.
Result<std::string> ReadLogFile(const std::string& path);
int RunPurgePlan(const Context& ctx, const Args& args);
int RunApply(const Context& ctx, const Args& args);
int RunSet(const Context& ctx, const Args& args);
int RunUnset(const Context& ctx, const Args& args);
int RunRevert(const Context& ctx, const Args& args);
int RunReset(const Context& ctx, const Args& args);
int RunReapply(const Context& ctx, const Args& args);
int RunHistory(const Context& ctx, const Args& args);
int RunVerify(const Context& ctx, const Args& args);
int RunExplain(const Context& ctx, const Args& args);
int RunKeys(const Context& ctx, const Args& args);
int RunProfiles(const Context& ctx, const Args& args);
int RunShow(const Context& ctx, const Args& args);
int RunDoctor(const Context& ctx, const Args& args);
int RunFaults(const Context& ctx, const Args& args);
void AddFaultsOptions(CLI::App& sub, Args& args);
void AddCheckComputeOptions(CLI::App& sub, Args& args);
int RunCheckCompute(const Context& ctx, const Args& args);
void AddExportOptions(CLI::App& sub, Args& args);
int RunExport(const Context& ctx, const Args& args);

// Prints "rocmtunectl: MESSAGE" on stderr.
void PrintError(std::string_view message);
// A request that failed before it had a document: the message on stderr and, under --json,
// the core's rocmtune.error.v1 document on stdout (a script always gets one document).
// Returns `exit_code`.
int Failed(const Context& ctx, const Error& error, int exit_code);

}  // namespace rocmtune::client
