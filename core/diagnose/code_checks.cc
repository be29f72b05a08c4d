// Whether the ROCm runtime a program loads carries code for each GPU (diagnose/checks.h,
// CodeChecks). A GPU without code objects in that runtime is not "safe" whatever else holds:
// rocBLAS aborts with "Cannot read TensileLibrary.dat ... for GPU arch : gfx1031", HIP fails with
// hipErrorNoBinaryForGpu. Peers look at the same thing: ollama reads the rocBLAS library
// directory's targets before it trusts a GPU (ollama discover/amd_linux.go).
//
// What each kind of work needs from the runtime:
//   PyTorch's runtime: its own kernels (torch, every workload), rocBLAS (gemm, conv: MIOpen's
//                      GEMM solvers call it), MIOpen (conv)
//   any other runtime: rocBLAS (gemm, conv), MIOpen (conv)
// A component the runtime does not ship is not judged (the program brings its own or fails to
// load for a reason that is not the GPU). Targets are read from the files (runtime/runtime.h);
// where no file could be read, the build's known list (data/runtime_code.toml), then AMD's GPU
// table of the release (data/rocm_support.toml) stand in, said so in the evidence.
#include <algorithm>
#include <array>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "diagnose/checks.h"
#include "knowledge/gfx_targets.h"
#include "knowledge/known_issues.h"
#include "knowledge/rocm_support.h"
#include "knowledge/runtime_code.h"

