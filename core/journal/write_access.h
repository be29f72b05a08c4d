// May this process change a root at all? Asked before a change is carried out (the CLI's
// writer, and the helper itself) so that a user without the right gets "not authorized" (exit 4)
// and the way out, not the first write's "Permission denied".
#pragma once

#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::journal {

// kNotAuthorized when the effective user is not root and the root is the running system, or is
// a tree whose state directory (kStateDir, or its nearest existing parent: the helper makes it)
// this user may not write: every change takes the writer's lock and journals there. Root may
// change any tree; a tree's owner, their own copy.
Result<void> CheckWriteAccess(const sys::Root& root);

}  // namespace rocmtune::journal
