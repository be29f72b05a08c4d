#include "journal/journal.h"

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "plan/plan_json.h"
#include "util/json_limits.h"
#include "util/text.h"

namespace rocmtune::journal {

using json = nlohmann::ordered_json;

namespace {

// A pointer into `record`, never a copy: copying a JSON value recurses once per level.
Result<const json*> Field(const json& record, std::string_view key, std::string_view where) {
  auto it = record.find(key);
  if (it == record.end()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: \"{}\" is missing", where, key));
  return &*it;
}

Result<size_t> OpIndex(const json& record, const Transaction& txn, std::string_view where) {
  auto op = Field(record, "op", where);
  if (!op) return tl::unexpected(op.error());
  if (!(*op)->is_number_unsigned() || (*op)->get<uint64_t>() >= txn.ops.size())
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: \"op\" is not an op of this transaction", where));
  return (*op)->get<size_t>();
}

Result<std::string> StringField(const json& record, std::string_view key, std::string_view where) {
  auto f = Field(record, key, where);
  if (!f) return tl::unexpected(f.error());
  if (!(*f)->is_string()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: \"{}\" must be a string", where, key));
  return (*f)->get<std::string>();
}

// Optional fields: json::value() would throw type_error on a wrong type; a Result says where.
Result<std::string> OptStringField(const json& record, std::string_view key, std::string_view where) {
  if (!record.contains(key)) return std::string();
  return StringField(record, key, where);
}

Result<bool> OptBoolField(const json& record, std::string_view key, std::string_view where) {
  auto it = record.find(key);
  if (it == record.end()) return false;
  if (!it->is_boolean())
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: \"{}\" must be true or false", where, key));
  return it->get<bool>();
}

// Absent: the journals written before the format was recorded (format 1).
Result<int> FormatField(const json& r, std::string_view where) {
  auto it = r.find("format");
  if (it == r.end()) return kOldestJournalFormat;
  if (!it->is_number_unsigned() || it->get<uint64_t>() < static_cast<uint64_t>(kOldestJournalFormat))
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: \"format\" must be a journal format number", where));
  if (it->get<uint64_t>() > static_cast<uint64_t>(kJournalFormat))
    return Fail(ErrorCode::kUnsupported,
                fmt::format("{}: written by a newer rocmtune (journal format {}; this one reads formats {} to {}): "
                            "use that version, or move the journal aside",
                            where, it->get<uint64_t>(), kOldestJournalFormat, kJournalFormat));
  return static_cast<int>(it->get<uint64_t>());
}

// "private": [{"op": N, "before_bytes": N|null, "after_bytes": N|null}, ...], ops in order, each
// a file op once (format 2; journal.h, Transaction::private_ops).
Result<void> ApplyPrivate(const json& r, Transaction& txn, std::string_view where) {
  auto it = r.find("private");
  if (it == r.end()) return {};
  if (txn.format < 2 || !it->is_array())
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: \"private\" must be a list of ops (format 2)", where));
  for (const json& entry : *it) {
    auto op = entry.is_object() ? OpIndex(entry, txn, where) : Fail(ErrorCode::kInvalidData, "");
    if (!op)
      return Fail(ErrorCode::kInvalidData, fmt::format("{}: \"private\" names no op of this transaction", where));
    const plan::OpKind kind = txn.ops[*op].kind;
    if ((kind != plan::OpKind::kWriteFile && kind != plan::OpKind::kRemoveFile) ||
        (!txn.private_ops.empty() && *op <= txn.private_ops.back()))
      return Fail(ErrorCode::kInvalidData, fmt::format("{}: \"private\" names op {} out of place", where, *op));
    txn.private_ops.push_back(*op);
  }
  return {};
}

