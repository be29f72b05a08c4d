#include "diagnose/facts.h"

#include "knowledge/catalog.h"

namespace rocmtune::diagnose {

Facts::Facts(const sys::Root& root, const detect::Inventory& inventory)
    : knobs_{root, inventory, knowledge::Catalog::Builtin()} {}

const std::vector<knobs::EnvSetting>& Facts::ForeignEnv() const {
  if (!knobs_.foreign_env) knobs_.foreign_env = knobs::ForeignEnvSettings(knobs_.root);
  return *knobs_.foreign_env;
}

const std::vector<knobs::EnvSetting>& Facts::OwnedEnv() const {
  if (!owned_env_) {
    owned_env_.emplace();
    for (const knobs::EnvSource& src : knobs::OwnedEnvSources())
      for (knobs::EnvSetting& s : knobs::ReadEnvSource(knobs_.root, src)) owned_env_->push_back(std::move(s));
  }
  return *owned_env_;
}

std::vector<knobs::EnvSetting> Facts::LoginSettings() const {
  std::vector<knobs::EnvSetting> out = ForeignEnv();
  out.insert(out.end(), OwnedEnv().begin(), OwnedEnv().end());
  return out;
}

}  // namespace rocmtune::diagnose
