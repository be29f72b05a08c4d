// kernelstub's configuration (Pop!_OS; pop-os/kernelstub kernelstub/config.py): the JSON file
// /etc/kernelstub/configuration with a `default` section (the distribution's) and a `user` section
// (what `kernelstub -o/-a/-d` change and what every run uses: application.py takes
// config['user']['kernel_options'] and writes `options root=UUID=<root> ro <options>` into
// $ESP/loader/entries/<OS>-current.conf, installer.py make_loader_entry). A configuration without
// `user` runs with a copy of `default`; config_rev below 3 may hold kernel_options as one string,
// which kernelstub splits on whitespace (rejoining quoted words); a config_rev above 3 it refuses.
// The file is untrusted input: anything else is an error, never a guess.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace rocmtune::boot {

inline constexpr std::string_view kKernelstubConfigPath = "etc/kernelstub/configuration";

struct KernelstubOption {
  std::string token;
  int line = 0;  // 1-based line of the option in the file; 0: not found as written
};

struct KernelstubConfig {
  std::vector<KernelstubOption> options;  // `user` kernel_options (else `default`'s), in order
  std::string esp_path;                   // "/boot/efi" unless the admin chose another
  bool user_section = false;              // false: the options are `default`'s copy
};

// Err(kInvalidData) naming what is wrong: not JSON, no `default`/`user` object, no kernel_options
// list of strings (or string), a config_rev kernelstub does not understand, an option with a
// control character.
Result<KernelstubConfig> ParseKernelstubConfig(std::string_view text);

}  // namespace rocmtune::boot
