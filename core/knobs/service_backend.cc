#include "knobs/service_backend.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "detect/other_writers.h"
#include "plan/owned_paths.h"
#include "util/text.h"

namespace rocmtune::knobs {
namespace {

constexpr std::string_view kUnit = "power-profiles-daemon.service";
constexpr std::string_view kDropInDir = "etc/systemd/system/power-profiles-daemon.service.d";
constexpr std::string_view kHeader =
    "# rocmtune: power-profiles-daemon starts without its amdgpu_dpm action, which sets every GPU's\n"
    "# power_dpm_force_performance_level at each profile change (service.power-profiles-daemon.amdgpu_dpm=off).\n"
    "# rocmtunectl revert or reset removes this file; an edit here is drift.\n"
    "[Service]\n"
    "ExecStart=\n";
constexpr std::string_view kSource =
    "power-profiles-daemon src/ppd-action-amdgpu-dpm.c, --block-action (LACT README \"Power profiles daemon "
    "note\"; LACT lact-daemon/src/system/power_profiles_daemon.rs: SetActionEnabled from 0.30)";
// A binary is read for the option names it knows: far above power-profiles-daemon's 70-200 KiB.
constexpr size_t kMaxBinary = 16 << 20;

bool IsPpdKey(const KnobKey& key) { return key.Text() == kPpdKey; }

// The command power-profiles-daemon.service starts: the last ExecStart= of the unit and of the
// drop-ins systemd reads after it (an empty one clears), rocmtune's own left out and any
// --block-action=amdgpu_dpm taken off. Fails on a command rocmtune would not restart as root.
Result<std::vector<std::string>> UnitCommand(const sys::Root& root) {
  std::vector<std::string> files;
  if (std::string unit = detect::UnitFile(root, kUnit); !unit.empty()) files.push_back(unit);
  if (files.empty())
    return Fail(ErrorCode::kNotFound, "power-profiles-daemon is not installed here (no power-profiles-daemon.service)");
  if (auto names = root.ListDir(kDropInDir))
    for (const std::string& n : *names)
      if (n.ends_with(".conf") && fmt::format("{}/{}", kDropInDir, n) != plan::kPpdDropIn)
        files.push_back(fmt::format("{}/{}", kDropInDir, n));
  std::string line;
  for (const std::string& f : files) {
    auto text = root.ReadFile(f, 65536);
    if (!text) continue;
    for (std::string_view l : text::SplitLines(*text)) {
      l = text::Trim(l);
      if (l.starts_with("ExecStart=")) line = std::string(text::Trim(l.substr(10)));
    }
  }
  if (line.empty()) return Fail(ErrorCode::kInvalidData, "power-profiles-daemon.service has no ExecStart=");
  std::vector<std::string> command;
  // The block in either spelling ("--block-action=amdgpu_dpm", "--block-action amdgpu_dpm"):
  // an admin's drop-in may have it already, and rocmtune's adds its own.
  std::vector<std::string_view> words = text::Tokens(line);
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == kPpdBlock) continue;
    if (words[i] == "--block-action" && i + 1 < words.size() && words[i + 1] == "amdgpu_dpm") {
      ++i;
      continue;
    }
    command.emplace_back(words[i]);
  }
  if (!KnownPpdProgram(command[0]))
    return Fail(ErrorCode::kInvalidData,
                fmt::format("power-profiles-daemon.service starts '{}', not a power-profiles-daemon binary rocmtune "
                            "knows: it does not restart that as root",
                            line));
  for (size_t i = 1; i < command.size(); ++i)
    if (!PlainOption(command[i]))
      return Fail(ErrorCode::kInvalidData,
                  fmt::format("power-profiles-daemon.service starts it with '{}', which rocmtune does not copy into "
                              "a drop-in",
                              command[i]));
  return command;
}

