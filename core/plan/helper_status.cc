#include "plan/helper_status.h"

#include <utility>

#include <nlohmann/json.hpp>

#include "plan/plan_json.h"
#include "util/enum_names.h"
#include "util/json_limits.h"

namespace rocmtune::plan {
namespace {

constexpr EnumNames<HelperStatus, 6> kNames = {{
    {HelperStatus::kCommitted, "committed"},
    {HelperStatus::kUnchanged, "unchanged"},
    {HelperStatus::kRefused, "refused"},
    {HelperStatus::kConflict, "conflict"},
    {HelperStatus::kBusy, "busy"},
    {HelperStatus::kFailed, "failed"},
}};
static_assert(Distinct(kNames));

}  // namespace

std::string_view HelperStatusName(HelperStatus status) { return NameOf(kNames, status, "failed"); }

std::optional<HelperStatus> ParseHelperStatus(std::string_view name) { return ParseName(kNames, name); }

nlohmann::ordered_json HelperReplyJson(const HelperReply& r) {
  using reply_json = nlohmann::ordered_json;
  return reply_json{{"schema", kHelperSchema},
                    {"status", HelperStatusName(r.status)},
                    {"transaction", r.transaction.empty() ? reply_json(nullptr) : reply_json(r.transaction)},
                    {"regenerated", {{"initramfs", RegenName(r.initramfs)}, {"bootloader", RegenName(r.bootloader)}}},
                    {"recovered", r.recovered},
                    {"messages", r.messages}};
}

Result<HelperReply> ParseHelperReply(std::string_view text) {
  auto parsed = ParseBoundedJson(text, "rocmtune-helper's reply");
  if (!parsed) return tl::unexpected(parsed.error());
  if (!parsed->is_object()) return Fail(ErrorCode::kInvalidData, "rocmtune-helper's reply is not a JSON object");
  const auto& doc = *parsed;
  auto text_of = [](const nlohmann::ordered_json& obj, const char* key) {
    auto it = obj.find(key);
    return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  HelperReply r;
  auto status = ParseHelperStatus(text_of(doc, "status"));
  if (!status) return Fail(ErrorCode::kInvalidData, "rocmtune-helper's reply has no known status");
  r.status = *status;
  r.transaction = text_of(doc, "transaction");
  if (auto regen = doc.find("regenerated"); regen != doc.end() && regen->is_object()) {
    r.initramfs = ParseRegen(text_of(*regen, "initramfs")).value_or(Regen::kNo);
    r.bootloader = ParseRegen(text_of(*regen, "bootloader")).value_or(Regen::kNo);
  }
  for (auto [key, out] : {std::pair{"messages", &r.messages}, std::pair{"recovered", &r.recovered}}) {
    auto list = doc.find(key);
    if (list == doc.end() || !list->is_array()) continue;
    for (const auto& m : *list)
      if (m.is_string()) out->push_back(m.get<std::string>());
  }
  return r;
}

}  // namespace rocmtune::plan
