# CTest script: a whole-window summarize of a rocprofv3 CSV trace keeps its window in memory
# when the window fits the memory budget (src/base/spill.h): the reservations follow the rows
# the file holds, not a bound of a row in 64 bytes, which reserved about 4.5 times the rows of
# a rocprofv3 CSV and put the window in files (a 600 MB trace on 16 CPUs: 0.58 -> 0.35 times
# `cat`). A generated CSV of 60 MB (about 200 000 kernels, a 10 MiB window) with a 16 MiB
# budget: the last stage line must show no large block in a file. A build directory held in
# memory (tmpfs) skips it. Variables: DECODEPROF (the CLI), GEN_TRACE, OUT.
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}/spill")
execute_process(COMMAND "${GEN_TRACE}" --model qwen3-moe --name csv --out-dir "${OUT}/trace"
                        --target-bytes 60000000
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "generating the CSV trace failed (${rc}): ${err}")
endif()
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env "DECODEPROF_SPILL=${OUT}/spill" DECODEPROF_MEMORY_MIB=16
          DECODEPROF_STAGE_TIMES=1 "${DECODEPROF}" summarize
          --trace "${OUT}/trace/csv_kernel_trace.csv" --log "${OUT}/trace/csv_bench.log"
          --window all --out-dir "${OUT}/o" -q
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "summarize failed (${rc}): ${err}")
endif()
if(err MATCHES "is held in memory")
  message("SKIP: ${OUT}/spill is held in memory (tmpfs)")
  return()
endif()
if(NOT err MATCHES "stage write [^\n]*large blocks ([0-9]+) in memory, ([0-9]+) in files")
  message(FATAL_ERROR "no large-block counts on the write stage's line:\n${err}")
endif()
message("large blocks: ${CMAKE_MATCH_1} in memory, ${CMAKE_MATCH_2} in files")
if(NOT CMAKE_MATCH_2 EQUAL 0)
  message(FATAL_ERROR "a 10 MiB CSV window went to files under a 16 MiB budget "
                      "(${CMAKE_MATCH_2} blocks): its reservations passed the budget")
endif()
file(REMOVE_RECURSE "${OUT}")
