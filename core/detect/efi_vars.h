// EFI variables as efivarfs shows them: Secure Boot's state and shim's list of Machine Owner
// Keys (MOKs) the kernel trusts for modules.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sys/root.h"

namespace rocmtune::detect {

// The EFI global variable GUID (UEFI spec, "Globally Defined Variables") and shim's
// (SHIM_LOCK_GUID, shim's MokManager variables MokListRT, MokNew).
inline constexpr std::string_view kEfiGlobalGuid = "8be4df61-93ca-11d2-aa0d-00e098032b8c";
inline constexpr std::string_view kShimLockGuid = "605dab50-e046-4300-abb6-3dd810dd8b23";

// The data of sys/firmware/efi/efivars/NAME-GUID (efivarfs: 4 bytes of attributes, then the
// data, Documentation/filesystems/efivarfs.rst); nullopt when absent, unreadable or too short.
std::optional<std::string> ReadEfiVar(const sys::Root& root, std::string_view name, std::string_view guid);

// The SecureBoot variable: true when its byte is 1, false when 0; nullopt when it cannot be read
// (no EFI, or a tree without the EFI variables).
std::optional<bool> SecureBoot(const sys::Root& root);

// Whether the DER certificate `der` is one of the keys shim handed the kernel (MokListRT, as the
// kernel's mok-variables table or as efivars MokListRT, MokListRT1, ...: EFI signature lists
// holding each certificate's DER bytes). nullopt when no list could be read.
std::optional<bool> MokListHas(const sys::Root& root, std::string_view der);

// Whether a key waits for MokManager at the next boot (`mokutil --import` sets MokNew).
bool MokImportPending(const sys::Root& root);

}  // namespace rocmtune::detect
