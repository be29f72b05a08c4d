// T::Builtin() of every shipped table: built on first use from the code the build generated
// (knowledge/builtin_data.h), no TOML parsed. Each table lives until the process exits and is
// never destroyed (nothing at exit walks its maps and strings to free them).
#include "knowledge/amdgpu_ids.h"
#include "knowledge/builtin_data.h"
#include "knowledge/catalog.h"
#include "knowledge/env_vars.h"
#include "knowledge/gfx_targets.h"
#include "knowledge/gpu_table.h"
#include "knowledge/kernel_options.h"
#include "knowledge/known_issues.h"
#include "knowledge/rocm_support.h"
#include "knowledge/runtime_code.h"

namespace rocmtune::knowledge {

const AmdgpuIds& AmdgpuIds::Builtin() {
  static const AmdgpuIds& table = *new AmdgpuIds(BuiltinData::MakeAmdgpuIds());
  return table;
}

const Catalog& Catalog::Builtin() {
  static const Catalog& table = *new Catalog(BuiltinData::MakeCatalog());
  return table;
}

const EnvVars& EnvVars::Builtin() {
  static const EnvVars& table = *new EnvVars(BuiltinData::MakeEnvVars());
  return table;
}

const GfxTargetTable& GfxTargetTable::Builtin() {
  static const GfxTargetTable& table = *new GfxTargetTable(BuiltinData::MakeGfxTargets());
  return table;
}

const GpuTable& GpuTable::Builtin() {
  static const GpuTable& table = *new GpuTable(BuiltinData::MakeGpus());
  return table;
}

const KernelOptions& KernelOptions::Builtin() {
  static const KernelOptions& table = *new KernelOptions(BuiltinData::MakeKernelOptions());
  return table;
}

const KnownIssues& KnownIssues::Builtin() {
  static const KnownIssues& table = *new KnownIssues(BuiltinData::MakeKnownIssues());
  return table;
}

const RocmSupport& RocmSupport::Builtin() {
  static const RocmSupport& table = *new RocmSupport(BuiltinData::MakeRocmSupport());
  return table;
}

const RuntimeCode& RuntimeCode::Builtin() {
  static const RuntimeCode& table = *new RuntimeCode(BuiltinData::MakeRuntimeCode());
  return table;
}

Result<RuntimeCode> RuntimeCode::Parse(std::string_view toml) {
  return Parse(toml, "runtime_code.toml", GfxTargetTable::Builtin());
}

}  // namespace rocmtune::knowledge
