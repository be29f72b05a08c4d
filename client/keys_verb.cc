// `rocmtunectl keys`: every knob key rocmtune knows, one per line (or rocmtune.keys.v1). Shell
// completion asks for it; the list is the core's tables, so it needs no root, daemon or GPU.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/keys.h"
#include "client/document.h"
#include "client/exit_codes.h"
#include "client/verbs.h"

namespace rocmtune::client {

int RunKeys(const Context& ctx, const Args& /*args*/) {
  std::vector<std::string> keys = api::KnobKeys();
  if (ctx.json) {
    PrintJson(api::KeysJson(keys));
    return kExitOk;
  }
  for (const std::string& key : keys) fmt::print("{}\n", key);
  return kExitOk;
}

}  // namespace rocmtune::client
