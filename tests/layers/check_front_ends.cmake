# The front ends read nothing of the journal themselves: rocmtunectl and rocmtuned ask core/api
# (api::ReadActiveProfile, api::HasIncomplete, api::History...), so the journal is read one way
# (ARCHITECTURE.md, "One request, one core call"). Fails naming each file that calls journal::Load.
file(GLOB sources ${SRC}/client/*.cc ${SRC}/client/*.h ${SRC}/daemon/*.cc ${SRC}/daemon/*.h ${SRC}/bus/*.cc)
set(bad "")
foreach(f IN LISTS sources)
  file(STRINGS ${f} hits REGEX "journal::Load\\(")
  if(hits)
    file(RELATIVE_PATH rel ${SRC} ${f})
    list(APPEND bad ${rel})
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "front ends read the journal themselves (call core/api instead): ${bad}")
endif()
message(STATUS "no front end calls journal::Load")
