#include "detect/drm_cards.h"

#include <cctype>

#include <fmt/format.h>

#include "detect/finding_ids.h"
#include "detect/ip_discovery.h"
#include "util/text.h"

namespace rocmtune::detect {
namespace {

constexpr std::string_view kDrmClass = "sys/class/drm";

bool IsCardName(std::string_view name) {
  if (name.size() <= 4 || name.substr(0, 4) != "card") return false;
  for (char c : name.substr(4))
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// "1002:731F" -> (0x1002, 0x731f)
std::optional<std::pair<uint16_t, uint16_t>> ParseIdPair(std::string_view s) {
  size_t colon = s.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto a = text::ParseU64(s.substr(0, colon), 16);
  auto b = text::ParseU64(s.substr(colon + 1), 16);
  if (!a || !b || *a > 0xffff || *b > 0xffff) return std::nullopt;
  return std::pair{static_cast<uint16_t>(*a), static_cast<uint16_t>(*b)};
}

// An attribute the device does not have is normal; one that exists but cannot be read is
// reported, so "unknown" in the output has a visible reason.
std::optional<std::string> ReadClean(const sys::Root& root, const DrmCard& card, std::string_view attr,
                                     std::vector<Finding>& findings) {
  auto content = root.ReadFile(card.device_dir + "/" + std::string(attr), 4096);
  if (!content) {
    if (content.error().code != ErrorCode::kNotFound)
      findings.push_back({.id = FindingName(FindingId::kDetectReadError),
                          .severity = Severity::kWarning,
                          .subject = card.card,
                          .what = fmt::format("{}: {}", card.card, content.error().message)});
    return std::nullopt;
  }
  std::string value = text::Clean(*content);
  if (value.empty()) return std::nullopt;
  return value;
}

std::optional<std::string> FindRenderNode(const sys::Root& root, const std::string& device_dir) {
  auto names = root.ListDir(device_dir + "/drm");
  if (!names) return std::nullopt;
  for (const std::string& name : *names)
    if (name.rfind("renderD", 0) == 0) return name;
  return std::nullopt;
}

void ReadUevent(const sys::Root& root, DrmCard& card, std::vector<Finding>& findings) {
  std::string path = card.device_dir + "/uevent";
  auto content = root.ReadFile(path, 16384);
  if (!content) {
    findings.push_back({.id = FindingName(FindingId::kDetectReadError),
                        .severity = Severity::kWarning,
                        .subject = card.card,
                        .what = fmt::format("{}: cannot identify the device: {}", card.card, content.error().message)});
    return;
  }
  auto kv = text::ParseKeyEqualsValue(text::Clean(*content));
  if (kv.empty()) {
    findings.push_back(
        {.id = FindingName(FindingId::kDetectReadError),
         .severity = Severity::kWarning,
         .subject = card.card,
         .what = fmt::format("{}: {} is empty: cannot identify the device", card.card, root.Display(path))});
    return;
  }
  if (auto it = kv.find("DRIVER"); it != kv.end() && !it->second.empty()) card.driver = it->second;
  if (auto it = kv.find("PCI_SLOT_NAME"); it != kv.end()) card.address = ParsePciAddress(it->second);
  if (auto it = kv.find("PCI_ID"); it != kv.end()) {
    if (auto ids = ParseIdPair(it->second)) {
      card.vendor_id = ids->first;
      card.device_id = ids->second;
    }
  }
  if (auto it = kv.find("PCI_SUBSYS_ID"); it != kv.end()) {
    if (auto ids = ParseIdPair(it->second)) card.subsystem = fmt::format("{:04x}:{:04x}", ids->first, ids->second);
  }
}

}  // namespace

std::vector<DrmCard> ScanDrmCards(const sys::Root& root, std::vector<Finding>& findings) {
  std::vector<DrmCard> cards;
  auto names = root.ListDir(kDrmClass);
  if (!names) {
    if (names.error().code != ErrorCode::kNotFound)
      findings.push_back({.id = FindingName(FindingId::kDetectReadError),
                          .severity = Severity::kWarning,
                          .what = names.error().message});
    return cards;
  }
  for (const std::string& name : *names) {
    if (!IsCardName(name)) continue;
    DrmCard card;
    card.card = name;
    card.device_dir = fmt::format("{}/{}/device", kDrmClass, name);
    if (!root.IsDirectory(card.device_dir)) {
      findings.push_back(
          {.id = FindingName(FindingId::kDetectReadError),
           .severity = Severity::kWarning,
           .subject = name,
           .what = fmt::format("{}: {} is not a readable directory", name, root.Display(card.device_dir))});
      continue;
    }
    ReadUevent(root, card, findings);
    // Everything below is amdgpu-only; other drivers are reported by the caller.
    if (card.driver != "amdgpu") {
      cards.push_back(std::move(card));
      continue;
    }
    if (auto rev = ReadClean(root, card, "revision", findings)) {
      if (auto value = text::ParseHex(*rev); value && *value <= 0xff) card.revision = static_cast<uint8_t>(*value);
    }
    if (auto vram = ReadClean(root, card, "mem_info_vram_total", findings)) card.vram_total = text::ParseU64(*vram);
    if (auto vis = ReadClean(root, card, "mem_info_vis_vram_total", findings))
      card.visible_vram_total = text::ParseU64(*vis);
    card.product_name = ReadClean(root, card, "product_name", findings);
    card.render_node = FindRenderNode(root, card.device_dir);
    card.gc_ip = ReadGcIpVersion(root, card.device_dir);
    cards.push_back(std::move(card));
  }
  return cards;
}

}  // namespace rocmtune::detect