// Whether the binary has the action's and the option's names in it (GOption's long names and
// the action's name are strings there), read once. Both nullopt: it cannot be read.
struct BinaryNames {
  std::optional<bool> action, option;
};
BinaryNames ReadBinaryNames(const sys::Root& root, std::string_view program) {
  auto content = root.ReadFile(program.substr(1), kMaxBinary);
  if (!content) return {};
  return {content->find("amdgpu_dpm") != std::string::npos, content->find("block-action") != std::string::npos};
}

class ServiceBackend final : public Backend {
 public:
  std::string_view Name() const override { return "service"; }
  bool Handles(const KnobKey& key) const override { return key.kind == KnobKind::kService; }
  void Validate(const KnobContext& ctx, const KnobKey& key, const std::optional<std::string>& value,
                plan::Plan& plan) const override;
  KnobState Read(const KnobContext& ctx, const KnobKey& key) const override;
  void PlanChanges(const KnobContext& ctx, std::span<const Assignment> set, std::span<const KnobKey> unset,
                   plan::Plan& plan) const override;
  std::vector<KnobKey> ConfiguredKeys(const KnobContext& ctx) const override;
  std::vector<KnobKey> OwnedKeys(const KnobContext& ctx) const override;
  std::vector<std::string> Describe(const KnobContext& ctx, const KnobKey& key) const override;
};

KnobKey PpdKey() { return {KnobKind::kService, "power-profiles-daemon", "", "amdgpu_dpm"}; }

void ServiceBackend::Validate(const KnobContext& ctx, const KnobKey& key, const std::optional<std::string>& value,
                              plan::Plan& plan) const {
  const std::string text = key.Text();
  auto refuse = [&](std::string why) {
    plan.refused.push_back({text, fmt::format("{}: {}", text, why), std::string(kSource)});
  };
  if (!IsPpdKey(key)) return refuse(fmt::format("no such service knob; there is one: {}", kPpdKey));
  if (!value) return;  // unset: removing rocmtune's drop-in is always allowed
  if (*value != "off")
    return refuse(fmt::format("it takes only `off` (unset it to let the action run again), not '{}'", *value));
  std::optional<detect::PowerProfilesBus> bus = detect::AskPowerProfiles(ctx.root);
  const bool tuned_unit = !detect::UnitFile(ctx.root, "tuned-ppd.service").empty() &&
                          !detect::EnabledBy(ctx.root, "tuned-ppd.service").empty();
  if ((bus && bus->running && bus->TunedPpd()) || (tuned_unit && detect::UnitFile(ctx.root, kUnit).empty()))
    return refuse(
        "tuned-ppd answers power-profiles-daemon's API here: it has no amdgpu_dpm action to block (what tuned writes "
        "to GPUs is its profile's, writer.tuned)");
  auto command = UnitCommand(ctx.root);
  if (!command) return refuse(command.error().message);
  const std::string& program = (*command)[0];
  if (!ctx.root.Exists(std::string_view(program).substr(1)))
    return refuse(fmt::format("power-profiles-daemon.service starts {}, which is not there", program));
  auto [action, option] = ReadBinaryNames(ctx.root, program);
  if (action == false)
    return refuse(fmt::format(
        "{} has no amdgpu_dpm action (it came with 0.22; Debian 12 has 0.12): it leaves the GPUs' performance "
        "level alone, and there is nothing to settle",
        program));
  if (option == false)
    return refuse(
        fmt::format("{} has no --block-action option: a drop-in with it would keep the daemon from starting", program));
  if (!action || !option)
    plan.warnings.push_back(
        {text, fmt::format("{}: {} cannot be read to see that it knows amdgpu_dpm and --block-action", text, program),
         ""});
  std::vector<std::string> admin = detect::BlockingDropIns(ctx.root);
  std::erase(admin, std::string(plan::kPpdDropIn));
  if (!admin.empty())
    plan.warnings.push_back(
        {text,
         fmt::format("{}: /{} blocks the action already; rocmtune's drop-in would only repeat it", text, admin.front()),
         ""});
}

