// doctor's GPU support check: each GPU's gfx target against the GPU table of the installed ROCm
// release (/opt/rocm/.info/version), from data/rocm_support.toml. A target the release does not
// support is a warning naming the nearest release that does; a machine with an AMD GPU and no
// ROCm release found, or one outside the table, gets an info saying support was not judged.
#include <set>

#include <fmt/format.h>

#include "detect/finding_ids.h"
#include "diagnose/checks.h"
#include "knowledge/rocm_support.h"

namespace rocmtune::diagnose {

namespace {

using detect::Severity;
using knowledge::RocmRelease;
using knowledge::TargetSupport;

constexpr std::string_view kVersionFile = "/opt/rocm/.info/version";

Finding Make(std::string id, Severity severity, std::string subject, std::string what, std::string why) {
  return MakeFinding(std::move(id), severity, std::move(subject), std::move(what), std::move(why));
}

std::string Span(const knowledge::RocmSupport& table) {
  return fmt::format("{} to {}", table.releases().front().version_text, table.releases().back().version_text);
}

Finding Supported(const detect::Gpu& g, const std::string& gfx, const std::string& installed, const RocmRelease& r,
                  TargetSupport status) {
  std::string what = fmt::format("{} is a supported target of ROCm {}", gfx, installed);
  std::string why = fmt::format("AMD's GPU table for ROCm {} lists {}", r.version_text, gfx);
  std::string id = FindingName(FindingId::kRocmGpuSupported);
  if (status == TargetSupport::kDeprecated) {
    id = FindingName(FindingId::kRocmGpuDeprecated);
    what = fmt::format("{} is a deprecated target of ROCm {}", gfx, installed);
    why = fmt::format("AMD's GPU table for ROCm {} marks {} deprecated: still supported, removed in a later release",
                      r.version_text, gfx);
  } else if (status == TargetSupport::kRadeonRyzen) {
    why = fmt::format(
        "AMD's 'Use ROCm on Radeon and Ryzen' Linux pages list {} for ROCm {}; the compatibility matrix does not", gfx,
        r.version_text);
  }
  Finding f = Make(id, Severity::kInfo, g.id, what, why);
  f.kind = Kind::kSupport;
  f.gpu = g.physical_id.empty() ? g.id : g.physical_id;
  f.sources.push_back(r.source);
  f.evidence = {fmt::format("{}: {}", kVersionFile, installed), fmt::format("GPU {} is {}", g.id, gfx)};
  return f;
}

Finding NotSupported(const knowledge::RocmSupport& table, const detect::Gpu& g, const std::string& gfx,
                     const std::string& installed, const knowledge::Version& version, const RocmRelease& r,
                     TargetSupport status) {
  std::string why =
      status == TargetSupport::kUnsupported
          ? fmt::format("AMD's GPU table for ROCm {} lists {} as unsupported: not enabled in its software",
                        r.version_text, gfx)
          : fmt::format("AMD's GPU table for ROCm {} does not list {}", r.version_text, gfx);
  why += "; its prebuilt libraries may carry no code for this GPU (hipErrorNoBinaryForGpu) or are untested on it";
  Finding f = Make(FindingName(FindingId::kRocmGpuNotSupported), Severity::kWarning, g.id,
                   fmt::format("{} is not a supported target of ROCm {}", gfx, installed), why);
  f.kind = Kind::kSupport;
  f.gpu = g.physical_id.empty() ? g.id : g.physical_id;
  f.sources.push_back(r.source);
  f.evidence = {fmt::format("{}: {}", kVersionFile, installed), fmt::format("GPU {} is {}", g.id, gfx)};
  const RocmRelease* nearest = table.NearestSupporting(gfx, version);
  if (!nearest) {
    f.fix.text = fmt::format(
        "No ROCm release from {} supports {}: expect missing code objects; use a supported GPU, or a build of the "
        "stack for {}",
        Span(table), gfx, gfx);
    f.fix.none = "no ROCm release supports this GPU";
    return f;
  }
  bool newer = version < nearest->version;
  f.fix.text = fmt::format("The nearest ROCm release that supports {} is {}{}", gfx, nearest->version_text,
                           newer ? "" : " (older than the one installed)");
  f.fix.rocm = nearest->version_text;
  if (nearest->source != r.source) f.sources.push_back(nearest->source);
  return f;
}

}  // namespace

std::vector<Finding> SupportChecks(const detect::Inventory& inventory) {
  std::vector<Finding> out;
  if (inventory.gpus.empty()) return out;
  const knowledge::RocmSupport& table = knowledge::RocmSupport::Builtin();
  const std::optional<std::string>& installed = inventory.system.rocm_version;
  if (!installed) {
    Finding f = Make(FindingName(FindingId::kRocmNotInstalled), Severity::kInfo, std::string(kVersionFile),
                     "No ROCm install found: GPU support was not checked",
                     fmt::format("{} is where AMD's ROCm packages record the release", kVersionFile));
    f.fix.text = "If ROCm comes from your distribution's packages (not /opt/rocm), check its GPU list yourself";
    f.sources.push_back("ROCm/rocm-core (rocm-core package: /opt/rocm/.info/version)");
    out.push_back(std::move(f));
    return out;
  }
  auto version = knowledge::ParseVersion(*installed);
  const RocmRelease* release = version ? table.ForInstalled(*version) : nullptr;
  if (!release) {
    Finding f = Make(FindingName(FindingId::kRocmSupportUnknown), Severity::kInfo, std::string(kVersionFile),
                     fmt::format("ROCm {} is not in rocmtune's GPU support table ({})", *installed, Span(table)),
                     "GPU support was not checked for this release");
    f.sources.push_back("data/rocm_support.toml");
    f.evidence = {fmt::format("{}: {}", kVersionFile, *installed)};
    out.push_back(std::move(f));
    return out;
  }
  std::set<std::string> seen;  // one verdict per physical GPU, not one per compute partition
  for (const detect::Gpu& g : inventory.gpus) {
    if (!g.gfx_target || !seen.insert(g.physical_id.empty() ? g.id : g.physical_id).second) continue;
    TargetSupport status = release->StatusOf(*g.gfx_target);
    out.push_back(knowledge::Supports(status)
                      ? Supported(g, *g.gfx_target, *installed, *release, status)
                      : NotSupported(table, g, *g.gfx_target, *installed, *version, *release, status));
  }
  return out;
}

}  // namespace rocmtune::diagnose
