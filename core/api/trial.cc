// The trial's life outside the boot check (trial_check.cc): prepare (the change planned, then
// split), the commit, recovery after a boot without the trial, cancel, and what reset clears.
#include "api/trial.h"

#include <chrono>
#include <random>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/change_internal.h"
#include "api/check_compute.h"
#include "api/trial_internal.h"
#include "boot/cmdline_tokens.h"
#include "boot/setup.h"
#include "journal/history.h"
#include "journal/journal.h"
#include "plan/owned_paths.h"
#include "util/text.h"

namespace rocmtune::api {
namespace {

// Below the helper's bound on a line seen (helper/trial_state_rules.cc, 4096 bytes).
constexpr size_t kMaxSeenLineBytes = 4000;

std::string NewTrialId() {
  std::random_device random;
  return fmt::format("{:08x}", static_cast<uint32_t>(random()));
}

// The boot-affecting part of a request as command-line tokens, or why it has one that cannot be
// tried. Kernel options go as they are. Module options of amdgpu/ttm/amdttm go as
// `module.option=value`: modprobe(8) "will also use module options specified on the kernel
// command line in the form of <module>.<option>" (kmod man/modprobe.8.scd); libkmod reads them
// from /proc/cmdline after every modprobe.d file (kmod libkmod/libkmod-config.c,
// kmod_config_new() -> kmod_config_parse_kcmdline()), so they come after modprobe.d's options
// and the kernel's parameter parser lets the last one win.
struct BootPart {
  std::vector<std::string> tokens;
  std::vector<std::string> untriable;  // keys whose change a trial entry cannot carry
};

BootPart BootPartOf(const plan::Request& request) {
  BootPart part;
  for (const knobs::Assignment& a : request.set) {
    if (a.key.kind == knobs::KnobKind::kModuleParam) part.tokens.push_back(fmt::format("{}={}", a.key.Text(), a.value));
    else if (a.key.kind == knobs::KnobKind::kCmdline)
      part.tokens.push_back(a.value.empty() ? a.key.name : fmt::format("{}={}", a.key.name, a.value));
  }
  // An entry adds tokens to the default entry's command line: it cannot take a kernel option
  // away, nor an option modprobe.d sets.
  for (const knobs::KnobKey& key : request.unset)
    if (key.kind == knobs::KnobKind::kModuleParam || key.kind == knobs::KnobKind::kCmdline)
      part.untriable.push_back(key.Text());
  return part;
}

std::vector<plan::TrialGpu> BoundGpus(const sys::Root& root, const detect::Inventory& inventory) {
  std::vector<plan::TrialGpu> out;
  for (const detect::Gpu& gpu : inventory.gpus) {
    std::string driver = BoundDriver(root, gpu.id);
    if (driver == "amdgpu") out.push_back({gpu.id, driver});
  }
  return out;
}

plan::Op StateOp(const sys::Root& root, const plan::TrialState& state, std::string reason) {
  plan::Op op;
  op.kind = plan::OpKind::kWriteFile;
  op.backend = plan::BackendId::kCmdline;
  op.path = std::string(plan::kTrialState);
  if (auto now = root.ReadFile(plan::kTrialState, plan::kMaxTrialStateBytes)) op.before = std::move(*now);
  op.after = plan::TrialStateText(state);
  op.reason = std::move(reason);
  return op;
}

ChangeReport StepReport(std::string step, const plan::TrialState& state) {
  ChangeReport report;
  report.plan.intent = {"trial", state.request.profile, {std::move(step), state.id}, "", {}};
  return report;
}

}  // namespace

std::string TrialNow() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                     std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
}

std::string BoundDriver(const sys::Root& root, const std::string& pci) {
  auto link = root.ReadLink(fmt::format("sys/bus/pci/devices/{}/driver", pci));
  if (!link) return "";
  size_t slash = link->rfind('/');
  return slash == std::string::npos ? *link : link->substr(slash + 1);
}

