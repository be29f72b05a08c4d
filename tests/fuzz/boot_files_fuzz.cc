// What rocmtuned reads from rocmtune-helper's `read-boot` reply (boot/boot_files.h): parsed
// strictly; what parses prints and parses back equal, and a Root answering from it reads each of
// its paths without leaving it (reads only, on a copy of a world).
#include <cstddef>
#include <cstdint>
#include <memory>

#include <nlohmann/json.hpp>

#include "boot/boot_files.h"
#include "fuzz_support.h"
#include "sys/root.h"

using namespace rocmtune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::ScratchRoot world("strixpoint");
  auto files = boot::BootFilesFromJson(fuzz::AsText(data, size));
  if (!files) return 0;
  auto again = boot::BootFilesFromJson(boot::BootFilesJson(*files).dump());
  if (!again || again->files != files->files || again->dirs != files->dirs) __builtin_trap();
  auto root = sys::Root::Open(world.path());
  if (!root) __builtin_trap();
  root->Supplement(std::make_shared<const sys::RootSupplement>(*files));
  for (const auto& [path, content] : files->files) {
    auto read = root->ReadFile(path);
    if (!read || *read != content || root->TypeOf(path) != sys::EntryType::kFile) __builtin_trap();
  }
  for (const auto& [path, names] : files->dirs) {
    auto listed = root->ListDir(path);
    if (!listed || *listed != names) __builtin_trap();
    for (const std::string& name : names) (void)root->ResolvedTypeOf(path + "/" + name);
  }
  return 0;
}
