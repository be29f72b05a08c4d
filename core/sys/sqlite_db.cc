// How a database beneath the root is read without writing anything.
//
// rpm keeps its database in WAL mode and leaves rpmdb.sqlite-wal and -shm in place so that users
// who may not create files there can still read it (rpm lib/backend/sqlite.cc sqlite_init,
// SQLITE_FCNTL_PERSIST_WAL, commit 9c8a3faf "Fix sqlite database access for unprivileged readers in
// WAL mode": since SQLite 3.22 a read-only connection reads a WAL database when the -shm and -wal
// files exist and are readable, or with the immutable query parameter). So:
//   1. The file is opened beneath the root (Root::OpenRegular: openat2, no symlink out of it), and
//      SQLite is given its canonical path (the descriptor's /proc/self/fd link) with
//      SQLITE_OPEN_NOFOLLOW: a symlink there, put in after the lookup, fails the open.
//   2. First `mode=ro&readonly_shm=1`: the WAL and its index are read as rpm left them; without
//      readonly_shm SQLite opens -shm O_RDWR|O_CREAT and as root would create it.
//   3. When that cannot be read (no -shm: the database was copied without it; a hot journal; a
//      lock held for long), `immutable=1`: the database file alone, no lock, no other file. What a
//      running transaction has not checkpointed is then not seen (rpm checkpoints, TRUNCATE, each
//      time it closes the database it wrote: sqlite_fini).
// Under both, the VFS is unix's with every open forced read-only and without create, and deleting
// refused, so nothing SQLite decides (a WAL found missing, a checkpoint on close) changes a file.
#include "sys/sqlite_db.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <mutex>

#include <fmt/format.h>

#include "sys/dl_symbol.h"

