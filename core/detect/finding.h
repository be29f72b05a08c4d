// A finding: something rocmtune noticed and reports (status JSON `findings`).
#pragma once

#include <string>
#include <string_view>

namespace rocmtune::detect {

enum class Severity { kInfo, kWarning, kError };

inline std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "info";
}

struct Finding {
  std::string id;  // stable, dotted: "detect.read-error", "gpu.not-amdgpu"
  Severity severity = Severity::kInfo;
  std::string message;  // one sentence a person can act on
  std::string subject;  // the GPU id or path it concerns, may be empty
  // Where a setting that causes it is written (root-relative file, 1-based line); empty / 0
  // when the finding is not about a line of a file.
  std::string file = {};
  int line = 0;
  std::string hint = {};    // what to do about it, may be empty
  std::string source = {};  // the public citation that makes it true, may be empty
  // The GPU id it concerns when it is about what one GPU does (subject may name a variable).
  std::string gpu = {};
};

}  // namespace rocmtune::detect