std::string ComputeVerdict(const sys::Root& root, const detect::Inventory& inventory) {
  auto report = CheckCompute(root, inventory, "", "", /*caller=*/false);
  if (!report) return "unknown";
  if (report->gpus.empty()) return "no-gpu";
  return report->safe() ? "safe" : "unsafe";
}

int VerdictRank(std::string_view verdict) {
  if (verdict == "safe") return 0;
  if (verdict == "unsafe") return 1;
  if (verdict == "no-gpu") return 2;
  return 3;  // unknown
}

void AddTrialCleanup(const System& system, const plan::TrialState& state, plan::TrialPhase phase,
                     const std::vector<std::string>& seen, plan::Plan& plan) {
  auto kctx = system.Context();
  if (const boot::Setup* setup = boot::SetupFor(system.inventory.system.boot.kind)) setup->PlanTrialCleanup(kctx, plan);
  AddTrialState(system, state, phase, seen, plan);
}

void AddTrialState(const System& system, const plan::TrialState& state, plan::TrialPhase phase,
                   const std::vector<std::string>& seen, plan::Plan& plan) {
  plan::TrialState next = state;
  next.state = phase;
  next.updated = TrialNow();
  // The helper keeps only lines of text (helper/intent_rules.cc): a path or message quoted in a
  // line is escaped and cut here, so no check's finding makes the state unwritable.
  for (const std::string& s : seen) {
    std::string line = text::EscapeControl(s);
    if (line.size() > kMaxSeenLineBytes) {
      size_t cut = kMaxSeenLineBytes;
      while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
      line = line.substr(0, cut) + "...";
    }
    next.seen.push_back(std::move(line));
  }
  plan.ops.push_back(StateOp(system.root, next, fmt::format("trial {} {}", state.id, plan::TrialPhaseName(phase))));
}

void MakeTrial(const System& system, const plan::Request& request, ChangeReport& report, const ChangeOptions& options) {
  plan::Plan& plan = report.plan;
  auto refuse = [&](std::string why) {
    plan.refused.push_back({"", std::move(why), ""});
    plan.ops.clear();
  };
  plan::Intent asked = plan.intent;
  plan.intent = {"trial", asked.profile, {"prepare"}, "", asked.with};
  plan.intent.args.insert(plan.intent.args.end(), asked.args.begin(), asked.args.end());
  plan.record_if_empty = false;
  if (!plan.refused.empty()) {
    plan.ops.clear();
    return;  // the change itself is refused: nothing to try
  }
  auto current = ReadTrial(system);
  if (!current) return refuse(fmt::format("the trial state cannot be read: {}", current.error().message));
  if (*current && plan::IsPending((*current)->state))
    return refuse(fmt::format("trial {} is already pending ({}): reboot to try it, or rocmtunectl trial cancel",
                              (*current)->id, plan::TrialPhaseName((*current)->state)));
  BootPart part = BootPartOf(request);
  if (!part.untriable.empty())
    return refuse(
        fmt::format("a trial entry adds tokens to the default boot entry's command line and cannot take "
                    "away {}: make this change without --trial",
                    fmt::join(part.untriable, ", ")));
  if (part.tokens.empty())
    return refuse(
        "nothing in this change affects the boot (no kernel option, no amdgpu/ttm option): there is "
        "nothing to try in a boot; make it without --trial");
  const boot::Setup* setup = boot::SetupFor(system.inventory.system.boot.kind);
  if (!setup) return refuse("the boot setup is unknown: rocmtune cannot write a one-shot boot entry here");
  auto kctx = system.Context();
  if (auto why = setup->RefuseTrial(kctx)) return refuse(*why);
  if (!system.root.IsLive() && !options.check && !options.trial_on_tree)
    return refuse(
        "a trial boots this machine: on a --root tree it is planned only (--trial --check shows the entry and "
        "the switch)");

  plan::TrialState state;
  state.id = plan::IsTrialId(options.trial_id) ? options.trial_id : NewTrialId();
  state.created = state.updated = TrialNow();
  state.request = asked;
  state.request.args.erase(std::remove(state.request.args.begin(), state.request.args.end(), std::string()),
                           state.request.args.end());
  state.admin_lines = request.admin_lines;
  state.force = options.force;
  state.tokens = part.tokens;
  state.tokens.push_back(fmt::format("panic={}", plan::kTrialPanicSeconds));
  state.tokens.push_back(plan::TrialToken(state.id));
  state.setup = std::string(detect::BootKindName(setup->Kind()));
  state.gpus_before = BoundGpus(system.root, system.inventory);
  state.verdict_before = ComputeVerdict(system.root, system.inventory);
  plan.intent.args.insert(plan.intent.args.begin() + 1, state.id);

  // Nothing permanent: the planned ops are what the commit will write; the trial writes its entry
  // and switch (the setup's) and its state.
  plan.ops.clear();
  plan.initramfs = plan::Regen::kNo;
  plan.bootloader = plan::Regen::kNo;
  size_t first = plan.ops.size();
  setup->PlanTrial(kctx, boot::TrialBoot{state.id, state.tokens}, plan);
  if (!plan.refused.empty()) {
    plan.ops.clear();
    return;
  }
  for (size_t i = first; i < plan.ops.size(); ++i)
    if (plan.ops[i].kind == plan::OpKind::kWriteFile) {
      state.entry = plan.ops[i].path;
      break;
    }
  plan.ops.push_back(StateOp(system.root, state, fmt::format("trial {} prepared", state.id)));
  // The files first, then the programs (update-grub, the one-shot switch), as in every plan.
  std::stable_partition(plan.ops.begin(), plan.ops.end(),
                        [](const plan::Op& op) { return op.kind != plan::OpKind::kRegenerate; });
  plan.reboot_required = true;
  plan.notes.push_back({"",
                        fmt::format("trial {}: reboot to try {} once; it is kept only when the GPUs come up "
                                    "healthy (rocmtunectl trial shows it, rocmtunectl trial cancel drops it)",
                                    state.id, boot::JoinCmdline(part.tokens)),
                        ""});
}

