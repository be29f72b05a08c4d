#include "runtime/rpmdb.h"

#include <utility>
#include <vector>

#include <fmt/format.h>

#include "runtime/finders.h"
#include "runtime/resolve.h"

namespace rocmtune::runtime {
namespace {

// Rows of Basenames one file name may have: packages that own a file of that name anywhere.
constexpr size_t kMaxOwnersOfName = 64;
// Names of one library looked up: libamdhip64.so.6, libamdhip64.so.6.3.42134, ...
constexpr size_t kMaxNamesPerLibrary = 4;

// An error's message without the path it starts with, which the evidence line names already.
std::string Why(const Error& error, const std::string& display) {
  std::string_view message = error.message;
  if (message.starts_with(display + ": ")) message.remove_prefix(display.size() + 2);
  return std::string(message);
}

}  // namespace

std::optional<std::string> FindRpmdb(const sys::Root& root) {
  for (std::string_view rel : {"usr/lib/sysimage/rpm/rpmdb.sqlite", "var/lib/rpm/rpmdb.sqlite"}) {
    if (root.TypeOf(rel) != sys::EntryType::kMissing) return std::string(rel);
  }
  return std::nullopt;
}

Result<Rpmdb> Rpmdb::Open(const sys::Root& root, std::string_view rel) {
  sys::SqliteLimits limits;
  limits.max_rows = kMaxOwnersOfName;
  auto db = sys::SqliteDb::Open(root, rel, limits);
  if (!db) return tl::unexpected(db.error());
  for (std::string_view table : {"Packages", "Basenames"}) {
    auto is_table = db->HasTable(table);
    if (!is_table) return tl::unexpected(is_table.error());
    if (!*is_table) {
      return Fail(ErrorCode::kInvalidData, fmt::format("{}: no table {}, not rpm's database", db->display(), table));
    }
  }
  return Rpmdb(std::move(*db));
}

Result<std::optional<RpmPackage>> Rpmdb::Owner(std::string_view path) const {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return Fail(ErrorCode::kInvalidArgument, fmt::format("{}: not absolute", path));
  std::string name(path.substr(slash + 1));
  std::vector<std::pair<int64_t, int64_t>> rows;  // hnum, idx
  auto listed = db_.Query(
      "SELECT hnum, idx FROM Basenames WHERE key = ?1", {name}, [&](const sys::SqliteRow& row) -> Result<bool> {
        if (!row.IsInteger(0) || !row.IsInteger(1) || row.Int64(1) < 0 || row.Int64(1) > UINT32_MAX) {
          return Fail(ErrorCode::kInvalidData,
                      fmt::format("{}: Basenames row of {} is not two numbers", display(), name));
        }
        rows.emplace_back(row.Int64(0), row.Int64(1));
        return true;
      });
  if (!listed) return tl::unexpected(listed.error());
  for (const auto& row_of_name : rows) {
    int64_t hnum = row_of_name.first;
    int64_t idx = row_of_name.second;
    std::optional<RpmPackage> owner;
    auto read = db_.Query("SELECT blob FROM Packages WHERE hnum = CAST(?1 AS INTEGER)", {std::to_string(hnum)},
                          [&](const sys::SqliteRow& row) -> Result<bool> {
                            auto header = RpmHeader::Parse(row.Bytes(0));
                            auto file = header ? header->FilePath(static_cast<uint32_t>(idx))
                                               : Result<std::string>(tl::unexpected(header.error()));
                            if (!file) {
                              return Fail(ErrorCode::kInvalidData,
                                          fmt::format("{}: package {}: {}", display(), hnum, file.error().message));
                            }
                            if (*file != path) return false;
                            auto package = header->Package();
                            if (!package) {
                              return Fail(ErrorCode::kInvalidData,
                                          fmt::format("{}: package {}: {}", display(), hnum, package.error().message));
                            }
                            owner = std::move(*package);
                            return false;
                          });
    if (!read) return tl::unexpected(read.error());
    if (owner) return owner;
  }
  return std::optional<RpmPackage>();
}

void AddRpmPackages(const sys::Root& root, std::string_view lib, Runtime& runtime) {
  std::optional<std::string> rel = FindRpmdb(root);
  if (!rel) return;
  auto db = Rpmdb::Open(root, *rel);
  if (!db) {
    runtime.evidence.push_back(fmt::format("{}: not read: {}", Absolute(*rel), Why(db.error(), root.Display(*rel))));
    return;
  }
  if (db->immutable()) {
    runtime.evidence.push_back(fmt::format(
        "{}: read without its -shm and -wal, as a file alone: a transaction under way is not seen", Absolute(*rel)));
  }
  for (std::string_view prefix : {"libamdhip64.so.", "librocblas.so."}) {
    std::vector<std::string> names = NamesStartingWith(root, lib, prefix);
    if (names.size() > kMaxNamesPerLibrary) names.resize(kMaxNamesPerLibrary);
    std::string first_path;
    bool found = false;
    for (const std::string& name : names) {
      std::string path = "/" + sys::JoinPath(lib, name);
      if (first_path.empty()) first_path = path;
      auto owner = db->Owner(path);
      if (!owner) {
        runtime.evidence.push_back(fmt::format("{}: not read: {}", Absolute(*rel), Why(owner.error(), db->display())));
        return;
      }
      if (!*owner) continue;
      std::string package = fmt::format("{} {}", (*owner)->name, (*owner)->Evr());
      runtime.evidence.push_back(fmt::format("{}: {}", Absolute(*rel), package));
      if (!runtime.package) {
        runtime.package = package;
        runtime.version = (*owner)->version;
      }
      found = true;
      break;
    }
    if (!found && !first_path.empty()) {
      runtime.evidence.push_back(fmt::format("{}: no package owns {}", Absolute(*rel), first_path));
    }
  }
}

}  // namespace rocmtune::runtime
