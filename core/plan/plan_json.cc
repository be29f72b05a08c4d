#include "plan/plan_json.h"

#include <array>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "util/content_json.h"
#include "util/json_limits.h"

namespace rocmtune::plan {

using json = nlohmann::ordered_json;

namespace {

constexpr std::array<std::pair<OpKind, std::string_view>, 4> kOpKinds = {{
    {OpKind::kWriteFile, "write"},
    {OpKind::kRemoveFile, "remove"},
    {OpKind::kWriteSysfs, "sysfs-write"},
    {OpKind::kRegenerate, "regenerate"},
}};

constexpr std::array<std::pair<Regen, std::string_view>, 3> kRegens = {{
    {Regen::kNo, "no"},
    {Regen::kPending, "pending"},
    {Regen::kDone, "done"},
}};

Result<std::string> String(const json& obj, std::string_view key, std::string_view where, bool required = true) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (!required) return std::string();
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: \"{}\" is missing", where, key));
  }
  if (!it->is_string()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: \"{}\" must be a string", where, key));
  return it->get<std::string>();
}

Result<std::vector<std::string>> Strings(const json& obj, std::string_view key, std::string_view where) {
  std::vector<std::string> out;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return out;
  if (!it->is_array()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: \"{}\" must be an array", where, key));
  for (const json& e : *it) {
    if (!e.is_string())
      return Fail(ErrorCode::kInvalidData, fmt::format("{}: \"{}\" must hold only strings", where, key));
    out.push_back(e.get<std::string>());
  }
  return out;
}

Result<std::vector<Message>> Messages(const json& doc, std::string_view key) {
  std::vector<Message> out;
  auto it = doc.find(key);
  if (it == doc.end()) return out;
  if (!it->is_array()) return Fail(ErrorCode::kInvalidData, fmt::format("plan: \"{}\" must be an array", key));
  for (const json& m : *it) {
    if (!m.is_object()) return Fail(ErrorCode::kInvalidData, fmt::format("plan: \"{}\" entries must be objects", key));
    auto k = String(m, "key", key, false);
    auto text = String(m, "message", key);
    auto source = String(m, "source", key, false);
    if (!k) return tl::unexpected(k.error());
    if (!text) return tl::unexpected(text.error());
    if (!source) return tl::unexpected(source.error());
    out.push_back({*k, *text, *source});
  }
  return out;
}

// obj[key] without a copy (copying a JSON value recurses once per level), null when absent.
const json& Member(const json& obj, std::string_view key) {
  static const json kNull;
  auto it = obj.find(key);
  return it == obj.end() ? kNull : *it;
}

// "root": {"dev": N, "ino": N}, the directory the plan was made for; absent in plans made before
// roots were pinned (the helper refuses those).
Result<std::optional<sys::RootId>> RootIdFromJson(const json& doc) {
  auto it = doc.find("root");
  if (it == doc.end() || it->is_null()) return std::optional<sys::RootId>();
  auto dev = it->is_object() ? it->find("dev") : it->end();
  auto ino = it->is_object() ? it->find("ino") : it->end();
  if (!it->is_object() || dev == it->end() || ino == it->end() || !dev->is_number_unsigned() ||
      !ino->is_number_unsigned())
    return Fail(ErrorCode::kInvalidData, "plan: \"root\" must be {\"dev\": N, \"ino\": N}");
  return std::optional<sys::RootId>(sys::RootId{dev->get<uint64_t>(), ino->get<uint64_t>()});
}

json MessagesToJson(const std::vector<Message>& messages) {
  json out = json::array();
  for (const Message& m : messages) out.push_back({{"key", m.key}, {"message", m.message}, {"source", m.source}});
  return out;
}

}  // namespace

std::string_view OpKindName(OpKind kind) {
  for (const auto& [k, name] : kOpKinds)
    if (k == kind) return name;
  return "?";
}

std::string_view RegenName(Regen regen) {
  for (const auto& [r, name] : kRegens)
    if (r == regen) return name;
  return "no";
}

Result<OpKind> ParseOpKind(std::string_view name) {
  for (const auto& [k, n] : kOpKinds)
    if (n == name) return k;
  return Fail(ErrorCode::kInvalidData, fmt::format("unknown op kind \"{}\"", name));
}

