// modprobe.d configuration as libkmod (and so `modprobe`) reads it for a Root: which options
// amdgpu, ttm and amdttm get at their next load, from which file and line, and which value wins.
//
// One implementation, ours, of the rules libkmod applies (libkmod-config.c, kmod 30): which files
// are read in which order, what an `options` line gives, what the kernel command line adds. It
// used to hand libkmod a private copy of each file as well; that second reading is gone because
// libkmod cannot do what this needs: it takes real paths (a world's symlink would be followed on
// the host; a FIFO would block it), it has no line numbers (per-line attribution of a value and
// of a conflict), and kmod_new() always merges the HOST's /proc/cmdline, never a world's.
// libkmod and `modprobe -c -C` are the test oracle instead: tests/unit/sys/kmod_config_test.cc
// (OptionsMatchLibkmod, CommandLineMatchesLibkmod) and tests/integration/modprobe_compare_test.sh.
// What the kernel makes of the option string (parse_args) is reproduced by SplitModuleArgs.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sys/module_args.h"
#include "sys/root.h"
#include "util/result.h"

namespace rocmtune::sys {

struct ModuleOption {
  std::string module;  // as libkmod normalises it ("amd-gpu" -> "amd_gpu")
  std::string name;    // dashes as underscores: the kernel compares names that way (kernel/params.c parameq)
  std::string value;   // quotes removed as the kernel's next_arg() removes them; "" when `bare`
  // "name" without '=': the kernel passes no value, which means true for a bool parameter
  // and makes the load fail for any other type (kernel/params.c parse_one).
  bool bare = false;
  std::string file;  // root-relative path, or "proc/cmdline"
  int line = 0;      // line where the `options` line starts; 0 for proc/cmdline
  int order = 0;     // index in ModprobeConfig::options, which is load order
};

struct ModprobeConfig {
  std::vector<std::string> files;     // root-relative, in libkmod's effective order
  std::vector<ModuleOption> options;  // of the requested modules, in load order: files, then proc/cmdline
  // What libkmod skips (bad lines, directories, unreadable files) in libkmod's own wording where
  // it has one, and words the kernel will ignore ("# comment", anything after "--").
  std::vector<std::string> errors;
};

// Searched in this order; the first file of a basename hides later ones (libkmod's
// default_config_paths, plus usr/lib/modprobe.d that kmod >= 31 reads as DISTCONFDIR; on
// merged-/usr systems lib/ is usr/lib/ and the directory is read once).
inline constexpr std::string_view kModprobeDirs[] = {"etc/modprobe.d", "run/modprobe.d", "usr/local/lib/modprobe.d",
                                                     "usr/lib/modprobe.d", "lib/modprobe.d"};

// Files are read in basename order from all kModprobeDirs, then the kernel command line.
// `modules` empty means every module. Fails (kTooLarge) when a file is over
// Root::kDefaultMaxBytes: the effective value would otherwise be a guess.
Result<ModprobeConfig> ReadModprobeConfig(const Root& root, std::span<const std::string_view> modules);

// The value the module will get at its next load for `name`: the kernel keeps the last
// occurrence, and libkmod appends the command line's `module.name=` after modprobe.d.
std::optional<ModuleOption> Winning(const ModprobeConfig& config, std::string_view module, std::string_view name);

}  // namespace rocmtune::sys
