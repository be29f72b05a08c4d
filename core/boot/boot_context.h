// What every boot setup (setup.h) reads from: the root, the inventory (its boot setup and kernel),
// the catalog (module options on the command line), and the next boot's command line computed
// once (setup.h ReadNextBoot). knobs::KnobContext is one of these with the backends' caches added, so a
// backend hands its own context to a setup.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "detect/inventory.h"
#include "knowledge/catalog.h"
#include "sys/root.h"

namespace rocmtune::boot {

struct NextBoot;  // next_boot.h

// kernel-install's command line (systemd-boot / UKI), and the Boot Loader Specification entries.
inline constexpr std::string_view kKernelCmdlinePath = "etc/kernel/cmdline";
inline constexpr std::string_view kBlsEntriesDir = "boot/loader/entries";

struct BootContext {
  BootContext(const sys::Root& root_in, const detect::Inventory& inventory_in, const knowledge::Catalog& catalog_in)
      : root(root_in), inventory(inventory_in), catalog(catalog_in) {}

  const sys::Root& root;
  const detect::Inventory& inventory;
  const knowledge::Catalog& catalog;
  // The next boot's command line (ReadNextBoot, setup.h), computed once: every knob of a request
  // or of `status` asks it.
  mutable std::shared_ptr<const NextBoot> next_boot;
};

// A file's content for an op's `before`, or nullopt when it cannot be read.
inline std::optional<std::string> ReadOptional(const sys::Root& root, std::string_view path) {
  auto content = root.ReadFile(path, 1 << 20);
  return content ? std::optional(*content) : std::nullopt;
}

}  // namespace rocmtune::boot