KnobState ServiceBackend::Read(const KnobContext& ctx, const KnobKey& key) const {
  KnobState s;
  s.key = key;
  s.owner = Owner::kUnset;
  if (!IsPpdKey(key)) return s;
  std::vector<std::string> blocking = detect::BlockingDropIns(ctx.root);
  if (std::find(blocking.begin(), blocking.end(), plan::kPpdDropIn) != blocking.end()) {
    s.configured = "off";
    s.configured_in = std::string(plan::kPpdDropIn);
    s.owner = Owner::kRocmtune;
  } else if (!blocking.empty()) {
    s.configured = "off";
    s.configured_in = blocking.front();
    s.owner = Owner::kAdmin;
  }
  if (auto bus = detect::AskPowerProfiles(ctx.root); bus && bus->error.empty() && bus->running) {
    if (!bus->HasAmdgpuDpm()) s.running = "off";
    else s.running = bus->amdgpu_dpm_enabled == false ? "off" : "on";
    s.effective = s.running;
    if (s.configured && s.running == "on") {
      s.pending_reboot = false;
      s.notes.push_back(
          "the running power-profiles-daemon started before the drop-in: it blocks the action from "
          "its next start (systemctl restart power-profiles-daemon)");
    }
  }
  return s;
}

void ServiceBackend::PlanChanges(const KnobContext& ctx, std::span<const Assignment> set,
                                 std::span<const KnobKey> unset, plan::Plan& plan) const {
  bool block = std::any_of(set.begin(), set.end(), [](const Assignment& a) { return IsPpdKey(a.key); });
  bool unblock = std::any_of(unset.begin(), unset.end(), [](const KnobKey& k) { return IsPpdKey(k); });
  if (!block && !unblock) return;
  std::optional<std::string> current = ReadOptional(ctx.root, plan::kPpdDropIn);
  plan::Op file;
  file.backend = plan::BackendId::kService;
  file.path = std::string(plan::kPpdDropIn);
  file.before = current;
  if (block) {
    auto command = UnitCommand(ctx.root);
    if (!command) return;  // Validate refused it
    std::string wanted = RenderPpdDropIn(*command);
    if (current == wanted) return;
    file.kind = plan::OpKind::kWriteFile;
    file.after = wanted;
    file.reason = "power-profiles-daemon starts without its amdgpu_dpm action";
  } else {
    if (!current) return;
    file.kind = plan::OpKind::kRemoveFile;
    file.reason = "power-profiles-daemon starts with its amdgpu_dpm action again";
  }
  plan.ops.push_back(std::move(file));
  auto regen = [&](plan::Regenerator r, std::vector<std::string> argv, std::string reason) {
    plan::Op op;
    op.kind = plan::OpKind::kRegenerate;
    op.backend = plan::BackendId::kService;
    op.path = std::string(plan::Name(r));
    op.argv = std::move(argv);
    op.reason = std::move(reason);
    plan.ops.push_back(std::move(op));
  };
  regen(plan::Regenerator::kSystemctl, plan::SystemctlArgv(false), "systemd reads the drop-in");
  std::optional<detect::PowerProfilesBus> bus = detect::AskPowerProfiles(ctx.root);
  if (!bus || !bus->error.empty() || !bus->running) return;  // its next start reads the drop-in
  const bool runs_action = bus->HasAmdgpuDpm() && bus->amdgpu_dpm_enabled != false;
  if (block && runs_action && bus->set_action_enabled) {
    regen(plan::Regenerator::kBusctl, plan::PpdSetActionArgv(false), "the running daemon stops its amdgpu_dpm action");
    return;
  }
  // Before 0.30 (no SetActionEnabled), and to run the action again (one the daemon started
  // without is not there to enable): a restart reads the unit as it is now.
  if (block == runs_action) {
    regen(plan::Regenerator::kSystemctl, plan::SystemctlArgv(true),
          block ? "the running daemon has no SetActionEnabled (before 0.30): a restart reads the drop-in"
                : "a restart without the drop-in runs the amdgpu_dpm action again");
    plan.warnings.push_back(
        {std::string(kPpdKey),
         fmt::format("{}: power-profiles-daemon {}is restarted: it applies its active profile again", kPpdKey,
                     bus->version ? *bus->version + " " : ""),
         ""});
  }
}