void AddTrialCommit(const System& system, const plan::TrialState& state, ChangeReport& report) {
  plan::Plan& plan = report.plan;
  if (!plan.refused.empty()) return;
  AddTrialCleanup(system, state, plan::TrialPhase::kCommitted, {}, plan);
  // The state op and the entry's removal belong before any regenerator (update-grub sees the
  // entry gone, the initramfs is rebuilt last).
  std::stable_partition(plan.ops.begin(), plan.ops.end(),
                        [](const plan::Op& op) { return op.kind != plan::OpKind::kRegenerate; });
  // The commit runs in the trial boot (CommitTrial refuses any other), which already runs with
  // every token of the change: the files make the next boots the same, and no reboot is needed
  // for it (status's pending_reboot compares what runs with what the next boot gets).
  if (TrialTokenOnCmdline(system.root, state.id)) {
    plan.reboot_required = false;
    plan.notes.push_back(
        {"", fmt::format("trial {}: this boot already runs with the change; the next boots keep it", state.id), ""});
  }
}

void AddTrialReset(const System& system, plan::Plan& plan) {
  auto state = ReadTrial(system);
  if (!state || !*state) return;  // an unreadable state is status's finding; reset goes on
  plan::TrialPhase phase = (*state)->state;
  if (phase == plan::TrialPhase::kCommitted || phase == plan::TrialPhase::kCancelled) return;
  AddTrialCleanup(system, **state, plan::TrialPhase::kCancelled, {}, plan);
  std::stable_partition(plan.ops.begin(), plan.ops.end(),
                        [](const plan::Op& op) { return op.kind != plan::OpKind::kRegenerate; });
}

void FinishTrial(const System& system, const plan::Request& request, ChangeReport& report,
                 const ChangeOptions& options) {
  if (options.trial) MakeTrial(system, request, report, options);
  else if (options.trial_commit) AddTrialCommit(system, *options.trial_commit, report);
}

