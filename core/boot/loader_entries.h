// systemd-boot's default entry, as the boot loader picks it for the next boot (systemd
// src/boot/boot.c: config_load_entries, config_entry_compare, config_default_entry_select;
// loader.conf(5); docs/BOOT_LOADER_SPECIFICATION.md): the Type #1 entries of $ESP/loader/entries
// and, where the ESP is not /boot, of the XBOOTLDR partition's /boot/loader/entries, sorted; the
// first one the LoaderEntryDefault EFI variable matches, else loader.conf's `default` glob, else
// the first in that order. LoaderEntryOneShot is a trial's one boot (trial_bls.cc), not the
// configuration. The files are read through the Root, so rocmtuned's root-only ESP comes from
// rocmtune-helper's copy (boot/boot_files.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::boot {

// One Type #1 entry, what systemd-boot sorts and matches by.
struct LoaderEntry {
  std::string path;        // root-relative
  std::string id;          // the file name, lower case (boot.c: strtolower16 of the file name)
  std::string sort_key;    // `sort-key`; empty: none
  std::string machine_id;  // `machine-id`
  std::string version;     // `version`
  int tries_left = -1;     // boot counting "+LEFT-DONE" before ".conf"; -1: none
  int tries_done = -1;
};

// An entry's keys (nullopt: not a Type #1 entry systemd-boot lists: no linux, efi or uki line).
std::optional<LoaderEntry> ParseLoaderEntry(std::string path, std::string_view content);
// boot.c config_entry_compare: entries with no tries left last, entries with a sort-key before
// those without (by sort-key, machine-id, then version, newest first), then by id, newest first.
bool LoaderEntryBefore(const LoaderEntry& a, const LoaderEntry& b);

struct DefaultLoaderEntry {
  std::string esp;         // root-relative
  std::string path;        // root-relative path of the entry
  std::string decided_by;  // "loader.conf `default` Pop_OS-current", ... for messages
};

// The entry the next boot boots. Err(kNotAuthorized) when an ESP this process cannot list
// may hold it, Err(kNotFound) when there is no entry, Err(kInvalidData) for `@saved` (the entry
// booted last decides) or a pattern no entry matches.
Result<DefaultLoaderEntry> FindDefaultLoaderEntry(const sys::Root& root);

// The `options` lines of an entry (systemd-boot joins several with a space), each with its
// 1-based line number.
std::vector<std::pair<int, std::string>> LoaderEntryOptions(std::string_view content);

}  // namespace rocmtune::boot
