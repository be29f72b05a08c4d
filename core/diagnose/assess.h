// The one assessment of a machine: every finding rocmtune makes (detection, the settings in
// files, the journal, the machine checks, GPU support by the installed ROCm, live facts, the
// known-issue base, a crash log), each with its severity, kind and effect on ROCm programs.
// `status`, `doctor`, `check-compute` and rocmtuned's Describe/CheckCompute render this one
// result (api/), and the compute verdict (diagnose/verdict.h) is read off the same findings:
// nothing decides twice, so they cannot disagree.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "boot/boot_image.h"
#include "detect/inventory.h"
#include "detect/live_facts.h"
#include "diagnose/crash_log.h"
#include "diagnose/facts.h"
#include "diagnose/finding.h"
#include "diagnose/rocm_memory.h"
#include "knobs/backend.h"
#include "knobs/env_sources.h"
#include "program/context.h"
#include "program/visible.h"
#include "runtime/runtime.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::diagnose {

struct AssessOptions {
  // Ask rocm-smi-lib on the live root (a child process, up to its timeout); off for callers that
  // need no live values (check-compute, asked before a program starts: they change no verdict).
  bool live_facts = true;
  // Facts read already (rocmtuned's, detect/live_facts_cache.h) instead of asking now.
  const std::vector<detect::LiveFacts>* known_live = nullptr;
  // A crash log's text (doctor --log): the known issues whose symptoms it shows.
  std::optional<std::string> log;
  // A person runs this (rocmtunectl): whether that user may open /dev/kfd is checked. Not for
  // rocmtuned, whose own user says nothing about the users who ask it.
  bool caller = true;
  // The caller's own environment (knobs::ProcessEnvSettings, UserEnvSettings): checked like the
  // system's files (findings of kind caller), and what its programs run with — the known
  // issues' rules see it after the system's files (the process's variables last: they win).
  std::vector<knobs::EnvSetting> caller_env;
  // Another program's environment to judge instead of the caller's (check-compute --unit, --conda,
  // --env-file; doctor's services): a system unit reads none of the login files, a user unit and
  // a conda environment read them and the caller's own on top (program/context.h).
  std::optional<program::Context> program;
  // Also judge the machine's ROCm services (program::ServiceContexts: ollama, enabled units that
  // set HSA_*/HIP_*/ROCR_*), each with its own environment: compute.service findings (doctor, export).
  bool services = false;
};

// The program the verdict is for: whose environment, and the ROCm runtimes it may load.
struct ProgramView {
  std::string kind = "machine";  // program::ContextKindName, or "machine": the login environment (rocmtuned, status)
  std::string name = "programs started from a login shell";
  std::map<std::string, std::string> env;   // its known variables (the last assignment of each wins)
  std::vector<knobs::EnvSetting> settings;  // the same, each where it is set, in the order they apply
  bool login_env = true;  // it reads /etc/environment, environment.d and the profile (a system unit does not)
  std::vector<runtime::Runtime> runtimes;  // the first is the one it loads (runtime::FindRuntimes)
  std::string python_looked;               // the Python environment searched, for a person ("" when none)
  std::string exec;                        // the program it starts, when known (a unit's ExecStart=)
  std::vector<std::string> notes;          // what could not be read of its environment
};

struct Assessment {
  detect::Inventory inventory;  // its findings are detection's own (in `findings` as well)
  std::vector<knobs::KnobState> knobs;
  std::string active_profile;  // the profile of the apply still in effect; empty when none
  // rocm-smi-lib's facts, one per GPU in the inventory's order: only for the live root.
  std::optional<std::vector<detect::LiveFacts>> live;
  std::vector<Finding> findings;
  ProgramView program;
  // The memory ROCm programs can allocate, one per GPU in the inventory's order (rocm_memory.h).
  std::vector<RocmMemory> memory;
  // What `memory` was computed from, read once; empty in an assessment not made by Assess.
  std::optional<SystemMemory> system_memory;
  // The GPUs the program sees and in which order (HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES).
  std::optional<program::Visibility> visibility;
  bool log_given = false;
  std::vector<Finding> log_matches;   // most likely cause first
  std::vector<LogGpuRef> log_names;   // how the log names GPUs (crash_log.h)
  std::vector<std::string> log_gpus;  // the GPUs here it names; none: matched against every GPU
  // The next boot's initramfs and rocmtune's module options (boot/boot_image.h): `status` only,
  // when rocmtune sets module options or set them before (a stale image).
  std::optional<boot::BootImageCheck> boot_image;
  // The journal shows rocmtune wrote or removed its modprobe.d file (journal::LastWritten).
  bool had_module_options = false;
};

// Fails when the root itself, or its sys/ or proc/, cannot be read (permissions): a tree
// rocmtune cannot see into is not a machine without AMD GPUs.
Result<Assessment> Assess(const sys::Root& root, detect::Inventory inventory, const AssessOptions& options = {});

// The crash log's matches (log_matches.cc) into log_matches, once the findings are complete: the
// known issues of the GPUs the log names (of every GPU here when it names none, of none when it
// names only GPUs that are not here), `log.missing-code-object` per GPU for a missing-code error
// with the GPU's support finding as its cause and fix, `log.other-gpu` (info) and
// `log.unexplained-crash` (warning) when the log shows a crash and nothing above a note explains it.
void AddLogMatches(const sys::Root& root, std::string_view log, const std::vector<knobs::EnvSetting>& caller_env,
                   Assessment& assessment);
// Whether a log match names a cause (log.likely_cause), not only what is missing to find one.
bool IsLogCause(const Finding& finding);

// The caller's own findings (kind caller) as Assess makes them, for a report someone else made
// (rocmtuned's Doctor, which sees no caller's environment).
std::vector<Finding> CallerFindings(const sys::Root& root, const detect::Inventory& inventory,
                                    const std::vector<knobs::EnvSetting>& caller_env);
// The same within a request, on its facts (diagnose/facts.h).
std::vector<Finding> CallerFindings(const Facts& facts, const std::vector<knobs::EnvSetting>& caller_env);

}  // namespace rocmtune::diagnose
