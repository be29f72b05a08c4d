// Admin profiles as the profile store loads them: the input is up to three files
// etc/rocmtune/profiles/fuzz-{a,b,c}.toml (split on fuzz::kSeparator) that may include each
// other and the built-ins; each is parsed, resolved and matched against a world's inventory.
#include <cstddef>
#include <cstdint>
#include <string>

#include "detect/inventory.h"
#include "fuzz_support.h"
#include "profiles/profile.h"
#include "profiles/profile_store.h"
#include "sys/root.h"

using namespace rocmtune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::ScratchRoot world("rx5700xt");
  static const sys::Root root = *sys::Root::Open(world.path());
  static const detect::Inventory inventory = detect::Detect(root, {.use_libdrm = false});
  static const char* const kNames[] = {"fuzz-a", "fuzz-b", "fuzz-c"};

  auto parts = fuzz::SplitInput(fuzz::AsText(data, size), 3);
  (void)profiles::ParseProfile(kNames[0], parts[0], "fuzz");
  world.Remove(profiles::kAdminProfileDir);
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0 && parts[i].empty()) continue;
    world.Write(std::string(profiles::kAdminProfileDir) + "/" + kNames[i] + ".toml", parts[i]);
  }
  auto store = profiles::ProfileStore::Load(root);
  for (const char* name : kNames) (void)store.Resolve(name);
  (void)profiles::ListProfiles(store, inventory);
  return 0;
}
