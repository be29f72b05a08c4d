# rocmtune_embed(<target> <symbol> <file>): compiles <file>'s bytes into <target> as
#   namespace rocmtune::embedded { extern const std::string_view <symbol>; }
# Bytes are written as a char array so any content (NUL, quotes) survives.
function(rocmtune_embed target symbol file)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/embedded_${symbol}.cc")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DIN=${file} -DOUT=${out} -DSYMBOL=${symbol}
            -P "${PROJECT_SOURCE_DIR}/cmake/EmbedFile.cmake"
    DEPENDS "${file}" "${PROJECT_SOURCE_DIR}/cmake/EmbedFile.cmake"
    COMMENT "Embedding ${file}")
  target_sources(${target} PRIVATE "${out}")
  # Every embedded file defines the same file-local names: each compiles alone in a unity build.
  set_source_files_properties("${out}" PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()

# rocmtune_embed_symbol(<out-var> <file-name> [<prefix>]): the symbol a shipped file is embedded
# as, from its name: "gfx_targets.toml" -> kGfxTargetsToml, "rdna1-safe.toml" with prefix
# "Profile" -> kProfileRdna1SafeToml. The loaders name these symbols (knowledge/embedded.h).
function(rocmtune_embed_symbol out_var file_name)
  set(symbol "k${ARGN}")
  string(REGEX REPLACE "[-_.]" ";" words "${file_name}")
  foreach(word IN LISTS words)
    string(SUBSTRING "${word}" 0 1 first)
    string(SUBSTRING "${word}" 1 -1 rest)
    string(TOUPPER "${first}" first)
    string(APPEND symbol "${first}${rest}")
  endforeach()
  set(${out_var} "${symbol}" PARENT_SCOPE)
endfunction()

# rocmtune_embed_profiles(<target> <name>...): embeds profiles/<name>.toml for each name and
# generates the registry BuiltinProfiles() returns (profiles/profile_store.h), in list order.
function(rocmtune_embed_profiles target)
  set(declarations "")
  set(rows "")
  foreach(name IN LISTS ARGN)
    rocmtune_embed_symbol(symbol "${name}.toml" Profile)
    rocmtune_embed(${target} ${symbol} "${PROJECT_SOURCE_DIR}/profiles/${name}.toml")
    string(APPEND declarations "extern const std::string_view ${symbol};\n")
    string(APPEND rows "    {\"${name}\", embedded::${symbol}},\n")
  endforeach()
  list(LENGTH ARGN count)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/builtin_profiles.cc")
  file(CONFIGURE OUTPUT "${out}" CONTENT [[
// Generated from ROCMTUNE_PROFILES (CMakeLists.txt) by cmake/Embed.cmake; do not edit.
#include <array>
#include <string_view>

#include "profiles/profile_store.h"

namespace rocmtune::embedded {
@declarations@}  // namespace rocmtune::embedded

namespace rocmtune::profiles {

std::span<const BuiltinProfile> BuiltinProfiles() {
  static const std::array<BuiltinProfile, @count@> kBuiltins = {{
@rows@  }};
  return kBuiltins;
}

}  // namespace rocmtune::profiles
]] @ONLY)
  target_sources(${target} PRIVATE "${out}")
endfunction()
