// What every request reads first: the root, opened once by the front end, its inventory and
// its journal. The CLI and the daemon load it the same way.
#pragma once

#include <string>
#include <vector>

#include "detect/inventory.h"
#include "journal/journal.h"
#include "knobs/backend.h"
#include "knowledge/catalog.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::api {

struct System {
  sys::Root root;
  detect::Inventory inventory;
  std::vector<journal::Transaction> journal;
  // False when this user may not read the journal (LoadSystemForReading): `journal` is then
  // empty and what it tells (the active profile) is unknown, `journal_note` says why.
  bool journal_known = true;
  std::string journal_note = {};
  knobs::KnobContext Context() const { return {root, inventory, knowledge::Catalog::Builtin()}; }
};

// Detects the inventory and reads the journal; fails (naming the file and line) when the
// journal cannot be read.
Result<System> LoadSystem(sys::Root root);
// The same with an inventory detected earlier on this root (the daemon's, kept current by udev).
Result<System> LoadSystem(sys::Root root, detect::Inventory inventory);
// For the read verbs (`profiles`, `show`): as LoadSystem, but a journal this user may not read
// (api/journal_access.h) leaves `journal_known` false instead of failing.
Result<System> LoadSystemForReading(sys::Root root);

}  // namespace rocmtune::api