namespace rocmtune::sys {
namespace {

// libsqlite3 is loaded when a database is first opened (rpm's, on an rpm system), not by every
// program start: linking it cost every rocmtunectl, rocmtuned and rocmtune-helper start about
// 0.5 ms of CPU (relocations and page faults of a 1.4 MiB library; ctest client.needed_libraries).
// The types and signatures come from <sqlite3.h>; soname 0 is SQLite 3's.
constexpr const char* kLibsqlite = "libsqlite3.so.0";

struct Sqlite {
  decltype(&sqlite3_close) close = nullptr;
  decltype(&sqlite3_finalize) finalize = nullptr;
  decltype(&sqlite3_vfs_find) vfs_find = nullptr;
  decltype(&sqlite3_vfs_register) vfs_register = nullptr;
  decltype(&sqlite3_open_v2) open_v2 = nullptr;
  decltype(&sqlite3_errmsg) errmsg = nullptr;
  decltype(&sqlite3_errstr) errstr = nullptr;
  decltype(&sqlite3_extended_result_codes) extended_result_codes = nullptr;
  decltype(&sqlite3_limit) limit = nullptr;
  decltype(&sqlite3_db_config) db_config = nullptr;
  decltype(&sqlite3_busy_timeout) busy_timeout = nullptr;
  decltype(&sqlite3_progress_handler) progress_handler = nullptr;
  decltype(&sqlite3_exec) exec = nullptr;
  decltype(&sqlite3_column_int64) column_int64 = nullptr;
  decltype(&sqlite3_column_type) column_type = nullptr;
  decltype(&sqlite3_column_blob) column_blob = nullptr;
  decltype(&sqlite3_column_bytes) column_bytes = nullptr;
  decltype(&sqlite3_prepare_v2) prepare_v2 = nullptr;
  decltype(&sqlite3_bind_text) bind_text = nullptr;
  decltype(&sqlite3_step) step = nullptr;
  std::string error;  // why libsqlite3 cannot be used ("" when every function was found)
};

// Loaded once and kept for the process (never dlclose'd: the functions stay valid).
Sqlite LoadSqlite() {
  Sqlite l;
  void* lib = dlopen(kLibsqlite, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    l.error = fmt::format("libsqlite3 is not installed ({}: {})", kLibsqlite, why ? why : "cannot load");
    return l;
  }
  std::string missing;
  ResolveSymbol(lib, "sqlite3_close", l.close, missing);
  ResolveSymbol(lib, "sqlite3_finalize", l.finalize, missing);
  ResolveSymbol(lib, "sqlite3_vfs_find", l.vfs_find, missing);
  ResolveSymbol(lib, "sqlite3_vfs_register", l.vfs_register, missing);
  ResolveSymbol(lib, "sqlite3_open_v2", l.open_v2, missing);
  ResolveSymbol(lib, "sqlite3_errmsg", l.errmsg, missing);
  ResolveSymbol(lib, "sqlite3_errstr", l.errstr, missing);
  ResolveSymbol(lib, "sqlite3_extended_result_codes", l.extended_result_codes, missing);
  ResolveSymbol(lib, "sqlite3_limit", l.limit, missing);
  ResolveSymbol(lib, "sqlite3_db_config", l.db_config, missing);
  ResolveSymbol(lib, "sqlite3_busy_timeout", l.busy_timeout, missing);
  ResolveSymbol(lib, "sqlite3_progress_handler", l.progress_handler, missing);
  ResolveSymbol(lib, "sqlite3_exec", l.exec, missing);
  ResolveSymbol(lib, "sqlite3_column_int64", l.column_int64, missing);
  ResolveSymbol(lib, "sqlite3_column_type", l.column_type, missing);
  ResolveSymbol(lib, "sqlite3_column_blob", l.column_blob, missing);
  ResolveSymbol(lib, "sqlite3_column_bytes", l.column_bytes, missing);
  ResolveSymbol(lib, "sqlite3_prepare_v2", l.prepare_v2, missing);
  ResolveSymbol(lib, "sqlite3_bind_text", l.bind_text, missing);
  ResolveSymbol(lib, "sqlite3_step", l.step, missing);
  if (!missing.empty()) l.error = fmt::format("{} has no {}", kLibsqlite, missing);
  return l;
}

const Sqlite& Libsqlite() {
  static const Sqlite sqlite = LoadSqlite();
  return sqlite;
}

}  // namespace

namespace sqlite_detail {
int Close(sqlite3* db) { return Libsqlite().close(db); }
int Finalize(sqlite3_stmt* statement) { return Libsqlite().finalize(statement); }
}  // namespace sqlite_detail

namespace {

using Statement = Handle<sqlite3_stmt*, sqlite_detail::Finalize>;

constexpr const char* kReadOnlyVfsName = "rocmtune-read-only";
sqlite3_vfs* unix_vfs = nullptr;

int OpenReadOnly(sqlite3_vfs* /*vfs*/, sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags) {
  // A temporary file (no name) is never needed: temp_store is MEMORY.
  if (name == nullptr) return SQLITE_CANTOPEN;
  flags &= ~(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_DELETEONCLOSE | SQLITE_OPEN_EXCLUSIVE);
  flags |= SQLITE_OPEN_READONLY;
  return unix_vfs->xOpen(unix_vfs, name, file, flags, out_flags);
}

int NeverDelete(sqlite3_vfs* /*vfs*/, const char* /*name*/, int /*sync_dir*/) { return SQLITE_IOERR_DELETE; }

sqlite3_vfs* ReadOnlyVfs() {
  static sqlite3_vfs vfs{};
  static bool ready = false;
  static std::once_flag once;
  std::call_once(once, [] {
    unix_vfs = Libsqlite().vfs_find("unix");
    if (unix_vfs == nullptr) return;
    vfs = *unix_vfs;
    vfs.pNext = nullptr;
    vfs.zName = kReadOnlyVfsName;
    vfs.xOpen = OpenReadOnly;
    vfs.xDelete = NeverDelete;
    ready = Libsqlite().vfs_register(&vfs, 0) == SQLITE_OK;
  });
  return ready ? &vfs : nullptr;
}

// Where an open descriptor's file is ("/proc/self/fd/N"), as the kernel names it.
Result<std::string> PathOf(int fd, std::string_view what) {
  std::string link = fmt::format("/proc/self/fd/{}", fd);
  std::string path(PATH_MAX, '\0');
  ssize_t n = ::readlink(link.c_str(), path.data(), path.size());
  if (n <= 0 || static_cast<size_t>(n) >= path.size()) {
    int err = errno;
    return Fail(ErrorCode::kIo, fmt::format("{}: its path is not known (/proc/self/fd)", what), err);
  }
  path.resize(static_cast<size_t>(n));
  if (!path.starts_with('/') || path.ends_with(" (deleted)")) {
    return Fail(ErrorCode::kNotFound, fmt::format("{}: removed while it was opened", what));
  }
  return path;
}

// RFC 3986 percent-encoding of a path for a SQLite URI filename (https://sqlite.org/uri.html).
std::string UriPath(std::string_view path) {
  std::string out;
  for (char c : path) {
    auto u = static_cast<unsigned char>(c);
    bool plain = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || c == '/' || c == '.' ||
                 c == '-' || c == '_' || c == '~';
    out += plain ? std::string(1, c) : fmt::format("%{:02X}", u);
  }
  return out;
}

ErrorCode CodeOf(int rc) {
  switch (rc & 0xff) {
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
    case SQLITE_FORMAT:
    case SQLITE_SCHEMA:
    case SQLITE_ERROR:  // no such table, no such column: not the database asked for
      return ErrorCode::kInvalidData;
    case SQLITE_TOOBIG:
    case SQLITE_INTERRUPT: return ErrorCode::kTooLarge;
    case SQLITE_CANTOPEN: return ErrorCode::kNotFound;
    default: return ErrorCode::kIo;
  }
}

struct StepBudget {
  int64_t calls = 0;
  int64_t max_calls = 0;
};
constexpr int kProgressEvery = 1000;  // instructions between two calls of the progress handler

int OverBudget(void* arg) {
  auto* budget = static_cast<StepBudget*>(arg);
  return ++budget->calls > budget->max_calls ? 1 : 0;
}

// Opens the database with one URI and reads its schema, which is what finds a file that is not a
// database or a WAL it cannot read.
Result<Handle<sqlite3*, sqlite_detail::Close>> Connect(const std::string& uri, const std::string& display,
                                                       const SqliteLimits& limits) {
  sqlite3* raw = nullptr;
  int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX;
  int rc = Libsqlite().open_v2(uri.c_str(), &raw, flags, kReadOnlyVfsName);
  Handle<sqlite3*, sqlite_detail::Close> db(raw);
  if (rc != SQLITE_OK) {
    return Fail(CodeOf(rc), fmt::format("{}: {}", display, raw ? Libsqlite().errmsg(raw) : Libsqlite().errstr(rc)));
  }
  Libsqlite().extended_result_codes(raw, 1);
  Libsqlite().limit(raw, SQLITE_LIMIT_LENGTH, limits.max_value_bytes);
  Libsqlite().db_config(raw, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  Libsqlite().db_config(raw, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  Libsqlite().db_config(raw, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  Libsqlite().db_config(raw, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  Libsqlite().busy_timeout(raw, 200);
  StepBudget budget{0, limits.max_steps / kProgressEvery + 1};
  Libsqlite().progress_handler(raw, kProgressEvery, OverBudget, &budget);
  rc =
      Libsqlite().exec(raw, "PRAGMA temp_store = MEMORY; PRAGMA cache_size = -2048; SELECT count(*) FROM sqlite_master",
                       nullptr, nullptr, nullptr);
  Libsqlite().progress_handler(raw, 0, nullptr, nullptr);
  if (rc != SQLITE_OK) return Fail(CodeOf(rc), fmt::format("{}: {}", display, Libsqlite().errmsg(raw)));
  return db;
}

bool TryImmutable(const Error& error) { return error.code == ErrorCode::kNotFound || error.code == ErrorCode::kIo; }

}  // namespace

int64_t SqliteRow::Int64(int column) const { return Libsqlite().column_int64(statement_, column); }

bool SqliteRow::IsInteger(int column) const { return Libsqlite().column_type(statement_, column) == SQLITE_INTEGER; }

std::string_view SqliteRow::Bytes(int column) const {
  const void* data = Libsqlite().column_blob(statement_, column);
  int size = Libsqlite().column_bytes(statement_, column);
  if (data == nullptr || size <= 0) return {};
  return {static_cast<const char*>(data), static_cast<size_t>(size)};
}

Result<SqliteDb> SqliteDb::Open(const Root& root, std::string_view rel, const SqliteLimits& limits) {
  std::string display = root.Display(rel);
  if (!Libsqlite().error.empty())
    return Fail(ErrorCode::kUnsupported, fmt::format("{}: {}", display, Libsqlite().error));
  if (ReadOnlyVfs() == nullptr) return Fail(ErrorCode::kUnsupported, display + ": SQLite has no unix VFS");
  auto fd = root.OpenRegular(rel);
  if (!fd) return tl::unexpected(fd.error());
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) {
    int err = errno;
    return Fail(ErrorCode::kIo, display + ": fstat failed", err);
  }
  // An empty file is an empty database to SQLite, which would then look for a WAL to delete.
  if (st.st_size == 0) return Fail(ErrorCode::kInvalidData, display + ": empty file, not a database");
  auto path = PathOf(fd->get(), display);
  if (!path) return tl::unexpected(path.error());
  auto root_path = PathOf(root.fd(), root.path());
  if (!root_path) return tl::unexpected(root_path.error());
  if (*root_path != "/" && !path->starts_with(*root_path + "/")) {
    return Fail(ErrorCode::kEscapesRoot, fmt::format("{}: is {}, outside the root", display, *path));
  }
  std::string uri = "file:" + UriPath(*path);
  auto db = Connect(uri + "?mode=ro&readonly_shm=1", display, limits);
  bool immutable = false;
  if (!db && TryImmutable(db.error())) {
    db = Connect(uri + "?immutable=1", display, limits);
    immutable = true;
  }
  if (!db) return tl::unexpected(db.error());
  return SqliteDb(std::move(*db), std::move(display), limits, immutable);
}

Result<void> SqliteDb::Query(std::string_view sql, const std::vector<std::string>& params,
                             const RowVisitor& row) const {
  sqlite3* db = db_.get();
  auto failed = [&](int rc) { return Fail(CodeOf(rc), fmt::format("{}: {}", display_, Libsqlite().errmsg(db))); };
  sqlite3_stmt* raw = nullptr;
  int rc = Libsqlite().prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &raw, nullptr);
  Statement statement(raw);
  if (rc != SQLITE_OK) return failed(rc);
  for (size_t i = 0; i < params.size(); ++i) {
    rc = Libsqlite().bind_text(raw, static_cast<int>(i + 1), params[i].data(), static_cast<int>(params[i].size()),
                               SQLITE_TRANSIENT);
    if (rc != SQLITE_OK) return failed(rc);
  }
  StepBudget budget{0, limits_.max_steps / kProgressEvery + 1};
  Libsqlite().progress_handler(db, kProgressEvery, OverBudget, &budget);
  auto steps = [&]() -> Result<bool> {  // true: every row was visited
    size_t rows = 0;
    while ((rc = Libsqlite().step(raw)) == SQLITE_ROW) {
      if (++rows > limits_.max_rows) {
        return Fail(ErrorCode::kTooLarge, fmt::format("{}: more than {} rows", display_, limits_.max_rows));
      }
      auto more = row(SqliteRow(raw));
      if (!more || !*more) return more;
    }
    return true;
  };
  auto visited = steps();
  Libsqlite().progress_handler(db, 0, nullptr, nullptr);
  if (!visited) return tl::unexpected(visited.error());
  if (!*visited) return {};
  if (rc != SQLITE_DONE) {
    if ((rc & 0xff) == SQLITE_INTERRUPT) {
      return Fail(ErrorCode::kTooLarge, fmt::format("{}: query stopped after {} steps", display_, limits_.max_steps));
    }
    return failed(rc);
  }
  return {};
}

Result<bool> SqliteDb::HasTable(std::string_view name) const {
  bool table = false;
  auto done = Query("SELECT type FROM sqlite_master WHERE name = ?1", {std::string(name)},
                    [&](const SqliteRow& row) -> Result<bool> {
                      table = table || row.Bytes(0) == "table";
                      return true;
                    });
  if (!done) return tl::unexpected(done.error());
  return table;
}

}  // namespace rocmtune::sys