namespace rocmtune::diagnose {

namespace {

using runtime::Code;
using runtime::Kind;
using runtime::Runtime;

constexpr std::string_view kOverride = "HSA_OVERRIDE_GFX_VERSION";
constexpr std::string_view kTheRockSource =
    "ROCm/TheRock SUPPORTED_GPUS.md and RELEASES.md (multi-arch wheels rocm[libraries,device-gfxNNNN])";

// A component's targets, and where they come from.
struct Targets {
  std::vector<std::string> names;
  std::string from;    // "/opt/rocm-6.3.1/lib/rocblas/library", "rocmtune's list for torch 2.5 + ROCm 6.2"
  std::string source;  // a citation when the list is rocmtune's knowledge, not the files
};

bool HasCode(const Targets& t, std::string_view isa) {
  return std::any_of(t.names.begin(), t.names.end(), [&](const std::string& n) { return runtime::Runs(n, isa); });
}

std::string MajorMinor(std::string_view version) {
  auto v = knowledge::ParseVersion(version);
  if (!v || v->parts.empty()) return std::string(version);
  return fmt::format("{}.{}", v->parts[0], v->parts.size() > 1 ? v->parts[1] : 0);
}

// The build's known targets when the runtime's own files could not be read.
std::optional<Targets> KnownTargets(const Runtime& rt, std::string_view component) {
  const knowledge::RuntimeCode& table = knowledge::RuntimeCode::Builtin();
  if (rt.kind == Kind::kTorch && component == "torch" && rt.package) {
    // "torch 2.5.1+rocm6.2"
    std::string_view p = *rt.package;
    if (p.starts_with("torch ")) p.remove_prefix(6);
    std::string_view torch = p.substr(0, p.find('+'));
    std::optional<std::string_view> rocm;
    if (auto plus = p.find("+rocm"); plus != std::string_view::npos) rocm = p.substr(plus + 5);
    if (const knowledge::CodeBuild* b = table.Find("pytorch", torch, rocm))
      return Targets{b->targets, fmt::format("rocmtune's list for PyTorch {} wheels", *rt.package), b->source};
    return std::nullopt;
  }
  // A program's own bundle is whatever its builders put there: only its files say.
  if (!rt.version || rt.kind == Kind::kBundled) return std::nullopt;
  if (rt.kind == Kind::kTheRock) {
    if (const knowledge::CodeBuild* b = table.Find("therock", *rt.version))
      return Targets{b->targets, fmt::format("rocmtune's list for TheRock {}", *rt.version), b->source};
    return std::nullopt;
  }
  if (component == "torch") return std::nullopt;
  // rocBLAS's Tensile targets in AMD's packages, which reach past the GPU table (gfx1010).
  if (component == "rocblas")
    if (const knowledge::CodeBuild* b = table.Find("rocm", *rt.version))
      return Targets{b->targets, fmt::format("rocmtune's list for AMD's rocBLAS in ROCm {}", MajorMinor(*rt.version)),
                     b->source};
  // AMD's GPU table of the release: its supported targets carry code (MIOpen's kernel databases
  // among them) in AMD's packages.
  auto v = knowledge::ParseVersion(*rt.version);
  const knowledge::RocmRelease* r = v ? knowledge::RocmSupport::Builtin().ForInstalled(*v) : nullptr;
  if (!r || rt.kind != Kind::kSystem) return std::nullopt;
  Targets t{{}, fmt::format("AMD's GPU table for ROCm {}", r->version_text), r->source};
  for (const knowledge::GfxTarget& g : knowledge::GfxTargetTable::Builtin().targets())
    if (knowledge::Supports(r->StatusOf(g.name))) t.names.push_back(g.name);
  return t;
}

struct Component {
  std::string_view name;
  std::vector<std::string> workloads;  // empty: every workload
};

std::vector<Component> Needed(const Runtime& rt) {
  std::vector<Component> out;
  if (rt.kind == Kind::kTorch) out.push_back({"torch", {}});
  out.push_back({"rocblas", {"gemm", "conv"}});
  out.push_back({"miopen", {"conv"}});
  return out;
}

const Code* Find(const Runtime& rt, std::string_view component) {
  for (const Code& c : rt.code)
    if (c.component == component) return &c;
  return nullptr;
}

// What the runtime carries for one component: the files' targets, else a known list; nullopt
// when the runtime does not ship it and nothing stands in.
std::optional<Targets> TargetsOf(const Runtime& rt, std::string_view component, std::vector<std::string>& unread) {
  const Code* c = Find(rt, component);
  if (c && !c->unread) return Targets{c->targets, c->path, ""};
  if (c) unread.push_back(fmt::format("{}: {}", c->path, *c->unread));
  // A component missing from a runtime whose other libraries were read is not shipped there.
  if (!c && component != "torch" && !rt.code.empty()) return std::nullopt;
  return KnownTargets(rt, component);
}

std::string TargetList(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  if (names.size() <= 12) return fmt::format("{}", fmt::join(names, ", "));
  return fmt::format("{} ... ({} targets)", fmt::join(names.begin(), names.begin() + 12, ", "), names.size());
}

std::string GfxVersionText(std::string_view gfx) {
  const knowledge::GfxTarget* t = knowledge::GfxTargetTable::Builtin().ByName(gfx);
  if (!t) return "";
  return fmt::format("{}.{}.{}", t->version / 10000, (t->version / 100) % 100, t->version % 100);
}

// The target whose code a GPU runs as with HSA_OVERRIDE_GFX_VERSION, where that is established
// practice: RDNA2 parts as gfx1030, RDNA3 parts as gfx1100, GCN5 APUs as gfx900. ollama documents
// these (docs/gpu.md, "Overrides on Linux": gfx1034 as 10.3.0, gfx1103 as 11.0.0), as does AMD's
// rdna2 override advice in ROCm/ROCm#1756; generic targets (LLVM AMDGPUUsage "Generic processors":
// gfx10-3-generic, gfx11-generic, gfx9-generic) say the same ISA underneath. Not across those
// lines: gfx906 code uses instructions gfx900 lacks.
std::optional<std::string> OverrideTargetFor(std::string_view gfx) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 12> kAs = {{
      {"gfx1031", "gfx1030"},
      {"gfx1032", "gfx1030"},
      {"gfx1033", "gfx1030"},
      {"gfx1034", "gfx1030"},
      {"gfx1035", "gfx1030"},
      {"gfx1036", "gfx1030"},
      {"gfx1101", "gfx1100"},
      {"gfx1102", "gfx1100"},
      {"gfx1103", "gfx1100"},
      {"gfx902", "gfx900"},
      {"gfx909", "gfx900"},
      {"gfx90c", "gfx900"},
  }};
  for (const auto& [from, to] : kAs)
    if (from == gfx) return std::string(to);
  return std::nullopt;
}

struct GpuCode {
  std::vector<std::string> has;  // components with code, "rocblas (/opt/rocm/lib/rocblas/library)"
  std::vector<std::pair<Component, Targets>> lacks;
  std::vector<Targets> judged;  // every component's targets that were judged
  std::vector<std::string> unread;
};

GpuCode Judge(const Runtime& rt, std::string_view isa) {
  GpuCode out;
  for (const Component& c : Needed(rt)) {
    std::optional<Targets> t = TargetsOf(rt, c.name, out.unread);
    if (!t) continue;
    out.judged.push_back(*t);
    if (HasCode(*t, isa)) out.has.push_back(fmt::format("{} ({})", c.name, t->from));
    else out.lacks.emplace_back(c, *t);
  }
  return out;
}

class CodeChecker {
 public:
  CodeChecker(const detect::Inventory& inv, const ProgramView& view) : inv_(inv), view_(view) {}

