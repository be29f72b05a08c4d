# Test timeouts under a sanitizer. Every TIMEOUT a test directory sets is the time the test needs
# in the normal build with room to spare; `make asan` runs the same tests where every process
# starts ASan's runtime and every allocation is checked, several times slower (a crash scenario
# that takes 9 s took over 300 s at load 10). ROCMTUNE_TEST_TIMEOUT_SCALE (the asan build sets it)
# multiplies them, so a slow run is not reported as a hang and a real hang still ends.
set(ROCMTUNE_TEST_TIMEOUT_SCALE 1 CACHE STRING "Factor for every test's TIMEOUT (sanitizer builds)")
if(NOT ROCMTUNE_TEST_TIMEOUT_SCALE MATCHES "^[1-9][0-9]*$")
  message(FATAL_ERROR "ROCMTUNE_TEST_TIMEOUT_SCALE must be a positive integer, not '${ROCMTUNE_TEST_TIMEOUT_SCALE}'")
endif()

# A TIMEOUT of `seconds` scaled, in `out` (for gtest_discover_tests' PROPERTIES).
function(rocmtune_timeout out seconds)
  math(EXPR scaled "${seconds} * ${ROCMTUNE_TEST_TIMEOUT_SCALE}")
  set(${out} ${scaled} PARENT_SCOPE)
endfunction()

# Scales the TIMEOUT of every test added so far in the calling directory (set_tests_properties
# reaches only the current directory's tests before CMake 3.28): call it at the end of each
# directory that adds tests.
function(rocmtune_scale_test_timeouts)
  if(ROCMTUNE_TEST_TIMEOUT_SCALE EQUAL 1)
    return()
  endif()
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    get_test_property(${test} TIMEOUT timeout)
    if(timeout)
      rocmtune_timeout(scaled ${timeout})
      set_tests_properties(${test} PROPERTIES TIMEOUT ${scaled})
    endif()
  endforeach()
endfunction()