Result<void> ApplyBegin(const json& r, Transaction& txn, std::string_view where) {
  auto format = FormatField(r, where);
  if (!format) return tl::unexpected(format.error());
  txn.format = *format;
  auto id = StringField(r, "id", where);
  auto time = StringField(r, "time", where);
  if (!id) return tl::unexpected(id.error());
  if (!time) return tl::unexpected(time.error());
  auto number = text::ParseU64(*id);
  if (!number || *number == 0) return Fail(ErrorCode::kInvalidData, fmt::format("{}: bad transaction id", where));
  txn.id = *id;
  txn.number = *number;
  txn.time = *time;
  auto intent = Field(r, "intent", where);
  if (!intent) return tl::unexpected(intent.error());
  auto parsed = plan::IntentFromJson(**intent);
  if (!parsed) return Fail(ErrorCode::kInvalidData, fmt::format("{}: {}", where, parsed.error().message));
  txn.intent = std::move(*parsed);
  auto ops = Field(r, "ops", where);
  if (!ops) return tl::unexpected(ops.error());
  if (!(*ops)->is_array()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: \"ops\" must be an array", where));
  for (size_t i = 0; i < (*ops)->size(); ++i) {
    auto op = plan::OpFromJson((**ops)[i], i);
    if (!op) return Fail(ErrorCode::kInvalidData, fmt::format("{}: {}", where, op.error().message));
    txn.ops.push_back(std::move(*op));
  }
  auto force = OptBoolField(r, "force", where);
  if (!force) return tl::unexpected(force.error());
  txn.force = *force;
  return ApplyPrivate(r, txn, where);
}

Result<void> ApplyRecord(const json& r, Transaction& txn, bool first, std::string_view where) {
  auto record = r.is_object() ? r.find("record") : r.end();
  if (record == r.end() || !record->is_string())
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: not a journal record", where));
  const std::string kind = record->get<std::string>();
  if (first != (kind == "begin"))
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: a transaction starts with one begin record", where));
  if (txn.state != State::kIncomplete)
    return Fail(ErrorCode::kInvalidData, fmt::format("{}: record after the transaction ended", where));
  if (kind == "begin") return ApplyBegin(r, txn, where);
  if (kind == "mkdir" || kind == "rmdir") {
    auto path = StringField(r, "path", where);
    if (!path) return tl::unexpected(path.error());
    (kind == "mkdir" ? txn.created_dirs : txn.removed_dirs).push_back(*path);
    return {};
  }
  if (kind == "done") {
    auto op = OpIndex(r, txn, where);
    if (!op) return tl::unexpected(op.error());
    txn.done.push_back(*op);
    return {};
  }
  if (kind == "regen") {
    auto op = OpIndex(r, txn, where);
    auto status = StringField(r, "status", where);
    auto message = OptStringField(r, "message", where);
    if (!op) return tl::unexpected(op.error());
    if (!status) return tl::unexpected(status.error());
    if (!message) return tl::unexpected(message.error());
    txn.regen.push_back({*op, *status, *message});
    return {};
  }
  if (kind == "commit") {
    txn.state = State::kCommitted;
    return {};
  }
  if (kind == "rollback") {
    auto reason = OptStringField(r, "reason", where);
    if (!reason) return tl::unexpected(reason.error());
    txn.state = State::kRolledBack;
    txn.rollback_reason = *reason;
    return {};
  }
  return Fail(ErrorCode::kInvalidData, fmt::format("{}: unknown record \"{}\"", where, kind));
}

}  // namespace

std::string_view StateName(State state) {
  switch (state) {
    case State::kCommitted: return "committed";
    case State::kRolledBack: return "rolled-back";
    case State::kIncomplete: return "interrupted";
  }
  return "interrupted";
}

bool ContentsKnown(const Transaction& txn, size_t op) {
  return !txn.contents_withheld ||
         std::find(txn.private_ops.begin(), txn.private_ops.end(), op) == txn.private_ops.end();
}

bool ContentsKnown(const Transaction& txn, const plan::Op& op) {
  if (txn.ops.empty() || &op < txn.ops.data() || &op >= txn.ops.data() + txn.ops.size()) return true;
  return ContentsKnown(txn, static_cast<size_t>(&op - txn.ops.data()));
}

std::string JournalFileName(uint64_t number) { return fmt::format("{:06}.jsonl", number); }
std::string ContentsFileName(uint64_t number) { return fmt::format("{:06}.contents", number); }

