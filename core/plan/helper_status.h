// How one run of rocmtune-helper ended: the "status" of its rocmtune.helper.v1 reply. One enum
// for both ends of the pipe (the helper writes it, rocmtunectl and the daemon read it).
#pragma once

#include <optional>
#include <string_view>

namespace rocmtune::plan {

enum class HelperStatus { kCommitted, kUnchanged, kRefused, kConflict, kBusy, kFailed };

std::string_view HelperStatusName(HelperStatus status);
// nullopt for a name no helper writes.
std::optional<HelperStatus> ParseHelperStatus(std::string_view name);

}  // namespace rocmtune::plan
