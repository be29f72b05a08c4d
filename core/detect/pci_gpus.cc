#include "detect/pci_gpus.h"

#include <map>

#include <fmt/format.h>

#include "detect/finding_ids.h"
#include "util/text.h"

namespace rocmtune::detect {
namespace {

constexpr std::string_view kPciDevices = "sys/bus/pci/devices";
constexpr uint16_t kPciAmdVendor = 0x1002;

// An attribute as text; nullopt when the device has no such file or it cannot be read (both are
// answered by uevent, or leave the device out).
std::optional<std::string> ReadPciAttr(const sys::Root& root, const std::string& dir, std::string_view attr) {
  auto content = root.ReadFile(fmt::format("{}/{}", dir, attr), 4096);
  if (!content) return std::nullopt;
  return text::Clean(*content);
}

std::optional<uint16_t> ParsePciId(std::string_view s) {
  auto v = text::ParseHex(s);
  if (!v || *v > 0xffff) return std::nullopt;
  return static_cast<uint16_t>(*v);
}

// The last path component of the `driver` link (../../../bus/pci/drivers/vfio-pci).
std::optional<std::string> PciBoundDriver(const sys::Root& root, const std::string& dir) {
  auto target = root.ReadLink(dir + "/driver");
  if (!target) return std::nullopt;
  std::string_view t = *target;
  while (!t.empty() && t.back() == '/') t.remove_suffix(1);
  std::string name(t.substr(t.rfind('/') + 1));
  if (name.empty() || name == "." || name == "..") return std::nullopt;
  return name;
}

}  // namespace

std::optional<uint32_t> ParsePciClass(std::string_view text) {
  auto v = text::ParseHex(text);
  if (!v || *v > 0xffffff) return std::nullopt;
  return static_cast<uint32_t>(*v);
}

bool IsGpuClass(uint32_t class_code) {
  const uint32_t base = class_code >> 16;
  return base == 0x03 || base == 0x12;
}

PciScan ScanPciGpus(const sys::Root& root, std::vector<Finding>& findings) {
  PciScan scan;
  auto names = root.ListDir(kPciDevices);
  if (!names) {
    if (names.error().code != ErrorCode::kNotFound)
      findings.push_back({.id = FindingName(FindingId::kDetectReadError),
                          .severity = Severity::kWarning,
                          .what = names.error().message});
    return scan;
  }
  scan.listed = true;
  for (const std::string& name : *names) {
    auto address = ParsePciAddress(name);
    if (!address) continue;
    const std::string dir = fmt::format("{}/{}", kPciDevices, name);
    std::map<std::string, std::string, std::less<>> uevent;
    if (auto content = root.ReadFile(dir + "/uevent", 16384)) uevent = text::ParseKeyEqualsValue(text::Clean(*content));
    auto from_uevent = [&](std::string_view key) -> std::string_view {
      auto it = uevent.find(key);
      return it == uevent.end() ? std::string_view() : std::string_view(it->second);
    };
    const std::string_view pci_id = from_uevent("PCI_ID");  // "1002:73BF"
    const std::string_view uevent_vendor = pci_id.substr(0, pci_id.find(':'));
    std::optional<uint16_t> vendor = ParsePciId(ReadPciAttr(root, dir, "vendor").value_or(std::string(uevent_vendor)));
    if (vendor != kPciAmdVendor) continue;

    PciGpu gpu{*address, dir, std::nullopt, 0, std::nullopt};
    std::optional<std::string> class_text = ReadPciAttr(root, dir, "class");
    std::optional<uint32_t> class_code = class_text ? ParsePciClass(*class_text) : std::nullopt;
    if (!class_code) class_code = ParsePciClass(from_uevent("PCI_CLASS"));
    if (!class_code) {
      if (class_text)
        findings.push_back(
            {.id = FindingName(FindingId::kDetectReadError),
             .severity = Severity::kWarning,
             .subject = name,
             .what = fmt::format("{}: {} holds no PCI class code ('{}'): whether it is a GPU is unknown", name,
                                 root.Display(dir + "/class"), text::EscapeControl(class_text->substr(0, 32)))});
      continue;
    }
    if (!IsGpuClass(*class_code)) continue;
    gpu.class_code = *class_code;
    gpu.device_id = ParsePciId(ReadPciAttr(root, dir, "device").value_or(""));
    if (!gpu.device_id && pci_id.find(':') != std::string_view::npos)
      gpu.device_id = ParsePciId(pci_id.substr(pci_id.find(':') + 1));
    gpu.driver = PciBoundDriver(root, dir);
    if (!gpu.driver && !from_uevent("DRIVER").empty()) gpu.driver = std::string(from_uevent("DRIVER"));
    scan.gpus.push_back(std::move(gpu));
  }
  return scan;
}

}  // namespace rocmtune::detect
