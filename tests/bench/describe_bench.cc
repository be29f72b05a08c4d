// rocmtuned's Describe in its parts (Google Benchmark; BENCHMARKS.md, "Over the bus"), on a
// committed world with the inventory detected once outside the loop, as the daemon keeps it:
//
//   BM_DescribeAssess/<world>   api::Status: the assessment (reads the world's files each time)
//   BM_DescribeJson/<world>     api::StatusJson: the document from the assessment
//   BM_DescribeDump/<world>/N   the document as text, indented (2: what rocmtuned sends) or on
//                               one line (-1)
//   BM_StatusPrintTree/<world>  the client's --json output by reading the text into a tree and
//                               writing it again (before)
//   BM_StatusPrintWhole/<world> the same output: the text checked by IsWholeJsonText (now)
#include <string>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include "api/status.h"
#include "detect/inventory.h"
#include "sys/root.h"
#include "util/json_text.h"

namespace {

using namespace rocmtune;

struct World {
  sys::Root root;
  detect::Inventory inventory;
};

std::optional<World> Open(benchmark::State& state, const std::string& world) {
  auto root = sys::Root::Open(std::string(ROCMTUNE_WORLDS_DIR) + "/" + world);
  if (!root) {
    state.SkipWithError(root.error().message.c_str());
    return std::nullopt;
  }
  detect::Inventory inventory = detect::Detect(*root, {.use_libdrm = false});
  return World{std::move(*root), std::move(inventory)};
}

api::StatusOptions DaemonOptions() {
  api::StatusOptions options;
  options.live_facts = false;
  options.caller = false;  // rocmtuned answers for no one user
  return options;
}

void BM_DescribeAssess(benchmark::State& state, const std::string& world) {
  auto w = Open(state, world);
  if (!w) return;
  for (auto _ : state) {
    auto report = api::Status(w->root, w->inventory, DaemonOptions());
    benchmark::DoNotOptimize(report);
  }
}

void BM_DescribeJson(benchmark::State& state, const std::string& world) {
  auto w = Open(state, world);
  if (!w) return;
  auto report = api::Status(w->root, w->inventory, DaemonOptions());
  if (!report) return state.SkipWithError(report.error().message.c_str());
  for (auto _ : state) benchmark::DoNotOptimize(api::StatusJson(*report));
}

void BM_DescribeDump(benchmark::State& state, const std::string& world) {
  auto w = Open(state, world);
  if (!w) return;
  auto doc = api::DescribeSystem(w->root, w->inventory, DaemonOptions());
  if (!doc) return state.SkipWithError(doc.error().message.c_str());
  const int indent = static_cast<int>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(JsonText(*doc, indent));
  state.counters["bytes"] = static_cast<double>(JsonText(*doc, indent).size());
}

std::string Text(benchmark::State& state, const std::string& world) {
  auto w = Open(state, world);
  if (!w) return {};
  auto doc = api::DescribeSystem(w->root, w->inventory, DaemonOptions());
  return doc ? JsonText(*doc) : std::string();
}

void BM_StatusPrintTree(benchmark::State& state, const std::string& world) {
  const std::string text = Text(state, world);
  for (auto _ : state) {
    auto tree = nlohmann::ordered_json::parse(text, nullptr, false);
    benchmark::DoNotOptimize(JsonText(tree));
  }
}

void BM_StatusPrintWhole(benchmark::State& state, const std::string& world) {
  const std::string text = Text(state, world);
  for (auto _ : state) {
    benchmark::DoNotOptimize(IsWholeJsonText(text));
  }
}

}  // namespace

BENCHMARK_CAPTURE(BM_DescribeAssess, mi300x_cpx, std::string("mi300x-cpx"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_DescribeAssess, phoenix, std::string("phoenix"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_DescribeJson, mi300x_cpx, std::string("mi300x-cpx"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_DescribeDump, mi300x_cpx, std::string("mi300x-cpx"))
    ->Arg(-1)
    ->Arg(2)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_StatusPrintTree, mi300x_cpx, std::string("mi300x-cpx"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_StatusPrintWhole, mi300x_cpx, std::string("mi300x-cpx"))->Unit(benchmark::kMicrosecond);
