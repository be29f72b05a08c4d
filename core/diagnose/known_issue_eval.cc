#include "diagnose/known_issue_eval.h"

#include <algorithm>

#include <fmt/format.h>

#include "diagnose/assess.h"
#include "diagnose/rocm_memory.h"
#include "knobs/env_sources.h"
#include "sys/meminfo.h"
#include "util/byte_size.h"
#include "util/text.h"

namespace rocmtune::diagnose {

namespace {

using text::ParseU64;
using text::SplitLines;
using text::Trim;

bool ValueMatches(std::string_view pattern, std::string_view value) {
  if (pattern.ends_with('*')) return value.starts_with(pattern.substr(0, pattern.size() - 1));
  return value == pattern;
}

bool InRange(const std::optional<std::string>& have, const std::optional<knowledge::Version>& min,
             const std::optional<knowledge::Version>& below, std::string_view what,
             std::vector<std::string>& evidence) {
  if (!min && !below) return true;
  std::optional<knowledge::Version> v = have ? knowledge::ParseVersion(*have) : std::nullopt;
  if (!v) return false;
  if (min && *v < *min) return false;
  if (below && !(*v < *below)) return false;
  evidence.push_back(fmt::format("{} {}", what, *have));
  return true;
}

// The rule without its log_only flag; fills `evidence` with what held. `unseen` (for a log): a
// variable the judged environment does not set is unknown for the program that crashed, not
// false; it is listed there. A variable set to another value still rules the issue out.
bool RuleHolds(const knowledge::IssueRule& r, const detect::Gpu& gpu, const IssueInputs& in,
               std::vector<std::string>& evidence, std::vector<std::string>* unseen = nullptr) {
  if (!r.gfx.empty()) {
    if (!gpu.gfx_target || std::find(r.gfx.begin(), r.gfx.end(), *gpu.gfx_target) == r.gfx.end()) return false;
    evidence.push_back(fmt::format("GPU {} is {}", gpu.id, *gpu.gfx_target));
  }
  if (r.apu && (!gpu.apu || *gpu.apu != *r.apu)) return false;
  if (!InRange(in.rocm_version, r.rocm_min, r.rocm_below, "ROCm", evidence)) return false;
  if (!InRange(in.kernel, r.kernel_min, r.kernel_below, "kernel", evidence)) return false;
  if (!r.rocm_lines.empty()) {
    std::optional<knowledge::Version> v = in.rocm_version ? knowledge::ParseVersion(*in.rocm_version) : std::nullopt;
    if (!v || v->parts.empty()) return false;
    // Versions drop trailing zeros ("7.0" is {7}): a missing minor is 0.
    auto minor_of = [](const knowledge::Version& x) { return x.parts.size() > 1 ? x.parts[1] : 0; };
    if (std::none_of(r.rocm_lines.begin(), r.rocm_lines.end(), [&](const knowledge::Version& line) {
          return line.parts[0] == v->parts[0] && minor_of(line) == minor_of(*v);
        }))
      return false;
    evidence.push_back(fmt::format("ROCm {}", *in.rocm_version));
  }
  for (const auto& [name, pattern] : r.env) {
    auto it = in.env.find(name);
    if (it == in.env.end() && unseen) {
      unseen->push_back(fmt::format("{}={}", name, pattern));
      continue;
    }
    if (it == in.env.end() || !ValueMatches(pattern, it->second)) return false;
    evidence.push_back(fmt::format("{}={} in the environment", name, it->second));
  }
  for (const std::string& fact : r.facts) {
    auto it = in.facts.find(fact);
    if (it == in.facts.end()) return false;
    evidence.push_back(it->second);
  }
  return true;
}

void AddFacts(const sys::Root& root, const detect::Gpu& gpu, IssueInputs& in) {
  if (gpu.card && !gpu.kfd_node && root.IsDirectory("sys/class/kfd/kfd/topology/nodes"))
    in.facts[std::string(knowledge::kFactGpuNotInKfd)] =
        fmt::format("{} ({}) is a DRM card but has no KFD topology node", gpu.id, *gpu.card);
  if (gpu.device_dir) {
    // The MES firmware the driver loaded, as amdgpu_ucode.c's fw_version/mes_fw_version (0444)
    // prints it: "0x%08x" of mes.sched_version & AMDGPU_MES_VERSION_MASK.
    // AMD's KFD fixes for Strix Halo export cwsr_size in the node's properties (rdna3-5.rst's
    // required kernels; drm/amdkfd "Export the cwsr_size and ctl_stack_size to userspace").
    if (gpu.kfd_node)
      if (auto props = root.ReadFile(fmt::format("sys/class/kfd/kfd/topology/nodes/{}/properties", *gpu.kfd_node))) {
        bool has = false;
        for (std::string_view line : SplitLines(*props)) has = has || line.starts_with("cwsr_size ");
        const std::string node = fmt::format("KFD node {}", *gpu.kfd_node);
        if (!has) {
          in.facts[std::string(knowledge::kFactKfdWithoutCwsrSize)] =
              fmt::format("{} ({}) has no cwsr_size property: the kernel lacks AMD's KFD fixes", node, gpu.id);
        } else if (in.cwsr_enable && Trim(*in.cwsr_enable) == "0") {
          in.facts[std::string(knowledge::kFactCwsrDisabledWithKfdFix)] =
              fmt::format("amdgpu.cwsr_enable is 0 while {} has cwsr_size (the kernel has AMD's KFD fixes)", node);
        }
      }
    if (auto mes = root.ReadFile(*gpu.device_dir + "/fw_version/mes_fw_version"); mes && text::ParseHex(*mes) == 0x83)
      in.facts[std::string(knowledge::kFactMesFirmware0x83)] =
          fmt::format("{} runs MES firmware {}", gpu.id, Trim(*mes));
    // What KFD lets ROCm allocate in system memory, not amdgpu's GTT alone: amdgpu.gttsize can
    // make GTT 124 GiB while TTM's default pages_limit still stops ROCm at half the RAM.
    const SystemMemory system = in.system_memory ? *in.system_memory : ReadSystemMemory(root);
    const RocmMemory memory = RocmMemoryOf(root, gpu, system);
    const std::optional<uint64_t> ram = system.ram_bytes;
    // The TTM default is RAM/2 (ttm_device.c); a little slack for the kernel's rounding.
    if (memory.gtt_allocatable_bytes && ram && *memory.gtt_allocatable_bytes * 100 <= *ram * 55)
      in.facts[std::string(knowledge::kFactGttAtMostHalfRam)] =
          fmt::format("ROCm can allocate {} of {} RAM (limited by {}; amdgpu's GTT is {})",
                      util::FormatBytes(*memory.gtt_allocatable_bytes), util::FormatBytes(*ram), memory.limited_by,
                      memory.gtt_bytes ? util::FormatBytes(*memory.gtt_bytes) : "unknown");
  }
}

}  // namespace

std::vector<IssueMatch> EvaluateKnownIssues(const knowledge::KnownIssues& issues, const detect::Gpu& gpu,
                                            const IssueInputs& inputs, std::optional<std::string_view> log) {
  std::vector<IssueMatch> out;
  for (const knowledge::KnownIssue& issue : issues.issues()) {
    if (issue.when.log_only && !log) continue;
    IssueMatch m{&issue, gpu.id, {}, {}, {}};
    if (!RuleHolds(issue.when, gpu, inputs, m.evidence, log ? &m.env_unseen : nullptr)) continue;
    if (log) {
      for (const std::string& s : issue.symptoms)
        if (log->find(s) != std::string_view::npos) m.symptoms.push_back(s);
      if (m.symptoms.empty()) continue;
      if (!issue.requires_symptom.empty()) {
        auto shown = std::find_if(issue.requires_symptom.begin(), issue.requires_symptom.end(),
                                  [&](const std::string& s) { return log->find(s) != std::string_view::npos; });
        if (shown == issue.requires_symptom.end()) continue;
        if (std::find(m.symptoms.begin(), m.symptoms.end(), *shown) == m.symptoms.end()) m.symptoms.push_back(*shown);
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<IssueMatch> EvaluateKnownRisks(const knowledge::KnownIssues& issues, const detect::Gpu& gpu,
                                           const IssueInputs& inputs) {
  std::vector<IssueMatch> out;
  for (const knowledge::KnownIssue& issue : issues.issues()) {
    IssueMatch m{&issue, gpu.id, {}, {}, {}};
    if (RuleHolds(issue.when, gpu, inputs, m.evidence)) out.push_back(std::move(m));
  }
  return out;
}

IssueInputs ProgramInputs(const detect::Inventory& inventory, const ProgramView& view) {
  IssueInputs in;
  in.rocm_version = inventory.system.rocm_version;
  if (!view.runtimes.empty() && view.runtimes.front().version) in.rocm_version = view.runtimes.front().version;
  in.kernel = inventory.system.kernel;
  in.env = view.env;
  if (auto it = inventory.system.amdgpu.parameters.find("cwsr_enable");
      it != inventory.system.amdgpu.parameters.end() && it->second)
    in.cwsr_enable = it->second;
  return in;
}

IssueInputs GpuInputs(const sys::Root& root, const IssueInputs& machine, const detect::Gpu& gpu) {
  IssueInputs in = machine;
  AddFacts(root, gpu, in);
  return in;
}

}  // namespace rocmtune::diagnose
