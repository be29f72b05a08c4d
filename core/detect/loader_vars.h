// systemd's boot loader interface (docs/BOOT_LOADER_INTERFACE.md): EFI variables under vendor
// 4a67b082-0a4c-41cf-b6c7-440b29bb8c4f that the boot loader sets and bootctl reads. efivarfs shows
// them world-readable (mode 0644), so they are evidence an unprivileged reader can have.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sys/root.h"

namespace rocmtune::detect {

// "sys/firmware/efi/efivars/<name>-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"
std::string LoaderVarPath(std::string_view name);

// A string variable (LoaderInfo, LoaderEntryDefault, LoaderEntryOneShot): UTF-16LE, NUL-terminated,
// after efivarfs's 4 attribute bytes. nullopt when missing, unreadable, or not printable ASCII
// (entry ids are file names; the loaders' own names and versions are ASCII).
std::optional<std::string> ReadLoaderString(const sys::Root& root, std::string_view name);

}  // namespace rocmtune::detect
