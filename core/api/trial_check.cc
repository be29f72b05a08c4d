// The trial boot's check (`trial check --boot`, rocmtune-trial-check.service): is this boot the
// trial's, did the GPUs come up as they were, do the tried settings read back, is check-compute
// not worse, and does the admin's own check pass. Each answer is a line of `seen`; any failure
// fails the trial (its entry removed, the next boot the old configuration) and the unit.
#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "api/change_internal.h"
#include "api/trial.h"
#include "api/trial_internal.h"
#include "boot/cmdline_tokens.h"
#include "sys/trusted_config.h"
#include "util/text.h"
#include "util/toml_reader.h"

namespace rocmtune::api {
namespace {

// Kernel log lines that mean a GPU did not come up healthy in this boot.
struct BadSign {
  std::string_view needle;
  std::string_view what;
  std::string_view source;
};
constexpr std::array<BadSign, 3> kBadSigns = {{
    {"GPU reset begin", "a GPU reset", "linux drivers/gpu/drm/amd/amdgpu/amdgpu_device.c amdgpu_device_gpu_recover()"},
    {" timeout, signaled seq=", "a GPU ring timeout",
     "linux drivers/gpu/drm/amd/amdgpu/amdgpu_job.c amdgpu_job_timedout()"},
    {"device wedged, needs recovery", "a wedged GPU", "linux drivers/gpu/drm/drm_drv.c drm_dev_wedged_event()"},
}};
constexpr size_t kMaxQuotedLine = 200;

// Module parameters print booleans as Y/N (kernel/params.c param_get_bool) and integers in
// decimal; a request spells them as typed (1, true, y, 0x...). Equal when the kernel's reading
// of the requested value is what the parameter shows.
bool ReadsBack(std::string_view shown, std::string_view wanted) {
  shown = text::Trim(shown);
  if (shown == wanted) return true;
  auto boolean = [](std::string_view v) -> int {
    if (v == "Y" || v == "y" || v == "1" || v == "true" || v == "on") return 1;
    if (v == "N" || v == "n" || v == "0" || v == "false" || v == "off") return 0;
    return -1;
  };
  if (shown == "Y" || shown == "N") return boolean(shown) == boolean(wanted);
  char* end = nullptr;
  std::string w(wanted);
  long long value = std::strtoll(w.c_str(), &end, 0);
  if (end != w.c_str() && *end == '\0') return std::to_string(value) == std::string(shown);
  return false;
}

struct Findings {
  std::vector<std::string> seen;
  std::vector<std::string> failures;
  void Ok(std::string line) { seen.push_back("ok: " + std::move(line)); }
  void Bad(std::string line) {
    seen.push_back("FAILED: " + line);
    failures.push_back(std::move(line));
  }
  void Note(std::string line) { seen.push_back("note: " + std::move(line)); }
};

void CheckGpus(const System& system, const plan::TrialState& state, Findings& out) {
  for (const plan::TrialGpu& gpu : state.gpus_before) {
    std::string driver = BoundDriver(system.root, gpu.pci);
    if (driver != "amdgpu") {
      out.Bad(fmt::format("GPU {} was bound to amdgpu before the trial and is now bound to {}", gpu.pci,
                          driver.empty() ? "no driver" : driver));
      continue;
    }
    auto it = std::find_if(system.inventory.gpus.begin(), system.inventory.gpus.end(),
                           [&](const detect::Gpu& g) { return g.id == gpu.pci; });
    if (it == system.inventory.gpus.end() || !it->kfd_node)
      out.Bad(fmt::format("GPU {} is bound to amdgpu but KFD does not list it (no compute node)", gpu.pci));
    else out.Ok(fmt::format("GPU {} bound to amdgpu, KFD node {}", gpu.pci, *it->kfd_node));
  }
  if (state.gpus_before.empty()) out.Note("no GPU was bound to amdgpu before the trial");
}

void CheckKernelLog(const std::optional<std::string>& log, Findings& out) {
  if (!log) {
    out.Note("this boot's kernel log was not read");
    return;
  }
  size_t bad = 0;
  for (std::string_view line : text::SplitLines(*log))
    for (const BadSign& sign : kBadSigns)
      if (line.find(sign.needle) != std::string_view::npos && bad++ < 3)
        out.Bad(fmt::format("{} in this boot's kernel log: {}", sign.what,
                            text::EscapeControl(line.substr(0, kMaxQuotedLine))));
  if (bad == 0) out.Ok("no GPU reset, ring timeout or wedged device in this boot's kernel log");
}

void CheckSettings(const System& system, const plan::TrialState& state, Findings& out) {
  auto cmdline = system.root.ReadFile("proc/cmdline", 64 * 1024);
  std::vector<std::string> running = cmdline ? boot::SplitCmdline(*cmdline) : std::vector<std::string>{};
  for (const std::string& token : state.tokens) {
    if (std::find(running.begin(), running.end(), token) == running.end()) {
      out.Bad(fmt::format("{} is not on this boot's command line (/proc/cmdline)", token));
      continue;
    }
    std::string_view key = boot::TokenKey(token);
    size_t dot = key.find('.');
    std::string_view module = dot == std::string_view::npos ? "" : key.substr(0, dot);
    if (module != "amdgpu" && module != "ttm" && module != "amdttm") continue;
    std::string_view param = key.substr(dot + 1);
    std::string_view wanted = token.size() > key.size() ? std::string_view(token).substr(key.size() + 1) : "";
    std::string path = fmt::format("sys/module/{}/parameters/{}", module, param);
    auto shown = system.root.ReadFile(path, 4096);
    if (!shown) {
      out.Note(fmt::format("{}.{} cannot be read back (/{}: {})", module, param, path, shown.error().message));
      continue;
    }
    if (ReadsBack(*shown, wanted)) out.Ok(fmt::format("{}.{} reads back {}", module, param, text::Trim(*shown)));
    else
      out.Bad(fmt::format("{}.{} was tried as {} but reads back {} (/{})", module, param, wanted,
                          text::EscapeControl(text::Trim(*shown).substr(0, kMaxQuotedLine)), path));
  }
}

// The admin's own check, last: only here, with a pending trial in its own boot, is it run.
void CheckAdminCommand(const sys::Root& root, const TrialCheckInputs& inputs, bool dry_run, Findings& out) {
  auto admin = ReadTrialAdminCheck(root);
  if (!admin) {
    out.Bad(fmt::format("the admin's check failed: {}", admin.error().message));
    return;
  }
  if (!*admin) return;
  if (dry_run) {
    out.Note("the admin's check (/etc/rocmtune/trial.toml) is not run with --check");
    return;
  }
  std::string failure = inputs.run_admin_check ? inputs.run_admin_check(**admin) : "nothing here runs it";
  if (!failure.empty()) out.Bad(fmt::format("the admin's check failed: {}", failure));
  else out.Ok("the admin's check (/etc/rocmtune/trial.toml) passed");
}

}  // namespace

Result<std::optional<TrialAdminCheck>> ReadTrialAdminCheck(const sys::Root& root) {
  constexpr std::string_view kPath = "etc/rocmtune/trial.toml";
  if (root.TypeOf(kPath) == sys::EntryType::kMissing) return std::optional<TrialAdminCheck>();
  // Its command runs as root in the trial boot: whoever may edit it could run anything as root.
  if (auto trusted = sys::CheckTrustedFile(root, kPath, "its check runs as root: trusted only when root owns it");
      !trusted)
    return tl::unexpected(trusted.error());
  auto text = root.ReadFile(kPath, 64 * 1024);
  if (!text) return tl::unexpected(text.error());
  auto table = ParseTomlDocument(*text, root.Display(kPath));
  if (!table) return tl::unexpected(table.error());
  TrialAdminCheck check;
  for (const auto& [key, value] : *table) {
    if (key == "check") {
      const toml::array* argv = value.as_array();
      if (!argv || argv->empty())
        return Fail(ErrorCode::kInvalidData, fmt::format("{}: check must be a non-empty array of strings (an argv, "
                                                         "run without a shell)",
                                                         root.Display(kPath)));
      for (const toml::node& word : *argv) {
        auto s = word.value<std::string>();
        if (!s) return Fail(ErrorCode::kInvalidData, fmt::format("{}: check must hold strings", root.Display(kPath)));
        check.argv.push_back(*s);
      }
      if (check.argv.front().empty() || check.argv.front().front() != '/')
        return Fail(ErrorCode::kInvalidData,
                    fmt::format("{}: check's program must be an absolute path", root.Display(kPath)));
    } else if (key == "timeout") {
      auto seconds = value.value<int64_t>();
      if (!seconds || *seconds < 1 || *seconds > 600)
        return Fail(ErrorCode::kInvalidData,
                    fmt::format("{}: timeout must be a number of seconds from 1 to 600", root.Display(kPath)));
      check.timeout = std::chrono::seconds(*seconds);
    } else {
      return Fail(ErrorCode::kInvalidData,
                  fmt::format("{}: unknown key '{}' (check, timeout)", root.Display(kPath), key.str()));
    }
  }
  if (check.argv.empty()) return std::optional<TrialAdminCheck>();
  return std::optional<TrialAdminCheck>(std::move(check));
}

Result<ChangeReport> CheckTrial(const sys::Root& root, const TrialCheckInputs& inputs, const ChangeOptions& options,
                                Writer& writer) {
  std::vector<plan::Message> notes;
  auto system = PrepareChange(root, options, writer, notes);
  if (!system) return tl::unexpected(system.error());
  auto read = ReadTrial(*system);
  if (!read) return tl::unexpected(read.error());
  ChangeReport report;
  report.plan.intent = {"trial", "", {"check"}, "", {}};
  if (!*read || ((*read)->state != plan::TrialPhase::kPrepared && (*read)->state != plan::TrialPhase::kBooted)) {
    report.plan.refused.push_back({"",
                                   *read ? fmt::format("trial {} is {}: there is nothing to check", (*read)->id,
                                                       plan::TrialPhaseName((*read)->state))
                                         : "no trial is pending: there is nothing to check",
                                   ""});
    return CarryOut(root, std::move(report), options, writer);
  }
  plan::TrialState state = std::move(**read);
  report.plan.intent = {"trial", state.request.profile, {"check", state.id}, "", {}};

  Findings found;
  bool ours = TrialTokenOnCmdline(system->root, state.id);
  // First the state says the trial boot came up: a check that never finishes (a hang, a panic
  // in the check) is then told apart from a trial boot that never started.
  if (ours && state.state == plan::TrialPhase::kPrepared && !options.check) {
    ChangeReport booted;
    booted.plan.intent = {"trial", state.request.profile, {"booted", state.id}, "", {}};
    AddTrialState(*system, state, plan::TrialPhase::kBooted, {}, booted.plan);
    ChangeOptions quiet = options;
    quiet.on_planned = nullptr;
    booted = CarryOut(root, std::move(booted), quiet, writer);
    if (booted.status != ChangeStatus::kOk) return booted;
    auto again = PrepareChange(root, options, writer, notes);
    if (!again) return tl::unexpected(again.error());
    system = std::move(again);
    auto reread = ReadTrial(*system);
    if (!reread) return tl::unexpected(reread.error());
    if (*reread) state = std::move(**reread);
  }
  if (!ours) {
    found.Bad(
        fmt::format("this boot's command line does not carry rocmtune.trial={} (the pending trial's id)", state.id));
  } else {
    found.Ok(fmt::format("rocmtune.trial={} is on /proc/cmdline", state.id));
    CheckGpus(*system, state, found);
    CheckKernelLog(inputs.kernel_log, found);
    CheckSettings(*system, state, found);
    std::string verdict = ComputeVerdict(system->root, system->inventory);
    if (VerdictRank(verdict) > VerdictRank(state.verdict_before))
      found.Bad(
          fmt::format("check-compute's verdict is {}, worse than {} before the trial", verdict, state.verdict_before));
    else found.Ok(fmt::format("check-compute's verdict is {} ({} before the trial)", verdict, state.verdict_before));
    CheckAdminCommand(system->root, inputs, options.check, found);
  }
  bool passed = found.failures.empty();
  report.plan.intent.args.front() = passed ? "confirm" : "fail";
  state.seen.clear();
  // A confirmed trial keeps its entry: the commit removes it with the change, one transaction.
  if (passed) AddTrialState(*system, state, plan::TrialPhase::kConfirmed, found.seen, report.plan);
  else AddTrialCleanup(*system, state, plan::TrialPhase::kFailed, found.seen, report.plan);
  if (!passed)
    for (const std::string& f : found.failures) report.plan.warnings.push_back({"", "trial check: " + f, ""});
  report.plan.warnings.insert(report.plan.warnings.begin(), notes.begin(), notes.end());
  report = CarryOut(root, std::move(report), options, writer);
  if (!passed && report.status == ChangeStatus::kOk) {
    report.status = ChangeStatus::kFailed;
    report.outcome.errors.push_back(fmt::format("trial {} failed its check: {}", state.id, found.failures.front()));
  }
  return report;
}

}  // namespace rocmtune::api
