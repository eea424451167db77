# CTest script: runs bench/throughput_all.sh on tiny traces of every format (one run each) and
# fails unless it prints the load, one row per format, size and window, each with a verdict,
# and a final PASS or FAIL (at these sizes the speed bars fail: the rows are what is checked).
# Variables: SCRIPT (bench/throughput_all.sh), BUILD (the build directory), OUT (scratch).
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env RUNS=1 "SQLITE_KERNELS=4000 5000 6000"
          "KINETO_KERNELS=11200 14000 16800" CSV_MB=1 TMPDIR=${OUT} bash "${SCRIPT}" "${BUILD}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT (rc EQUAL 0 OR rc EQUAL 1))
  message(FATAL_ERROR "throughput_all.sh exited ${rc}:\n${out}\n${err}")
endif()
if(NOT out MATCHES "^load: ")
  message(FATAL_ERROR "no load line first:\n${out}")
endif()
foreach(format native nsys rocpd kineto-json rocprofv3-csv)
  foreach(window small all)
    string(REGEX MATCHALL "\n${format} +[0-9.]+( MB)? ${window} +[0-9]+ +[0-9]+ [^\n]*(PASS|FAIL) \\("
                 rows "${out}")
    list(LENGTH rows n)
    if(format STREQUAL "rocprofv3-csv")
      set(want 1)
    else()
      set(want 3)
    endif()
    if(NOT n EQUAL want)
      message(FATAL_ERROR "${n} rows for ${format} ${window}, not ${want}:\n${out}")
    endif()
  endforeach()
endforeach()
# The CSV's small window is the log moved to its last 7 tokens: far fewer dispatches than all.
if(NOT out MATCHES "\nrocprofv3-csv +1 MB small +([0-9]+) +([0-9]+) ")
  message(FATAL_ERROR "no CSV small-window row:\n${out}")
endif()
if(NOT CMAKE_MATCH_2 LESS 20000 OR NOT CMAKE_MATCH_1 GREATER 100000)
  message(FATAL_ERROR "the CSV small window holds ${CMAKE_MATCH_2} of ${CMAKE_MATCH_1}:\n${out}")
endif()
if(NOT out MATCHES "\n(PASS|FAIL)\n$")
  message(FATAL_ERROR "no final verdict:\n${out}")
endif()
file(REMOVE_RECURSE "${OUT}")
