#include "diagnose/advice.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "detect/finding_ids.h"
#include "diagnose/verdict.h"
#include "knobs/admin_lines.h"
#include "knobs/env_sources.h"
#include "knobs/registry.h"
#include "knowledge/catalog.h"
#include "knowledge/known_issues.h"

namespace rocmtune::diagnose {

namespace {

constexpr std::string_view kEnvPrefix = "env.";

bool PendingReboot(const Assessment& a) {
  return std::any_of(a.knobs.begin(), a.knobs.end(), [](const knobs::KnobState& k) { return k.pending_reboot; });
}

void ProfileApplied(const Assessment& a, Finding& f) {
  if (f.fix.profile.empty() || f.fix.profile != a.active_profile) return;
  const std::string profile = std::move(f.fix.profile);
  f.fix.profile.clear();
  std::string applied =
      PendingReboot(a)
          ? fmt::format(
                "The {} profile is applied; reboot to take effect (rocmtunectl status shows what waits "
                "for it).",
                profile)
          : fmt::format("The {} profile is applied and in effect, and this still holds: its cause is elsewhere.",
                        profile);
  f.fix.text = f.fix.text.empty() ? applied : fmt::format("{} {}", applied, f.fix.text);
}

// `unset env.X` removes rocmtune's own line only; lines of the admin's files stay. Each of those
// is named instead, with the opt-in way to comment it out.
void AdminEnvLines(const std::vector<knobs::EnvSetting>& foreign, const Assessment& a, Finding& f) {
  std::vector<std::string> keep;
  for (const std::string& key : f.fix.unset) {
    std::vector<std::string> lines;
    if (!key.starts_with(kEnvPrefix)) {
      keep.push_back(key);
      continue;
    }
    const std::string name = key.substr(kEnvPrefix.size());
    bool owned = std::any_of(a.knobs.begin(), a.knobs.end(), [&](const knobs::KnobState& k) {
      return k.key.Text() == key && k.owner == knobs::Owner::kRocmtune;
    });
    if (owned) keep.push_back(key);
    for (const knobs::EnvSetting& s : foreign)
      if (s.name == name)
        lines.push_back(fmt::format("/{}:{} ({}={})", s.file, s.line, name, s.value ? *s.value : "computed"));
    if (!lines.empty())
      f.fix.text += fmt::format(
          "{}{} is set by a file rocmtune does not manage: remove that line ({}), or let rocmtune comment it out, "
          "journaled and revertible: sudo rocmtunectl unset {} --admin-lines",
          f.fix.text.empty() ? "" : " ", name, fmt::join(lines, ", "), key);
  }
  f.fix.unset = std::move(keep);
}

// What to do about `key`, set by line `line` of `file`, an admin's file: for a modprobe.d line
// that sets that option alone, remove it or let rocmtune comment it out (knobs/admin_lines.h
// decides, as `unset --admin-lines` would); for another line, why it must be edited by hand.
std::string AdminLineText(const sys::Root& root, const std::string& key, const std::string& file, int line) {
  if (file == "proc/cmdline")
    return fmt::format(
        "{} is on the running kernel's command line (/proc/cmdline) and in no file rocmtune reads: "
        "remove it from the boot configuration it comes from",
        key);
  const std::string at = line > 0 ? fmt::format("/{}:{}", file, line) : "/" + file;
  std::optional<plan::AdminLineFile> kind = plan::AdminLineFileOf(file);
  if (kind != plan::AdminLineFile::kModprobe || line <= 0)
    return fmt::format("{} is set by {}, a file rocmtune does not manage: edit it there by hand", key, at);
  auto content = root.ReadFile(file);
  if (!content) return fmt::format("{} is set by {}, a file rocmtune does not manage: edit it there", key, at);
  auto sole = knobs::SoleAssignment(plan::AdminLineFile::kModprobe, *content, static_cast<size_t>(line));
  if (sole && *sole == key)
    return fmt::format(
        "{} is set by {}, a file rocmtune does not manage: remove that line, or let rocmtune comment it out, "
        "journaled and revertible: sudo rocmtunectl unset {} --admin-lines",
        key, at, key);
  return fmt::format("{} is set by {}, a file rocmtune does not manage: edit that line by hand ({})", key, at,
                     sole ? fmt::format("it sets {}", *sole) : sole.error().message);
}

void AddText(Finding& f, const std::string& text) {
  f.fix.text =
      f.fix.text.empty() ? text : fmt::format("{}{} {}", f.fix.text, f.fix.text.ends_with('.') ? "" : ".", text);
}

// A module option of an admin's modprobe.d line (a finding with its file and line): the fix names
// that line.
void AdminModprobeLine(const sys::Root& root, Finding& f) {
  if (f.file.empty() || f.line <= 0 || plan::AdminLineFileOf(f.file) != plan::AdminLineFile::kModprobe) return;
  AddText(f, AdminLineText(root, f.subject, f.file, f.line));
}

// The knob's row of status's table, or its state read now for a knob the table leaves out (one
// nothing configures: the table lists those only when rocmtune manages them).
std::optional<knobs::KnobState> KnobOf(const Facts& facts, const Assessment& a, const std::string& key) {
  auto it =
      std::find_if(a.knobs.begin(), a.knobs.end(), [&](const knobs::KnobState& k) { return k.key.Text() == key; });
  if (it != a.knobs.end()) return *it;
  auto parsed = knobs::ParseKnobKey(key);
  const knobs::Backend* backend = parsed ? knobs::Registry::Builtin().For(*parsed) : nullptr;
  if (!backend) return std::nullopt;
  return backend->Read(facts.Knobs(), *parsed);
}

// A fix's `set` and `unset` (not env.*: AdminEnvLines) against the knobs' table: what rocmtune
// already did is not asked again but said (in effect, or waiting for the next boot), and a value
// an admin's file decides is named by file and line, since rocmtune's own setting would not
// change what boots.
void SettingsInPlace(const Facts& facts, const Assessment& a, Finding& f) {
  const sys::Root& root = facts.root();
  std::vector<std::string> done, admin, keep_set, keep_unset;
  for (const std::string& item : f.fix.set) {
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    const std::optional<knobs::KnobState> k = KnobOf(facts, a, key);
    if (k && k->owner == knobs::Owner::kRocmtune && k->configured == value && !k->overridden) {
      done.push_back(k->pending_reboot ? fmt::format("rocmtune has set {}; it takes effect at the next boot.", item)
                                       : fmt::format("{} is set and in effect.", item));
      continue;
    }
    if (k && k->owner == knobs::Owner::kAdmin && k->configured_in && k->configured != value)
      admin.push_back(AdminLineText(root, key, *k->configured_in, k->configured_line) + ".");
    keep_set.push_back(item);
  }
  for (const std::string& key : f.fix.unset) {
    const std::optional<knobs::KnobState> k = key.starts_with(kEnvPrefix) ? std::nullopt : KnobOf(facts, a, key);
    if (k && !k->configured) {
      // Nothing configures it: unset would change nothing, and the next boot drops what runs.
      if (k->running)
        done.push_back(fmt::format("Nothing configures {} any more: the running kernel keeps {} until the next boot.",
                                   key, *k->running));
      continue;
    }
    if (k && k->owner == knobs::Owner::kAdmin && k->configured_in) {
      admin.push_back(AdminLineText(root, key, *k->configured_in, k->configured_line) + ".");
      continue;  // rocmtune's unset removes only its own setting
    }
    keep_unset.push_back(key);
  }
  f.fix.set = std::move(keep_set);
  f.fix.unset = std::move(keep_unset);
  // What is done comes first (the rest of the fix is then about something else); where the
  // admin's line is, after the fix it is needed for.
  if (!done.empty()) {
    const std::string text = fmt::format("{}", fmt::join(done, " "));
    f.fix.text = f.fix.text.empty() ? text : fmt::format("{} {}", text, f.fix.text);
  }
  for (const std::string& text : admin) AddText(f, text);
}

// Where some GPUs can run ROCm work and others cannot, programs can be kept to the ones that can:
// ROCR_VISIBLE_DEVICES takes the GPUs' indices in KFD's order (ROCm docs, GPU isolation).
void MixedMachine(Assessment& a) {
  std::vector<const detect::Gpu*> by_node;
  for (const detect::Gpu& g : a.inventory.gpus)
    if (g.kfd_node) by_node.push_back(&g);
  std::sort(by_node.begin(), by_node.end(),
            [](const detect::Gpu* x, const detect::Gpu* y) { return *x->kfd_node < *y->kfd_node; });
  std::vector<std::string> good, bad, good_ids;
  for (size_t i = 0; i < by_node.size(); ++i) {
    Verdict v = VerdictFor(a, *by_node[i], knowledge::kWorkloadAny);
    if (v.safe()) {
      good.push_back(std::to_string(i));
      good_ids.push_back(by_node[i]->id);
    } else {
      bad.push_back(by_node[i]->id);
    }
  }
  for (const detect::Gpu& g : a.inventory.gpus)
    if (!g.kfd_node) bad.push_back(g.id);
  if (good.empty() || bad.empty()) return;
  // On a mixed machine the first fix for a GPU without code or with a crash is to keep programs
  // off it, on the GPUs that work (AMD's answer for an iGPU beside a supported card,
  // ROCm/ROCm#3401); changing its code or its ROCm comes after.
  for (Finding& f : a.findings) {
    if (std::find(bad.begin(), bad.end(), f.gpu) == bad.end()) continue;
    if ((f.effect != Effect::kUnsupported && f.effect != Effect::kCrash) || f.severity == Severity::kInfo) continue;
    f.fix.text = fmt::format("Keep programs on {} and off {}: start them with ROCR_VISIBLE_DEVICES={}.{}{}",
                             fmt::join(good_ids, ", "), f.gpu, fmt::join(good, ","),
                             f.fix.text.empty() ? "" : " Or: ", f.fix.text);
  }
  Finding f = MakeFinding(
      FindingName(FindingId::kComputeHideGpus), Severity::kInfo, "ROCR_VISIBLE_DEVICES",
      fmt::format("ROCm programs can run on some GPUs here but not safely on {}", fmt::join(bad, ", ")),
      "ROCr enumerates every GPU KFD lists; a program that touches one that cannot run its code crashes even "
      "when it meant another",
      fmt::format("Start ROCm programs with ROCR_VISIBLE_DEVICES={} (HIP_VISIBLE_DEVICES={} for HIP only) so they "
                  "see only the GPUs that work",
                  fmt::join(good, ","), fmt::join(good, ",")),
      {"ROCm docs conceptual/gpu-isolation.rst (ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES)"});
  a.findings.push_back(std::move(f));
}

}  // namespace

void Advise(const Facts& facts, Assessment& a) {
  const std::vector<knobs::EnvSetting>& foreign = facts.ForeignEnv();
  for (Finding& f : a.findings) {
    ProfileApplied(a, f);
    SettingsInPlace(facts, a, f);
    AdminEnvLines(foreign, a, f);
    AdminModprobeLine(facts.root(), f);
  }
  for (Finding& f : a.log_matches) {
    ProfileApplied(a, f);
    SettingsInPlace(facts, a, f);
    AdminEnvLines(foreign, a, f);
  }
  MixedMachine(a);
}

}  // namespace rocmtune::diagnose
