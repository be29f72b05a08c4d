// `rocmtunectl reset --purge-plan DIR`: the reset planned now, left as plain text for a package's
// purge script, which runs after rocmtune's binaries are gone (debian/rocmtune.postrm; tuned's
// %postun undoes its GRUB/BLS edits the same way). The package's prerm asks for it on removal;
// removal itself changes nothing, so the admin's settings stay until purge.
//
// DIR/plan, one step a line, carried out in order by a POSIX shell:
//   rocmtune-purge-plan 1
//   write N PATH       if /PATH holds DIR/N.expect (is absent when there is no N.expect),
//                      replace it with DIR/N.new
//   remove N PATH      if /PATH holds DIR/N.expect, remove it
//   rmdir PATH         a directory rocmtune created: removed when empty
//   run PROG ARG...    a regenerator the reset needs (update-grub, update-initramfs ...), if installed:
//                      only one of PurgeCommands(), exactly
//   left PATH          a file rocmtune will not touch: someone else edited it since rocmtune wrote it
// PATH is root-relative. Every word is made of [A-Za-z0-9._/+=,:@-], so the shell splits lines on
// blanks with globbing off and never evaluates a word; the script checks each path against its own
// allow-list, and a file that changed after the plan was made is left as it is. The script holds
// the plan to the helper's rules (one line it would not accept refuses the whole plan), because it
// runs as root after the helper is gone.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/change.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::api {

inline constexpr std::string_view kPurgePlanHeader = "rocmtune-purge-plan 1";

// The commands a purge plan may run, as its `run` lines spell them (argv joined by one blank): the
// reset's regenerators (knobs/cmdline_backend.cc, boot/initramfs.cc) with their exact arguments.
// A trailing '*' stands for one plain word: the option key grubby removes, which the script
// checks against rocmtune's token record. debian/rocmtune.postrm's run_form() accepts these and
// nothing else; PurgePlanTest.PostrmRunsTheSameCommands fails when the two lists differ. A reset
// command outside the list is left out of the plan, for the admin to run.
std::span<const std::string_view> PurgeCommands();
bool IsPurgeCommand(std::string_view command);

struct PurgePlan {
  std::string text;                                        // DIR/plan
  std::vector<std::pair<std::string, std::string>> files;  // DIR/N.expect, DIR/N.new: name, content
  std::vector<std::string> left;                           // the reset's changes not in the plan, and why
};

// The reset `report` (planned with check) as a purge plan. Refused when the reset is refused
// (kInvalidArgument, with the reasons): a partial purge would leave half a configuration.
Result<PurgePlan> MakePurgePlan(const sys::Root& root, const ChangeReport& report);

// Writes the plan into DIR (created 0700; an existing empty directory is taken).
Result<void> WritePurgePlan(const PurgePlan& plan, const std::string& dir);

}  // namespace rocmtune::api
