// modprobe backend: amdgpu / ttm / amdttm options in one rocmtune-owned drop-in,
// /etc/modprobe.d/rocmtune.conf. Effective values come from every modprobe.d directory as
// libkmod reads them (sys/kmod_config) plus the kernel command line, which wins.
#pragma once

#include <memory>

#include "knobs/backend.h"

namespace rocmtune::knobs {

// The modprobe backend, for the registry (knobs/registry.cc) — the only place that makes backends.
std::unique_ptr<Backend> MakeModprobeBackend();

// The drop-in's text for these options (module -> name -> value), stable order.
std::string RenderModprobeDropIn(const std::map<std::string, std::map<std::string, std::string>>& options);

}  // namespace rocmtune::knobs
