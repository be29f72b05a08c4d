#include "api/explain.h"

#include <nlohmann/json.hpp>

#include "api/size_json.h"
#include "knobs/registry.h"

namespace rocmtune::api {

Result<ExplainReport> Explain(const System& system, const std::string& key_text) {
  auto key = knobs::ParseKnobKey(key_text);
  if (!key) return Fail(ErrorCode::kInvalidArgument, key.error().message);
  knobs::KnobContext ctx = system.Context();
  const knobs::Backend* backend = knobs::Registry::Builtin().For(*key);
  plan::Plan probe;
  backend->Validate(ctx, *key, std::nullopt, probe);  // unknown names, suggestions
  // A name rocmtune does not know is a usage error (exit 2), with "did you mean", as for `set`.
  if (!probe.refused.empty()) return Fail(ErrorCode::kInvalidArgument, probe.refused.front().message);
  return ExplainReport{*key, std::string(backend->Name()), backend->Read(ctx, *key), backend->Describe(ctx, *key)};
}

namespace {
// At namespace scope like export.cc's and history.cc's: in a unity batch with them it is the same
// alias declared again, where a local one would shadow theirs (clang's -Wshadow).
using json = nlohmann::ordered_json;
}  // namespace

nlohmann::ordered_json ExplainJson(const ExplainReport& r) {
  const knobs::KnobState& s = r.state;
  return WithSizes(
      json{
          {"schema", "rocmtune.explain.v1"},
          {"key", r.key.Text()},
          {"backend", r.backend},
          {"configured", s.configured ? json(*s.configured) : json(nullptr)},
          {"configured_in", s.configured_in ? json(*s.configured_in) : json(nullptr)},
          {"file", s.configured_in ? json(*s.configured_in) : json(nullptr)},
          {"line", s.configured_line > 0 ? json(s.configured_line) : json(nullptr)},
          {"running", s.running ? json(*s.running) : json(nullptr)},
          {"effective", s.effective ? json(*s.effective) : json(nullptr)},
          {"owner", knobs::Name(s.owner)},
          {"pending_reboot", s.pending_reboot},
          {"gone_after_reboot", s.gone_after_reboot},
          {"ineffective", s.ineffective},
          {"notes", s.notes},
          {"about", r.about},
      },
      r.key.Text());
}

}  // namespace rocmtune::api