Result<Regen> ParseRegen(std::string_view name) {
  for (const auto& [r, n] : kRegens)
    if (n == name) return r;
  return Fail(ErrorCode::kInvalidData, fmt::format("unknown regeneration state \"{}\"", name));
}

json IntentToJson(const Intent& intent) {
  json j = {{"verb", intent.verb}, {"profile", intent.profile}, {"args", intent.args}, {"reverts", intent.reverts}};
  if (!intent.with.empty()) j["with"] = intent.with;  // absent in journals written before --with was recorded
  if (intent.resets) j["resets"] = true;              // absent: false (and in journals before it was recorded)
  return j;
}

Result<Intent> IntentFromJson(const json& j) {
  if (!j.is_object()) return Fail(ErrorCode::kInvalidData, "intent: must be an object");
  Intent intent;
  auto verb = String(j, "verb", "intent");
  if (!verb) return tl::unexpected(verb.error());
  auto profile = String(j, "profile", "intent", false);
  if (!profile) return tl::unexpected(profile.error());
  auto args = Strings(j, "args", "intent");
  if (!args) return tl::unexpected(args.error());
  auto reverts = String(j, "reverts", "intent", false);
  if (!reverts) return tl::unexpected(reverts.error());
  auto with = Strings(j, "with", "intent");
  if (!with) return tl::unexpected(with.error());
  bool resets = false;
  if (auto it = j.find("resets"); it != j.end()) {
    if (!it->is_boolean()) return Fail(ErrorCode::kInvalidData, "intent: \"resets\" must be true or false");
    resets = it->get<bool>();
  }
  return Intent{*verb, *profile, *args, *reverts, *with, resets};
}

json OpToJson(const Op& op) {
  return {{"kind", OpKindName(op.kind)},
          {"backend", Name(op.backend)},
          {"path", op.path},
          {"before", ContentToJson(op.before)},
          {"after", ContentToJson(op.after)},
          {"argv", op.argv},
          {"reason", op.reason}};
}

Result<Op> OpFromJson(const json& j, size_t index) {
  std::string where = fmt::format("op {}", index);
  if (!j.is_object()) return Fail(ErrorCode::kInvalidData, where + ": must be an object");
  Op op;
  auto kind = String(j, "kind", where);
  if (!kind) return tl::unexpected(kind.error());
  auto parsed = ParseOpKind(*kind);
  if (!parsed) return Fail(ErrorCode::kInvalidData, fmt::format("{}: {}", where, parsed.error().message));
  op.kind = *parsed;
  auto backend = String(j, "backend", where);
  auto path = String(j, "path", where);
  auto reason = String(j, "reason", where, false);
  auto argv = Strings(j, "argv", where);
  if (!backend) return tl::unexpected(backend.error());
  if (!path) return tl::unexpected(path.error());
  if (!reason) return tl::unexpected(reason.error());
  if (!argv) return tl::unexpected(argv.error());
  auto backend_id = ParseBackendId(*backend);
  if (!backend_id) return Fail(ErrorCode::kInvalidData, fmt::format("{}: unknown backend \"{}\"", where, *backend));
  op.backend = *backend_id;
  op.path = *path;
  op.reason = *reason;
  op.argv = *argv;
  auto before = ContentFromJson(Member(j, "before"), where + " before");
  auto after = ContentFromJson(Member(j, "after"), where + " after");
  if (!before) return tl::unexpected(before.error());
  if (!after) return tl::unexpected(after.error());
  op.before = std::move(*before);
  op.after = std::move(*after);
  // The executor writes *after and runs argv[0]: an op without them is not one to carry out.
  bool writes = op.kind == OpKind::kWriteFile || op.kind == OpKind::kWriteSysfs;
  if (writes != op.after.has_value())
    return Fail(ErrorCode::kInvalidData,
                fmt::format("{}: a {} op {} \"after\"", where, *kind, writes ? "needs" : "takes no"));
  if (op.kind == OpKind::kRegenerate && op.argv.empty())
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: a regenerate op needs \"argv\"", where));
  if (op.kind == OpKind::kRegenerate && !ParseRegenerator(op.path))
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: \"{}\" is not a regenerator rocmtune knows", where, op.path));
  return op;
}

