# CTest script: a whole-window summarize of a rocprofv3 CSV trace keeps its window in memory
# when the window fits the memory budget (src/base/spill.h): the reservations follow the rows
# the file holds, not a bound of a row in 64 bytes, which reserved about 4.5 times the rows of
# a rocprofv3 CSV and put the window in files (a 600 MB trace on 16 CPUs: 0.58 -> 0.35 times
# `cat`). A generated CSV of 60 MB (about 200 000 kernels, a 10 MiB window) with a 16 MiB
# budget: the last stage line must show no large block in a file. A build directory held in
# memory (tmpfs) skips it. Variables: DECODEPROF (the CLI), GEN_TRACE, OUT.
include("${CMAKE_CURRENT_LIST_DIR}/spill_summarize.cmake")
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}/spill")
execute_process(COMMAND "${GEN_TRACE}" --model qwen3-moe --name csv --out-dir "${OUT}/trace"
                        --target-bytes 60000000
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "generating the CSV trace failed (${rc}): ${err}")
endif()
decodeprof_spill_summarize(
  "the CSV under a 16 MiB budget" err "DECODEPROF_SPILL=${OUT}/spill;DECODEPROF_MEMORY_MIB=16"
  --trace "${OUT}/trace/csv_kernel_trace.csv" --log "${OUT}/trace/csv_bench.log" --window all
  --out-dir "${OUT}/o")
decodeprof_spill_held_in_memory("${err}" "${OUT}/spill" held)
if(held)
  return()
endif()
decodeprof_spill_last_stage("${err}" peak in_memory in_files)
message("large blocks: ${in_memory} in memory, ${in_files} in files")
if(NOT in_files EQUAL 0)
  message(FATAL_ERROR "a 10 MiB CSV window went to files under a 16 MiB budget "
                      "(${in_files} blocks): its reservations passed the budget")
endif()
file(REMOVE_RECURSE "${OUT}")
