// modprobe.d as libkmod reads it for a root, plus the kernel command line: the input is a
// file etc/modprobe.d/fuzz.conf, then (after fuzz::kSeparator) proc/cmdline. The module
// argument rules (module_args.h) also get each part directly.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "sys/kmod_config.h"
#include "sys/module_args.h"
#include "sys/root.h"

using namespace rocmtune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::ScratchRoot scratch;
  static const sys::Root root = *sys::Root::Open(scratch.path());

  auto parts = fuzz::SplitInput(fuzz::AsText(data, size), 2);
  for (std::string_view part : parts) {
    (void)sys::SplitModuleArgs(part);
    std::vector<std::string> errors;
    (void)sys::KernelCmdlineModuleOptions(part, &errors);
    std::string name(part.substr(0, 256));
    (void)sys::Underscores(name);
    (void)sys::ParamName(part.substr(0, 256));
  }
  scratch.Write("etc/modprobe.d/fuzz.conf", parts[0]);
  scratch.Write("proc/cmdline", parts[1]);
  const std::string_view modules[] = {"amdgpu", "ttm"};
  for (auto selection : {std::span<const std::string_view>(modules), std::span<const std::string_view>()}) {
    auto config = sys::ReadModprobeConfig(root, selection);
    if (config) (void)sys::Winning(*config, "amdgpu", "noretry");
  }
  return 0;
}
