// bootc's source-tracked kernel arguments, the one command rocmtune runs on a bootc system
// (boot/ostree_setups.h): `bootc loader-entries set-options-for-source --source rocmtune
// [--options "TOKENS"]` replaces the whole list of the source's arguments in the next
// deployment's BLS entry (kept there as `x-options-source-rocmtune`), and without --options
// removes them (bootc-dev/bootc crates/lib/src/cli.rs SetOptionsForSourceOpts,
// crates/lib/src/loader_entries.rs, docs/src/man/bootc-loader-entries-set-options-for-source.8.md;
// in bootc 1.15.2 and later, with ostree 2026.1 or later). bootc is not in Debian 12: the form is
// checked against that source, not run.
//
// The command sets a whole list, so its undo needs the list it replaced: a bootc op carries it
// in `before` (the options before, "" for none), which the journal keeps with the op.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "plan/plan.h"

namespace rocmtune::plan {

inline constexpr std::string_view kBootcSource = "rocmtune";

// bootc's argv for the source's options `options` (space-separated tokens; empty: removed).
std::vector<std::string> BootcSetOptionsArgv(std::string_view options);
// The options `argv` (after "bootc") sets, "" when it removes the source; nullopt when it is not
// exactly that form.
std::optional<std::string> BootcArgvOptions(std::span<const std::string> args);
// The op that undoes a bootc op: the same command with its `before`, and what it set as the
// undo's own `before`; nullopt for any other op (or a bootc op without `before`).
std::optional<Op> InverseBootc(const Op& done);

}  // namespace rocmtune::plan
