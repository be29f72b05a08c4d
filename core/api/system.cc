#include "api/system.h"

#include <fmt/format.h>

#include "diagnose/journal_access.h"

namespace rocmtune::api {

Result<System> LoadSystem(sys::Root root) {
  detect::Inventory inventory = detect::Detect(root);
  return LoadSystem(std::move(root), std::move(inventory));
}

Result<System> LoadSystem(sys::Root root, detect::Inventory inventory) {
  auto txns = journal::Load(root);
  if (!txns) {
    Error e = txns.error();
    e.message = fmt::format("the journal cannot be read: {}", e.message);
    return tl::unexpected(std::move(e));
  }
  return System{std::move(root), std::move(inventory), std::move(*txns)};
}

Result<System> LoadSystemForReading(sys::Root root) {
  detect::Inventory inventory = detect::Detect(root);
  auto txns = journal::Load(root);
  if (!txns && diagnose::JournalNotPermitted(txns.error()))
    return System{std::move(root), std::move(inventory), {}, false, diagnose::JournalUnknownNote(txns.error())};
  if (!txns) {
    Error e = txns.error();
    e.message = fmt::format("the journal cannot be read: {}", e.message);
    return tl::unexpected(std::move(e));
  }
  return System{std::move(root), std::move(inventory), std::move(*txns)};
}

}  // namespace rocmtune::api
