// SqliteDb: a SQLite database beneath a Root, read and never written (rpm's database,
// /usr/lib/sysimage/rpm/rpmdb.sqlite, sys/sqlite_db.cc says how). Every value a query hands out is
// bounded, and so is the work one query may do: the file may be hostile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sys/root.h"
#include "util/handle.h"
#include "util/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace rocmtune::sys {

namespace sqlite_detail {
int Close(sqlite3* db);
int Finalize(sqlite3_stmt* statement);
}  // namespace sqlite_detail

struct SqliteLimits {
  int max_value_bytes = 16 << 20;  // SQLITE_LIMIT_LENGTH: a longer text or blob fails the query
  int64_t max_steps = 20'000'000;  // virtual machine instructions per query (a progress handler)
  size_t max_rows = 256;           // rows one query may hand out; more fail it (kTooLarge)
};

// One row while its query runs: the views are valid until the visitor returns.
class SqliteRow {
 public:
  explicit SqliteRow(sqlite3_stmt* statement) : statement_(statement) {}
  int64_t Int64(int column) const;
  std::string_view Bytes(int column) const;  // a TEXT or BLOB column as stored (NULL: empty)
  bool IsInteger(int column) const;

 private:
  sqlite3_stmt* statement_;
};

class SqliteDb {
 public:
  // Opens root-relative `rel` (a regular file found beneath the root, no symlink out of it)
  // read-only. kNotFound when there is no such file; kInvalidData when it is not a database.
  static Result<SqliteDb> Open(const Root& root, std::string_view rel, const SqliteLimits& limits = {});

  // Runs one statement, its ?-parameters bound as text, calling `row` for each row until it returns
  // false. Fails (the database's message, the path named) when the statement does, when a value is
  // over the limit, after more than max_rows rows or max_steps instructions.
  using RowVisitor = std::function<Result<bool>(const SqliteRow&)>;
  Result<void> Query(std::string_view sql, const std::vector<std::string>& params, const RowVisitor& row) const;

  // Whether `name` is a table (not a view, whose query could be anything) of the database.
  Result<bool> HasTable(std::string_view name) const;

  // True when the write-ahead log could not be opened read-only and the file was read alone
  // (immutable=1): what a running transaction has not checkpointed yet is not seen.
  bool immutable() const { return immutable_; }
  const std::string& display() const { return display_; }

 private:
  using Connection = Handle<sqlite3*, sqlite_detail::Close>;
  SqliteDb(Connection db, std::string display, SqliteLimits limits, bool immutable)
      : db_(std::move(db)), display_(std::move(display)), limits_(limits), immutable_(immutable) {}

  Connection db_;
  std::string display_;
  SqliteLimits limits_;
  bool immutable_ = false;
};

}  // namespace rocmtune::sys
