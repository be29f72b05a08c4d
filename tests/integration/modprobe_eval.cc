// modprobe_eval -- module options as rocmtune (sys::ReadModprobeConfig) sees
// them, in a form that can be compared with `modprobe -c`.
//
//   modprobe_eval --root DIR             rocmtune's view of world DIR, every module:
//                                          option MODULE NAME[=VALUE]   (grouped by module, load order)
//                                          winner MODULE NAME FILE      (sys::Winning, per parameter)
//                                          error TEXT
//   modprobe_eval --from-modprobe FILE   `modprobe -c` output as `option` lines: each module's
//                                        options joined and split the way the kernel does
//                                        (sys::SplitModuleArgs), as ReadModprobeConfig does.
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sys/kmod_config.h"
#include "sys/root.h"

namespace {

using rocmtune::sys::ModuleArg;

std::string Word(const std::string& name, const std::optional<std::string>& value) {
  return value ? name + "=" + *value : name;
}

std::string Normalised(std::string name) {
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

int FromRoot(const std::string& dir) {
  auto root = rocmtune::sys::Root::Open(dir);
  if (!root) {
    std::cerr << root.error().message << "\n";
    return 1;
  }
  auto config = rocmtune::sys::ReadModprobeConfig(*root, {});
  if (!config) {
    std::cerr << config.error().message << "\n";
    return 1;
  }
  std::map<std::string, std::vector<std::string>> by_module;
  std::set<std::pair<std::string, std::string>> names;
  for (const auto& o : config->options) {
    by_module[o.module].push_back(Word(o.name, o.bare ? std::nullopt : std::optional(o.value)));
    names.emplace(o.module, o.name);
  }
  for (const auto& [module, words] : by_module)
    for (const std::string& w : words) std::cout << "option " << module << " " << w << "\n";
  for (const auto& [module, name] : names)
    std::cout << "winner " << module << " " << name << " " << rocmtune::sys::Winning(*config, module, name)->file
              << "\n";
  for (const std::string& e : config->errors) std::cout << "error " << e << "\n";
  return 0;
}

int FromModprobe(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::cerr << file << ": cannot read\n";
    return 1;
  }
  std::map<std::string, std::string> joined;  // libkmod's kmod_module_get_options(): single spaces
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("options ")) continue;
    size_t space = line.find(' ', 8);
    if (space == std::string::npos) continue;
    std::string module = line.substr(8, space - 8), options = line.substr(space + 1);
    if (options.empty()) continue;
    std::string& j = joined[module];
    if (!j.empty()) j += ' ';
    j += options;
  }
  for (const auto& [module, options] : joined) {
    for (const ModuleArg& arg : rocmtune::sys::SplitModuleArgs(options)) {
      if (!arg.value && arg.name == "--") break;             // the kernel stops here
      if (arg.name.empty() || arg.name[0] == '#') continue;  // ignored as unknown parameters
      std::cout << "option " << module << " " << Word(Normalised(arg.name), arg.value) << "\n";
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 2 && args[0] == "--root") return FromRoot(args[1]);
  if (args.size() == 2 && args[0] == "--from-modprobe") return FromModprobe(args[1]);
  std::cerr << "usage: modprobe_eval --root DIR | --from-modprobe MODPROBE_C_OUTPUT\n";
  return 2;
}
