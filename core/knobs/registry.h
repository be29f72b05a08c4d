// The ordered registry of knob backends; the only place that knows them all.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "knobs/backend.h"

namespace rocmtune::knobs {

class Registry {
 public:
  static const Registry& Builtin();
  const Backend* For(const KnobKey& key) const;
  const std::vector<std::unique_ptr<Backend>>& backends() const { return backends_; }

 private:
  std::vector<std::unique_ptr<Backend>> backends_;
};

// Knobs shown by `status` even when nobody set them: the ones every ROCm user asks about.
std::vector<KnobKey> WatchedKeys();

// The state of every configured or watched knob.
std::vector<KnobState> ReportKnobs(const KnobContext& ctx);

}  // namespace rocmtune::knobs
