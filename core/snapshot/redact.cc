#include "snapshot/redact.h"

#include <algorithm>
#include <array>

#include "snapshot/redact_cmdline.h"
#include "util/text.h"

namespace rocmtune::snapshot {
namespace {

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool IsAlnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
// A host name's characters: a match inside a longer name ("node1" in "node10") is not the host.
bool IsNameChar(char c) { return IsAlnum(c) || c == '-' || c == '_'; }

// The number of hex pairs joined by one separator (':' or '-') starting at `i`, when the run
// does not start inside a longer hex word: "aa:bb:cc:dd:ee:ff" is 6, BOOTIF's "01-aa-...-ff" 7,
// an InfiniBand address 20. Six or more are a hardware address. A hex word after the pairs ends
// the run before it: "aa:bb:cc:dd:ee:ff:debian" is an address followed by a host name.
size_t HexPairRun(std::string_view s, size_t i) {
  if (i > 0 && IsHex(s[i - 1])) return 0;
  if (i + 2 >= s.size() || (s[i + 2] != ':' && s[i + 2] != '-')) return 0;
  char sep = s[i + 2];
  size_t pairs = 0;
  size_t at = i;
  while (at + 1 < s.size() && IsHex(s[at]) && IsHex(s[at + 1])) {
    if (at + 2 < s.size() && IsHex(s[at + 2])) break;  // "deb...": a word, not a pair
    ++pairs;
    at += 2;
    if (at + 2 < s.size() && s[at] == sep && IsHex(s[at + 1])) ++at;
    else break;
  }
  return pairs;
}

std::string FirstLine(const sys::Root& root, std::string_view rel) {
  auto content = root.ReadFile(rel, 4096);
  if (!content) return "";
  auto lines = text::SplitLines(*content);
  return lines.empty() ? "" : std::string(text::Trim(lines.front()));
}

bool IsHostNameFile(std::string_view rel) { return rel == "etc/hostname" || rel == "proc/sys/kernel/hostname"; }

// "localhost" names no one; a one- or two-letter name would redact half of every file.
constexpr std::array<std::string_view, 3> kPublicHostNames = {"localhost", "localhost.localdomain", kRedacted};
// Accounts a distribution's image creates on every install (cloud images: ubuntu, debian, fedora,
// ec2-user...; SteamOS: deck; Raspberry Pi OS: pi), or that name software (taking "rocm" out
// would rename /opt/rocm): they identify no one.
constexpr std::array<std::string_view, 14> kPublicUserNames = {
    "ubuntu",   "debian", "fedora", "centos", "rocky", "almalinux", "arch",
    "ec2-user", "admin",  "deck",   "pi",     "rocm",  "amdgpu",    "radeon",
};

template <size_t N>
bool IsPublic(std::string_view name, const std::array<std::string_view, N>& list) {
  return name.size() < 3 || std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

std::string RedactMacs(std::string_view content) {
  std::string out(content);
  for (size_t i = 0; i + 17 <= out.size(); ++i) {
    size_t pairs = HexPairRun(out, i);
    if (pairs < 6) continue;
    for (size_t k = 0; k < pairs; ++k) out.replace(i + k * 3, 2, "00");
    i += pairs * 3 - 1;
  }
  return out;
}

std::string RedactHomes(std::string_view content) {
  static constexpr std::string_view kHome = "/home/";
  std::string out;
  size_t i = 0;
  while (i < content.size()) {
    size_t at = content.find(kHome, i);
    if (at == std::string_view::npos) break;
    size_t name_end = at + kHome.size();
    while (name_end < content.size() && (IsNameChar(content[name_end]) || content[name_end] == '.' ||
                                         static_cast<unsigned char>(content[name_end]) >= 0x80))
      ++name_end;
    out.append(content.substr(i, at + kHome.size() - i));
    if (name_end > at + kHome.size()) out.append(kRedacted);
    i = name_end;
  }
  out.append(content.substr(std::min(i, content.size())));
  return out;
}

std::string RedactWord(std::string_view content, std::string_view word) {
  if (word.empty()) return std::string(content);
  std::string out;
  size_t i = 0;
  for (size_t at = content.find(word); at != std::string_view::npos; at = content.find(word, at + 1)) {
    if (at < i) continue;
    size_t end = at + word.size();
    bool whole = (at == 0 || !IsNameChar(content[at - 1])) && (end == content.size() || !IsNameChar(content[end]));
    if (!whole) continue;
    out.append(content.substr(i, at - i));
    out.append(kRedacted);
    i = end;
  }
  out.append(content.substr(i));
  return out;
}

std::vector<std::string> UserNames(const sys::Root& root) {
  // Human accounts: uid 1000 and up (UID_MIN of login.defs on Debian, Fedora, Arch), not the
  // overflow ids nobody/nfsnobody (65534, 4294967294). The tree's own file: a snapshot of a
  // --root world names that world's users, not this machine's.
  static constexpr uint64_t kUidMin = 1000;
  std::vector<std::string> names;
  if (auto passwd = root.ReadFile("etc/passwd", 4 << 20)) {
    for (std::string_view line : text::SplitLines(*passwd)) {
      // name:password:uid:...
      size_t colon1 = line.find(':');
      size_t colon2 = colon1 == std::string_view::npos ? colon1 : line.find(':', colon1 + 1);
      size_t colon3 = colon2 == std::string_view::npos ? colon2 : line.find(':', colon2 + 1);
      if (colon1 == 0 || colon3 == std::string_view::npos) continue;
      std::string_view name = line.substr(0, colon1);
      auto uid = text::ParseU64(line.substr(colon2 + 1, colon3 - colon2 - 1));
      if (!uid || *uid < kUidMin || *uid == 65534 || *uid == 4294967294 || name == "nobody") continue;
      names.emplace_back(name);
    }
  }
  if (auto homes = root.ListDir("home"))
    for (const std::string& name : *homes) names.push_back(name);
  return names;
}

Redactor::Redactor(const sys::Root& root)
    : Redactor(std::vector<std::string>{FirstLine(root, "etc/hostname"), FirstLine(root, "proc/sys/kernel/hostname")},
               UserNames(root)) {}

Redactor::Redactor(const std::vector<std::string>& host_names, const std::vector<std::string>& user_names) {
  auto add = [this](const std::string& n) {
    if (std::find(names_.begin(), names_.end(), n) == names_.end()) names_.push_back(n);
  };
  for (const std::string& name : host_names)
    for (const std::string& n : {name, name.substr(0, name.find('.'))})
      if (!IsPublic(n, kPublicHostNames)) add(n);
  for (const std::string& name : user_names)
    if (!IsPublic(name, kPublicHostNames) && !IsPublic(name, kPublicUserNames)) add(name);
  std::sort(names_.begin(), names_.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

bool Redactor::MayCopy(std::string_view rel) {
  size_t slash = rel.rfind('/');
  std::string_view name = slash == std::string_view::npos ? rel : rel.substr(slash + 1);
  bool net = rel.find("/net/") != std::string_view::npos || rel.starts_with("sys/class/net/");
  return !(net && (name == "address" || name == "perm_addr" || name == "broadcast" ||
                   text::ToLower(name).find("mac") != std::string::npos));
}

std::string Redactor::Redact(std::string_view rel, std::string_view content) const {
  if (IsHostNameFile(rel)) return std::string(kRedacted) + "\n";
  std::string out = RedactKernelTokens(RedactHomes(RedactMacs(content)));
  bool keeps_names = rel.starts_with("sys/") || rel.ends_with("os-release");
  if (!keeps_names)
    for (const std::string& name : names_) out = RedactWord(out, name);
  return out;
}

}  // namespace rocmtune::snapshot
