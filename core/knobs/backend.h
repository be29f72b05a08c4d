// A knob backend (tuned's plugin idea): one per place a setting lives. Each reads the
// state of its knobs, validates assignments and plans the changes; none of them writes.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "boot/boot_context.h"
#include "detect/inventory.h"
#include "knobs/env_sources.h"
#include "knobs/knob_key.h"
#include "knowledge/catalog.h"
#include "plan/plan.h"
#include "sys/kmod_config.h"
#include "sys/root.h"

namespace rocmtune::knobs {

// A boot setup's context (boot/boot_context.h: root, inventory, catalog, the next boot's command
// line computed once) with the backends' own caches; `KnobContext ctx{root, inventory, catalog}`.
struct KnobContext : boot::BootContext {
  using boot::BootContext::BootContext;

  // modprobe.d as libkmod reads it, read once per context: every module-parameter knob of a
  // request or of `status` needs the same answer.
  mutable std::optional<Result<sys::ModprobeConfig>> modprobe_config = std::nullopt;
  // Environment assignments in files rocmtune does not own, read once for the same reason.
  mutable std::optional<std::vector<EnvSetting>> foreign_env = std::nullopt;
  // The request's opt-in (`--admin-lines`): the env backend also comments out the admin's lines
  // that set a key of the request (knobs/admin_lines.h) instead of warning that they stay.
  bool admin_lines = false;
};

// Who decides a knob's configured value. Status and explain show Name(owner).
// kUnknown: what the next boot gets cannot be read (its command line is unknown, NextBoot), so
// neither is whose it is.
enum class Owner { kKernel, kRocmtune, kAdmin, kUnset, kUnknown };

constexpr std::string_view Name(Owner owner) {
  switch (owner) {
    case Owner::kKernel: return "kernel";
    case Owner::kRocmtune: return "rocmtune";
    case Owner::kAdmin: return "admin";
    case Owner::kUnset: return "unset";
    case Owner::kUnknown: return "unknown";
  }
  return "unknown";
}

struct KnobState {
  KnobKey key;
  std::optional<std::string> configured;     // what the next module load / boot will use
  std::optional<std::string> configured_in;  // root-relative file that decides it (the next boot's)
  int configured_line = 0;                   // its 1-based line; 0: unknown or not line-based
  std::optional<std::string> running;        // what the running kernel / device shows now
  std::optional<std::string> effective;      // what the driver really uses, "auto" resolved for these GPUs
  Owner owner = Owner::kKernel;
  bool pending_reboot = false;  // configured differs from running until a reboot / reload
  // Running now only from the running kernel's command line (or a load by hand), and not in the
  // next boot's configuration: the value is gone after a reboot.
  bool gone_after_reboot = false;
  // The configured value is one the kernel does not accept (amd_iommu=on): it is ignored at the
  // next boot, so a reboot does not make it work (never "reboot pending").
  bool ineffective = false;
  // rocmtune's value that can never take effect: another source read after its drop-in (the
  // kernel command line, a later modprobe.d file) sets the option to something else.
  std::optional<std::string> overridden;
  std::string overridden_by;       // "/proc/cmdline", "the next boot's command line", a file
  std::vector<std::string> notes;  // conflicts, why effective differs, ...
};

using boot::ReadOptional;

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view Name() const = 0;
  virtual bool Handles(const KnobKey& key) const = 0;

  // Adds refusals and warnings for one assignment (or unset, value nullopt) to `plan`.
  virtual void Validate(const KnobContext& ctx, const KnobKey& key, const std::optional<std::string>& value,
                        plan::Plan& plan) const = 0;
  virtual KnobState Read(const KnobContext& ctx, const KnobKey& key) const = 0;
  // The ops that make `set` true and remove rocmtune's setting of `unset`, appended to `plan`.
  virtual void PlanChanges(const KnobContext& ctx, std::span<const Assignment> set, std::span<const KnobKey> unset,
                           plan::Plan& plan) const = 0;
  // Keys this backend sees configured on the system (by anyone), for `status`.
  virtual std::vector<KnobKey> ConfiguredKeys(const KnobContext& ctx) const = 0;
  // Keys rocmtune's own files or records set: what `reset` removes.
  virtual std::vector<KnobKey> OwnedKeys(const KnobContext& ctx) const = 0;
  // What `explain` prints about a key beyond its state: meaning, values, source.
  virtual std::vector<std::string> Describe(const KnobContext& ctx, const KnobKey& key) const = 0;
};

}  // namespace rocmtune::knobs
