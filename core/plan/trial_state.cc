#include "plan/trial_state.h"

#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "plan/plan_json.h"
#include "util/json_limits.h"

namespace rocmtune::plan {

using json = nlohmann::ordered_json;

namespace {

constexpr std::array<std::pair<TrialPhase, std::string_view>, 7> kPhases = {{
    {TrialPhase::kPrepared, "prepared"},
    {TrialPhase::kBooted, "booted"},
    {TrialPhase::kConfirmed, "confirmed"},
    {TrialPhase::kCommitted, "committed"},
    {TrialPhase::kFailed, "failed"},
    {TrialPhase::kCleaned, "cleaned"},
    {TrialPhase::kCancelled, "cancelled"},
}};

tl::unexpected<Error> Bad(std::string_view why) { return Fail(ErrorCode::kInvalidData, fmt::format("trial: {}", why)); }

Result<std::string> Str(const json& obj, std::string_view key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return Bad(fmt::format("\"{}\" must be a string", key));
  return it->get<std::string>();
}

Result<std::vector<std::string>> Strs(const json& obj, std::string_view key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_array()) return Bad(fmt::format("\"{}\" must be an array of strings", key));
  std::vector<std::string> out;
  for (const json& e : *it) {
    if (!e.is_string()) return Bad(fmt::format("\"{}\" must be an array of strings", key));
    out.push_back(e.get<std::string>());
  }
  return out;
}

}  // namespace

std::string_view TrialPhaseName(TrialPhase phase) {
  for (const auto& [p, name] : kPhases)
    if (p == phase) return name;
  return "?";
}

std::optional<TrialPhase> ParseTrialPhase(std::string_view name) {
  for (const auto& [p, n] : kPhases)
    if (n == name) return p;
  return std::nullopt;
}

bool IsPending(TrialPhase phase) {
  return phase == TrialPhase::kPrepared || phase == TrialPhase::kBooted || phase == TrialPhase::kConfirmed;
}

bool IsTrialId(std::string_view id) {
  return id.size() == 8 &&
         std::all_of(id.begin(), id.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::string TrialToken(std::string_view id) { return fmt::format("{}={}", kTrialTokenKey, id); }

json TrialStateToJson(const TrialState& s) {
  json gpus = json::array();
  for (const TrialGpu& g : s.gpus_before) gpus.push_back({{"pci", g.pci}, {"driver", g.driver}});
  json request = IntentToJson(s.request);
  request["admin_lines"] = s.admin_lines;
  request["force"] = s.force;
  return {{"schema", kTrialSchema},
          {"id", s.id},
          {"state", TrialPhaseName(s.state)},
          {"created", s.created},
          {"updated", s.updated},
          {"setup", s.setup},
          {"entry", s.entry},
          {"tokens", s.tokens},
          {"request", std::move(request)},
          {"baseline", {{"gpus", std::move(gpus)}, {"verdict", s.verdict_before}}},
          {"seen", s.seen},
          {"transaction", s.transaction}};
}

std::string TrialStateText(const TrialState& state) { return TrialStateToJson(state).dump(2) + "\n"; }

Result<TrialState> ParseTrialState(std::string_view text) {
  if (text.size() > kMaxTrialStateBytes) return Bad(fmt::format("larger than {} bytes", kMaxTrialStateBytes));
  auto doc = ParseBoundedJson(text, "the trial state");
  if (!doc) return tl::unexpected(doc.error());
  if (!doc->is_object()) return Bad("not a JSON object");
  auto schema = Str(*doc, "schema");
  if (!schema) return tl::unexpected(schema.error());
  if (*schema != kTrialSchema) return Bad(fmt::format("schema \"{}\" is not {}", *schema, kTrialSchema));
  TrialState s;
  for (auto [key, out] : {std::pair<std::string_view, std::string*>{"id", &s.id},
                          {"created", &s.created},
                          {"updated", &s.updated},
                          {"setup", &s.setup},
                          {"entry", &s.entry},
                          {"transaction", &s.transaction}}) {
    auto v = Str(*doc, key);
    if (!v) return tl::unexpected(v.error());
    *out = std::move(*v);
  }
  if (!IsTrialId(s.id)) return Bad("\"id\" must be 8 lowercase hex digits");
  auto state = Str(*doc, "state");
  if (!state) return tl::unexpected(state.error());
  auto phase = ParseTrialPhase(*state);
  if (!phase) return Bad(fmt::format("unknown state \"{}\"", *state));
  s.state = *phase;
  auto tokens = Strs(*doc, "tokens");
  if (!tokens) return tl::unexpected(tokens.error());
  s.tokens = std::move(*tokens);
  auto seen = Strs(*doc, "seen");
  if (!seen) return tl::unexpected(seen.error());
  s.seen = std::move(*seen);
  auto request = doc->find("request");
  if (request == doc->end() || !request->is_object()) return Bad("\"request\" must be an object");
  auto intent = IntentFromJson(*request);
  if (!intent) return tl::unexpected(intent.error());
  s.request = std::move(*intent);
  if (s.request.verb != "apply" && s.request.verb != "set" && s.request.verb != "unset")
    return Bad(fmt::format("request verb \"{}\" is not apply, set or unset", s.request.verb));
  if (auto al = request->find("admin_lines"); al != request->end()) {
    if (!al->is_boolean()) return Bad("\"request.admin_lines\" must be true or false");
    s.admin_lines = al->get<bool>();
  }
  // Absent in a state written before it existed: no --force.
  if (auto force = request->find("force"); force != request->end()) {
    if (!force->is_boolean()) return Bad("\"request.force\" must be true or false");
    s.force = force->get<bool>();
  }
  auto baseline = doc->find("baseline");
  if (baseline == doc->end() || !baseline->is_object()) return Bad("\"baseline\" must be an object");
  auto verdict = Str(*baseline, "verdict");
  if (!verdict) return tl::unexpected(verdict.error());
  s.verdict_before = std::move(*verdict);
  auto gpus = baseline->find("gpus");
  if (gpus == baseline->end() || !gpus->is_array()) return Bad("\"baseline.gpus\" must be an array");
  for (const json& g : *gpus) {
    if (!g.is_object()) return Bad("\"baseline.gpus\" entries must be objects");
    auto pci = Str(g, "pci");
    auto driver = Str(g, "driver");
    if (!pci) return tl::unexpected(pci.error());
    if (!driver) return tl::unexpected(driver.error());
    s.gpus_before.push_back({std::move(*pci), std::move(*driver)});
  }
  return s;
}

}  // namespace rocmtune::plan
