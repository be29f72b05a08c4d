#include "api/history.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "journal/history.h"
#include "journal/writer_probe.h"

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
  std::vector<journal::Effect> effects = journal::Effects(txns);
  // The last transaction may be incomplete because a helper is writing it now.
  const bool running = journal::LastIsRunning(system.root, txns);
  for (size_t i = 0; i < txns.size(); ++i) {
    const journal::Transaction& t = txns[i];
    journal::Effect& e = effects[i];
    std::string state;
    if (running && i + 1 == txns.size()) state = "running";
    else if (t.state != journal::State::kCommitted) state = journal::StateName(t.state);
    else if (!e.reverted_by.empty()) state = fmt::format("reverted by {}", e.reverted_by);
    else if (!e.superseded_by.empty())
      state = fmt::format("superseded by {} ({})", e.superseded_by, journal::Find(txns, e.superseded_by)->intent.verb);
    else state = "in effect";
    report.entries.push_back({&t, What(t), std::move(state), !e.reverted_by.empty(), e.in_effect,
                              std::move(e.reverted_by), std::move(e.superseded_by)});
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
                    {"what", e.what},
                    // "running": incomplete because a helper is writing it now (LastIsRunning).
                    {"state", e.state == "running" ? std::string_view("running") : journal::StateName(t.state)},
                    {"effect", e.state},
                    {"reverted", e.reverted},
                    {"in_effect", e.in_effect},
                    {"reverted_by", e.reverted_by.empty() ? json(nullptr) : json(e.reverted_by)},
                    {"superseded_by", e.superseded_by.empty() ? json(nullptr) : json(e.superseded_by)},
                    {"changes", std::move(paths)}});
  }
  return json{{"schema", "rocmtune.history.v1"},
              {"active_profile", report.active_profile.empty() ? nlohmann::ordered_json(nullptr)
                                                               : nlohmann::ordered_json(report.active_profile)},
              {"transactions", std::move(list)}};
}

Result<std::string> ReadActiveProfile(const sys::Root& root) {
  auto txns = journal::Load(root);
  if (!txns) return tl::unexpected(txns.error());
  return journal::ActiveProfile(*txns);
}

bool HasIncomplete(const sys::Root& root) {
  auto txns = journal::Load(root);
  return txns && std::any_of(txns->begin(), txns->end(),
                             [](const journal::Transaction& t) { return t.state == journal::State::kIncomplete; });
}

}  // namespace rocmtune::api
