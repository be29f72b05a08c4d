#include "detect/system_facts.h"

#include <fmt/format.h>

#include "detect/efi_vars.h"
#include "detect/finding_ids.h"
#include "detect/other_writers.h"
#include "util/text.h"

namespace rocmtune::detect {
namespace {

std::optional<std::string> ReadClean(const sys::Root& root, std::string_view path, size_t max = 65536) {
  auto content = root.ReadFile(path, max);
  if (!content) return std::nullopt;
  std::string value = text::Clean(*content);
  if (value.empty()) return std::nullopt;
  return value;
}

std::string Unquote(std::string_view v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
    char quote = v.front();
    v = v.substr(1, v.size() - 2);
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
      if (quote == '"' && v[i] == '\\' && i + 1 < v.size()) ++i;
      out.push_back(v[i]);
    }
    return out;
  }
  return std::string(v);
}

ModuleState ReadModule(const sys::Root& root, std::string_view module, std::vector<Finding>& findings) {
  ModuleState state;
  std::string dir = fmt::format("sys/module/{}", module);
  state.loaded = root.IsDirectory(dir);
  if (!state.loaded) return state;
  auto names = root.ListDir(dir + "/parameters");
  if (!names) return state;
  size_t unreadable = 0;
  for (const std::string& name : *names) {
    auto content = root.ReadFile(fmt::format("{}/parameters/{}", dir, name), 4096);
    if (content) {
      state.parameters[name] = text::Clean(*content);
    } else {
      state.parameters[name] = std::nullopt;
      ++unreadable;
    }
  }
  if (unreadable > 0)
    findings.push_back({.id = FindingName(FindingId::kDetectParametersUnreadable),
                        .severity = Severity::kInfo,
                        .subject = std::string(module),
                        .what = fmt::format("{} {} parameter(s) could not be read (some are readable by root only)",
                                            unreadable, module)});
  return state;
}

bool CmdlineHas(const std::optional<std::string>& cmdline, std::string_view token) {
  if (!cmdline) return false;
  for (std::string_view t : text::Tokens(*cmdline))
    if (t == token) return true;
  return false;
}

IommuState ReadIommu(const sys::Root& root, const std::optional<std::string>& cmdline) {
  IommuState state;
  if (auto units = root.ListDir("sys/class/iommu")) state.enabled = !units->empty();
  for (std::string_view off : {"amd_iommu=off", "intel_iommu=off", "iommu=off"}) {
    if (CmdlineHas(cmdline, off)) {
      state.mode = "off";
      state.evidence = fmt::format("kernel command line has {}", off);
      return state;
    }
  }
  if (state.enabled == false) {
    state.mode = "off";
    state.evidence = "no IOMMU unit in /sys/class/iommu";
    return state;
  }
  if (CmdlineHas(cmdline, "iommu=pt")) {
    state.mode = "passthrough";
    state.evidence = "kernel command line has iommu=pt";
  }
  return state;
}

}  // namespace

OsRelease ParseOsRelease(std::string_view content) {
  OsRelease os;
  for (std::string_view line : text::SplitLines(content)) {
    line = text::Trim(line);
    if (line.empty() || line.front() == '#') continue;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = line.substr(0, eq);
    std::string value = Unquote(line.substr(eq + 1));
    if (value.empty()) continue;
    if (key == "ID") os.id = value;
    else if (key == "VERSION_ID") os.version_id = value;
    else if (key == "PRETTY_NAME") os.pretty_name = value;
  }
  return os;
}

std::optional<std::string> IommuGroupType(const sys::Root& root, std::string_view device_dir) {
  return ReadClean(root, fmt::format("{}/iommu_group/type", device_dir), 64);
}

SystemFacts DetectSystemFacts(const sys::Root& root, std::vector<Finding>& findings) {
  SystemFacts facts;
  facts.kernel = ReadClean(root, "proc/sys/kernel/osrelease");
  facts.cmdline = ReadClean(root, "proc/cmdline");
  auto os = root.ReadFile("etc/os-release", 65536);
  if (!os) os = root.ReadFile("usr/lib/os-release", 65536);
  if (os) facts.os = ParseOsRelease(*os);
  // /opt/rocm/.info/version holds "6.2.4-120": the release, then the build number.
  if (auto version = ReadClean(root, "opt/rocm/.info/version", 256)) {
    std::string_view v = *version;
    facts.rocm_version = std::string(v.substr(0, v.find('-')));
  }
  facts.boot = DetectBootSetup(root);
  facts.amdgpu = ReadModule(root, "amdgpu", findings);
  facts.ttm = ReadModule(root, "ttm", findings);
  facts.iommu = ReadIommu(root, facts.cmdline);
  facts.secure_boot = SecureBoot(root);
  // Read only where it can matter: what keeps amdgpu from loading under Secure Boot.
  if (facts.secure_boot == true && !facts.amdgpu.loaded) facts.amdgpu_dkms = DetectAmdgpuDkms(root, facts.os);
  for (Finding& f : OtherWriterFindings(root)) findings.push_back(std::move(f));
  return facts;
}

}  // namespace rocmtune::detect
