cmake_minimum_required(VERSION 3.25)
# cmake -DBINDIR=<build dir> -DTARGET=<target> -DEXPECT=build|missing|diagnostic [-DHEADER=<header>]
#       [-DDIAGNOSTIC=<text>] -P expect_build.cmake
# EXPECT=build: the target must build. EXPECT=missing: the build must fail AND the compiler must
# say HEADER was not found (gcc: "HEADER: No such file or directory", clang: "'HEADER' file not
# found"); a failure for any other reason fails the test.
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BINDIR} --target ${TARGET}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(EXPECT STREQUAL "build")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${TARGET} must build, but:\n${out}")
  endif()
  message(STATUS "${TARGET} builds")
  return()
endif()
# EXPECT=diagnostic: the build must fail AND the compiler must report DIAGNOSTIC as an error (e.g.
# unused-result: gcc's "[-Werror=unused-result]", clang's "[-Werror,-Wunused-result]"; the flag
# alone on the echoed command line does not count).
if(EXPECT STREQUAL "diagnostic")
  if(rc EQUAL 0)
    message(FATAL_ERROR "${TARGET} built: the compiler did not refuse it with ${DIAGNOSTIC}\n${out}")
  endif()
  set(diagnostic_re "\\[-Werror[=,](-W)?${DIAGNOSTIC}\\]")
  if(NOT out MATCHES "${diagnostic_re}")
    message(FATAL_ERROR "${TARGET} failed, but not with ${DIAGNOSTIC}:\n${out}")
  endif()
  string(REGEX MATCH "[^\n]*${diagnostic_re}" line "${out}")
  message(STATUS "${TARGET} fails as it must: ${line}")
  return()
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "${TARGET} built: ${HEADER} is visible where its layer must not be\n${out}")
endif()
string(REPLACE "." "\\." header_re "${HEADER}")
if(NOT out MATCHES "${header_re}: No such file or directory" AND NOT out MATCHES "'${header_re}' file not found")
  message(FATAL_ERROR "${TARGET} failed, but not because ${HEADER} is out of reach:\n${out}")
endif()
string(REGEX MATCH "[^\n]*${header_re}[^\n]*(No such file|file not found)[^\n]*" line "${out}")
message(STATUS "${TARGET} fails as it must: ${line}")
