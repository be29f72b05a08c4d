#include "detect/efi_vars.h"

#include <fmt/format.h>

namespace rocmtune::detect {
namespace {

constexpr std::string_view kEfiVars = "sys/firmware/efi/efivars";
// drivers/firmware/efi/mokvar-table.c: shim's MOK variable configuration table, one read-only
// file per variable under /sys/firmware/efi/mok-variables (the data only, no attributes).
constexpr std::string_view kMokVariables = "sys/firmware/efi/mok-variables/MokListRT";
// MokListRT holds a few certificates; shim splits a long one into MokListRT1, MokListRT2, ...
constexpr size_t kMaxEfiVarBytes = 1 << 20;

}  // namespace

std::optional<std::string> ReadEfiVar(const sys::Root& root, std::string_view name, std::string_view guid) {
  auto content = root.ReadFile(fmt::format("{}/{}-{}", kEfiVars, name, guid), kMaxEfiVarBytes);
  if (!content || content->size() < 4) return std::nullopt;
  return content->substr(4);
}

std::optional<bool> SecureBoot(const sys::Root& root) {
  auto value = ReadEfiVar(root, "SecureBoot", kEfiGlobalGuid);
  if (!value || value->empty()) return std::nullopt;
  return (*value)[0] == 1;
}

std::optional<bool> MokListHas(const sys::Root& root, std::string_view der) {
  if (der.empty()) return std::nullopt;
  bool read = false;
  if (auto table = root.ReadFile(kMokVariables, kMaxEfiVarBytes)) {
    read = true;
    if (table->find(der) != std::string::npos) return true;
  }
  for (int i = 0; i < 10; ++i) {
    auto list = ReadEfiVar(root, i == 0 ? std::string("MokListRT") : fmt::format("MokListRT{}", i), kShimLockGuid);
    if (!list) break;
    read = true;
    if (list->find(der) != std::string::npos) return true;
  }
  return read ? std::optional(false) : std::nullopt;
}

bool MokImportPending(const sys::Root& root) { return ReadEfiVar(root, "MokNew", kShimLockGuid).has_value(); }

}  // namespace rocmtune::detect
