// The one rule for configuration that makes root act (ARCHITECTURE.md, "Security model"): an
// admin profile (profiles/profile_store.cc), /etc/rocmtune/trial.toml (a command the trial boot
// runs as root, api/trial_check.cc) and /etc/rocmtune/export.toml (directories the helper writes
// into as root, plan/publish.cc) count only when root owns them and their directory, and neither
// group nor others may write them: whoever may edit them could otherwise make root run or write
// what they choose.
#pragma once

#include <string_view>

#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::sys {

// `rel` (a file or directory under the root) is trusted: owned by root (under --root DIR: by
// root or by DIR's owner, who could change the tree anyway) and not writable by group or others.
// Otherwise kInvalidData, "<path>: not used: owned by uid N, not root (<why>)" or "<path>: not
// used: group or others may write it (mode 0666); chmod go-w". `why` says whose trust is at stake
// ("an admin profile is trusted only when root owns it").
Result<void> CheckTrusted(const Root& root, std::string_view rel, std::string_view why);

// CheckTrusted for `rel`'s directory, then for `rel`: a directory someone else may write lets
// them replace a root-owned file by their own.
Result<void> CheckTrustedFile(const Root& root, std::string_view rel, std::string_view why);

}  // namespace rocmtune::sys
