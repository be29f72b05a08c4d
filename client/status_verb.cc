// `rocmtunectl status`: the rocmtune.status.v1 document (rocmtuned's Describe, or the core here)
// as a table for people or as it is (--json).
#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "api/status.h"
#include "client/caller_env.h"
#include "client/daemon_link.h"
#include "client/document.h"
#include "client/exit_codes.h"
#include "client/knob_text.h"
#include "client/table.h"
#include "client/verbs.h"
#include "runtime/runtime.h"
#include "util/byte_size.h"
#include "util/json_text.h"

namespace rocmtune::client {
namespace {

const Doc& Member(const Doc& doc, std::string_view key) {
  static const Doc kNull;
  auto it = doc.find(key);
  return it == doc.end() ? kNull : *it;
}

std::string SystemLine(const Doc& s) {
  const Doc& os = Member(s, "os");
  std::string name = Field(os, "pretty_name", "");
  if (name.empty()) name = Field(os, "id", "unknown OS");
  return fmt::format("{}, kernel {}", name, Field(s, "kernel", "unknown"));
}

std::string IommuLine(const Doc& iommu) {
  const Doc& mode = Member(iommu, "mode");
  if (!mode.is_string()) {
    const Doc& enabled = Member(iommu, "enabled");
    if (enabled.is_boolean()) return enabled.get<bool>() ? "enabled, mode unknown" : "no IOMMU";
    return "unknown";
  }
  std::string evidence = Field(iommu, "evidence", "");
  return evidence.empty() ? mode.get<std::string>() : fmt::format("{} ({})", mode.get<std::string>(), evidence);
}

// check-compute's verdict for any work, from the same findings (details: rocmtunectl check-compute).
std::string ComputeCell(const Doc& compute) {
  std::string state = Field(compute, "state", "");
  if (state.empty()) return "-";
  if (state != "safe") return state == "unsafe" ? "UNSAFE" : state;
  const Doc& notes = Member(compute, "notes");
  return notes.is_array() && !notes.empty() ? "safe (notes)" : "safe";
}

// "system ROCm 6.3.1 (/opt/rocm -> /opt/rocm-6.3.1) (HIP 6.3.60301, code for gfx900 … gfx1102 (11
// targets))": a runtime, its HIP and the GPU targets its libraries carry, in gfx order.
std::string RuntimeText(const std::string& label, const std::string& hip, std::vector<std::string> targets) {
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  std::stable_sort(targets.begin(), targets.end(),
                   [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
  std::string detail = hip.empty() ? "" : "HIP " + hip;
  if (!targets.empty())
    detail += fmt::format("{}code for {}", detail.empty() ? "" : ", ",
                          targets.size() > 8
                              ? fmt::format("{} … {} ({} targets)", targets.front(), targets.back(), targets.size())
                              : fmt::format("{}", fmt::join(targets, " ")));
  return fmt::format("{}{}", label, detail.empty() ? "" : " (" + detail + ")");
}

std::string RuntimesLine(const Doc& doc, const Doc& system) {
  const Doc& runtimes = Member(Member(doc, "program"), "runtimes");
  if (!runtimes.is_array() || runtimes.empty())
    return Field(system, "rocm_version", "not found (/opt/rocm/.info/version, the library path, Python environments)");
  std::vector<std::string> parts;
  for (const Doc& r : runtimes) {
    std::vector<std::string> targets;
    for (const Doc& c : Member(r, "code"))
      for (const Doc& t : Member(c, "targets"))
        if (t.is_string()) targets.push_back(t.get<std::string>());
    parts.push_back(RuntimeText(Field(r, "label"), Field(r, "hip_version", ""), std::move(targets)));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string GpuTable(const Doc& gpus) {
  bool partitions = false;
  for (const Doc& g : gpus) partitions |= Field(g, "physical_id") != Field(g, "id");
  std::vector<std::string> header = {"GPU", "NAME", "GFX", "GC", "FAMILY", "TYPE", "VRAM", "CARD", "KFD", "COMPUTE"};
  if (partitions) header.push_back("PHYSICAL");
  Table table(header);
  for (const Doc& g : gpus) {
    const Doc& apu = Member(g, "apu");
    const Doc& vram = Member(g, "vram_bytes");
    std::vector<std::string> row = {
        Field(g, "id"),
        Field(g, "marketing_name", ""),
        Field(g, "gfx_target"),
        Field(g, "gc_ip"),
        Field(g, "family"),
        apu.is_boolean() ? (apu.get<bool>() ? "APU" : "dGPU") : "-",
        vram.is_number_unsigned() ? util::FormatBytes(vram.get<uint64_t>()) : "-",
        Field(g, "card"),
        Field(g, "kfd_node"),
        ComputeCell(Member(g, "compute")),
    };
    if (partitions) row.push_back(Field(g, "physical_id"));
    table.AddRow(std::move(row));
  }
  return table.Render();
}

std::string KnobTable(const Doc& knobs) {
  Table table({"KNOB", "CONFIGURED", "RUNNING", "EFFECTIVE", "OWNER", "WHERE"});
  for (const Doc& k : knobs) {
    std::string where = KnobWhere(k);
    // The next boot's source unknown (owner "unknown", configured null): unknown, not "-" (unset).
    bool unknown = Field(k, "owner", "") == "unknown";
    table.AddRow({Field(k, "key"), SizedField(k, "configured", unknown ? "unknown" : "-"), SizedField(k, "running"),
                  SizedField(k, "effective"), Field(k, "owner", "unknown") + KnobNextBoot(k),
                  where.empty() ? "-" : where});
  }
  return table.Render();
}

std::string Gts(const Doc& v) { return v.is_number() ? fmt::format("{:.1f} GT/s", v.get<double>()) : "-"; }

// The `live` object (live root only): one short block per GPU; "-" for what rocm-smi-lib did
// not give, and the reason once when it gave nothing.
void PrintLive(const Doc& gpus) {
  bool any = false;
  for (const Doc& g : gpus) {
    const Doc& live = Member(g, "live");
    if (!live.is_object()) continue;
    if (!any)
      fmt::print("\nLive ({} {}):\n", Field(live, "source", "no SMI library"),
                 Field(live, "library_version", "version unknown"));
    any = true;
    const Doc& pcie = Member(live, "pcie");
    const Doc& fw = Member(live, "firmware");
    bool known = false;
    std::vector<std::string> fws, ecc;
    for (const auto& [block, v] : fw.items()) {
      known |= v.is_string();
      fws.push_back(fmt::format("{} {}", block, Field(fw, block)));
    }
    for (const auto& [block, v] : Member(live, "ecc").items()) {
      if (block == "enabled_blocks") continue;
      known |= v.is_object();
      ecc.push_back(v.is_object() ? fmt::format("{} {}/{}", block, Field(v, "uncorrectable"), Field(v, "correctable"))
                                  : fmt::format("{} -", block));
    }
    known |= !Member(pcie, "width").is_null() || !Member(live, "throttle_status").is_null();
    fmt::print("  {}\n", Field(g, "id"));
    if (!known) {
      const Doc& why = Member(live, "unknown");
      fmt::print("    unknown: {}\n", why.empty() ? "-" : why.begin()->get<std::string>());
      continue;
    }
    fmt::print("    PCIe:      {} x{} (fastest {} x{}), replays {}\n", Gts(Member(pcie, "speed_gt_s")),
               Field(pcie, "width"), Gts(Member(pcie, "max_speed_gt_s")), Field(pcie, "max_width"),
               Field(pcie, "replay_count"));
    fmt::print("    ECC:       {} (uncorrectable/correctable)\n", fmt::join(ecc, ", "));
    const Doc& throttle = Member(live, "throttle_status");
    fmt::print("    Throttle:  {}\n",
               throttle.is_number_unsigned() ? fmt::format("{:#010x}", throttle.get<uint64_t>()) : "-");
    fmt::print("    Firmware:  {}\n", fmt::join(fws, ", "));
  }
}

// An APU's GPU memory is system memory: the line says how much ROCm programs can allocate, in
// KFD's numbers, and what caps it (a dGPU's is its VRAM column).
void PrintRocmMemory(const Doc& gpus) {
  bool first = true;
  for (const Doc& g : gpus) {
    const Doc& apu = Member(g, "apu");
    if (!apu.is_boolean() || !apu.get<bool>()) continue;
    const Doc& m = Member(g, "rocm_memory");
    const Doc& total = Member(m, "allocatable_bytes");
    if (first) fmt::print("\n");
    first = false;
    if (!total.is_number_unsigned()) {
      fmt::print("{}: memory ROCm programs can allocate: unknown ({})\n", Field(g, "id"), Field(m, "unknown", "?"));
      continue;
    }
    std::string limit = Field(m, "limited_by", "");
    if (limit == "gtt") limit = "amdgpu's GTT";
    else if (limit == "ram") limit = "KFD's system memory limit";
    const Doc& gtt = Member(m, "gtt_bytes");
    const Doc& vram = Member(m, "vram_bytes");
    const Doc& sys = Member(m, "gtt_allocatable_bytes");
    fmt::print("{}: memory ROCm programs can allocate: {} ({} VRAM + {} system memory, limited by {}{})\n",
               Field(g, "id"), util::FormatBytes(total.get<uint64_t>()),
               vram.is_number_unsigned() ? util::FormatBytes(vram.get<uint64_t>()) : "0",
               sys.is_number_unsigned() ? util::FormatBytes(sys.get<uint64_t>()) : "?", limit,
               gtt.is_number_unsigned() && limit != "amdgpu's GTT"
                   ? fmt::format("; amdgpu's GTT is {}", util::FormatBytes(gtt.get<uint64_t>()))
                   : "");
  }
}

void PrintFindings(const Doc& findings) {
  if (!findings.is_array() || findings.empty()) return;
  fmt::print("\nFindings:\n");
  for (const Doc& f : findings) {
    fmt::print("  {:<7} {}\n", Field(f, "severity"), Field(f, "message", ""));
    if (std::string at = PlacesText(f); !at.empty()) fmt::print("          in {}\n", at);
    if (std::string hint = Field(f, "hint", ""); !hint.empty()) fmt::print("          do: {}\n", hint);
    if (std::string source = Field(f, "source", ""); !source.empty()) fmt::print("          source: {}\n", source);
  }
}

// The Python runtimes this shell's programs would load (a venv's PyTorch, TheRock's wheels), which
// status — the machine's, the same over the bus and locally — does not judge: said on a line of
// their own, for check-compute and doctor to judge.
std::string ShellRuntimes(const Context& ctx) {
  auto root = ctx.OpenRoot();
  if (!root) return "";
  std::map<std::string, std::string> env;
  for (const knobs::EnvSetting& s : CallerEnvironment(*root))
    if (s.value) env[s.name] = *s.value;
  std::vector<std::string> labels;
  for (const runtime::Runtime& r : runtime::FindRuntimes(*root, env))
    if (r.kind == runtime::Kind::kTorch || r.kind == runtime::Kind::kTheRock) {
      std::vector<std::string> targets;
      for (const runtime::Code& c : r.code) targets.insert(targets.end(), c.targets.begin(), c.targets.end());
      labels.push_back(RuntimeText(r.label, r.hip_version.value_or(""), std::move(targets)));
    }
  return labels.empty() ? "" : fmt::format("{}", fmt::join(labels, "; "));
}

void PrintStatus(const Doc& doc, const std::string& shell_runtimes) {
  const Doc& s = Member(doc, "system");
  const Doc& amdgpu = Member(Member(s, "modules"), "amdgpu");
  bool loaded = Member(amdgpu, "loaded").is_boolean() && Member(amdgpu, "loaded").get<bool>();
  fmt::print("System:  {}\n", SystemLine(s));
  fmt::print("ROCm:    {}\n", RuntimesLine(doc, s));
  if (!shell_runtimes.empty())
    fmt::print("         this shell's Python: {} (rocmtunectl check-compute judges it)\n", shell_runtimes);
  std::string boot = Field(s, "boot", "unknown");
  if (std::string why = Field(s, "boot_unknown", ""); !why.empty()) boot = fmt::format("unknown ({})", why);
  fmt::print("Boot:    {} (initramfs: {})\n", boot, Field(s, "initramfs", "unknown"));
  if (const Doc& image = Member(doc, "boot_image"); image.is_object())
    fmt::print("Image:   {}\n", Field(image, "message", "unknown"));
  fmt::print("IOMMU:   {}\n", IommuLine(Member(s, "iommu")));
  fmt::print("amdgpu:  {}\n", loaded ? "loaded" : "not loaded");
  fmt::print("Profile: {}\n", Field(doc, "profile", "none (rocmtunectl profiles lists them)"));
  fmt::print("\n");
  const Doc& gpus = Member(doc, "gpus");
  if (!gpus.is_array() || gpus.empty()) fmt::print("No AMD GPU driven by amdgpu was found.\n");
  else fmt::print("{}", GpuTable(gpus));
  if (gpus.is_array()) PrintRocmMemory(gpus);
  if (gpus.is_array()) PrintLive(gpus);
  const Doc& knobs = Member(doc, "knobs");
  if (knobs.is_array() && !knobs.empty()) fmt::print("\n{}", KnobTable(knobs));
  PrintFindings(Member(doc, "findings"));
}

}  // namespace

int RunStatus(const Context& ctx, const Args&) {
  auto local = [&]() -> Result<Doc> {
    auto root = ctx.OpenRoot();
    if (!root) return tl::unexpected(root.error());
    return api::DescribeSystem(*root);
  };
  std::optional<BusReply> reply = AskDaemon(ctx, "Describe");
  // Under --json rocmtuned's document is printed as it came: the daemon writes it as this program
  // would (JsonText), so reading it into a tree and writing it again gave the same bytes at several
  // times the cost (81 KB for a 64-partition MI300X: BENCHMARKS.md, "Over the bus").
  if (ctx.json && reply && reply->ok() && reply->text.starts_with('{') && IsWholeJsonText(reply->text)) {
    fmt::print("{}\n", reply->text);
    return kExitOk;
  }
  Fetched doc = reply ? FromDaemon(ctx, *reply, "Describe") : FromLocal(ctx, local(), kExitFailed);
  if (!doc) return doc.error();
  if (ctx.json) PrintJson(*doc);
  else PrintStatus(*doc, ShellRuntimes(ctx));
  return kExitOk;
}

}  // namespace rocmtune::client
