// `rocmtunectl history`, `revert [ID|last]`, `reset`: the journal's verbs.
#include <fmt/format.h>

#include "client/change.h"
#include "client/exit_codes.h"
#include "client/knob_context.h"
#include "client/table.h"
#include "client/verbs.h"
#include "journal/history.h"
#include "journal/revert.h"
#include "planner/planner.h"
#include "util/json_text.h"

namespace rocmtune::client {
namespace {

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

std::string StateOf(const std::vector<journal::Transaction>& txns, const journal::Transaction& t) {
  if (t.state != journal::State::kCommitted) return std::string(journal::StateName(t.state));
  return journal::IsReverted(txns, t) ? "reverted" : "in effect";
}

}  // namespace

int RunHistory(const Context& ctx) {
  auto system = LoadSystem(ctx);
  if (!system) return kExitFailed;
  const auto& txns = system->journal;
  if (ctx.json) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& t : txns) {
      nlohmann::ordered_json paths = nlohmann::ordered_json::array();
      for (const auto& op : t.ops) paths.push_back(op.path);
      list.push_back({{"id", t.id}, {"time", t.time}, {"verb", t.intent.verb}, {"profile", t.intent.profile},
                      {"args", t.intent.args}, {"with", t.intent.with}, {"reverts", t.intent.reverts.empty() ? nlohmann::ordered_json(nullptr)
                                                                                      : nlohmann::ordered_json(t.intent.reverts)},
                      {"state", journal::StateName(t.state)}, {"reverted", journal::IsReverted(txns, t)},
                      {"changes", std::move(paths)}});
    }
    nlohmann::ordered_json doc = {{"schema", "rocmtune.history.v1"},
                                  {"active_profile", journal::ActiveProfile(txns)},
                                  {"transactions", std::move(list)}};
    fmt::print("{}\n", JsonText(doc));
    return kExitOk;
  }
  if (txns.empty()) {
    fmt::print("No transactions: rocmtune has changed nothing on {}.\n", system->root.Display(""));
    return kExitOk;
  }
  Table table({"ID", "TIME", "WHAT", "CHANGES", "STATE"});
  for (const auto& t : txns) table.AddRow({t.id, t.time, What(t), std::to_string(t.ops.size()), StateOf(txns, t)});
  fmt::print("{}", table.Render());
  return kExitOk;
}

int RunRevert(const Context& ctx, const std::string& id, const ChangeOptions& options) {
  std::vector<plan::Message> recovery;
  auto system = LoadSystemForChange(ctx, options, recovery);
  if (!system) return kExitFailed;
  const auto& txns = system->journal;
  const journal::Transaction* txn = nullptr;
  if (id.empty() || id == "last") {
    txn = journal::LastRevertible(txns);
    if (!txn) {
      // Nothing left to undo is the state the caller wants: like any idempotent verb, done.
      plan::Plan empty;
      empty.intent = {"revert", "", {}, "", {}};
      empty.warnings = recovery;
      empty.warnings.push_back({"", "no transaction in effect to revert", ""});
      return RunChange(ctx, std::move(empty), options);
    }
  } else {
    txn = journal::Find(txns, id);
    if (!txn) {
      fmt::print(stderr, "rocmtunectl: no transaction {} (see rocmtunectl history)\n", id);
      return kExitUsage;
    }
    if (txn->state != journal::State::kCommitted || journal::IsReverted(txns, *txn)) {
      plan::Plan empty;
      empty.intent = {"revert", "", {}, txn->id, {}};
      empty.warnings = recovery;
      empty.warnings.push_back({"", fmt::format("transaction {} is not in effect ({})", txn->id,
                                                journal::IsReverted(txns, *txn) ? "already reverted"
                                                                                : journal::StateName(txn->state)), ""});
      return RunChange(ctx, std::move(empty), options);
    }
  }
  plan::Plan plan = journal::RevertPlan(system->root, txns, *txn, options.force);
  plan.warnings.insert(plan.warnings.begin(), recovery.begin(), recovery.end());
  return RunChange(ctx, std::move(plan), options);
}

int RunReset(const Context& ctx, const ChangeOptions& options) {
  std::vector<plan::Message> recovery;
  auto system = LoadSystemForChange(ctx, options, recovery);
  if (!system) return kExitFailed;
  auto kctx = system->Context();
  plan::Plan plan = plan::PlanRequest(kctx, plan::ResetRequest(kctx));
  plan.intent = {"reset", "", {}, "", {}};
  plan.warnings.insert(plan.warnings.begin(), recovery.begin(), recovery.end());
  AddDriftConflicts(system->root, system->journal, plan);
  return RunChange(ctx, std::move(plan), options);
}

}  // namespace rocmtune::client
