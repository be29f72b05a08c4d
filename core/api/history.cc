#include "api/history.h"

#include <fmt/format.h>

#include "journal/history.h"

namespace rocmtune::api {
namespace {

using json = nlohmann::ordered_json;

std::string What(const journal::Transaction& t) {
  if (t.intent.verb == "apply") {
    std::string out = fmt::format("apply {}", t.intent.profile);
    for (const std::string& id : t.intent.with) out += " --with " + id;
    return out;
  }
  if (t.intent.verb == "revert") return fmt::format("revert {}", t.intent.reverts);
  std::string out = t.intent.verb;
  for (const std::string& a : t.intent.args) out += " " + a;
  return out;
}

}  // namespace

HistoryReport History(const System& system) {
  const auto& txns = system.journal;
  HistoryReport report{journal::ActiveProfile(txns), {}};
  for (const journal::Transaction& t : txns) {
    bool reverted = journal::IsReverted(txns, t);
    std::string state = t.state != journal::State::kCommitted ? std::string(journal::StateName(t.state))
                        : reverted                            ? "reverted"
                                                              : "in effect";
    report.entries.push_back({&t, What(t), std::move(state), reverted});
  }
  return report;
}

json HistoryJson(const HistoryReport& report) {
  json list = json::array();
  for (const HistoryEntry& e : report.entries) {
    const journal::Transaction& t = *e.txn;
    json paths = json::array();
    for (const auto& op : t.ops) paths.push_back(op.path);
    list.push_back({{"id", t.id},
                    {"time", t.time},
                    {"verb", t.intent.verb},
                    {"profile", t.intent.profile},
                    {"args", t.intent.args},
                    {"with", t.intent.with},
                    {"reverts", t.intent.reverts.empty() ? json(nullptr) : json(t.intent.reverts)},
                    {"state", journal::StateName(t.state)},
                    {"reverted", e.reverted},
                    {"changes", std::move(paths)}});
  }
  return json{
      {"schema", "rocmtune.history.v1"}, {"active_profile", report.active_profile}, {"transactions", std::move(list)}};
}

}  // namespace rocmtune::api
