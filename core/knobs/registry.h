// The ordered registry of knob backends; the only place that knows them all.
#pragma once

#include <memory>
#include <span>
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

// Files only rocmtune writes (its drop-ins and state). Anything else found in one of them is
// drift; other files rocmtune edits (etc/default/grub ...) are shared with their owners.
bool IsOwnedFile(std::string_view path);
std::span<const std::string_view> OwnedFiles();

// Knobs shown by `status` even when nobody set them: the ones every ROCm user asks about.
std::vector<KnobKey> WatchedKeys();

// The state of every configured or watched knob.
std::vector<KnobState> ReportKnobs(const KnobContext& ctx);

}  // namespace rocmtune::knobs