  std::vector<Finding> Run() {
    if (view_.runtimes.empty()) {
      NoRuntime();
      return std::move(out_);
    }
    std::set<std::string> seen;  // one finding per physical GPU, not one per compute partition
    for (const detect::Gpu& g : inv_.gpus) {
      if (!g.gfx_target || !g.kfd_node) continue;
      if (!seen.insert(g.physical_id.empty() ? g.id : g.physical_id).second) continue;
      CheckGpu(g);
    }
    return std::move(out_);
  }

 private:
  const Runtime& Loaded() const { return view_.runtimes.front(); }

  Finding Make(FindingId id, const detect::Gpu& g, std::string what, std::string why) {
    Finding f = MakeFinding(FindingName(id), detect::RowOf(id).severity, g.id, std::move(what), std::move(why));
    f.kind = diagnose::Kind::kRuntime;
    f.gpu = g.physical_id.empty() ? g.id : g.physical_id;
    return f;
  }

  void NoRuntime() {
    if (inv_.gpus.empty()) return;
    std::vector<std::string> looked = {"/opt/rocm/.info/version (AMD's packages)",
                                       "the distribution's libamdhip64 and librocblas in the library path"};
    if (auto p = view_.env.find("ROCM_PATH"); p != view_.env.end())
      looked.insert(looked.begin(), "ROCM_PATH=" + p->second);
    looked.push_back(view_.python_looked.empty() ? "no Python environment (VIRTUAL_ENV, CONDA_PREFIX, python3 on PATH)"
                                                 : "PyTorch and TheRock's rocm wheels in " + view_.python_looked);
    Finding f = MakeFinding(FindingName(FindingId::kRuntimeUnknown), Severity::kWarning, view_.name,
                            fmt::format("No ROCm runtime was found for {}: whether it has code for the GPUs here is "
                                        "unknown",
                                        view_.name),
                            fmt::format("Looked at: {}", fmt::join(looked, "; ")),
                            "Install ROCm (or a ROCm build of PyTorch), or ask with the environment the program runs "
                            "in (--unit, --conda, --env-file)");
    f.kind = diagnose::Kind::kRuntime;
    f.effect = Effect::kUnknown;
    out_.push_back(std::move(f));
  }

  void CheckGpu(const detect::Gpu& g) {
    const Runtime& rt = Loaded();
    std::optional<program::Override> ov = program::OverrideFor(inv_, g, view_.env);
    std::string isa = *g.gfx_target;
    bool in_family_override = false;
    if (ov && ov->gfx && *ov->gfx != isa) {
      const auto* as = knowledge::GfxTargetTable::Builtin().ByName(*ov->gfx);
      const auto* own = knowledge::GfxTargetTable::Builtin().ByName(isa);
      // Across families the program loads another ISA's code: env.override-other-isa says it (a
      // crash), and whether the GPU's own code exists no longer matters.
      if (!as || !own || !as->family || !own->family || *as->family != *own->family) return;
      isa = *ov->gfx;
      in_family_override = true;
    }
    GpuCode code = Judge(rt, isa);
    if (code.judged.empty()) {
      Unknown(g, rt, code.unread);
      return;
    }
    if (code.lacks.empty()) {
      Has(g, rt, isa, code, ov, in_family_override);
      return;
    }
    Lacks(g, rt, isa, code, ov, in_family_override);
  }