namespace {

// A committed state is written by the transaction that commits the change, before the helper
// numbers that transaction: the journal knows it as the newest committed transaction that wrote
// exactly this state. Left empty when the journal does not have it.
void FindCommittingTransaction(const std::vector<journal::Transaction>& txns, const std::string& text,
                               plan::TrialState& state) {
  if (state.state != plan::TrialPhase::kCommitted || !state.transaction.empty()) return;
  for (auto txn = txns.rbegin(); txn != txns.rend(); ++txn) {
    if (txn->state != journal::State::kCommitted) continue;
    for (const plan::Op& op : txn->ops) {
      if (op.path == plan::kTrialState && op.after == text) {
        state.transaction = txn->id;
        return;
      }
    }
  }
}

// The state against `txns`, the journal already read by the caller (a change's System) or here.
Result<std::optional<plan::TrialState>> ReadTrialWith(const sys::Root& root,
                                                      const std::vector<journal::Transaction>& txns) {
  if (root.TypeOf(plan::kTrialState) == sys::EntryType::kMissing) return std::optional<plan::TrialState>();
  auto text = root.ReadFile(plan::kTrialState, plan::kMaxTrialStateBytes);
  if (!text) return tl::unexpected(text.error());
  // A state the newest transaction wrote is not true until it commits: the commit's initramfs
  // rebuild takes minutes, and a script waiting for `committed` (the Ansible role) must not
  // reboot before (a VM boot test found it); a crash now would roll it back.
  std::optional<std::string> durable = journal::FinishedContent(txns, plan::kTrialState, std::move(*text));
  if (!durable) return std::optional<plan::TrialState>();
  auto state = plan::ParseTrialState(*durable);
  if (!state)
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: {}", root.Display(plan::kTrialState), state.error().message));
  FindCommittingTransaction(txns, *durable, *state);
  return std::optional<plan::TrialState>(std::move(*state));
}

}  // namespace

Result<std::optional<plan::TrialState>> ReadTrial(const sys::Root& root) {
  // A journal this user may not read leaves the file as it is (what it says may be in flight).
  auto txns = journal::Load(root);
  return ReadTrialWith(root, txns ? *txns : std::vector<journal::Transaction>{});
}

Result<std::optional<plan::TrialState>> ReadTrial(const System& system) {
  return ReadTrialWith(system.root, system.journal);
}

nlohmann::ordered_json TrialJson(const std::optional<plan::TrialState>& state) {
  if (!state) return {{"schema", plan::kTrialSchema}, {"state", "none"}};
  return plan::TrialStateToJson(*state);
}

namespace {

// A trial step: load (rolling back an interrupted transaction first), read the state, plan.
struct Step {
  System system;
  std::optional<plan::TrialState> state;
  std::vector<plan::Message> notes;
};

Result<Step> Begin(const sys::Root& root, const ChangeOptions& options, Writer& writer) {
  std::vector<plan::Message> notes;
  auto system = PrepareChange(root, options, writer, notes);
  if (!system) return tl::unexpected(system.error());
  auto state = ReadTrial(*system);
  if (!state) return tl::unexpected(state.error());
  return Step{std::move(*system), std::move(*state), std::move(notes)};
}

ChangeReport Nothing(std::string step, std::string why) {
  ChangeReport report;
  report.plan.intent = {"trial", "", {std::move(step)}, "", {}};
  report.plan.warnings.push_back({"", std::move(why), ""});
  return report;
}

bool TokenOnCmdline(const sys::Root& root, const std::string& id) {
  auto cmdline = root.ReadFile("proc/cmdline", 64 * 1024);
  if (!cmdline) return false;
  auto tokens = boot::SplitCmdline(*cmdline);
  return boot::TokenValue(tokens, plan::kTrialTokenKey) == id;
}

}  // namespace

bool TrialTokenOnCmdline(const sys::Root& root, const std::string& id) { return TokenOnCmdline(root, id); }

