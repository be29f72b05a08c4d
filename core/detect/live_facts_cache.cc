#include "detect/live_facts_cache.h"

namespace rocmtune::detect {

LiveFactsCache::Probe LiveFactsCache::DefaultProbe() {
  return [](const std::vector<Gpu>& gpus) { return ReadLiveFacts(gpus); };
}

namespace {

std::vector<std::string> IdsOf(const std::vector<Gpu>& gpus) {
  std::vector<std::string> ids;
  ids.reserve(gpus.size());
  for (const Gpu& g : gpus) ids.push_back(g.id);
  return ids;
}

}  // namespace

const std::vector<LiveFacts>* LiveFactsCache::Fresh(const std::vector<Gpu>& gpus) const {
  const auto now = clock_();
  if (!kept_ || kept_->ids != IdsOf(gpus) || now - kept_->read >= max_age_ || now < kept_->read) return nullptr;
  return &kept_->facts;
}

const std::vector<LiveFacts>& LiveFactsCache::Keep(const std::vector<Gpu>& gpus,
                                                   std::chrono::steady_clock::time_point read,
                                                   std::vector<LiveFacts> facts) {
  kept_ = Kept{IdsOf(gpus), read, std::move(facts)};
  return kept_->facts;
}

const std::vector<LiveFacts>& LiveFactsCache::Get(const std::vector<Gpu>& gpus) {
  if (const std::vector<LiveFacts>* fresh = Fresh(gpus)) return *fresh;
  const auto now = clock_();
  return Keep(gpus, now, probe_(gpus));
}

}  // namespace rocmtune::detect
