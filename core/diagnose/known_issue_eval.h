// Matching the known-issue base (knowledge/known_issues.h) against one GPU of a machine. Doctor
// uses it for every GPU here; a check of a workload (its environment, its crash log) uses the same
// call with the workload's inputs.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "detect/inventory.h"
#include "diagnose/finding.h"
#include "diagnose/rocm_memory.h"
#include "knobs/env_sources.h"
#include "knowledge/known_issues.h"
#include "sys/root.h"

namespace rocmtune::diagnose {

struct IssueInputs {
  std::optional<std::string> rocm_version;  // unknown: a rule with a ROCm range does not match
  std::optional<std::string> kernel;
  std::map<std::string, std::string> env;    // the environment the workload runs with
  std::map<std::string, std::string> facts;  // fact name (knowledge::kFact*) that holds -> evidence
  // amdgpu's cwsr_enable as detection read it (SystemFacts::amdgpu.parameters): not read again.
  std::optional<std::string> cwsr_enable = std::nullopt;
  // The machine's memory inputs (rocm_memory.h), read once per request; read here when absent.
  std::optional<SystemMemory> system_memory = std::nullopt;
};

struct IssueMatch {
  const knowledge::KnownIssue* issue = nullptr;
  std::string gpu;                    // the GPU id it concerns
  std::vector<std::string> evidence;  // what made the rule hold, for a person
  std::vector<std::string> symptoms;  // the issue's symptoms found in the log
  // For a log: the rule's variables the judged environment does not set. The program that crashed
  // may have set them itself (a venv's activate script, a conda env, a service's drop-in), so
  // they do not rule the issue out; the fix first says where to look.
  std::vector<std::string> env_unseen;
};

// The issues whose rule holds for `gpu`. Without a log, issues only a log can show are left out;
// with one, an issue matches only when the log shows one of its symptoms as well.
std::vector<IssueMatch> EvaluateKnownIssues(const knowledge::KnownIssues& issues, const detect::Gpu& gpu,
                                            const IssueInputs& inputs, std::optional<std::string_view> log = {});

// The issues whose rule holds for `gpu`, those only a log can show included (log_only is not a
// condition here): what a program risks on the GPU before any log exists (check-compute).
std::vector<IssueMatch> EvaluateKnownRisks(const knowledge::KnownIssues& issues, const detect::Gpu& gpu,
                                           const IssueInputs& inputs);

struct ProgramView;  // diagnose/assess.h
// The inputs of the program an assessment is for: the ROCm version of the runtime it loads (the
// system's when none was found), the kernel, its environment (ProgramView::env, read once).
IssueInputs ProgramInputs(const detect::Inventory& inventory, const ProgramView& view);
// `machine` (ProgramInputs) with the facts rules may name about `gpu`.
IssueInputs GpuInputs(const sys::Root& root, const IssueInputs& machine, const detect::Gpu& gpu);

// A known issue that holds for a GPU as a finding (id "issue.<id>", kind known-issue, its
// outcome as the effect) — assess.cc.
Finding IssueFinding(const IssueMatch& match);

}  // namespace rocmtune::diagnose
