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
};

}  // namespace rocmtune::detect
