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
endfunction()
