// The parameters an installed kernel module declares, asked through libkmod (its .modinfo
// "parm"/"parmtype" entries), for the module file of a kernel release under the root:
// lib/modules/<release>/<path from modules.dep>. /sys/module/<m>/parameters is no proof that a
// parameter is missing: one declared with permission 0 never appears there (kernel/params.c
// add_sysfs_param() is only called for perm != 0).
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::sys {

struct ModuleParams {
  std::string file;             // root-relative path of the module file
  std::set<std::string> names;  // every parameter it declares
};

// kNotFound when there is no modules.dep for the release or it lists no such module. The file
// is opened beneath the root (Root::Open) and handed to libkmod as /proc/self/fd/N, so libkmod
// reads exactly that file (compressed or not, as libkmod supports) and never resolves a path of
// the root itself.
Result<ModuleParams> InstalledModuleParams(const Root& root, std::string_view release, std::string_view module);

}  // namespace rocmtune::sys
