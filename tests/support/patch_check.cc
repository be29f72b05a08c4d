#include "patch_check.h"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "test_tree.h"

namespace fs = std::filesystem;

namespace rocmtune::testing {

bool HavePatch() { return std::system("patch --version >/dev/null 2>&1") == 0; }

std::optional<std::string> ApplyWithPatch(const std::optional<std::string>& before, const std::string& diff) {
  TestTree t;
  // The target is named on the command line: patch then ignores the names in the headers,
  // which are the plan's root-relative paths. -E removes a file left empty (a removal).
  if (before) t.Write("target", *before);
  t.Write("change.diff", diff);
  std::string cmd = "cd '" + t.path() + "' && patch -s -E --no-backup-if-mismatch target change.diff 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed");
  std::string output;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) output.append(buf, n);
  int status = ::pclose(pipe);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("patch failed: " + output);
  if (!fs::exists(t.Path("target"))) return std::nullopt;
  std::ifstream in(t.Path("target"), std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace rocmtune::testing