json BeginRecord(const Transaction& txn) {
  json ops = json::array();
  json private_ops = json::array();
  auto size = [](const std::optional<std::string>& c) { return c ? json(c->size()) : json(nullptr); };
  for (size_t i = 0; i < txn.ops.size(); ++i) {
    const plan::Op& op = txn.ops[i];
    if (std::find(txn.private_ops.begin(), txn.private_ops.end(), i) == txn.private_ops.end()) {
      ops.push_back(plan::OpToJson(op));
      continue;
    }
    // Its metadata only: whether there was (and will be) a file stays, the text does not.
    plan::Op stand_in = op;
    if (stand_in.before) stand_in.before = "";
    if (stand_in.after) stand_in.after = "";
    ops.push_back(plan::OpToJson(stand_in));
    private_ops.push_back({{"op", i}, {"before_bytes", size(op.before)}, {"after_bytes", size(op.after)}});
  }
  json begin = {{"record", "begin"},
                {"format", txn.private_ops.empty() ? kOldestJournalFormat : kJournalFormat},
                {"id", txn.id},
                {"time", txn.time},
                {"intent", plan::IntentToJson(txn.intent)},
                {"force", txn.force},
                {"ops", std::move(ops)}};
  if (!private_ops.empty()) begin["private"] = std::move(private_ops);
  return begin;
}

json ContentsRecord(const Transaction& txn) {
  json ops = json::array();
  for (size_t i : txn.private_ops)
    if (i < txn.ops.size()) ops.push_back(plan::OpToJson(txn.ops[i]));
  return {{"record", "contents"}, {"id", txn.id}, {"ops", std::move(ops)}};
}

Result<void> ApplyContents(std::string_view content, Transaction& txn, std::string_view file) {
  auto bad = [&](std::string_view why) { return Fail(ErrorCode::kInvalidData, fmt::format("{}: {}", file, why)); };
  auto record = ParseBoundedJson(content, file);
  if (!record) return tl::unexpected(record.error());
  if (!record->is_object() || record->value("record", json()) != "contents") return bad("not a contents record");
  if (record->value("id", json()) != txn.id) return bad(fmt::format("not the contents of transaction {}", txn.id));
  auto ops = record->find("ops");
  if (ops == record->end() || !ops->is_array() || ops->size() != txn.private_ops.size())
    return bad("\"ops\" must hold each private op of the transaction");
  for (size_t k = 0; k < txn.private_ops.size(); ++k) {
    plan::Op& stand_in = txn.ops[txn.private_ops[k]];
    auto op = plan::OpFromJson((*ops)[k], txn.private_ops[k]);
    if (!op) return bad(op.error().message);
    if (op->kind != stand_in.kind || op->path != stand_in.path ||
        op->before.has_value() != stand_in.before.has_value() || op->after.has_value() != stand_in.after.has_value())
      return bad(fmt::format("op {} is not the one the journal file records", txn.private_ops[k]));
    stand_in.before = std::move(op->before);
    stand_in.after = std::move(op->after);
  }
  return {};
}
json MkdirRecord(std::string_view path) { return {{"record", "mkdir"}, {"path", path}}; }
json RmdirRecord(std::string_view path) { return {{"record", "rmdir"}, {"path", path}}; }
json DoneRecord(size_t op) { return {{"record", "done"}, {"op", op}}; }
json RegenRecord(const RegenStatus& s) {
  return {{"record", "regen"}, {"op", s.op}, {"status", s.status}, {"message", s.message}};
}
json CommitRecord() { return {{"record", "commit"}}; }
json RollbackRecord(std::string_view reason) { return {{"record", "rollback"}, {"reason", reason}}; }

size_t IntactLength(std::string_view content) {
  if (content.empty()) return 0;
  // Cut by a crash in the middle of an append: the last line has no newline.
  if (content.back() != '\n') {
    size_t newline = content.rfind('\n');
    return newline == std::string_view::npos ? 0 : newline + 1;
  }
  // Or it kept its newline but lost bytes before it (a power cut: the size reached the disk,
  // some of the data did not): the last line is not JSON.
  size_t start = content.size() < 2 ? std::string_view::npos : content.rfind('\n', content.size() - 2);
  start = start == std::string_view::npos ? 0 : start + 1;
  // accept() only validates (no document is built, nothing recurses per level).
  if (!json::accept(content.substr(start, content.size() - 1 - start))) return start;
  return content.size();
}

