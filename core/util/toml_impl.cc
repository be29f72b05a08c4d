// toml++'s implementation, compiled once into rocmtune-util from Debian's headers (libtomlplusplus-dev)
// instead of loaded from libtomlplusplus.so.3: every other source sees TOML_HEADER_ONLY=0 and only
// declarations (core/CMakeLists.txt). A C++ shared library at a program's start brings
// libstdc++.so.6 and its relocations with it; rocmtunectl links libstdc++ statically instead
// (client/CMakeLists.txt, BENCHMARKS.md "Before Python starts").
//
// The parser is built as Debian builds libtomlplusplus3 (GCC, NDEBUG): its internal assertions
// and assumptions compile to nothing, in every build type. toml++ 3.3.0's parse_table_header()
// enters parse_key() on "[[=", "[[[a]]]" or "[[[]]" and asserts there what the input decides;
// the next lines of parse_key() report those as a parse error, which is what a reader needs
// (fixed upstream in marzer/tomlplusplus#301). With assert() that aborts the process (the sanitizer
// and fuzz builds have no NDEBUG), and under clang with NDEBUG it becomes __builtin_assume(false),
// undefined behaviour. So: no NDEBUG here, and TOML_ASSERT defined before toml++ defines it, which
// makes TOML_ASSERT_ASSUME that same no-op (toml++/impl/preprocessor.h). The inline parts every
// other source compiles (node accessors) keep their assertions. TomlReaderTest.MalformedTableHeaders*
#undef NDEBUG
#define TOML_ASSERT(expr) static_assert(true)
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
