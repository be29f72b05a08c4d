# Precompiled headers (BENCHMARKS.md, "CI"): the standard and third-party headers most translation
# units parse (fmt, nlohmann-json, tl::expected; gtest and gmock in the tests) are parsed once per
# kind and reused by every target of that kind, instead of once per source.
#   - gcc only. Reusing one .gch across targets (REUSE_FROM) works in gcc as long as the flags
#     match and no macro the headers look at differs; clang refuses a PCH whose command-line macros
#     differ from the target's, and `make fuzz` (clang) builds few enough sources not to need it.
#   - -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON turns it off. clang-tidy cannot read a .gch:
#     scripts/tidy.sh drops the PCH flags from the compile commands, so each source is still checked
#     as the self-contained file it must be (it includes what it uses; the PCH only saves parsing).
#   - ccache caches a source compiled with a PCH only with
#     CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
#     (scripts/build-deb.sh and packaging/rpm set it; a developer's own ccache needs it too).
set(ROCMTUNE_PCH_LIBRARY
    <algorithm> <functional> <map> <optional> <set> <string> <string_view> <utility> <vector>
    <fmt/format.h> <nlohmann/json.hpp> <tl/expected.hpp>)
set(ROCMTUNE_PCH_TEST ${ROCMTUNE_PCH_LIBRARY} <filesystem> <fstream> <sstream> <gmock/gmock.h> <gtest/gtest.h>)

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
