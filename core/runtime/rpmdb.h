// rpm's database, read for one question: which installed package owns a file. Fedora keeps it
// as SQLite (rpm's sqlite backend, lib/backend/sqlite.cc): a table Packages(hnum, blob) with each
// package's header (runtime/rpm_header.h) and one index table per tag, Basenames(key, hnum, idx):
// the file name, the package's hnum and the file's place in its BASENAMES.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "runtime/rpm_header.h"
#include "sys/root.h"
#include "sys/sqlite_db.h"
#include "util/result.h"

namespace rocmtune::runtime {

// Where rpm keeps its database: /usr/lib/sysimage/rpm on Fedora 36 and later (Fedora's change
// "RelocateRPMToUsr": /var/lib/rpm a symlink to it), /var/lib/rpm before and in rpm's own default
// (rpm macros.in %_dbpath). The first that is there, root-relative; nullopt when neither is.
std::optional<std::string> FindRpmdb(const sys::Root& root);

class Rpmdb {
 public:
  // kNotFound: no file; kInvalidData: not a database, or not rpm's (no Packages or Basenames table).
  static Result<Rpmdb> Open(const sys::Root& root, std::string_view rel);

  // The package that owns `path` ("/usr/lib64/libamdhip64.so.6"): its directory as well as its
  // name, since packages may own files of the same name in other directories. nullopt when no
  // package does. A header that cannot be read fails the call.
  Result<std::optional<RpmPackage>> Owner(std::string_view path) const;

  const std::string& display() const { return db_.display(); }
  // Read without its write-ahead log (sys::SqliteDb::immutable).
  bool immutable() const { return db_.immutable(); }

 private:
  explicit Rpmdb(sys::SqliteDb db) : db_(std::move(db)) {}
  sys::SqliteDb db_;
};

}  // namespace rocmtune::runtime
