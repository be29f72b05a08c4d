// Whether the installed bootc can keep rocmtune's kernel arguments as its own source: `bootc
// loader-entries set-options-for-source` is in bootc 1.15.2 and later (bootc-dev/bootc commit
// fb8c6682 "loader-entries: Add `set-options-for-source`", first tagged v1.15.2), and it refuses
// to run with an ostree older than 2026.1 (crates/lib/src/loader_entries.rs
// set_options_for_source_staged: `ostree::check_version(2026, 1)`, "requires ostree >= 2026.1
// for bootconfig-extra support": ostree v2026.1 keeps x-options-source-* keys through a staged
// deployment, src/libostree/ostree-sysroot-deploy.c "bootconfig-extra").
//
// The versions are read beneath the root from rpm's database (runtime/rpmdb.h): the packages
// owning /usr/bin/bootc and libostree (Fedora's and CentOS's ostree-libs), never by running them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sys/root.h"

namespace rocmtune::boot {

inline constexpr std::string_view kBootcMinVersion = "1.15.2";
inline constexpr std::string_view kOstreeMinVersion = "2026.1";

// nullopt: both are new enough; else why not (too old, or a version that cannot be read).
std::optional<std::string> BootcSourceOptionsMissing(const sys::Root& root);

// rpm's version order (lib/rpmvercmp.c) for what versions of bootc and ostree look like:
// alphanumeric segments, numbers compared as numbers, '~' sorting before anything; true when
// `version` >= `minimum`.
bool RpmVersionAtLeast(std::string_view version, std::string_view minimum);

}  // namespace rocmtune::boot