Result<Transaction> ParseTransaction(std::string_view content, std::string_view file) {
  Transaction txn;
  txn.file = std::string(file);
  const size_t intact = IntactLength(content);
  txn.torn_tail = intact != content.size();
  content = content.substr(0, intact);
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < content.size()) {
    size_t end = content.find('\n', pos);  // every intact line ends in one
    ++line_no;
    std::string where = fmt::format("{} line {}", file, line_no);
    auto record = ParseBoundedJson(content.substr(pos, end - pos), where);
    pos = end + 1;
    if (!record) return tl::unexpected(record.error());
    auto applied = ApplyRecord(*record, txn, line_no == 1, where);
    if (!applied) return tl::unexpected(applied.error());
  }
  // Only a torn first line: the begin record was being appended when the power went, so
  // nothing was begun (it precedes every change). kNotFound: no transaction is there.
  if (txn.id.empty() && txn.torn_tail)
    return Fail(ErrorCode::kNotFound, fmt::format("{}: only a torn begin record; nothing was begun", file));
  if (txn.id.empty()) return Fail(ErrorCode::kInvalidData, fmt::format("{}: no begin record", file));
  return txn;
}

namespace {

std::optional<uint64_t> FileNumber(std::string_view name) {
  if (!name.ends_with(".jsonl")) return std::nullopt;
  return text::ParseU64(name.substr(0, name.size() - 6));
}

}  // namespace

Result<uint64_t> NextNumber(const sys::Root& root) {
  uint64_t next = 1;
  if (!root.Exists(kJournalDir)) return next;
  auto names = root.ListDir(kJournalDir);
  if (!names) return tl::unexpected(names.error());
  for (const std::string& name : *names)
    if (auto n = FileNumber(name)) next = std::max(next, *n + 1);
  return next;
}

Result<std::vector<Transaction>> Load(const sys::Root& root) {
  std::vector<Transaction> out;
  if (!root.Exists(kJournalDir)) return out;
  auto names = root.ListDir(kJournalDir);
  if (!names) return tl::unexpected(names.error());
  for (const std::string& name : *names) {
    auto number = FileNumber(name);
    if (!number) continue;
    std::string rel = fmt::format("{}/{}", kJournalDir, name);
    auto content = root.ReadFile(rel, kMaxJournalFileBytes);
    if (!content) return tl::unexpected(content.error());
    // A crash right after the file was created leaves it empty, or holding part of the begin
    // record (a power cut during its append): nothing was begun, as the helper changes
    // nothing before that record is on disk.
    if (IntactLength(*content) == 0) continue;
    auto txn = ParseTransaction(*content, rel);
    // Likewise a file holding only a torn begin record.
    if (!txn && txn.error().code == ErrorCode::kNotFound) continue;
    if (!txn) return tl::unexpected(txn.error());
    if (txn->number != *number)
      return Fail(ErrorCode::kInvalidData, fmt::format("{}: holds transaction {}", rel, txn->id));
    if (!txn->private_ops.empty()) {
      std::string contents_rel = fmt::format("{}/{}", kJournalDir, ContentsFileName(*number));
      auto contents = root.ReadFile(contents_rel, kMaxJournalFileBytes);
      // rocmtuned's user: the metadata is all it may see of those ops.
      if (!contents && (contents.error().errno_value == EACCES || contents.error().errno_value == EPERM)) {
        txn->contents_withheld = true;
      } else if (!contents) {
        return tl::unexpected(contents.error());
      } else if (auto applied = ApplyContents(*contents, *txn, contents_rel); !applied) {
        return tl::unexpected(applied.error());
      }
    }
    out.push_back(std::move(*txn));
  }
  std::sort(out.begin(), out.end(), [](const Transaction& a, const Transaction& b) { return a.number < b.number; });
  return out;
}

}  // namespace rocmtune::journal