  void Unknown(const detect::Gpu& g, const Runtime& rt, const std::vector<std::string>& unread) {
    Finding f = Make(FindingId::kRuntimeUnknown, g,
                     fmt::format("Whether {} carries code for {} ({}) is unknown", rt.label, *g.gfx_target, g.id),
                     unread.empty() ? "none of its libraries (rocBLAS, MIOpen, PyTorch's kernels) was found to read, "
                                      "and rocmtune has no list for this build"
                                    : fmt::format("its code could not be read: {}", fmt::join(unread, "; ")));
    f.effect = Effect::kUnknown;
    f.evidence = rt.evidence;
    out_.push_back(std::move(f));
  }

  void Has(const detect::Gpu& g, const Runtime& rt, const std::string& isa, const GpuCode& code,
           const std::optional<program::Override>& ov, bool in_family_override) {
    Finding f = Make(
        FindingId::kRuntimeCode, g,
        fmt::format(
            "{} carries code for {}{}", rt.label, isa,
            in_family_override ? fmt::format(" ({} runs it as {}={})", *g.gfx_target, ov->variable, ov->value) : ""),
        fmt::format("GPU code found in: {}", fmt::join(code.has, "; ")));
    f.evidence = rt.evidence;
    for (const Targets& t : code.judged)
      if (!t.source.empty()) f.sources.push_back(t.source);
    out_.push_back(std::move(f));
    if (!in_family_override) return;
    // The override is in effect and the runtime has the GPU's own code as well: not needed.
    GpuCode native = Judge(rt, *g.gfx_target);
    if (!native.lacks.empty() || native.judged.empty()) return;
    Finding r = Make(FindingId::kRuntimeOverrideRedundant, g,
                     fmt::format("{}={} is not needed for {} ({}): {} carries native {} code", ov->variable, ov->value,
                                 g.id, *g.gfx_target, rt.label, *g.gfx_target),
                     "An override is needed only when the runtime lacks the GPU's own target; with it the runtime "
                     "loads another target's code instead of the native one");
    r.fix.text = fmt::format("Remove {} from the environment of {}", ov->variable, view_.name);
    r.sources.emplace_back(kTheRockSource);
    r.evidence = rt.evidence;
    out_.push_back(std::move(r));
  }

  void Lacks(const detect::Gpu& g, const Runtime& rt, const std::string& isa, const GpuCode& code,
             const std::optional<program::Override>& ov, bool in_family_override) {
    std::vector<std::string> missing, sources, workloads;
    bool all_work = false;
    for (const auto& [c, t] : code.lacks) {
      missing.push_back(fmt::format("{} has code for {} only ({})", c.name, TargetList(t.names), t.from));
      if (!t.source.empty()) sources.push_back(t.source);
      if (c.workloads.empty()) all_work = true;
      for (const std::string& w : c.workloads)
        if (std::find(workloads.begin(), workloads.end(), w) == workloads.end()) workloads.push_back(w);
    }
    Finding f =
        Make(FindingId::kRuntimeNoCode, g,
             fmt::format("{} carries no code for {}{}: programs cannot start their {} kernels on {}", rt.label, isa,
                         in_family_override ? fmt::format(" (the {}={} in effect)", ov->variable, ov->value) : "",
                         all_work ? "GPU" : fmt::format("{}", fmt::join(workloads, "/")), g.id),
             fmt::format("{}. Expect rocBLAS's \"Cannot read TensileLibrary.dat ... for GPU arch : {}\" or "
                         "hipErrorNoBinaryForGpu",
                         fmt::join(missing, "; "), isa));
    f.effect = Effect::kUnsupported;
    if (!all_work) f.workloads = workloads;
    f.evidence = rt.evidence;
    f.evidence.push_back(fmt::format("GPU {} is {}", g.id, *g.gfx_target));
    if (in_family_override) f.evidence.push_back(fmt::format("{}={} in {}", ov->variable, ov->value, view_.name));
    f.sources = sources;
    FixFor(g, rt, code, ov, f);
    out_.push_back(std::move(f));
  }

