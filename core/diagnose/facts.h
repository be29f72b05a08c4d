// What one request reads of the machine's configuration, read once and handed to every step of
// the assessment (the settings' table and findings, the caller's checks, the program's login
// environment, the setting checks, the known issues' rules through that environment, the advice):
// modprobe.d as libkmod reads it, the next boot's command line as the boot files give it, the
// environment files. Each is read on first use and kept (knobs::KnobContext's caches), so a file
// that changes while the request runs is seen once, and every step merges the same settings by
// one rule (LoginSettings).
#pragma once

#include <optional>
#include <vector>

#include "detect/inventory.h"
#include "knobs/backend.h"
#include "knobs/env_sources.h"
#include "sys/root.h"

namespace rocmtune::diagnose {

class Facts {
 public:
  // `inventory` must outlive the facts (the assessment's own).
  Facts(const sys::Root& root, const detect::Inventory& inventory);
  Facts(const Facts&) = delete;
  Facts& operator=(const Facts&) = delete;

  const sys::Root& root() const { return knobs_.root; }
  // The one knob context of the request: every backend's Read and check shares its caches.
  const knobs::KnobContext& Knobs() const { return knobs_; }
  // Assignments in the admin's environment files (knobs::ForeignEnvSettings), in reading order.
  const std::vector<knobs::EnvSetting>& ForeignEnv() const;
  // rocmtune's own drop-ins (knobs::OwnedEnvSources), in reading order.
  const std::vector<knobs::EnvSetting>& OwnedEnv() const;
  // The login environment a program gets from the machine's files, in the order a login reads
  // them (the last assignment wins): the admin's files, then rocmtune's drop-ins.
  std::vector<knobs::EnvSetting> LoginSettings() const;

 private:
  knobs::KnobContext knobs_;
  mutable std::optional<std::vector<knobs::EnvSetting>> owned_env_;
};

}  // namespace rocmtune::diagnose
