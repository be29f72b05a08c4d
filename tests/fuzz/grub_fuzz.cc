// /etc/default/grub and a grub.d drop-in evaluated without a shell, and the token edits of
// /etc/default/grub and rocmtune's drop-in. Input: the defaults file, then (after
// fuzz::kSeparator) one grub.d/*.cfg.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "boot/grub_config.h"
#include "fuzz_support.h"
#include "sys/root.h"

using namespace rocmtune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::ScratchRoot scratch;
  static const sys::Root root = *sys::Root::Open(scratch.path());
  static const std::vector<std::string> kAdd = {"iommu=pt", "amdgpu.noretry=0"};
  static const std::vector<std::string> kRemove = {"quiet", "amdgpu.ppfeaturemask"};

  std::string_view input = fuzz::AsText(data, size);
  auto parts = fuzz::SplitInput(input, 2);
  scratch.Write(boot::kGrubDefaultsPath, parts[0]);
  scratch.Remove("etc/default/grub.d");
  if (!parts[1].empty()) scratch.Write("etc/default/grub.d/50-fuzz.cfg", parts[1]);
  for (bool debian : {false, true}) {
    auto vars = boot::EvaluateGrubDefaults(root, debian);
    if (vars) (void)boot::EffectiveLinuxArgs(*vars);
  }
  for (std::string_view var : {boot::kGrubCmdlineLinux, boot::kGrubCmdlineLinuxDefault}) {
    (void)boot::SetAssignmentTokens(input, var, kAdd, kRemove);
    (void)boot::SetAssignmentTokens(input, var, {}, kRemove);
    if (auto tokens = boot::RocmtuneDropInTokens(input, var)) {
      // A drop-in recognised as rocmtune's is byte for byte what RocmtuneDropIn writes.
      auto rendered = boot::RocmtuneDropIn(var, *tokens);
      if (!rendered || *rendered != input) __builtin_trap();
    }
  }
  return 0;
}