Result<ChangeReport> CancelTrial(const sys::Root& root, const ChangeOptions& options, Writer& writer) {
  auto step = Begin(root, options, writer);
  if (!step) return tl::unexpected(step.error());
  const auto& state = step->state;
  if (!state || state->state == plan::TrialPhase::kCommitted || state->state == plan::TrialPhase::kCancelled)
    return CarryOut(root, Nothing("cancel", "no trial is pending or failed: nothing to cancel"), options, writer);
  ChangeReport report = StepReport("cancel", *state);
  AddTrialCleanup(step->system, *state, plan::TrialPhase::kCancelled, {}, report.plan);
  report.plan.warnings = step->notes;
  return CarryOut(root, std::move(report), options, writer);
}

Result<ChangeReport> RecoverTrial(const sys::Root& root, const ChangeOptions& options, Writer& writer) {
  auto step = Begin(root, options, writer);
  if (!step) return tl::unexpected(step.error());
  const auto& state = step->state;
  if (!state || !plan::IsPending(state->state))
    return CarryOut(root, Nothing("recover", "no trial is pending"), options, writer);
  if (TokenOnCmdline(step->system.root, state->id))
    return CarryOut(root, Nothing("recover", "this is the trial boot: rocmtune-trial-check.service checks it"), options,
                    writer);
  std::vector<std::string> seen;
  switch (state->state) {
    case plan::TrialPhase::kPrepared:
      seen.push_back(fmt::format(
          "a boot without rocmtune.trial={} while the trial was prepared: the trial boot panicked before its check "
          "(panic={} rebooted it), hung until a power cycle, or the boot loader did not boot the trial entry",
          state->id, plan::kTrialPanicSeconds));
      break;
    case plan::TrialPhase::kBooted:
      seen.push_back(
          "the trial boot started its check but never finished it: it panicked, hung or was powered off during "
          "the check");
      break;
    default:
      seen.push_back(
          "the trial boot passed its check but ended before the commit: nothing was made permanent; try again");
      break;
  }
  ChangeReport report = StepReport("fail", *state);
  report.plan.warnings = step->notes;
  for (const std::string& s : seen) report.plan.warnings.push_back({"", "trial: " + s, ""});
  AddTrialCleanup(step->system, *state, plan::TrialPhase::kFailed, seen, report.plan);
  return CarryOut(root, std::move(report), options, writer);
}

Result<ChangeReport> CommitTrial(const sys::Root& root, const ChangeOptions& options, Writer& writer) {
  auto step = Begin(root, options, writer);
  if (!step) return tl::unexpected(step.error());
  const auto& state = step->state;
  if (!state || state->state != plan::TrialPhase::kConfirmed) {
    ChangeReport report = Nothing("commit", state ? fmt::format("trial {} is {}, not confirmed: nothing to commit",
                                                                state->id, plan::TrialPhaseName(state->state))
                                                  : "no trial: nothing to commit");
    report.status = ChangeStatus::kRefused;
    report.plan.refused = std::move(report.plan.warnings);
    report.plan.warnings.clear();
    return CarryOut(root, std::move(report), options, writer);
  }
  if (!TokenOnCmdline(step->system.root, state->id)) {
    ChangeReport report = Nothing("commit", "");
    report.plan.warnings.clear();
    report.plan.refused.push_back(
        {"", fmt::format("this boot is not trial {}'s (no rocmtune.trial={} on /proc/cmdline)", state->id, state->id),
         ""});
    return CarryOut(root, std::move(report), options, writer);
  }
  ChangeOptions commit = options;
  commit.trial = false;
  commit.trial_commit = &*state;
  commit.admin_lines = state->admin_lines;
  commit.force = commit.force || state->force;
  const plan::Intent& r = state->request;
  if (r.verb == "apply") return Apply(root, r.profile, r.with, commit, writer);
  if (r.verb == "set") return Set(root, r.args, commit, writer);
  return Unset(root, r.args, commit, writer);
}

}  // namespace rocmtune::api
