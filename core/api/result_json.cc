#include "api/result_json.h"

#include <nlohmann/json.hpp>

#include "api/boot_image_json.h"
#include "plan/unified_diff.h"

namespace rocmtune::api {

using json = nlohmann::ordered_json;

namespace {

json Messages(const std::vector<plan::Message>& messages) {
  json out = json::array();
  for (const auto& m : messages)
    out.push_back({{"key", m.key.empty() ? json(nullptr) : json(m.key)},
                   {"message", m.message},
                   {"source", m.source.empty() ? json(nullptr) : json(m.source)}});
  return out;
}

}  // namespace

json ResultJson(const plan::Plan& plan, const Outcome& outcome) {
  json changes = json::array();
  for (const plan::Op& op : plan.ops) {
    json c = {{"backend", plan::Name(op.backend)},
              {"action", plan::OpKindName(op.kind)},
              {"path", op.path},
              {"reason", op.reason}};
    if (op.kind == plan::OpKind::kWriteFile || op.kind == plan::OpKind::kRemoveFile) {
      c["diff"] = plan::UnifiedDiff(op.path, op.before, op.after);
    } else if (op.kind == plan::OpKind::kWriteSysfs) {
      c["before"] = op.before ? json(*op.before) : json(nullptr);
      c["value"] = op.after ? json(*op.after) : json(nullptr);
    } else {
      c["argv"] = op.argv;
    }
    changes.push_back(std::move(c));
  }
  bool blocked = !plan.refused.empty() || (!outcome.changed && !outcome.forced && !plan.conflicts.empty());
  // A check reports what the run will report: a transaction committed (plan::WillRecord), which
  // includes an apply that only makes its profile the active one; a run reports what did.
  bool changed = outcome.check ? !blocked && plan::WillRecord(plan) : outcome.changed;
  auto regen = [&](const std::optional<plan::Regen>& done, plan::Regen planned) {
    if (done) return plan::RegenName(*done);
    return blocked || (!outcome.check && !outcome.changed) ? plan::RegenName(plan::Regen::kNo)
                                                           : plan::RegenName(planned);
  };
  json doc{
      {"schema", kResultSchema},
      {"changed", changed},
      {"check", outcome.check},
      {"transaction", outcome.transaction ? json(*outcome.transaction) : json(nullptr)},
      {"reboot_required", changed && plan.reboot_required},
      {"regenerated",
       {{"initramfs", regen(outcome.initramfs, plan.initramfs)},
        {"bootloader", regen(outcome.bootloader, plan.bootloader)}}},
      {"changes", std::move(changes)},
      {"warnings", Messages(plan.warnings)},
      {"notes", Messages(plan.notes)},
      {"refused", Messages(plan.refused)},
      {"conflicts", Messages(plan.conflicts)},
      {"errors", outcome.errors},
  };
  if (outcome.boot_image) doc["boot_image"] = BootImageJson(*outcome.boot_image);
  return doc;
}

}  // namespace rocmtune::api
