# Script mode (cmake -P), run after a GoogleTest executable is linked (decodeprof_add_test with
# DECODEPROF_TEST_PER_SUITE): lists its cases (--gtest_list_tests) and writes OUT, a CTest file
# with one test a suite, `SHORT/Suite`, that runs the suite's cases in one process
# (--gtest_filter=Suite.*); CTest calls it skipped only when every case of it skipped (a case
# that skips beside others that pass shows in its output only). A sanitizer build pays about
# 80 ms to start a process and check it for leaks at exit: a test a case started ~1 400 of them.
# Variables: EXE, SHORT (the executable's short name), OUT, ENV, LABELS, COST.
execute_process(COMMAND "${EXE}" --gtest_list_tests RESULT_VARIABLE rc OUTPUT_VARIABLE listing
                ERROR_VARIABLE errors TIMEOUT 60)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUT}")
  message(FATAL_ERROR "${EXE} --gtest_list_tests failed (${rc}):\n${errors}")
endif()
string(REPLACE ";" "\\;" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(suites "")
foreach(line IN LISTS lines)
  # A suite's line starts in the first column ("Suite." or "Prefix/Suite/0.  # TypeParam = ...");
  # its cases' lines are indented. gtest_main's banner has no trailing dot.
  if(line MATCHES "^([^ #][^ ]*)\\.( .*)?$")
    list(APPEND suites "${CMAKE_MATCH_1}")
  endif()
endforeach()
set(content "# Written by cmake/DecodeprofTestSuites.cmake from ${EXE} --gtest_list_tests\n")
foreach(suite IN LISTS suites)
  set(test "${SHORT}/${suite}")
  string(APPEND content
         "add_test([=[${test}]=] [=[${EXE}]=] [=[--gtest_filter=${suite}.*]=])\n"
         "set_tests_properties([=[${test}]=] PROPERTIES ENVIRONMENT [=[${ENV}]=] LABELS [=[${LABELS}]=] COST ${COST}\n"
         "                     SKIP_REGULAR_EXPRESSION [=[\\[  PASSED  \\] 0 tests\\.]=])\n")
endforeach()
file(WRITE "${OUT}" "${content}")
