// /etc/default/grub and a grub.d drop-in evaluated without a shell, and the token edits of
// /etc/default/grub and rocmtune's drop-in. Input: the defaults file, then (after
// fuzz::kSeparator) one grub.d/*.cfg.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "knobs/grub_config.h"
#include "sys/root.h"

using namespace rocmtune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::ScratchRoot scratch;
  static const sys::Root root = *sys::Root::Open(scratch.path());
  static const std::vector<std::string> kAdd = {"iommu=pt", "amdgpu.noretry=0"};
  static const std::vector<std::string> kRemove = {"quiet", "amdgpu.ppfeaturemask"};

  std::string_view input = fuzz::AsText(data, size);
  auto parts = fuzz::SplitInput(input, 2);
  scratch.Write(knobs::kGrubDefaultsPath, parts[0]);
  scratch.Remove("etc/default/grub.d");
  if (!parts[1].empty()) scratch.Write("etc/default/grub.d/50-fuzz.cfg", parts[1]);
  for (bool debian : {false, true}) {
    auto vars = knobs::EvaluateGrubDefaults(root, debian);
    if (vars) (void)knobs::EffectiveLinuxArgs(*vars);
  }
  for (std::string_view var : {knobs::kGrubCmdlineLinux, knobs::kGrubCmdlineLinuxDefault}) {
    (void)knobs::SetAssignmentTokens(input, var, kAdd, kRemove);
    (void)knobs::SetAssignmentTokens(input, var, {}, kRemove);
    if (auto tokens = knobs::RocmtuneDropInTokens(input, var)) {
      // A drop-in recognised as rocmtune's is byte for byte what RocmtuneDropIn writes.
      auto rendered = knobs::RocmtuneDropIn(var, *tokens);
      if (!rendered || *rendered != input) __builtin_trap();
    }
  }
  return 0;
}
