// Runs a regenerator (update-initramfs, update-grub, kernel-install, grubby ...) without a
// shell: execve(2) of the program found in a fixed PATH, with a minimal environment. Only the
// live root runs them; for any other root they stay pending (an image's own tools must do it).
#pragma once

#include <string>
#include <vector>

#include "util/result.h"

namespace rocmtune::helper {

struct RegenResult {
  int exit_code = 0;
  std::string output;  // the tail of stdout+stderr, for the error message
};

Result<RegenResult> RunRegenerator(const std::vector<std::string>& argv);

}  // namespace rocmtune::helper
