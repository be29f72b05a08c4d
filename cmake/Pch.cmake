# Precompiled headers (BENCHMARKS.md, "CI"): the standard and third-party headers the core's sources
# parse (fmt, nlohmann-json, tl::expected) are parsed once and reused by every library and program,
# instead of once per source: about 10% of a library source's CPU (measured). Not for the gtest
# binaries: a test source costs the same with a gtest + gmock + JSON PCH as without.
#   - gcc only. Reusing one .gch across targets (REUSE_FROM) works in gcc when the flags match and
#     every macro defined when the .gch was made is defined the same way where it is used (gcc:
#     "not used because `X' not defined" otherwise, an error under -Werror): the donor,
#     rocmtune-util, defines nothing of its own. clang refuses a PCH whose command-line macros
#     differ at all, and `make fuzz` (clang) builds few enough sources not to need it.
#   - gcc 12 at -O2 reports false -Warray-bounds / -Wstringop-overflow inside std::string's copy
#     and move in a few sources compiled with the .gch (not with the same headers as text): those
#     skip it (SKIP_PRECOMPILE_HEADERS, top-level CMakeLists.txt). A new source that warns there
#     joins that list.
#   - -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON turns it off. clang-tidy cannot read a .gch:
#     scripts/tidy.sh drops the PCH flags from the compile commands, so each source is still checked
#     as the self-contained file it must be (it includes what it uses; the PCH only saves parsing).
#   - ccache caches a source compiled with a PCH only with
#     CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
#     (scripts/build-deb.sh and packaging/rpm set it; a developer's own ccache needs it too).
set(ROCMTUNE_PCH_LIBRARY
    <algorithm> <functional> <map> <optional> <set> <string> <string_view> <utility> <vector>
    <fmt/format.h> <nlohmann/json.hpp> <tl/expected.hpp>)

# rocmtune_precompile(<headers-var> <targets...>): the first target ever named with <headers-var>
# precompiles the headers; every other one reuses its .gch.
function(rocmtune_precompile headers_var)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU" OR CMAKE_DISABLE_PRECOMPILE_HEADERS)
    return()
  endif()
  get_property(donor GLOBAL PROPERTY ROCMTUNE_PCH_DONOR_${headers_var})
  foreach(target IN LISTS ARGN)
    if(NOT donor)
      target_precompile_headers(${target} PRIVATE ${${headers_var}})
      set(donor ${target})
      set_property(GLOBAL PROPERTY ROCMTUNE_PCH_DONOR_${headers_var} ${donor})
    else()
      target_precompile_headers(${target} REUSE_FROM ${donor})
    endif()
  endforeach()
endfunction()
