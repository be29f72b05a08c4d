// Kernel command-line text: splitting, lookups, validation and the edits of a command line,
// a BLS entry and /etc/kernel/cmdline. Input: the text; its tokens double as edits.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "knobs/cmdline_tokens.h"

using namespace rocmtune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::AsText(data, size);
  std::vector<std::string> tokens = knobs::SplitCmdline(text);
  (void)knobs::JoinCmdline(tokens);
  std::vector<std::string> add, remove;
  for (const std::string& token : tokens) {
    std::string_view key = knobs::TokenKey(token);
    (void)knobs::SameKey(key, "iommu");
    (void)knobs::TokenValue(tokens, key);
    (void)knobs::ValidateKey(key);
    (void)knobs::ValidateValue(token);
    if (knobs::ValidateToken(token)) add.push_back(token);
    if (knobs::ValidateKey(key)) remove.emplace_back(key);
  }
  std::vector<std::string> edited = tokens;
  (void)knobs::AddOrReplaceToken(edited, "iommu", "pt");
  (void)knobs::AddOrReplaceToken(edited, "quiet", std::nullopt);
  (void)knobs::RemoveToken(edited, "amdgpu.noretry");
  if (knobs::TokenValue(edited, "iommu") != std::optional<std::string>("pt")) __builtin_trap();
  std::vector<std::string> fixed_add = {"iommu=pt", "amdgpu.noretry=0"};
  std::vector<std::string> fixed_remove = {"quiet"};
  for (const std::vector<std::string>* adds : {&fixed_add, &add}) {
    for (const std::vector<std::string>* removes : {&fixed_remove, &remove}) {
      (void)knobs::EditCmdlineText(text, *adds, *removes);
      (void)knobs::SetBlsOptions(text, *adds, *removes);
      (void)knobs::SetKernelCmdlineFile(text, *adds, *removes);
    }
  }
  return 0;
}
