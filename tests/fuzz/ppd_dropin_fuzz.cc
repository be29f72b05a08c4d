// power-profiles-daemon's drop-in (helper/content_rules.cc CheckPpdDropIn): the helper writes, as
// root, a unit drop-in whose ExecStart= it lets through only when it is byte for byte what
// rocmtune renders for a known power-profiles-daemon binary with plain options.
// Input: the drop-in's content; its words (split at whitespace) are also rendered as a command.
// Invariants: an accepted drop-in is RenderPpdDropIn of the command it reads back, that command
// starts with a known binary and every argument is a plain option (no '/', '=' only after a
// name, no shell or systemd specifier characters); a rendered command reads back as itself.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "helper/rules.h"
#include "knobs/service_backend.h"
#include "util/text.h"

using namespace rocmtune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view content = fuzz::AsText(data, size);
  if (helper::CheckPpdDropIn(content)) {
    auto command = knobs::PpdDropInCommand(content);
    if (!command || command->empty() || !knobs::KnownPpdProgram((*command)[0])) __builtin_trap();
    if (knobs::RenderPpdDropIn(*command) != content) __builtin_trap();
    for (size_t i = 1; i < command->size(); ++i) {
      const std::string& arg = (*command)[i];
      if (!knobs::PlainOption(arg) || arg.find_first_of(" \t\n\\\"'$%;`|&<>/") != std::string::npos) __builtin_trap();
    }
    // Exactly one ExecStart= that starts something, and it blocks amdgpu_dpm.
    size_t starts = 0;
    for (std::string_view line : text::SplitLines(content))
      if (line.starts_with("ExecStart=") && line.size() > 10) {
        ++starts;
        if (!line.ends_with(knobs::kPpdBlock)) __builtin_trap();
      }
    if (starts != 1) __builtin_trap();
  }
  std::vector<std::string> words;
  for (std::string_view w : text::Tokens(content)) words.emplace_back(w);
  if (words.empty() || words.size() > 32) return 0;
  auto back = knobs::PpdDropInCommand(knobs::RenderPpdDropIn(words));
  bool plain = knobs::KnownPpdProgram(words[0]);
  for (size_t i = 1; i < words.size(); ++i) plain = plain && knobs::PlainOption(words[i]);
  if (plain && (!back || *back != words)) __builtin_trap();
  if (plain && !helper::CheckPpdDropIn(knobs::RenderPpdDropIn(words))) __builtin_trap();
  return 0;
}
