# CTest script: `decodeprof summarize --window all --emit-dispatches` of a generated native
# trace of 200 000 kernels (about 10 MiB of dispatches and as much of launch calls), once with
# every large block in memory (DECODEPROF_SPILL=off) and once with a budget of 16 MiB
# (DECODEPROF_MEMORY_MIB=16: most large blocks in files, their pages dropped and mapped in
# again as the passes release them or the watcher trims them; src/base/spill.h), must write
# byte-identical outputs, and the second run must have put blocks in files and dropped pages.
# A build directory held in memory (tmpfs) skips it.
# Variables: DECODEPROF (the CLI), GEN_NATIVE, OUT.
include("${CMAKE_CURRENT_LIST_DIR}/same_files.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/spill_summarize.cmake")
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}/spill")
set(trace "${OUT}/native.sqlite")
execute_process(COMMAND "${GEN_NATIVE}" "${trace}" 200000 7 RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "generating the native trace failed: ${rc}")
endif()
foreach(run memory files)
  if(run STREQUAL "memory")
    set(env DECODEPROF_SPILL=off)
  else()
    set(env "DECODEPROF_SPILL=${OUT}/spill" DECODEPROF_MEMORY_MIB=16)
  endif()
  decodeprof_spill_summarize("the blocks in ${run}" err_${run} "${env}" --trace "${trace}"
                             --window all --emit-dispatches --out-dir "${OUT}/${run}")
endforeach()
decodeprof_spill_held_in_memory("${err_files}" "${OUT}/spill" held)
if(held)
  return()
endif()
# Pages dropped by the end (the write stage's line): by the watcher (trims) or by the passes as
# they go (releases; since ReleaseBehind lets go of a part's two ends, the watcher may find
# nothing to trim).
if(NOT err_files MATCHES "stage write [^\n]*large blocks [0-9]+ in memory, [1-9][0-9]* in files \\([0-9.]+ MiB, ([0-9]+) trims, ([0-9]+) releases\\)")
  message(FATAL_ERROR "with a budget of 16 MiB, no block went to a file:\n${err_files}")
endif()
if(CMAKE_MATCH_1 EQUAL 0 AND CMAKE_MATCH_2 EQUAL 0)
  message(FATAL_ERROR "with a budget of 16 MiB, no page of a file block was dropped:\n${err_files}")
endif()
decodeprof_spill_last_stage("${err_memory}" peak in_memory in_files)
if(NOT in_files EQUAL 0)
  message(FATAL_ERROR "with DECODEPROF_SPILL=off, blocks were made by the spill:\n${err_memory}")
endif()
decodeprof_expect_same_files("${OUT}/memory" "${OUT}/files" "summarize"
                             "the blocks in memory and in files" native_summary.json
                             native_decode_kernels.csv native_decode_dispatches.csv)
file(REMOVE_RECURSE "${OUT}")
