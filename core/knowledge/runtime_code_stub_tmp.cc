#include "knowledge/runtime_code.h"
namespace rocmtune::knowledge {
const RuntimeCode& RuntimeCode::Builtin() { static RuntimeCode r; return r; }
Result<RuntimeCode> RuntimeCode::Parse(std::string_view) { return RuntimeCode{}; }
const CodeBuild* RuntimeCode::Find(std::string_view, std::string_view, std::optional<std::string_view>) const { return nullptr; }
}  // namespace rocmtune::knowledge
