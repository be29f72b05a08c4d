#include "daemon/change_summary.h"

#include <algorithm>

#include <fmt/format.h>

#include "plan/admin_lines.h"
#include "util/text.h"

namespace rocmtune::daemon {
namespace {

constexpr size_t kMaxText = 400;

std::string KeyOf(const std::string& arg) { return arg.substr(0, arg.find('=')); }

void AddUnique(std::vector<std::string>& to, std::string item) {
  if (std::find(to.begin(), to.end(), item) == to.end()) to.push_back(std::move(item));
}

// An edit of an admin's file (--admin-lines, or its revert): which line, as file:line, so the
// admin authorizing it sees the very line of their own file that changes.
std::optional<std::string> AdminLineStep(const plan::Op& op) {
  auto kind = plan::AdminLineFileOf(op.path);
  if (!kind || op.kind != plan::OpKind::kWriteFile || !op.before || !op.after) return std::nullopt;
  auto changes = plan::ChangedLines(*op.before, *op.after);
  if (!changes || changes->empty()) return std::nullopt;
  bool comments = plan::CommentOut(*kind, changes->front().before) == changes->front().after;
  std::string lines;
  for (const plan::LineChange& c : *changes)
    lines += fmt::format("{}{}:{}", lines.empty() ? "" : " ", op.path, c.number);
  return fmt::format("{} {}", comments ? "comment out" : "put back", lines);
}

std::string StepOf(const plan::Op& op) {
  if (auto step = AdminLineStep(op)) return *step;
  if (op.kind == plan::OpKind::kRegenerate) {
    std::string argv;
    for (const std::string& a : op.argv) argv += (argv.empty() ? "" : " ") + a;
    return fmt::format("run {}", argv.empty() ? op.path : argv);
  }
  return fmt::format("{} {}", plan::OpKindName(op.kind), op.path);
}

}  // namespace

ChangeSummary Summarize(const api::ChangeReport& report) {
  ChangeSummary summary;
  const plan::Plan& plan = report.plan;
  for (const std::string& k : report.knobs.empty() ? plan.intent.args : report.knobs) AddUnique(summary.keys, KeyOf(k));
  for (const plan::Op& op : plan.ops) AddUnique(summary.steps, StepOf(op));
  summary.records = plan.record_if_empty;
  return summary;
}

bool WouldWrite(const api::ChangeReport& report) {
  return !report.blocked && (!report.plan.ops.empty() || report.plan.record_if_empty);
}

std::string ChangeSummary::Text() const {
  std::string line;
  for (const std::string& s : steps) line += (line.empty() ? "" : ", ") + s;
  if (line.empty()) line = records ? "record the profile as active" : "nothing";
  if (!keys.empty()) {
    std::string k;
    for (const std::string& key : keys) k += (k.empty() ? "" : " ") + key;
    line = fmt::format("{} ({})", line, k);
  }
  line = text::EscapeControl(line);
  if (line.size() > kMaxText) line = line.substr(0, kMaxText - 3) + "...";
  return line;
}

}  // namespace rocmtune::daemon