std::vector<KnobKey> ServiceBackend::ConfiguredKeys(const KnobContext& ctx) const {
  if (detect::BlockingDropIns(ctx.root).empty()) return {};
  return {PpdKey()};
}

std::vector<KnobKey> ServiceBackend::OwnedKeys(const KnobContext& ctx) const {
  if (!ctx.root.Exists(plan::kPpdDropIn)) return {};
  return {PpdKey()};
}

std::vector<std::string> ServiceBackend::Describe(const KnobContext&, const KnobKey& key) const {
  if (!IsPpdKey(key)) return {fmt::format("no such service knob; there is one: {}", kPpdKey)};
  return {
      "power-profiles-daemon's amdgpu_dpm action (0.22 on, AMD CPUs only) writes every GPU's "
      "power_dpm_force_performance_level (low in power-saver, auto otherwise) at each profile change and each GPU "
      "added: a level rocmtune sets (sysfs.*.power_dpm_force_performance_level) does not last.",
      "off: a drop-in for power-profiles-daemon.service adds --block-action=amdgpu_dpm to its ExecStart=; the running "
      "daemon is told with SetActionEnabled (0.30 on) or restarted. unset, revert and reset remove it.",
      "Refused where tuned-ppd answers the API, or where the installed daemon has no such action (Debian 12's 0.12).",
      fmt::format("Source: {}", kSource)};
}

}  // namespace

std::unique_ptr<Backend> MakeServiceBackend() { return std::make_unique<ServiceBackend>(); }

std::string RenderPpdDropIn(const std::vector<std::string>& exec) {
  return fmt::format("{}ExecStart={} {}\n", kHeader, fmt::join(exec, " "), kPpdBlock);
}

std::optional<std::vector<std::string>> PpdDropInCommand(std::string_view content) {
  if (!content.starts_with(kHeader) || !content.ends_with("\n")) return std::nullopt;
  std::string_view line = content.substr(kHeader.size());
  line.remove_suffix(1);
  if (!line.starts_with("ExecStart=") || line.find('\n') != std::string_view::npos) return std::nullopt;
  std::vector<std::string> command;
  for (std::string_view w : text::Tokens(line.substr(10))) command.emplace_back(w);
  if (command.size() < 2 || command.back() != kPpdBlock) return std::nullopt;
  command.pop_back();
  if (RenderPpdDropIn(command) != content) return std::nullopt;  // spacing, tabs: not what rocmtune writes
  return command;
}

bool KnownPpdProgram(std::string_view path) {
  static constexpr std::string_view kPrograms[] = {
      "/usr/libexec/power-profiles-daemon", "/usr/lib/power-profiles-daemon/power-profiles-daemon",
      "/usr/lib/power-profiles-daemon", "/usr/sbin/power-profiles-daemon", "/usr/bin/power-profiles-daemon"};
  return std::find(std::begin(kPrograms), std::end(kPrograms), path) != std::end(kPrograms);
}

bool PlainOption(std::string_view arg) {
  if (arg.size() < 2 || arg.size() > 128 || arg[0] != '-') return false;
  size_t eq = arg.find('=');
  for (size_t i = 1; i < arg.size(); ++i) {
    char c = arg[i];
    bool name = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
    bool value = i > eq && (name || c == '.' || c == ',');
    if (!name && !value && !(i == eq)) return false;
  }
  return arg != kPpdBlock;
}

}  // namespace rocmtune::knobs
