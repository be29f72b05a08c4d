// How one run of rocmtune-helper ended: its rocmtune.helper.v1 reply. One type and one
// codec for both ends of the pipe (the helper writes it, rocmtunectl and the daemon read it).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "plan/plan.h"
#include "util/result.h"

namespace rocmtune::plan {

enum class HelperStatus { kCommitted, kUnchanged, kRefused, kConflict, kBusy, kFailed };

std::string_view HelperStatusName(HelperStatus status);
// nullopt for a name no helper writes.
std::optional<HelperStatus> ParseHelperStatus(std::string_view name);

inline constexpr const char* kHelperSchema = "rocmtune.helper.v1";

struct HelperReply {
  HelperStatus status = HelperStatus::kFailed;
  std::string transaction;            // the journal id when one was begun
  std::vector<std::string> messages;  // why it was refused / failed, drift found, regenerator output
  Regen initramfs = Regen::kNo;
  Regen bootloader = Regen::kNo;
  std::vector<std::string> recovered;  // interrupted transactions rolled back first
};

nlohmann::ordered_json HelperReplyJson(const HelperReply& reply);
// Reads a reply field by field by type: it is another process's output, so a missing or
// wrong-typed field takes its default instead of throwing; a reply that is not a JSON object
// with a known status is an error.
Result<HelperReply> ParseHelperReply(std::string_view text);

}  // namespace rocmtune::plan
