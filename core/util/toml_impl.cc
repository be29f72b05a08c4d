// toml++'s implementation, compiled once into rocmtune-util from Debian's headers (libtomlplusplus-dev)
// instead of loaded from libtomlplusplus.so.3: every other source sees TOML_HEADER_ONLY=0 and only
// declarations (core/CMakeLists.txt). A C++ shared library at a program's start brings
// libstdc++.so.6 and its relocations with it; rocmtunectl links libstdc++ statically instead
// (client/CMakeLists.txt, BENCHMARKS.md "Before Python starts").
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
