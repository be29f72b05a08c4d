#include "boot/bootc_version.h"

#include <cctype>

#include <fmt/format.h>

#include "runtime/rpmdb.h"

namespace rocmtune::boot {
namespace {

constexpr std::string_view kBootcPath = "/usr/bin/bootc";
// ostree.spec's ostree-libs: %{_libdir}/lib%{name}-1.so.1* (lib64 on Fedora's 64-bit arches).
constexpr std::string_view kLibostreePaths[] = {"/usr/lib64/libostree-1.so.1", "/usr/lib/libostree-1.so.1"};

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// rpmvercmp: <0, 0, >0.
int RpmVerCmp(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    while (i < a.size() && !IsAlnum(a[i]) && a[i] != '~') ++i;
    while (j < b.size() && !IsAlnum(b[j]) && b[j] != '~') ++j;
    bool ta = i < a.size() && a[i] == '~', tb = j < b.size() && b[j] == '~';
    if (ta || tb) {
      if (!ta) return 1;
      if (!tb) return -1;
      ++i, ++j;
      continue;
    }
    if (i >= a.size() || j >= b.size()) break;
    bool numeric = IsDigit(a[i]);
    auto take = [numeric](std::string_view s, size_t& k) {
      size_t start = k;
      while (k < s.size() && (numeric ? IsDigit(s[k]) : std::isalpha(static_cast<unsigned char>(s[k])) != 0)) ++k;
      return s.substr(start, k - start);
    };
    std::string_view sa = take(a, i), sb = take(b, j);
    if (sb.empty()) return numeric ? 1 : -1;  // rpm: a number is newer than letters
    if (numeric) {
      while (sa.size() > 1 && sa.front() == '0') sa.remove_prefix(1);
      while (sb.size() > 1 && sb.front() == '0') sb.remove_prefix(1);
      if (sa.size() != sb.size()) return sa.size() < sb.size() ? -1 : 1;
    }
    if (int c = sa.compare(sb); c != 0) return c < 0 ? -1 : 1;
  }
  if (i >= a.size() && j >= b.size()) return 0;
  return i >= a.size() ? -1 : 1;
}

}  // namespace

bool RpmVersionAtLeast(std::string_view version, std::string_view minimum) { return RpmVerCmp(version, minimum) >= 0; }

std::optional<std::string> BootcSourceOptionsMissing(const sys::Root& root) {
  std::optional<std::string> rel = runtime::FindRpmdb(root);
  if (!rel) return "the installed bootc's version is unknown: no rpm database (/usr/lib/sysimage/rpm/rpmdb.sqlite)";
  auto db = runtime::Rpmdb::Open(root, *rel);
  if (!db) return fmt::format("the installed bootc's version is unknown: {}", db.error().message);
  auto owner = [&](std::string_view path) -> std::optional<runtime::RpmPackage> {
    auto o = db->Owner(path);
    return o ? *o : std::nullopt;
  };
  auto bootc = owner(kBootcPath);
  if (!bootc)
    return fmt::format("the installed bootc's version is unknown: no package in {} owns {}", db->display(), kBootcPath);
  if (!RpmVersionAtLeast(bootc->version, kBootcMinVersion))
    return fmt::format("the installed bootc is {} ({}), and `loader-entries set-options-for-source` came with {}",
                       bootc->version, bootc->Evr(), kBootcMinVersion);
  std::optional<runtime::RpmPackage> ostree;
  for (std::string_view path : kLibostreePaths)
    if (!ostree) ostree = owner(path);
  if (!ostree)
    return fmt::format("the installed ostree's version is unknown: no package in {} owns libostree-1.so.1",
                       db->display());
  if (!RpmVersionAtLeast(ostree->version, kOstreeMinVersion))
    return fmt::format("the installed ostree is {} ({}), and bootc's set-options-for-source needs ostree {} or later",
                       ostree->version, ostree->name, kOstreeMinVersion);
  return std::nullopt;
}

}  // namespace rocmtune::boot
