#include "client/fault_text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "util/text.h"

namespace rocmtune::client {
namespace {

const Doc& Part(const Doc& doc, std::string_view key) {
  static const Doc kNull;
  auto it = doc.find(key);
  return it == doc.end() ? kNull : *it;
}

std::string Number(const Doc& doc, std::string_view key) {
  const Doc& v = Part(doc, key);
  return v.is_number_integer() ? v.dump() : "";
}

// What happened, as a noun for the sentence.
std::string What(const Doc& r) {
  std::string kind = Field(r, "kind", "");
  std::string ring = Field(r, "ring", "");
  if (kind == "page-fault") return "a GPU page fault";
  if (kind == "protection-fault") return "a GPU VM protection fault";
  if (kind == "ring-timeout") return ring.empty() ? "a GPU ring timeout" : fmt::format("a timeout of ring {}", ring);
  if (kind == "gpu-reset") return fmt::format("a GPU reset ({})", Field(r, "outcome", "unknown"));
  if (kind == "mes-failure") return "a MES firmware failure";
  if (kind == "kfd-eviction") return "a KFD queue eviction";
  if (kind == "runtime-fault") return "a GPU memory access fault (the ROCm runtime ended it)";
  return Field(r, "description", "a GPU fault");
}

std::string Gpu(const Doc& r) {
  std::string card = Field(r, "card", ""), pci = Field(r, "pci_address", ""), gfx = Field(r, "gfx_target", "");
  std::string gpu = Field(r, "gpu", "");
  std::string first = !card.empty() ? card : !gpu.empty() ? gpu : !pci.empty() ? pci : "";
  std::string node = Number(r, "kfd_node");
  if (first.empty()) return node.empty() ? "an unknown GPU" : fmt::format("KFD node {} (no GPU here)", node);
  std::vector<std::string> more;
  if (!pci.empty() && pci != first) more.push_back(pci);
  else if (!gpu.empty() && gpu != first) more.push_back(gpu);
  if (!gfx.empty()) more.push_back(gfx);
  if (gpu.empty()) more.emplace_back("no GPU here");
  return more.empty() ? first : fmt::format("{} ({})", first, fmt::join(more, ", "));
}

std::string Who(const Doc& r) {
  std::string process = Field(r, "process", ""), unit = Field(r, "unit", ""), user = Field(r, "user", "");
  std::vector<std::string> about;
  if (std::string pid = Number(r, "pid"); !pid.empty()) about.push_back("pid " + pid);
  if (!user.empty()) about.push_back("user " + user);
  else if (std::string uid = Number(r, "uid"); !uid.empty()) about.push_back("uid " + uid);
  if (!unit.empty() && unit != process) about.push_back(unit);
  std::string name = process.empty() ? (unit.empty() ? "A program" : unit) : process;
  return about.empty() ? name : fmt::format("{} ({})", name, fmt::join(about, ", "));
}

std::string Env(const Doc& r) {
  std::vector<std::string> set;
  for (const Doc& v : Part(Part(r, "environment"), "variables"))
    if (Field(v, "name", "") == "HSA_OVERRIDE_GFX_VERSION")
      set.push_back(fmt::format("{}={}", Field(v, "name"), Field(v, "value", "(computed)")));
  return set.empty() ? "" : fmt::format(" with {}", fmt::join(set, " "));
}

}  // namespace

std::string FaultSentence(const Doc& r) {
  return text::EscapeControl(
      fmt::format("{} hit {} on {} at {}{}", Who(r), What(r), Gpu(r), Field(r, "time", "an unknown time"), Env(r)));
}

void PrintFaultRecord(const Doc& r, bool lines) {
  fmt::print("{}\n", FaultSentence(r));
  if (std::string detail = Field(r, "detail", ""); !detail.empty())
    fmt::print("    seen: {}\n", text::EscapeControl(detail));
  if (std::string source = Field(Part(r, "environment"), "source", ""); !source.empty() && !Env(r).empty())
    fmt::print("    environment: {}\n", text::EscapeControl(source));
  const Doc* cause = nullptr;
  std::string likely = Field(r, "likely_cause", "");
  for (const Doc& c : Part(r, "causes"))
    if (Field(c, "id", "") == likely || (!cause && likely.empty())) {
      cause = &c;
      if (!likely.empty()) break;
    }
  if (cause) {
    fmt::print("    {}: {} ({})\n", likely.empty() ? "no known cause" : "likely cause", Field(*cause, "what", ""),
               Field(*cause, "id"));
    const Doc& fix = Part(*cause, "fix");
    if (std::string text = Field(fix, "text", ""); !text.empty()) fmt::print("    fix: {}\n", text);
    if (std::string profile = Field(fix, "profile", ""); !profile.empty())
      fmt::print("    profile: sudo rocmtunectl apply {}\n", profile);
  }
  if (lines)
    for (const Doc& l : Part(r, "lines"))
      if (l.is_string()) fmt::print("    | {}\n", text::EscapeControl(l.get<std::string>()));
}

}  // namespace rocmtune::client
