#include "api/result_json.h"

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

json ResultJson(const plan::Plan& plan, bool check, const std::optional<std::string>& transaction) {
  json changes = json::array();
  for (const plan::Op& op : plan.ops) {
    json c = {{"backend", op.backend}, {"action", plan::OpKindName(op.kind)}, {"path", op.path}, {"reason", op.reason}};
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
  bool refused = !plan.refused.empty();
  return json{
      {"schema", kResultSchema},
      {"changed", !refused && !plan.ops.empty()},
      {"check", check},
      {"transaction", transaction ? json(*transaction) : json(nullptr)},
      {"reboot_required", !refused && plan.reboot_required},
      {"regenerated", {{"initramfs", plan::RegenName(plan.initramfs)}, {"bootloader", plan::RegenName(plan.bootloader)}}},
      {"changes", std::move(changes)},
      {"warnings", Messages(plan.warnings)},
      {"refused", Messages(plan.refused)},
  };
}

}  // namespace rocmtune::api
