# One finding type: detect::Finding (core/detect/finding.h), which detection and the knobs make,
# the assessment classifies and the front ends render (ARCHITECTURE.md, "Findings"). Fails when
# another `struct Finding` (or class) is defined anywhere in the core or the front ends, or when
# that one moves: a second type would need a copy from one into the other again.
file(GLOB_RECURSE sources ${SRC}/core/*.h ${SRC}/core/*.cc ${SRC}/client/*.h ${SRC}/client/*.cc ${SRC}/daemon/*.h
     ${SRC}/daemon/*.cc ${SRC}/bus/*.h ${SRC}/bus/*.cc ${SRC}/helper/*.h ${SRC}/helper/*.cc)
set(found "")
foreach(f IN LISTS sources)
  file(STRINGS ${f} hits REGEX "^[ \t]*(struct|class)[ \t]+Finding([ \t]*[{:]|[ \t]+final|[ \t]*$)")
  if(hits)
    file(RELATIVE_PATH rel ${SRC} ${f})
    list(LENGTH hits n)
    foreach(i RANGE 1 ${n})
      list(APPEND found ${rel})
    endforeach()
  endif()
endforeach()
if(NOT found STREQUAL "core/detect/finding.h")
  message(FATAL_ERROR "one struct Finding, in core/detect/finding.h, expected; defined in: ${found}")
endif()
message(STATUS "one struct Finding: ${found}")
