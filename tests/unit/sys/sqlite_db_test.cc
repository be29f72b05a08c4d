// sys/sqlite_db.h: databases made here with SQLite itself, in WAL mode as rpm keeps its own.
// Every test checks that reading left the database's directory as it was: no -shm or -wal made,
// no file changed (as root, which permission bits would not stop).
#include "sys/sqlite_db.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "test_tree.h"

namespace rocmtune::sys {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSqliteDbRel = "var/lib/test/db.sqlite";

struct SqliteFileState {
  uintmax_t size;
  int64_t mtime_ns;
  bool operator==(const SqliteFileState&) const = default;
};

std::map<std::string, SqliteFileState> DirState(const std::string& dir) {
  std::map<std::string, SqliteFileState> state;
  for (const auto& entry : fs::directory_iterator(dir)) {
    struct stat st {};
    ::lstat(entry.path().c_str(), &st);
    state[entry.path().filename().string()] = {static_cast<uintmax_t>(st.st_size),
                                               int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec};
  }
  return state;
}

// A writer connection as rpm holds one: WAL mode, -wal and -shm kept after close (PERSIST_WAL).
class SqliteWriter {
 public:
  explicit SqliteWriter(const std::string& path) {
    fs::create_directories(fs::path(path).parent_path());
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) throw std::runtime_error("sqlite3_open");
    int one = 1;
    sqlite3_file_control(db_, nullptr, SQLITE_FCNTL_PERSIST_WAL, &one);
    Exec("PRAGMA journal_mode = WAL");
  }
  ~SqliteWriter() { sqlite3_close(db_); }
  void Exec(const std::string& sql) {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      std::string message = error ? error : "?";
      sqlite3_free(error);
      throw std::runtime_error(sql + ": " + message);
    }
  }

 private:
  sqlite3* db_ = nullptr;
};

void MakeDb(const testing::TestTree& tree, const std::string& sql) {
  SqliteWriter writer(tree.Path(kSqliteDbRel));
  writer.Exec(sql);
}

Result<std::vector<std::string>> Names(const SqliteDb& db) {
  std::vector<std::string> names;
  auto done = db.Query("SELECT name FROM t ORDER BY name", {}, [&](const SqliteRow& row) -> Result<bool> {
    names.emplace_back(row.Bytes(0));
    return true;
  });
  if (!done) return tl::unexpected(done.error());
  return names;
}

TEST(SqliteDb, ReadsAWalDatabaseWithItsIndexReadOnly) {
  testing::TestTree tree;
  MakeDb(tree, "CREATE TABLE t(name TEXT); INSERT INTO t VALUES('a'), ('b')");
  std::string dir = tree.Path("var/lib/test");
  ASSERT_TRUE(fs::exists(dir + "/db.sqlite-shm"));
  auto before = DirState(dir);
  auto root = Root::Open(tree.path());
  ASSERT_TRUE(root);
  {
    auto db = SqliteDb::Open(*root, kSqliteDbRel);
    ASSERT_TRUE(db) << db.error().message;
    EXPECT_FALSE(db->immutable());
    EXPECT_EQ(Names(*db), (std::vector<std::string>{"a", "b"}));
    auto table = db->HasTable("t");
    EXPECT_TRUE(table && *table);
    auto none = db->HasTable("u");
    EXPECT_TRUE(none && !*none);
  }
  EXPECT_EQ(DirState(dir), before);
}

TEST(SqliteDb, SeesWhatTheWriterHasNotCheckpointed) {
  testing::TestTree tree;
  SqliteWriter writer(tree.Path(kSqliteDbRel));
  writer.Exec("PRAGMA wal_autocheckpoint = 0; CREATE TABLE t(name TEXT); INSERT INTO t VALUES('in-the-wal')");
  auto root = Root::Open(tree.path());
  ASSERT_TRUE(root);
  auto db = SqliteDb::Open(*root, kSqliteDbRel);
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_FALSE(db->immutable());
  EXPECT_EQ(Names(*db), (std::vector<std::string>{"in-the-wal"}));
}

TEST(SqliteDb, WithoutItsShmReadsTheFileAloneAndCreatesNothing) {
  testing::TestTree tree;
  MakeDb(tree, "CREATE TABLE t(name TEXT); INSERT INTO t VALUES('a')");
  std::string dir = tree.Path("var/lib/test");
  fs::remove(dir + "/db.sqlite-shm");
  auto before = DirState(dir);
  auto root = Root::Open(tree.path());
  ASSERT_TRUE(root);
  {
    auto db = SqliteDb::Open(*root, kSqliteDbRel);
    ASSERT_TRUE(db) << db.error().message;
    EXPECT_TRUE(db->immutable());
    EXPECT_EQ(Names(*db), (std::vector<std::string>{"a"}));
  }
  EXPECT_EQ(DirState(dir), before);
}

