#include "snapshot/redact_cmdline.h"

#include <array>

#include "snapshot/redact.h"

namespace rocmtune::snapshot {
namespace {

// Kernel parameters documented in Documentation/admin-guide/kernel-parameters.txt (ip=, nfsroot=:
// Documentation/admin-guide/nfs/nfsroot.rst), dracut.cmdline(7) (rd.luks.*, rd.lvm.*, rd.md.uuid,
// rd.iscsi.*, netroot=, ifname=, BOOTIF=, nameserver=, rd.route=, rd.nvmf.*),
// systemd-cryptsetup-generator(8) (luks.*) and Arch's encrypt hook (cryptdevice=, cryptkey=).
constexpr std::array<std::string_view, 21> kPrivateNames = {
    "ip",       "hostname",    "nfsroot",      "nfsaddrs",     "netroot",     "nameserver", "rd.route",
    "BOOTIF",   "ifname",      "rd.luks.uuid", "rd.luks.name", "rd.luks.key", "luks.uuid",  "luks.name",
    "luks.key", "cryptdevice", "cryptkey",     "rd.md.uuid",   "rd.dm.uuid",  "rd.lvm.lv",  "rd.lvm.vg",
};
constexpr std::array<std::string_view, 3> kPrivatePrefixes = {"rd.iscsi.", "iscsi_", "rd.nvmf."};
// Parameters whose value is private only when it names a file system by identifier.
constexpr std::array<std::string_view, 2> kDeviceNames = {"root", "resume"};
constexpr std::array<std::string_view, 5> kIdentifierKinds = {"UUID=", "PARTUUID=", "LABEL=", "PARTLABEL=", "ID="};
constexpr std::array<std::string_view, 5> kDiskLinks = {"/dev/disk/by-uuid/", "/dev/disk/by-partuuid/",
                                                        "/dev/disk/by-id/", "/dev/disk/by-label/",
                                                        "/dev/disk/by-partlabel/"};

bool EndsValue(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '\\' || c == '\0';
}

// Where a token may begin: the text's start, after a blank or a quote, or after a JSON escape.
bool StartsToken(std::string_view s, size_t i) {
  if (i == 0) return true;
  char prev = s[i - 1];
  if (prev == ' ' || prev == '\t' || prev == '\n' || prev == '\r' || prev == '"' || prev == '\'') return true;
  return i >= 2 && s[i - 2] == '\\' && (prev == 'n' || prev == 't');
}

bool IsPrivateName(std::string_view name) {
  for (std::string_view n : kPrivateNames)
    if (name == n) return true;
  for (std::string_view p : kPrivatePrefixes)
    if (name.starts_with(p) && name.size() > p.size()) return true;
  return false;
}

size_t ValueEnd(std::string_view s, size_t at) {
  while (at < s.size() && !EndsValue(s[at])) ++at;
  return at;
}

// The offset in `s` (from `at`) where the private part of a device value starts, or npos.
size_t DeviceValuePrivateStart(std::string_view s, size_t at) {
  for (std::string_view kind : kIdentifierKinds)
    if (s.substr(at).starts_with(kind)) return at + kind.size();
  return std::string_view::npos;
}

std::string RedactDiskLinks(std::string_view content) {
  std::string out(content);
  for (std::string_view link : kDiskLinks) {
    for (size_t at = out.find(link); at != std::string::npos; at = out.find(link, at + 1)) {
      size_t start = at + link.size();
      size_t end = ValueEnd(out, start);
      // A partition of a drive by id keeps nothing either: the serial is in the name.
      if (end > start) out.replace(start, end - start, kRedacted);
    }
  }
  return out;
}

}  // namespace

std::string RedactKernelTokens(std::string_view content) {
  std::string out;
  out.reserve(content.size());
  size_t i = 0;
  while (i < content.size()) {
    if (!StartsToken(content, i)) {
      out.push_back(content[i++]);
      continue;
    }
    size_t eq = i;
    while (eq < content.size() && content[eq] != '=' && !EndsValue(content[eq])) ++eq;
    if (eq >= content.size() || content[eq] != '=' || eq == i) {
      out.push_back(content[i++]);
      continue;
    }
    std::string_view name = content.substr(i, eq - i);
    size_t value = eq + 1;
    size_t from = std::string_view::npos;  // where the redacted part starts
    if (IsPrivateName(name)) from = value;
    for (std::string_view d : kDeviceNames)
      if (name == d) from = DeviceValuePrivateStart(content, value);
    if (from == std::string_view::npos) {
      out.push_back(content[i++]);
      continue;
    }
    size_t end = ValueEnd(content, from);
    // A quoted value (ip="…" on the command line itself) runs to its closing quote.
    if (from == value && end == from && value < content.size() && content[value] == '"' &&
        !(i > 0 && content[i - 1] == '"')) {
      size_t close = content.find('"', value + 1);
      end = close == std::string_view::npos ? content.size() : close + 1;
    }
    out.append(content.substr(i, from - i));
    if (end > from) out.append(kRedacted);
    i = end;
  }
  return RedactDiskLinks(out);
}

}  // namespace rocmtune::snapshot
