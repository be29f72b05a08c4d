// The text rules the kernel and libkmod apply to module options: how an option string
// splits into words (lib/cmdline.c next_arg), how kmod 30 reads `module.param=` words off the
// kernel command line, and how module and parameter names are normalised. Pure functions,
// kept apart from the libkmod driving in kmod_config.cc.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rocmtune::sys {

// One word of a module's option string as the kernel splits it (lib/cmdline.c next_arg):
// whitespace separates, double quotes group, the quotes around a value are dropped.
struct ModuleArg {
  std::string name;                  // as written
  std::optional<std::string> value;  // nullopt without '='
  size_t offset = 0;                 // where the word starts in the string
};
std::vector<ModuleArg> SplitModuleArgs(std::string_view options);

// The `module.param[=value]` words of a kernel command line as kmod 30 reads them into
// options (libkmod-config.c kmod_config_parse_kcmdline): (module, "param=value") pairs in
// order. Bad module names are reported in `errors`; modprobe.blacklist= is not an option.
std::vector<std::pair<std::string, std::string>> KernelCmdlineModuleOptions(std::string_view cmdline,
                                                                            std::vector<std::string>* errors = nullptr);

// libkmod's underscores(): '-' becomes '_' outside [...] (alias patterns); a stray ']' or an
// unclosed '[' makes the name invalid (returns false).
bool Underscores(std::string& s);

// Parameter names compare with '-' and '_' alike (kernel/params.c parameq): the '_' form.
std::string ParamName(std::string_view name);

// The kernel's isspace() (lib/ctype.c): ASCII whitespace and Latin-1 NBSP (0xa0).
bool IsKernelSpace(char c);

}  // namespace rocmtune::sys