// 0: read, nothing created; 11: not opened; 12: wrong rows; 13: a file appeared or changed.
int ReadAsUser(const void* arg) {
  const auto* tree = static_cast<const testing::TestTree*>(arg);
  std::string dir = tree->Path("var/lib/test");
  auto before = DirState(dir);
  auto root = Root::Open(tree->path());
  if (!root) return 11;
  {
    auto db = SqliteDb::Open(*root, kSqliteDbRel);
    if (!db) return 11;
    if (Names(*db) != std::vector<std::string>{"a"}) return 12;
  }
  return DirState(dir) == before ? 0 : 13;
}

TEST(SqliteDb, AUserReadsItInADirectoryTheyCannotWrite) {
  testing::TestTree tree;
  MakeDb(tree, "CREATE TABLE t(name TEXT); INSERT INTO t VALUES('a')");
  tree.Chmod("", 0755);
  tree.Chmod("var/lib/test", 0555);
  int with_shm = testing::RunAsNobody(ReadAsUser, &tree);
  if (with_shm == testing::kNoPrivilegeDrop) GTEST_SKIP() << "cannot drop privileges to uid 65534 here";
  EXPECT_EQ(with_shm, 0) << "11: not opened, 12: wrong rows, 13: the directory changed";
  tree.Chmod("var/lib/test", 0755);
  fs::remove(tree.Path("var/lib/test/db.sqlite-shm"));
  tree.Chmod("var/lib/test", 0555);
  EXPECT_EQ(testing::RunAsNobody(ReadAsUser, &tree), 0) << "without -shm";
}

TEST(SqliteDb, NoSymlinkLeadsOutOfTheRoot) {
  testing::TestTree outside;
  MakeDb(outside, "CREATE TABLE t(name TEXT)");
  testing::TestTree tree;
  tree.Symlink(kSqliteDbRel, outside.Path(kSqliteDbRel));  // absolute: resolved inside the root
  auto root = Root::Open(tree.path());
  ASSERT_TRUE(root);
  auto db = SqliteDb::Open(*root, kSqliteDbRel);
  ASSERT_FALSE(db);
  EXPECT_EQ(db.error().code, ErrorCode::kNotFound) << db.error().message;
}

TEST(SqliteDb, GarbageAndEmptyFilesAreNotDatabases) {
  testing::TestTree tree;
  tree.Write(kSqliteDbRel, std::string(8192, '\x5a'));
  auto root = Root::Open(tree.path());
  ASSERT_TRUE(root);
  auto db = SqliteDb::Open(*root, kSqliteDbRel);
  ASSERT_FALSE(db);
  EXPECT_EQ(db.error().code, ErrorCode::kInvalidData);
  EXPECT_NE(db.error().message.find("not a database"), std::string::npos) << db.error().message;
  tree.Write(kSqliteDbRel, "");
  db = SqliteDb::Open(*root, kSqliteDbRel);
  ASSERT_FALSE(db);
  EXPECT_NE(db.error().message.find("empty file"), std::string::npos);
  EXPECT_EQ(DirState(tree.Path("var/lib/test")).size(), 1u);
}

TEST(SqliteDb, ValuesRowsAndWorkAreBounded) {
  testing::TestTree tree;
  MakeDb(tree,
         "CREATE TABLE t(name TEXT); INSERT INTO t VALUES('a'), ('b'), ('c');"
         "CREATE TABLE big(v BLOB); INSERT INTO big VALUES(zeroblob(2000000))");
  auto root = Root::Open(tree.path());
  ASSERT_TRUE(root);
  SqliteLimits limits;
  limits.max_value_bytes = 1 << 20;
  limits.max_rows = 2;
  limits.max_steps = 100'000;
  auto db = SqliteDb::Open(*root, kSqliteDbRel, limits);
  ASSERT_TRUE(db) << db.error().message;
  auto ignore = [](const SqliteRow&) -> Result<bool> { return true; };
  auto big = db->Query("SELECT v FROM big", {}, ignore);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().code, ErrorCode::kTooLarge) << big.error().message;
  auto rows = db->Query("SELECT name FROM t", {}, ignore);
  ASSERT_FALSE(rows);
  EXPECT_NE(rows.error().message.find("more than 2 rows"), std::string::npos);
  auto endless =
      db->Query("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n", {}, ignore);
  ASSERT_FALSE(endless);
  EXPECT_NE(endless.error().message.find("stopped after"), std::string::npos) << endless.error().message;
  // The same connection still answers after each refusal.
  EXPECT_TRUE(db->Query("SELECT name FROM t WHERE name = ?1", {"b"}, ignore));
}

}  // namespace
}  // namespace rocmtune::sys
