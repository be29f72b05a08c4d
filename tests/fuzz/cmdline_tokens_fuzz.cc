// Kernel command-line text: splitting, lookups, validation and the edits of a command line,
// a BLS entry and /etc/kernel/cmdline. Input: the text; its tokens double as edits.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "boot/cmdline_tokens.h"
#include "fuzz_support.h"

using namespace rocmtune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::AsText(data, size);
  std::vector<std::string> tokens = boot::SplitCmdline(text);
  (void)boot::JoinCmdline(tokens);
  std::vector<std::string> add, remove;
  for (const std::string& token : tokens) {
    std::string_view key = boot::TokenKey(token);
    (void)boot::SameKey(key, "iommu");
    (void)boot::TokenValue(tokens, key);
    (void)boot::ValidateKey(key);
    (void)boot::ValidateValue(token);
    if (boot::ValidateToken(token)) add.push_back(token);
    if (boot::ValidateKey(key)) remove.emplace_back(key);
  }
  std::vector<std::string> edited = tokens;
  (void)boot::AddOrReplaceToken(edited, "iommu", "pt");
  (void)boot::AddOrReplaceToken(edited, "quiet", std::nullopt);
  (void)boot::RemoveToken(edited, "amdgpu.noretry");
  if (boot::TokenValue(edited, "iommu") != std::optional<std::string>("pt")) __builtin_trap();
  std::vector<std::string> fixed_add = {"iommu=pt", "amdgpu.noretry=0"};
  std::vector<std::string> fixed_remove = {"quiet"};
  for (const std::vector<std::string>* adds : {&fixed_add, &add}) {
    for (const std::vector<std::string>* removes : {&fixed_remove, &remove}) {
      (void)boot::EditCmdlineText(text, *adds, *removes);
      (void)boot::SetBlsOptions(text, *adds, *removes);
      (void)boot::SetKernelCmdlineFile(text, *adds, *removes);
    }
  }
  return 0;
}
