#include "detect/live_facts_cache.h"

namespace rocmtune::detect {

LiveFactsCache::Probe LiveFactsCache::DefaultProbe() {
  return [](const std::vector<Gpu>& gpus) { return ReadLiveFacts(gpus); };
}

const std::vector<LiveFacts>& LiveFactsCache::Get(const std::vector<Gpu>& gpus) {
  std::vector<std::string> ids;
  ids.reserve(gpus.size());
  for (const Gpu& g : gpus) ids.push_back(g.id);
  const auto now = clock_();
  if (!kept_ || kept_->ids != ids || now - kept_->read >= max_age_ || now < kept_->read)
    kept_ = Kept{std::move(ids), now, probe_(gpus)};
  return kept_->facts;
}

}  // namespace rocmtune::detect
