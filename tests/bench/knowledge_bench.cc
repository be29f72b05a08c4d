// The built-in knowledge: parsing the nine data files as every program did at start before
// (BM_KnowledgeParseToml), against constructing the same tables from the code
// rocmtune-knowledge-gen generated at build time (BM_KnowledgeGenerated, what T::Builtin() does
// on first use now; knowledge/builtin_data.h). BENCHMARKS.md; never asserted by a test.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <benchmark/benchmark.h>

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

namespace {

namespace kn = rocmtune::knowledge;

std::string DataFile(const char* name) {
  std::ifstream in(std::filesystem::path(ROCMTUNE_DATA_DIR) / name, std::ios::binary);
  if (!in) throw std::runtime_error(std::string("cannot read data/") + name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

template <typename T>
void Keep(const rocmtune::Result<T>& parsed) {
  if (!parsed) throw std::runtime_error(parsed.error().message);
  benchmark::DoNotOptimize(&*parsed);
}

void BM_KnowledgeParseToml(benchmark::State& state) {
  const std::string ids = DataFile("amdgpu.ids"), catalog = DataFile("catalog.toml"), env = DataFile("env_vars.toml"),
                    gfx = DataFile("gfx_targets.toml"), gpus = DataFile("gpus.toml"),
                    options = DataFile("kernel_options.toml"), issues = DataFile("known_issues.toml"),
                    support = DataFile("rocm_support.toml"), code = DataFile("runtime_code.toml");
  for (auto _ : state) {
    Keep(kn::AmdgpuIds::Parse(ids, "data/amdgpu.ids"));
    Keep(kn::Catalog::Parse(catalog, "data/catalog.toml"));
    Keep(kn::EnvVars::Parse(env, "data/env_vars.toml"));
    auto targets = kn::GfxTargetTable::Parse(gfx, "data/gfx_targets.toml");
    Keep(targets);
    Keep(kn::GpuTable::Parse(gpus, "data/gpus.toml"));
    Keep(kn::KernelOptions::Parse(options, "data/kernel_options.toml"));
    Keep(kn::KnownIssues::Parse(issues, "data/known_issues.toml"));
    Keep(kn::RocmSupport::Parse(support, "data/rocm_support.toml", *targets));
    Keep(kn::RuntimeCode::Parse(code, "data/runtime_code.toml", *targets));
  }
}
BENCHMARK(BM_KnowledgeParseToml)->Unit(benchmark::kMicrosecond);

void BM_KnowledgeGenerated(benchmark::State& state) {
  for (auto _ : state) {
    auto ids = kn::BuiltinData::MakeAmdgpuIds();
    auto catalog = kn::BuiltinData::MakeCatalog();
    auto env = kn::BuiltinData::MakeEnvVars();
    auto targets = kn::BuiltinData::MakeGfxTargets();
    auto gpus = kn::BuiltinData::MakeGpus();
    auto options = kn::BuiltinData::MakeKernelOptions();
    auto issues = kn::BuiltinData::MakeKnownIssues();
    auto support = kn::BuiltinData::MakeRocmSupport();
    auto code = kn::BuiltinData::MakeRuntimeCode();
    benchmark::DoNotOptimize(&ids);
    benchmark::DoNotOptimize(&catalog);
    benchmark::DoNotOptimize(&env);
    benchmark::DoNotOptimize(&targets);
    benchmark::DoNotOptimize(&gpus);
    benchmark::DoNotOptimize(&options);
    benchmark::DoNotOptimize(&issues);
    benchmark::DoNotOptimize(&support);
    benchmark::DoNotOptimize(&code);
  }
}
BENCHMARK(BM_KnowledgeGenerated)->Unit(benchmark::kMicrosecond);

}  // namespace
