// Opens the root and detects the inventory once for verbs that work on knobs.
#pragma once

#include <optional>
#include <string>

#include "client/context.h"
#include "detect/inventory.h"
#include "journal/journal.h"
#include "knobs/backend.h"
#include "knowledge/catalog.h"
#include "sys/root.h"

namespace rocmtune::client {

struct LoadedSystem {
  sys::Root root;
  detect::Inventory inventory;
  std::vector<journal::Transaction> journal;
  knobs::KnobContext Context() const { return {root, inventory, knowledge::Catalog::Builtin()}; }
};

// Prints the error and returns nullopt when the root or its journal cannot be read.
std::optional<LoadedSystem> LoadSystem(const Context& ctx);

}  // namespace rocmtune::client
