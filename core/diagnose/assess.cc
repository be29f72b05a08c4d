#include "diagnose/assess.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "detect/finding_ids.h"
#include "diagnose/advice.h"
#include "diagnose/checks.h"
#include "diagnose/journal_access.h"
#include "diagnose/known_issue_eval.h"
#include "journal/attention.h"
#include "journal/history.h"
#include "journal/writer_probe.h"
#include "knobs/file_findings.h"
#include "knobs/registry.h"
#include "knobs/setting_findings.h"
#include "knowledge/catalog.h"
#include "knowledge/known_issues.h"
#include "plan/owned_paths.h"
#include "plan/trial_state.h"

namespace rocmtune::diagnose {

namespace {

using knowledge::Outcome;

Result<void> CheckReadable(const sys::Root& root) {
  for (std::string_view dir : {".", "sys", "proc"}) {
    auto listed = root.ListDir(dir);
    if (listed || listed.error().code == ErrorCode::kNotFound) continue;
    return Fail(listed.error().code,
                fmt::format("cannot read {}; nothing about this machine can be said", listed.error().message),
                listed.error().errno_value);
  }
  return {};
}

Severity SeverityOf(knowledge::IssueSeverity severity) {
  switch (severity) {
    case knowledge::IssueSeverity::kError: return Severity::kError;
    case knowledge::IssueSeverity::kWarning: return Severity::kWarning;
    case knowledge::IssueSeverity::kInfo: return Severity::kInfo;
  }
  return Severity::kInfo;
}

Effect EffectOf(Outcome outcome) {
  switch (outcome) {
    case Outcome::kCrash: return Effect::kCrash;
    case Outcome::kNoGpu: return Effect::kNoGpu;
    case Outcome::kLimits: return Effect::kLimits;
    case Outcome::kExplains: return Effect::kNone;
  }
  return Effect::kNone;
}

// Detection's and the knobs' findings, classified in place: their kind by their id, and what they
// do to programs.
void Classify(Finding& f) {
  f.kind = Kind::kSetting;
  if (f.id.starts_with("gpu.") || f.id.starts_with("detect.")) f.kind = Kind::kDetection;
  else if (f.id.starts_with("env.")) f.kind = Kind::kEnvironment;
  else if (f.id.starts_with("journal.")) f.kind = Kind::kJournal;
  else if (f.id.starts_with("file.")) f.kind = Kind::kFile;
  f.effect = Effect::kNone;
  // A GPU detection says programs cannot run ROCm code on (no KFD node, no ROCm ISA, unknown target).
  if (f.kind == Kind::kDetection && !f.gpu.empty()) f.effect = Effect::kNoGpu;
  // Another ISA family's code on the GPU: memory access faults or wrong results.
  if (f.id == FindingName(FindingId::kEnvOverrideOtherIsa)) f.effect = Effect::kCrash;
  // A value the library refuses: ROCm fails to start on every GPU (data/env_vars.toml on_invalid).
  if (f.id == FindingName(FindingId::kEnvInvalidValue) && f.severity == Severity::kError) f.effect = Effect::kNoGpu;
}

// check-compute's "no usable GPU" (exit 1) is a problem doctor names too, unless an AMD GPU on the
// bus that amdgpu does not drive already says it with its cause (gpu.not-amdgpu, a warning or an
// error): one finding per fact, and its fix, not "check the GPU is seated".
std::optional<Finding> NoGpuFinding(const detect::Inventory& inv) {
  if (!inv.gpus.empty()) return std::nullopt;
  std::vector<std::string> held;
  for (const detect::ForeignGpu& g : inv.not_amdgpu) {
    if (g.severity != Severity::kInfo) return std::nullopt;
    held.push_back(fmt::format("{}: {}", g.id, g.driver.value_or("no driver")));
  }
  Finding none =
      MakeFinding(FindingName(FindingId::kGpuNone), Severity::kWarning, "", "No AMD GPU driven by amdgpu was found",
                  "ROCm programs find no GPU here and run on the CPU, or fail",
                  "Check that the GPU is seated and amdgpu is loaded (lsmod | grep amdgpu; dmesg)",
                  {"linux drivers/gpu/drm/amd/amdgpu (amdgpu binds AMD GPUs)"});
  if (!held.empty()) {
    none.fix.text = fmt::format(
        "Every AMD GPU here is held by another driver ({}); ROCm can use one only once amdgpu "
        "drives it (unbind it from that driver, or end the virtual machine that holds it)",
        fmt::join(held, ", "));
  } else if (!inv.pci_listed && !inv.system.amdgpu.loaded) {
    // No PCI bus to look at (a tree without sys/bus/pci): what keeps amdgpu out may still be known.
    if (auto cause = detect::DkmsSignatureCause(inv.system.secure_boot, inv.system.amdgpu_dkms)) {
      none.why = fmt::format("{}. {}", none.why, cause->why);
      none.fix.text = cause->fix;
      none.sources.push_back(cause->source);
    }
  }
  none.kind = Kind::kDetection;
  none.effect = Effect::kNoGpu;
  return none;
}

// A trial boot (plan/trial_state.h) pending, or failed and not yet dismissed (`trial cancel`,
// `reset` or a new trial): what the admin must know before the next boot, and what a failed one saw.
// `txns`: the journal when it could be read (a state its unfinished transaction wrote is not yet
// true; `rocmtunectl trial` says the same, api::ReadTrial).
std::vector<Finding> TrialFindings(const sys::Root& root, const std::vector<journal::Transaction>& txns) {
  std::vector<Finding> out;
  if (root.TypeOf(plan::kTrialState) == sys::EntryType::kMissing) return out;
  auto read = root.ReadFile(plan::kTrialState, plan::kMaxTrialStateBytes);
  if (!read) return out;  // unreadable: file.unreadable says so for rocmtune's own files
  std::optional<std::string> text = journal::FinishedContent(txns, plan::kTrialState, std::move(*read));
  if (!text) return out;
  auto state = plan::ParseTrialState(*text);
  if (!state) {
    out.push_back({.id = FindingName(FindingId::kTrialFailed),
                   .severity = Severity::kWarning,
                   .subject = "/" + std::string(plan::kTrialState),
                   .what = fmt::format("The trial state cannot be read: {}", state.error().message),
                   .fix = {.text = "rocmtunectl trial cancel, or rocmtunectl reset"}});
    return out;
  }
  const std::string what =
      fmt::format("{}{}{}", state->request.verb, state->request.profile.empty() ? "" : " " + state->request.profile,
                  state->request.args.empty() ? "" : " " + fmt::format("{}", fmt::join(state->request.args, " ")));
  if (plan::IsPending(state->state)) {
    out.push_back(
        {.id = FindingName(FindingId::kTrialPending),
         .severity = Severity::kInfo,
         .subject = state->id,
         .what = fmt::format("Trial {} ({}) is {}: the next boot tries {} once and keeps it only if the "
                             "GPUs come up healthy",
                             state->id, what, plan::TrialPhaseName(state->state), fmt::join(state->tokens, " ")),
         .fix = {.text = "Reboot to try it; rocmtunectl trial cancel drops it"}});
  } else if (state->state == plan::TrialPhase::kFailed || state->state == plan::TrialPhase::kCleaned) {
    std::vector<std::string> bad;
    for (const std::string& s : state->seen)
      if (!s.starts_with("ok: ") && !s.starts_with("note: ")) bad.push_back(s);
    out.push_back(
        {.id = FindingName(FindingId::kTrialFailed),
         .severity = Severity::kWarning,
         .subject = state->id,
         .what =
             fmt::format("Trial {} ({}) failed; the boot after it is the old configuration. Seen: {}", state->id, what,
                         bad.empty() ? std::string("nothing recorded") : fmt::format("{}", fmt::join(bad, "; "))),
         .fix = {.text = "rocmtunectl trial shows what the check saw; rocmtunectl trial cancel dismisses it"}});
  }
  return out;
}

// The finding of each thing the journal says needs the admin (its row in detect/finding_ids.cc).
FindingId JournalFindingId(journal::AttentionKind kind) {
  switch (kind) {
    case journal::AttentionKind::kInterrupted: return FindingId::kJournalInterrupted;
    case journal::AttentionKind::kPendingRegeneration: return FindingId::kJournalPendingRegeneration;
    case journal::AttentionKind::kLeftoverTemporary: return FindingId::kJournalLeftoverTemporary;
  }
  return FindingId::kJournalInterrupted;
}

// The knobs' table, the settings' findings and the journal's (status's part).
void AssessSettings(const Facts& facts, Assessment& a) {
  const sys::Root& root = facts.root();
  const knobs::KnobContext& ctx = facts.Knobs();
  a.knobs = knobs::ReportKnobs(ctx);
  std::vector<Finding> found = a.inventory.findings;
  for (Finding& f : knobs::SettingFindings(ctx)) found.push_back(std::move(f));
  for (Finding& f : knobs::UnreadableFileFindings(ctx)) found.push_back(std::move(f));
  // The journal says which profile is active; one that cannot be read is a finding, not a
  // reason to show nothing else.
  auto txns = journal::Load(root);
  if (txns) {
    a.active_profile = journal::ActiveProfile(*txns);
    a.had_module_options = journal::LastWritten(*txns, plan::kModprobeDropIn).has_value();
    for (journal::Attention& at : journal::NeedsAttention(root, *txns))
      found.push_back({.id = FindingName(JournalFindingId(at.kind)),
                       .severity = detect::RowOf(JournalFindingId(at.kind)).severity,
                       .subject = std::move(at.subject),
                       .what = std::move(at.message)});
  } else {
    // A user the journal's permissions keep out is told so (info); a damaged journal is an error.
    found.push_back(JournalUnreadableFinding(txns.error()));
  }
  for (Finding& f : TrialFindings(root, txns ? *txns : std::vector<journal::Transaction>{}))
    found.push_back(std::move(f));
  for (Finding& f : found) {
    Classify(f);
    a.findings.push_back(std::move(f));
  }
}

// A process variable that some file sets to the same value came from that file (a login reads
// /etc/environment, a shell ~/.bashrc): the file's finding names the line to change, so the
// process's own is not said again.
std::vector<knobs::EnvSetting> WithoutEchoes(const Facts& facts, const std::vector<knobs::EnvSetting>& caller) {
  std::vector<knobs::EnvSetting> files = facts.LoginSettings();
  for (const knobs::EnvSetting& s : caller)
    if (!s.file.empty()) files.push_back(s);
  std::vector<knobs::EnvSetting> out;
  for (const knobs::EnvSetting& s : caller) {
    bool echo = s.file.empty() && std::any_of(files.begin(), files.end(), [&](const knobs::EnvSetting& f) {
                  return f.name == s.name && f.value == s.value;
                });
    if (!echo) out.push_back(s);
  }
  return out;
}

void AssessCaller(const Facts& facts, const AssessOptions& options, Assessment& a) {
  // Another program's environment is checked as the caller's is: its files and lines.
  const std::vector<knobs::EnvSetting>& env = options.program ? options.program->env : options.caller_env;
  for (Finding& f : CallerFindings(facts, env)) a.findings.push_back(std::move(f));
}

// Whose environment the verdict is for, and the runtimes that program may load: read once, used
// by the known issues' rules, the visible GPUs, the overrides and the code check.
ProgramView MakeProgramView(const Facts& facts, const AssessOptions& options) {
  ProgramView v;
  if (options.program) {
    v.kind = std::string(program::ContextKindName(options.program->kind));
    v.name = options.program->name;
    // A system service gets the manager's environment and its unit's, no login file (systemd.exec(5)).
    v.login_env = options.program->kind != program::ContextKind::kUnit;
    // The login files' settings (Facts::LoginSettings: the admin's files, rocmtune's drop-ins last).
    if (v.login_env) v.settings = facts.LoginSettings();
    v.settings.insert(v.settings.end(), options.program->env.begin(), options.program->env.end());
    v.notes = options.program->notes;
    v.exec = options.program->exec;
  } else {
    // The caller's programs when its environment was given (doctor, check-compute); status and
    // rocmtuned, which answer for no one user, judge what a login shell starts.
    if (options.caller && !options.caller_env.empty()) {
      v.kind = "caller";
      v.name = "programs started from this shell";
    }
    v.settings = facts.LoginSettings();
    v.settings.insert(v.settings.end(), options.caller_env.begin(), options.caller_env.end());
  }
  for (const knobs::EnvSetting& s : v.settings) {
    if (s.value) v.env[s.name] = *s.value;
    else v.env.erase(s.name);  // computed: its value is unknown, an earlier literal no longer holds
  }
  for (std::string_view name : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (auto it = v.env.find(std::string(name)); it != v.env.end() && v.python_looked.empty())
      v.python_looked = it->second;
  if (v.python_looked.empty() && v.env.contains("PATH")) v.python_looked = "the python3 on PATH";
  v.runtimes = runtime::FindRuntimes(facts.root(), v.env, v.exec);
  return v;
}

// AMD's GPU table says whether AMD supports a target in the installed release: a fact of its
// own, but not what decides whether a program runs — the code of the runtime it loads does
// (runtime.code, runtime.no-code). So the table's "not supported" decides nothing and offers no
// "no release supports it" where a fix exists: where the runtime has no code, runtime.no-code says
// it with the fix that works here; where it has code, the table's word is an info.
void AdjustSupport(Assessment& a) {
  std::set<std::string> has, lacks;
  for (const Finding& f : a.findings) {
    if (f.id == FindingName(FindingId::kRuntimeCode)) has.insert(f.gpu);
    if (f.id == FindingName(FindingId::kRuntimeNoCode)) lacks.insert(f.gpu);
  }
  std::erase_if(a.findings, [&](const Finding& f) {
    return f.id == FindingName(FindingId::kRocmGpuNotSupported) && lacks.contains(f.gpu);
  });
  for (Finding& f : a.findings) {
    if (f.id != FindingName(FindingId::kRocmGpuNotSupported)) continue;
    f.effect = Effect::kNone;
    f.fix.none.clear();
    if (!has.contains(f.gpu)) continue;
    f.severity = Severity::kInfo;
    f.fix = {};
    f.fix.text = "AMD does not support it in this release; programs run with the code the runtime carries for it";
  }
}

void Append(std::vector<Finding>& to, std::vector<Finding> from, Kind kind, bool per_gpu) {
  for (Finding& f : from) {
    f.kind = kind;
    if (per_gpu && f.gpu.empty()) f.gpu = f.subject;
    to.push_back(std::move(f));
  }
}

// A risk is a known issue whose rule holds on this machine without a log, reported with high or
// medium confidence: it decides a verdict. One only a crash log can show (log_only), or reported
// with low confidence, never does: where its rule holds it is a note, "if a program's log shows X,
// the likely cause is Y" (a fleet draining healthy nodes over a rumour is worse than no verdict).
bool IsRisk(const knowledge::KnownIssue& issue) {
  return !issue.when.log_only && issue.confidence != knowledge::Confidence::kLow;
}

// A note for an issue that is not a risk: only crashes and missing GPUs are worth one, and only
// where the rule names something of this machine (an "explains" entry holds everywhere).
std::optional<Finding> IfSeenNote(const IssueMatch& m) {
  const knowledge::KnownIssue& i = *m.issue;
  if (i.outcome != Outcome::kCrash && i.outcome != Outcome::kNoGpu) return std::nullopt;
  Finding f = IssueFinding(m);
  f.severity = Severity::kInfo;
  f.effect = Effect::kNone;
  f.workloads.clear();
  f.what = i.symptoms.empty() ? fmt::format("Reported, not established ({} confidence): {}",
                                            knowledge::ConfidenceName(i.confidence), i.title)
           : i.requires_symptom.empty()
               ? fmt::format("If a program's log shows \"{}\", the likely cause is: {}", i.symptoms.front(), i.title)
               : fmt::format("If a program's log shows \"{}\" with \"{}\", the likely cause is: {}", i.symptoms.front(),
                             i.requires_symptom.front(), i.title);
  return f;
}

void AssessKnownIssues(const sys::Root& root, Assessment& a) {
  const knowledge::KnownIssues& issues = knowledge::KnownIssues::Builtin();
  // (GPU id, finding id) -> the index of the issue's finding that replaces it
  std::map<std::pair<std::string, std::string>, size_t> superseded;
  IssueInputs machine = ProgramInputs(a.inventory, a.program);
  machine.system_memory = a.system_memory;
  for (const detect::Gpu& gpu : a.inventory.gpus) {
    if (gpu.id.empty()) continue;
    IssueInputs inputs = GpuInputs(root, machine, gpu);
    for (const IssueMatch& m : EvaluateKnownRisks(issues, gpu, inputs)) {
      if (!IsRisk(*m.issue)) {
        if (std::optional<Finding> note = IfSeenNote(m)) a.findings.push_back(std::move(*note));
        continue;
      }
      a.findings.push_back(IssueFinding(m));
      for (const std::string& id : m.issue->supersedes)
        superseded.emplace(std::pair{gpu.id, id}, a.findings.size() - 1);
    }
  }
  // A known issue that matched a GPU replaces the generic findings it names for that GPU (the
  // rdna1-not-supported issue says more than rocm.gpu-not-supported: why, and what to do instead),
  // and a machine-wide one about the same fact (strix-halo-gtt-limit and the amdgpu.gttsize that
  // disagrees with TTM's limit: one limit, one finding). What the replaced finding saw stays: the
  // line that sets the variable is where the fix is made; a replaced setting's words become
  // evidence, and what it unsets is part of the fix (advice names an admin's line that sets it).
  auto replacing = [&](const Finding& f) -> std::optional<size_t> {
    if (!f.gpu.empty()) {
      auto by = superseded.find({f.gpu, f.id});
      return by == superseded.end() ? std::nullopt : std::optional<size_t>(by->second);
    }
    for (const auto& [key, index] : superseded)
      if (key.second == f.id && (f.kind == Kind::kSetting || key.first == f.subject)) return index;
    return std::nullopt;
  };
  std::vector<bool> replaced(a.findings.size(), false);
  for (size_t n = 0; n < a.findings.size(); ++n) {
    const Finding& f = a.findings[n];
    const std::optional<size_t> by = replacing(f);
    if (!by || *by == n) continue;
    replaced[n] = true;
    Finding& issue = a.findings[*by];
    if (!f.file.empty()) {
      if (issue.file.empty()) std::tie(issue.file, issue.line) = std::tie(f.file, f.line);
      if (issue.places.empty()) issue.places.push_back({issue.file, issue.line});
      if (Place p{f.file, f.line}; std::find(issue.places.begin(), issue.places.end(), p) == issue.places.end())
        issue.places.push_back(p);
    }
    std::vector<std::string> seen = f.evidence;
    if (f.kind == Kind::kSetting) {
      seen.insert(seen.begin(), f.what);
      for (const std::string& key : f.fix.unset)
        if (std::find(issue.fix.unset.begin(), issue.fix.unset.end(), key) == issue.fix.unset.end())
          issue.fix.unset.push_back(key);
    }
    for (const std::string& e : seen)
      if (std::find(issue.evidence.begin(), issue.evidence.end(), e) == issue.evidence.end())
        issue.evidence.push_back(e);
  }
  std::vector<Finding> kept;
  kept.reserve(a.findings.size());
  for (size_t n = 0; n < a.findings.size(); ++n)
    if (!replaced[n]) kept.push_back(std::move(a.findings[n]));
  a.findings = std::move(kept);
}

}  // namespace

std::vector<Finding> CallerFindings(const sys::Root& root, const detect::Inventory& inventory,
                                    const std::vector<knobs::EnvSetting>& caller_env) {
  if (caller_env.empty()) return {};
  return CallerFindings(Facts(root, inventory), caller_env);
}

std::vector<Finding> CallerFindings(const Facts& facts, const std::vector<knobs::EnvSetting>& caller_env) {
  std::vector<Finding> out;
  if (caller_env.empty()) return out;
  for (Finding& f : knobs::CallerEnvFindings(facts.Knobs(), WithoutEchoes(facts, caller_env))) {
    Classify(f);
    f.kind = Kind::kCaller;
    if (f.file.empty()) f.evidence.push_back(fmt::format("{} is set in the environment of this process", f.subject));
    out.push_back(std::move(f));
  }
  return out;
}

Finding IssueFinding(const IssueMatch& m) {
  const knowledge::KnownIssue& i = *m.issue;
  Finding d;
  d.id = "issue." + i.id;
  d.severity = SeverityOf(i.severity);
  d.kind = Kind::kKnownIssue;
  d.effect = EffectOf(i.outcome);
  if (i.outcome == Outcome::kCrash) d.workloads = i.workloads;
  d.gpu = m.gpu;
  d.subject = m.gpu;
  d.what = i.title;
  d.why = i.why;
  d.fix = {i.fix.text, i.fix.profile, i.fix.set, i.fix.unset, i.fix.rocm, i.fix.kernel, i.fix.none};
  d.sources = i.sources;
  d.confidence = std::string(knowledge::ConfidenceName(i.confidence));
  d.evidence = m.evidence;
  d.symptoms = m.symptoms;
  if (!m.env_unseen.empty()) {
    const std::string vars = fmt::format("{}", fmt::join(m.env_unseen, ", "));
    d.evidence.push_back(
        fmt::format("{}: not set in the environment rocmtune judged; the program may set it itself", vars));
    d.fix.text = fmt::format(
        "Look for {} in the crashed program's own environment: a venv's bin/activate, a conda env's "
        "etc/conda/activate.d, a service's drop-in or a launcher script (rocmtunectl check-compute --unit NAME, "
        "--conda ENV or --env-file FILE judges one). Then: {}",
        vars, d.fix.text);
  }
  return d;
}

Result<Assessment> Assess(const sys::Root& root, detect::Inventory inventory, const AssessOptions& options) {
  if (auto readable = CheckReadable(root); !readable) return tl::unexpected(readable.error());
  Assessment a;
  a.inventory = std::move(inventory);
  a.log_given = options.log.has_value();
  if (root.IsLive() && options.live_facts)
    a.live = options.known_live ? *options.known_live : detect::ReadLiveFacts(a.inventory.gpus);
  // Every configuration file of this request read once, the settings merged by one rule.
  const Facts facts(root, a.inventory);
  AssessSettings(facts, a);
  a.program = MakeProgramView(facts, options);
  a.system_memory = ReadSystemMemory(root);
  for (const detect::Gpu& g : a.inventory.gpus) a.memory.push_back(RocmMemoryOf(root, g, *a.system_memory));
  a.visibility = program::VisibleGpus(a.inventory, a.program.env);
  AssessCaller(facts, options, a);
  if (std::optional<Finding> none = NoGpuFinding(a.inventory)) a.findings.push_back(std::move(*none));
  Append(a.findings, SettingChecks(facts.Knobs(), a.knobs, a.memory), Kind::kSetting, false);
  Append(a.findings, MachineChecks(root, a.inventory, options.caller), Kind::kMachine, false);
  Append(a.findings, CodeChecks(a.inventory, a.program), Kind::kRuntime, false);
  Append(a.findings, SupportChecks(a.inventory), Kind::kSupport, false);
  AdjustSupport(a);
  if (a.live) Append(a.findings, LiveChecks(*a.live), Kind::kLive, false);
  Append(a.findings, ShmChecks(root), Kind::kMachine, false);
  AssessKnownIssues(root, a);
  if (options.services) Append(a.findings, ServiceChecks(root, a.inventory), Kind::kMachine, false);
  if (options.log) {
    AddLogMatches(root, *options.log, options.caller_env, a);
    for (Finding& f : a.log_matches) f.kind = Kind::kLog;
  }
  MergeSameFacts(a.findings);
  Advise(facts, a);
  return a;
}

}  // namespace rocmtune::diagnose
