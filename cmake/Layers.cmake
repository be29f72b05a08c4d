# The core is one static library per layer (ARCHITECTURE.md "Layers"); the build enforces the
# arrows between them in two ways:
#   - a layer links only layers declared before it (rocmtune_layer refuses anything else), so
#     the link graph is acyclic and points down;
#   - a layer's headers are reachable only through its own include root, a directory holding
#     one symlink <layer> -> core/<layer>. PUBLIC propagation gives each library the roots of
#     itself and the layers it links, so `#include "knobs/registry.h"` in plan/ is
#     "No such file or directory", not a review comment. No include path exposes all of core/.
# tests/layers/ proves both (layers.* tests).

# rocmtune_include_root(<target> <name> <dir>): `#include "<name>/x.h"` in <target> and in
# everything linking it finds <dir>/x.h, and nothing else under <dir>'s parent.
function(rocmtune_include_root target name dir)
  set(root "${CMAKE_BINARY_DIR}/layers/${name}")
  file(MAKE_DIRECTORY "${root}")
  # Made at configure time, so a fresh build directory has them before anything compiles.
  file(CREATE_LINK "${dir}" "${root}/${name}" SYMBOLIC)
  target_include_directories(${target} PUBLIC "${root}")
endfunction()

# rocmtune_layer(<layer> SOURCES <files...> [DEPS <layers...>]): the static library
# rocmtune-<layer> from core/<layer>/, linking the (already declared) lower layers it includes.
function(rocmtune_layer layer)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;DEPS")
  get_property(declared GLOBAL PROPERTY ROCMTUNE_LAYERS)
  foreach(dep IN LISTS arg_DEPS)
    if(NOT dep IN_LIST declared)
      message(FATAL_ERROR "layer ${layer} links ${dep}, which is not declared below it (${declared})")
    endif()
  endforeach()
  add_library(rocmtune-${layer} STATIC ${arg_SOURCES})
  rocmtune_include_root(rocmtune-${layer} ${layer} "${CMAKE_CURRENT_SOURCE_DIR}/${layer}")
  list(TRANSFORM arg_DEPS PREPEND "rocmtune-")
  target_link_libraries(rocmtune-${layer} PUBLIC ${arg_DEPS})
  set_property(GLOBAL APPEND PROPERTY ROCMTUNE_LAYERS ${layer})
endfunction()
