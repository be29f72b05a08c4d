#include "api/reapply.h"

#include <algorithm>

#include <fmt/format.h>

#include "api/change_internal.h"
#include "knobs/knob_key.h"
#include "knobs/runtime_state.h"
#include "planner/planner.h"

namespace rocmtune::api {
namespace {

const detect::Gpu* FindGpu(const detect::Inventory& inventory, std::string_view name) {
  for (const detect::Gpu& g : inventory.gpus)
    if (g.id == name || g.card == name) return &g;
  return nullptr;
}

// One setting planned as `set` plans it (the sysfs backend reads the attribute, compares through
// its codec, encodes the value in the form the device takes), so a setting already in place has
// no op. Only the attribute writes are kept: what rocmtune keeps set does not change here. A
// value written back that another daemon writes too (its writer.* finding: power-profiles-
// daemon's amdgpu_dpm action writes every card's level at the same GPU add that started this)
// keeps that warning: whichever writes last wins, and the next profile change is the daemon's.
void PlanSetting(const knobs::KnobContext& ctx, const knobs::RuntimeSetting& r, plan::Plan& plan,
                 std::vector<std::string>& failed) {
  plan::Request request;
  request.set.push_back({{knobs::KnobKind::kSysfs, "", r.device, r.attribute}, r.value});
  plan::Plan one = plan::PlanRequest(ctx, request);
  for (const plan::Message& m : one.refused) failed.push_back(fmt::format("not re-applied: {}", m.message));
  if (!one.refused.empty()) return;
  bool written = false;
  for (plan::Op& op : one.ops)
    if (op.kind == plan::OpKind::kWriteSysfs) {
      plan.ops.push_back(std::move(op));
      written = true;
    }
  if (!written) return;
  for (plan::Message& w : one.warnings) {
    bool writer = std::any_of(ctx.inventory.findings.begin(), ctx.inventory.findings.end(), [&](const auto& f) {
      return f.id.starts_with("writer.") && w.message.find(f.what) != std::string::npos;
    });
    bool known = std::any_of(plan.warnings.begin(), plan.warnings.end(),
                             [&](const plan::Message& m) { return m.message == w.message; });
    if (writer && !known) plan.warnings.push_back(std::move(w));
  }
}

}  // namespace

bool IsReapplyCard(std::string_view card) {
  return card.size() <= kMaxReapplyCard && std::all_of(card.begin(), card.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ':' || c == '.';
         });
}

Result<ChangeReport> Reapply(const sys::Root& root, const std::string& card, const ChangeOptions& options,
                             Writer& writer) {
  std::vector<plan::Message> recovery;
  auto system = PrepareChange(root, options, writer, recovery);
  if (!system) return tl::unexpected(system.error());
  ChangeReport report;
  plan::Plan& plan = report.plan;
  plan.intent.verb = "reapply";
  if (!card.empty()) plan.intent.args = {card};
  plan.warnings = std::move(recovery);

  const detect::Gpu* only = nullptr;
  if (!card.empty() && !(only = FindGpu(system->inventory, card))) {
    // udev starts rocmtune-apply@cardN.service for a card that may be gone again by now.
    plan.notes.push_back({"", fmt::format("no amdgpu GPU is '{}' here; nothing to re-apply", card), ""});
    return CarryOut(root, std::move(report), options, writer);
  }

  const knobs::KnobContext ctx = system->Context();
  std::vector<std::string> failed;
  std::vector<std::string> absent;
  size_t kept = 0;
  for (const knobs::RuntimeSetting& r : knobs::DesiredRuntime(system->root)) {
    if (only && r.device != only->id) continue;
    if (!FindGpu(system->inventory, r.device)) {
      if (std::find(absent.begin(), absent.end(), r.device) == absent.end()) absent.push_back(r.device);
      continue;
    }
    ++kept;
    const size_t before = plan.ops.size();
    PlanSetting(ctx, r, plan, failed);
    // The journald entry (EmitChangeEvents) names what is written back, card by card.
    if (plan.ops.size() > before)
      report.knobs.push_back(knobs::KnobKey{knobs::KnobKind::kSysfs, "", r.device, r.attribute}.Text());
  }
  for (const std::string& device : absent)
    plan.notes.push_back(
        {"", fmt::format("{} is not here; rocmtune keeps its runtime settings for when it is back", device), ""});
  if (kept == 0)
    plan.notes.push_back(
        {"",
         fmt::format("rocmtune keeps no runtime setting for {}; nothing to re-apply", only ? only->id : "any GPU here"),
         ""});

  report = CarryOut(root, std::move(report), options, writer);
  // What could not be planned is not in effect: the unit that ran this must fail, so it shows.
  if (!failed.empty()) {
    report.outcome.errors.insert(report.outcome.errors.end(), failed.begin(), failed.end());
    if (report.status == ChangeStatus::kOk) report.status = ChangeStatus::kFailed;
  }
  return report;
}

}  // namespace rocmtune::api
