#include "profiles/apply_request.h"

#include <algorithm>

#include <fmt/format.h>

#include "knobs/registry.h"

namespace rocmtune::profiles {
namespace {

bool Mentions(const plan::Request& request, const knobs::KnobKey& key) {
  return std::any_of(request.set.begin(), request.set.end(), [&](const auto& a) { return a.key == key; }) ||
         std::any_of(request.unset.begin(), request.unset.end(), [&](const auto& k) { return k == key; });
}

// Still as the previous profile left it: configured by rocmtune to the same value.
bool StillAsApplied(const knobs::KnobContext& ctx, const knobs::Assignment& a) {
  const knobs::Backend* backend = knobs::Registry::Builtin().For(a.key);
  if (!backend) return false;
  std::vector<knobs::KnobKey> owned = backend->OwnedKeys(ctx);
  if (std::find(owned.begin(), owned.end(), a.key) == owned.end()) return false;  // runtime knobs have none
  knobs::KnobState state = backend->Read(ctx, a.key);
  // rocmtune's value under the next boot's command line (`overridden`) is still rocmtune's setting.
  return state.configured == a.value || state.overridden == a.value;
}

}  // namespace

std::vector<knobs::Assignment> AppliedAssignments(const journal::Transaction& apply) {
  std::vector<knobs::Assignment> out;
  for (const std::string& arg : apply.intent.args) {
    if (arg.find('=') == std::string::npos) continue;
    if (auto a = knobs::ParseAssignment(arg)) out.push_back(std::move(*a));
  }
  return out;
}

ApplyRequest BuildApplyRequest(const knobs::KnobContext& ctx, const std::string& profile, const Desired& desired,
                               const journal::Transaction* previous) {
  ApplyRequest out;
  out.intent = {"apply", profile, {}, "", {}};
  if (desired.reset) {
    out.request = plan::ResetRequest(ctx);
    return out;
  }
  out.request = desired.request;
  for (const knobs::Assignment& a : desired.request.set)
    out.intent.args.push_back(fmt::format("{}={}", a.key.Text(), a.value));
  for (const knobs::KnobKey& k : desired.request.unset) out.intent.args.push_back(k.Text());
  if (!previous) return out;
  for (const knobs::Assignment& a : AppliedAssignments(*previous)) {
    if (Mentions(out.request, a.key) || !StillAsApplied(ctx, a)) continue;
    out.request.unset.push_back(a.key);
    out.replaced.push_back({a.key.Text(),
                            fmt::format("{}: set by profile {} (transaction {}), which {} replaces; unset",
                                        a.key.Text(), previous->intent.profile, previous->id, profile),
                            ""});
  }
  return out;
}

}  // namespace rocmtune::profiles