  // What works here, best first: the in-family override (only where none is in effect and the
  // runtime has the family's code), a runtime with native code, another GPU (compute.hide-gpus).
  void FixFor(const detect::Gpu& g, const Runtime& rt, const GpuCode& code, const std::optional<program::Override>& ov,
              Finding& f) {
    std::vector<std::string> ways;
    std::vector<Targets> needed;
    for (const auto& [c, t] : code.lacks) needed.push_back(t);
    std::optional<std::string> as = OverrideTargetFor(*g.gfx_target);
    bool as_has_code =
        as && std::all_of(needed.begin(), needed.end(), [&](const Targets& t) { return HasCode(t, *as); });
    if (!ov && as_has_code) {
      {
        const std::string value = GfxVersionText(*as);
        ways.push_back(
            fmt::format("run it as {} with {}={} ({} and {} share one ISA; AMD does not support the "
                        "override, and it applies to every GPU a program sees)",
                        *as, kOverride, value, *g.gfx_target, *as));
        if (view_.kind == "caller" || view_.kind == "machine") {
          f.fix.set.push_back(fmt::format("env.{}={}", kOverride, value));
          if (g.family == knowledge::Family::kRdna2) f.fix.profile = "rdna2-consumer-compat";
        } else {
          ways.back() += fmt::format(" in {}'s environment", view_.name);
        }
      }
    }
    // A release of the same runtime whose GPU table lists the target (AMD's packages).
    // A program that bundles its ROCm loads that one whatever else is installed: only the override
    // or another build of the program changes its code.
    const bool bundled = rt.kind == Kind::kBundled;
    if (bundled)
      ways.push_back(fmt::format("a build of {} whose bundled ROCm carries {} code (its own is {})", view_.exec,
                                 *g.gfx_target, rt.where));
    if (!bundled && rt.kind != Kind::kTorch && rt.kind != Kind::kTheRock && rt.version)
      if (auto v = knowledge::ParseVersion(*rt.version))
        if (const knowledge::RocmRelease* r = knowledge::RocmSupport::Builtin().NearestSupporting(*g.gfx_target, *v)) {
          bool newer = *v < r->version;
          ways.push_back(fmt::format("ROCm {}{}, whose GPU table lists {}", r->version_text,
                                     newer ? "" : " (older than this one)", *g.gfx_target));
          f.fix.rocm = r->version_text;
          f.sources.push_back(r->source);
        }
    const knowledge::CodeBuild* therock = nullptr;
    for (const knowledge::CodeBuild& b : knowledge::RuntimeCode::Builtin().builds())
      if (b.kind == "therock" && std::find(b.targets.begin(), b.targets.end(), *g.gfx_target) != b.targets.end())
        therock = &b;
    if (therock && !bundled) {
      ways.push_back(
          fmt::format("use a ROCm build with native {} code: TheRock {} (Python wheels "
                      "rocm[libraries,device-{}]{})",
                      *g.gfx_target, therock->version, *g.gfx_target,
                      rt.kind == Kind::kTorch ? ", with a PyTorch built on them" : ""));
      f.sources.push_back(therock->source);
    }
    if (ways.empty()) {
      f.fix.text = fmt::format(
          "No runtime rocmtune knows carries {} code and no override within its ISA family gives it code here; use "
          "another GPU or the CPU, or build the libraries for {}",
          *g.gfx_target, *g.gfx_target);
      f.fix.none = fmt::format("no ROCm build rocmtune knows has code for {}", *g.gfx_target);
      return;
    }
    f.fix.text = fmt::format("To give {} code: {}.", g.id, fmt::join(ways, "; or "));
  }

  const detect::Inventory& inv_;
  const ProgramView& view_;
  std::vector<Finding> out_;
};

}  // namespace

std::vector<Finding> CodeChecks(const detect::Inventory& inventory, const ProgramView& view) {
  return CodeChecker(inventory, view).Run();
}

}  // namespace rocmtune::diagnose