json PlanToJson(const Plan& plan) {
  json ops = json::array();
  for (const Op& op : plan.ops) ops.push_back(OpToJson(op));
  json doc = {{"schema", kPlanSchema},
              {"intent", IntentToJson(plan.intent)},
              {"ops", std::move(ops)},
              {"reboot_required", plan.reboot_required},
              {"initramfs", RegenName(plan.initramfs)},
              {"bootloader", RegenName(plan.bootloader)},
              {"warnings", MessagesToJson(plan.warnings)},
              {"refused", MessagesToJson(plan.refused)},
              {"conflicts", MessagesToJson(plan.conflicts)}};
  if (plan.record_if_empty) doc["record_if_empty"] = true;
  if (plan.root) doc["root"] = {{"dev", plan.root->dev}, {"ino", plan.root->ino}};
  return doc;
}

Result<Plan> PlanFromJson(std::string_view text) {
  if (text.size() > kMaxPlanBytes)
    return Fail(ErrorCode::kTooLarge,
                fmt::format("plan: {} bytes is over the {} byte limit", text.size(), kMaxPlanBytes));
  auto parsed = ParseBoundedJson(text, "plan");
  if (!parsed) return tl::unexpected(parsed.error());
  const json& doc = *parsed;
  if (!doc.is_object()) return Fail(ErrorCode::kInvalidData, "plan: the document must be an object");
  auto schema = String(doc, "schema", "plan");
  if (!schema) return tl::unexpected(schema.error());
  if (*schema != kPlanSchema)
    return Fail(ErrorCode::kInvalidData, fmt::format("plan: schema \"{}\" is not {}", *schema, kPlanSchema));
  Plan plan;
  auto intent = IntentFromJson(Member(doc, "intent"));
  if (!intent) return tl::unexpected(intent.error());
  plan.intent = std::move(*intent);
  const json& ops = Member(doc, "ops");
  if (!ops.is_array()) return Fail(ErrorCode::kInvalidData, "plan: \"ops\" must be an array");
  for (size_t i = 0; i < ops.size(); ++i) {
    auto op = OpFromJson(ops[i], i);
    if (!op) return tl::unexpected(op.error());
    plan.ops.push_back(std::move(*op));
  }
  if (doc.contains("reboot_required")) {
    const json& reboot = Member(doc, "reboot_required");
    if (!reboot.is_boolean()) return Fail(ErrorCode::kInvalidData, "plan: \"reboot_required\" must be true or false");
    plan.reboot_required = reboot.get<bool>();
  }
  if (doc.contains("record_if_empty")) {
    const json& record = Member(doc, "record_if_empty");
    if (!record.is_boolean()) return Fail(ErrorCode::kInvalidData, "plan: \"record_if_empty\" must be true or false");
    plan.record_if_empty = record.get<bool>();
  }
  for (auto [key, field] : {std::pair{"initramfs", &plan.initramfs}, std::pair{"bootloader", &plan.bootloader}}) {
    auto name = String(doc, key, "plan", false);
    if (!name) return tl::unexpected(name.error());
    if (name->empty()) continue;
    auto regen = ParseRegen(*name);
    if (!regen) return Fail(ErrorCode::kInvalidData, fmt::format("plan: {}", regen.error().message));
    *field = *regen;
  }
  auto warnings = Messages(doc, "warnings");
  auto refused = Messages(doc, "refused");
  auto conflicts = Messages(doc, "conflicts");
  if (!warnings) return tl::unexpected(warnings.error());
  if (!refused) return tl::unexpected(refused.error());
  if (!conflicts) return tl::unexpected(conflicts.error());
  plan.warnings = std::move(*warnings);
  plan.refused = std::move(*refused);
  plan.conflicts = std::move(*conflicts);
  auto root = RootIdFromJson(doc);
  if (!root) return tl::unexpected(root.error());
  plan.root = *root;
  return plan;
}

}  // namespace rocmtune::plan
