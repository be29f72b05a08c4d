#include "api/verify.h"

#include <algorithm>
#include <iterator>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/size_json.h"
#include "boot/boot_image.h"
#include "detect/finding_ids.h"
#include "journal/attention.h"
#include "journal/history.h"
#include "journal/writer_probe.h"
#include "knobs/file_findings.h"
#include "knobs/registry.h"
#include "knobs/runtime_state.h"
#include "knobs/sysfs_attributes.h"
#include "plan/owned_paths.h"
#include "profiles/apply_request.h"

namespace rocmtune::api {
namespace {

// At namespace scope like export.cc's and history.cc's: in a unity batch with them it is the same
// alias declared again, where a local one would shadow theirs (clang's -Wshadow).
using json = nlohmann::ordered_json;

constexpr DifferenceKindRow kDifferenceKinds[] = {
    {DifferenceKind::kPendingReboot, "pending-reboot", 2, false, std::nullopt},
    {DifferenceKind::kNotRunning, "not-running", 1, false, std::nullopt},
    {DifferenceKind::kDrift, "drift", 0, true, std::nullopt},
    {DifferenceKind::kUnreadable, "unreadable", 0, false, std::nullopt},
    {DifferenceKind::kSysfs, "sysfs", 0, true, std::nullopt},
    {DifferenceKind::kProfile, "profile", 4, false, std::nullopt},
    {DifferenceKind::kOverridden, "overridden", 5, false, std::nullopt},
    {DifferenceKind::kInterrupted, "interrupted", 0, false, journal::AttentionKind::kInterrupted},
    {DifferenceKind::kPendingRegeneration, "pending-regeneration", 0, false,
     journal::AttentionKind::kPendingRegeneration},
    {DifferenceKind::kLeftoverTemporary, "leftover-temporary", 0, false, journal::AttentionKind::kLeftoverTemporary},
    {DifferenceKind::kInitramfs, "initramfs", 3, false, std::nullopt},
};

// One row per knob, with status's CONFIGURED (the next boot's value) and RUNNING: the most
// telling kind, and what else is wrong with the same knob in its message.
void KnobDifferences(const System& system, std::vector<Difference>& out) {
  for (const knobs::KnobState& s : knobs::ReportKnobs(system.Context())) {
    std::vector<std::pair<DifferenceKind, std::string>> found;  // kind, message
    if (s.overridden)
      found.emplace_back(DifferenceKind::kOverridden,
                         fmt::format("rocmtune configures {} but {} overrides it: rocmtune's value "
                                     "never takes effect while that is there",
                                     *s.overridden, s.overridden_by));
    // Runtime attributes: SysfsDifferences, device by device.
    if (s.owner == knobs::Owner::kRocmtune && s.configured && s.key.kind != knobs::KnobKind::kSysfs) {
      if (s.pending_reboot)
        found.emplace_back(DifferenceKind::kPendingReboot,
                           fmt::format("configured {} but the running system has {}: takes effect at the next boot",
                                       *s.configured, s.running.value_or("it unset")));
      else if (s.running && *s.configured != *s.running)
        found.emplace_back(DifferenceKind::kNotRunning,
                           fmt::format("configured {} but the running system has {}", *s.configured, *s.running));
    }
    if (found.empty()) continue;
    std::string message = found.front().second;
    for (size_t i = 1; i < found.size(); ++i) message += "; also " + found[i].second;
    out.push_back({found.front().first, s.key.Text(), s.configured, s.running, std::move(message)});
  }
}

// The image the next boot loads (boot/boot_image.h). One that loads amdgpu without rocmtune's
// options, or with others, boots without them: one difference naming the image, what it has and
// the module options it keeps from the next boot, in place of their "pending reboot" rows. One
// that cannot be read or found says nothing here (status shows it as unknown); one without amdgpu
// does not matter. One that still has options rocmtune took out (kStale) is a difference too.
void BootImageDifferences(const System& system, std::vector<Difference>& out) {
  auto check = boot::CheckBootImage(system.root, system.inventory,
                                    journal::LastWritten(system.journal, plan::kModprobeDropIn).has_value());
  if (check && check->state == boot::ImageState::kStale) {
    out.push_back({DifferenceKind::kInitramfs, check->image, std::nullopt, check->carried, check->message});
    return;
  }
  if (!check || (check->state != boot::ImageState::kLacks && check->state != boot::ImageState::kDiffers)) return;
  std::vector<std::string> keys;
  std::erase_if(out, [&](const Difference& d) {
    auto key = knobs::ParseKnobKey(d.subject);
    if (d.kind != DifferenceKind::kPendingReboot || !key || key->kind != knobs::KnobKind::kModuleParam) return false;
    keys.push_back(d.subject);
    return true;
  });
  std::string message = check->message;
  if (!keys.empty())
    message += fmt::format("; so {} {} not take effect at the next boot", fmt::join(keys, ", "),
                           keys.size() == 1 ? "does" : "do");
  out.push_back({DifferenceKind::kInitramfs, check->image, check->configured, check->carried, std::move(message)});
}

// How telling a knob's kind is (the table's knob_rank): a value that never takes effect, then the
// active profile's setting changed since, then a reboot to wait for, then a difference with what
// runs; 0: not a knob's kind.
int KnobRank(const Difference& d) { return Row(d.kind).knob_rank; }

// A knob another check also names (the active profile's setting changed since) stays one row: the
// most telling kind, the other findings joined to its message.
void OneRowPerKnob(std::vector<Difference>& differences) {
  std::vector<Difference> out;
  for (Difference& d : differences) {
    auto same = std::find_if(out.begin(), out.end(), [&](const Difference& o) {
      return KnobRank(o) > 0 && KnobRank(d) > 0 && o.subject == d.subject;
    });
    if (same == out.end()) {
      out.push_back(std::move(d));
    } else if (KnobRank(d) > KnobRank(*same)) {
      d.message += "; also " + same->message;
      *same = std::move(d);
    } else {
      same->message += "; also " + d.message;
    }
  }
  differences = std::move(out);
}

void FileDifferences(const System& system, std::vector<Difference>& out) {
  // An interrupted transaction's files are half-changed by rocmtune itself, not by someone
  // else: JournalDifferences reports it, and no drift is claimed for them.
  std::vector<std::string> interrupted;
  for (const auto& t : system.journal)
    if (t.state == journal::State::kIncomplete)
      for (const auto& op : t.ops) interrupted.push_back(op.path);
  std::vector<std::string> paths;
  for (const auto& t : system.journal)
    for (const auto& op : t.ops)
      if ((op.kind == plan::OpKind::kWriteFile || op.kind == plan::OpKind::kRemoveFile) && plan::IsOwnedFile(op.path) &&
          std::find(paths.begin(), paths.end(), op.path) == paths.end())
        paths.push_back(op.path);
  for (const std::string& p : paths) {
    if (std::find(interrupted.begin(), interrupted.end(), p) != interrupted.end()) continue;
    auto read = system.root.ReadFile(p);
    // Unreadable is not removed: UnreadableDifferences reports it with the reason.
    if (!read && read.error().code != ErrorCode::kNotFound) continue;
    std::optional<std::string> current = read ? std::optional(*read) : std::nullopt;
    if (journal::IsDrift(system.journal, p, current))
      out.push_back({DifferenceKind::kDrift, "/" + p, std::nullopt, std::nullopt,
                     current ? "edited by someone else since rocmtune wrote it" : "removed by someone else"});
  }
}

// Interrupted transactions, regenerations not run, temporaries a cut-short write left.
void JournalDifferences(const System& system, std::vector<Difference>& out) {
  for (journal::Attention& a : journal::NeedsAttention(system.root, system.journal))
    out.push_back({DifferenceKindOf(a.kind), std::move(a.subject), std::nullopt, std::nullopt, std::move(a.message)});
}

// Files that decide what rocmtune reports but cannot be read: nothing about them is verified.
void UnreadableDifferences(const System& system, std::vector<Difference>& out) {
  for (const detect::Finding& f : knobs::UnreadableFileFindings(system.Context()))
    out.push_back({DifferenceKind::kUnreadable, f.subject, std::nullopt, std::nullopt, f.what});
}

// The runtime attributes rocmtune keeps set (knobs/runtime_state.h): the driver puts its default
// back at a GPU reset or reboot (writing them again is the daemon's job). Compared through the
// attribute's codec: a table reads with '*' on the active row, never as the value written.
// Who else may have written `value` to `attribute` (detect/other_writers.h): power-profiles-
// daemon's amdgpu_dpm action writes only auto and low to the performance level; tuned the values of
// its [sysfs] lines; GameMode its [gpu] level; LACT's and CoreCtrl's profiles write any attribute. "" when no writer
// found here could have.
std::string OtherWriterOf(const System& system, std::string_view attribute, std::string_view value) {
  using detect::FindingId;
  for (const detect::Finding& f : system.inventory.findings) {
    if (f.id == detect::FindingName(FindingId::kWriterPowerProfilesDaemon) &&
        f.severity == detect::Severity::kWarning && attribute == "power_dpm_force_performance_level" &&
        (value == "auto" || value == "low"))
      return fmt::format("power-profiles-daemon's amdgpu_dpm action writes {} ({})", value,
                         value == "low" ? "its power-saver profile" : "its balanced and performance profiles");
    if (f.id == detect::FindingName(FindingId::kWriterTuned) && f.severity == detect::Severity::kWarning &&
        f.what.find(fmt::format("/{}={}", attribute, value)) != std::string::npos)
      return "tuned's active profile writes it ([sysfs])";
    if (f.id == detect::FindingName(FindingId::kWriterGameMode) && attribute == "power_dpm_force_performance_level" &&
        f.what.find(fmt::format(" to {} while", value)) != std::string::npos)
      return "GameMode sets it while a game runs";
    if (f.id == detect::FindingName(FindingId::kWriterLact)) return "LACT's daemon (lactd) may have written it";
    if (f.id == detect::FindingName(FindingId::kWriterCoreCtrl)) return "CoreCtrl's helper may have written it";
  }
  return "";
}

void SysfsDifferences(const System& system, std::vector<Difference>& out) {
  for (const knobs::RuntimeSetting& r : knobs::DesiredRuntime(system.root)) {
    const detect::Gpu* gpu = nullptr;
    for (const detect::Gpu& g : system.inventory.gpus)
      if (g.id == r.device) gpu = &g;
    const knobs::SysfsAttribute* attr = knobs::FindSysfsAttribute(r.attribute);
    if (!gpu || !gpu->device_dir || !attr) {
      out.push_back({DifferenceKind::kSysfs, fmt::format("{} {}", r.device, r.attribute), r.value, std::nullopt,
                     fmt::format("rocmtune keeps {} set on {}, which is not here", r.value, r.device)});
      continue;
    }
    const std::string path = fmt::format("{}/{}", *gpu->device_dir, r.attribute);
    auto read = system.root.ReadFile(path, 65536);
    std::optional<std::string> current = read ? attr->codec->Current(*read) : std::nullopt;
    if (current == r.value) continue;
    std::string shown = !read ? "unreadable" : current.value_or("no value it can name");
    std::string writer = current ? OtherWriterOf(system, r.attribute, *current) : "";
    out.push_back({DifferenceKind::kSysfs, "/" + path, r.value, shown,
                   writer.empty()
                       ? fmt::format("rocmtune keeps {} set, it reads {} (a GPU reset or reboot puts the driver's "
                                     "value back; `rocmtunectl set` writes it again)",
                                     r.value, shown)
                       : fmt::format("rocmtune keeps {} set, it reads {}: {} (status names it; `rocmtunectl set` "
                                     "writes it again until it writes once more)",
                                     r.value, shown, writer)});
  }
}

// The active profile's settings, as its apply recorded them, still configured: a later `set`
// or `unset` of one of its keys makes the system differ from the profile.
// A kernel command line is read from the boot loader's files, which a pending regeneration has
// not yet rebuilt (grubby's BLS entries, kernel-install's): that row says so, and a profile's
// command-line value is not "changed since" for it.
void ProfileDifferences(const System& system, std::vector<Difference>& out) {
  const journal::Transaction* apply = journal::ActiveApply(system.journal);
  if (!apply) return;
  const bool boot_files_pending = std::any_of(out.begin(), out.end(), [](const Difference& d) {
    auto regenerator =
        d.kind == DifferenceKind::kPendingRegeneration ? plan::ParseRegenerator(d.subject) : std::nullopt;
    return regenerator && plan::Row(*regenerator).backend == plan::BackendId::kBootloader;
  });
  auto ctx = system.Context();
  for (const knobs::Assignment& a : profiles::AppliedAssignments(*apply)) {
    const knobs::Backend* backend = knobs::Registry::Builtin().For(a.key);
    if (!backend) continue;
    if (boot_files_pending && a.key.kind == knobs::KnobKind::kCmdline) continue;
    knobs::KnobState state = backend->Read(ctx, a.key);
    // A runtime attribute: what the device runs is what counts.
    std::optional<std::string> now = a.key.kind == knobs::KnobKind::kSysfs ? state.running : state.configured;
    if (now == a.value) continue;
    out.push_back({DifferenceKind::kProfile, a.key.Text(), now, state.running,
                   fmt::format("profile {} (transaction {}) set {}, now {}", apply->intent.profile, apply->id, a.value,
                               now ? fmt::format("it is {}", *now) : std::string("it is not set"))});
  }
  for (const std::string& arg : apply->intent.args) {
    if (arg.find('=') != std::string::npos) continue;
    auto key = knobs::ParseKnobKey(arg);
    const knobs::Backend* backend = key ? knobs::Registry::Builtin().For(*key) : nullptr;
    if (!backend) continue;
    std::vector<knobs::KnobKey> owned = backend->OwnedKeys(ctx);
    if (std::find(owned.begin(), owned.end(), *key) == owned.end()) continue;
    knobs::KnobState state = backend->Read(ctx, *key);
    out.push_back({DifferenceKind::kProfile, key->Text(), state.configured, state.running,
                   fmt::format("profile {} (transaction {}) unsets it, but rocmtune configures it again",
                               apply->intent.profile, apply->id)});
  }
}

}  // namespace

std::span<const DifferenceKindRow> DifferenceKinds() { return kDifferenceKinds; }

const DifferenceKindRow& Row(DifferenceKind kind) {
  return *std::find_if(std::begin(kDifferenceKinds), std::end(kDifferenceKinds),
                       [&](const DifferenceKindRow& r) { return r.kind == kind; });
}

std::string_view DifferenceKindName(DifferenceKind kind) { return Row(kind).name; }

DifferenceKind DifferenceKindOf(journal::AttentionKind kind) {
  return std::find_if(std::begin(kDifferenceKinds), std::end(kDifferenceKinds),
                      [&](const DifferenceKindRow& r) { return r.attention == kind; })
      ->kind;
}

VerifyReport Verify(const System& system) {
  VerifyReport report{journal::ActiveProfile(system.journal), {}};
  JournalDifferences(system, report.differences);
  KnobDifferences(system, report.differences);
  BootImageDifferences(system, report.differences);
  FileDifferences(system, report.differences);
  UnreadableDifferences(system, report.differences);
  SysfsDifferences(system, report.differences);
  ProfileDifferences(system, report.differences);
  OneRowPerKnob(report.differences);
  return report;
}

nlohmann::ordered_json VerifyJson(const VerifyReport& report) {
  json list = json::array();
  for (const auto& d : report.differences)
    list.push_back(WithSizes({{"kind", DifferenceKindName(d.kind)},
                              {"subject", d.subject},
                              {"configured", d.configured ? json(*d.configured) : json(nullptr)},
                              {"running", d.running ? json(*d.running) : json(nullptr)},
                              {"message", d.message}},
                             d.subject));
  return json{{"schema", "rocmtune.verify.v1"},
              {"active_profile", report.active_profile.empty() ? nlohmann::ordered_json(nullptr)
                                                               : nlohmann::ordered_json(report.active_profile)},
              {"ok", report.ok()},
              {"differences", std::move(list)}};
}

}  // namespace rocmtune::api
