// A function of a library loaded with dlopen(), found by name and typed as the declaration it
// stands for (decltype(&function)). The libraries rocmtune loads on demand (libkmod,
// rocm-smi-lib) are looked up this one way: the first name missing is kept for the error.
#pragma once

#include <dlfcn.h>

#include <string>

namespace rocmtune::sys {

template <typename F>
void ResolveSymbol(void* lib, const char* name, F& out, std::string& first_missing) {
  // dlsym returns an object pointer; POSIX requires it to convert to a function pointer.
  out = reinterpret_cast<F>(dlsym(lib, name));  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
  if (!out && first_missing.empty()) first_missing = name;
}

}  // namespace rocmtune::sys
