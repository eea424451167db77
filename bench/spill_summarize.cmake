# For the CTest scripts of the memory budget (src/base/spill.h; -P mode, DECODEPROF set):
#
# decodeprof_spill_summarize(WHAT ERR_VAR ENV ARGS...): runs `decodeprof summarize ARGS... -q`
# with the environment entries in the list ENV and DECODEPROF_STAGE_TIMES=1; fails, naming
# WHAT, unless it exits 0; sets ERR_VAR to its standard error (the stage lines). In a build with
# AddressSanitizer its quarantine is off for these runs (quarantine_size_mb=0 after the
# environment's ASAN_OPTIONS): it holds freed blocks until 256 MiB, so that a peak would count
# what the program has freed (the ci preset: 50 000 names peaked at 162 MiB with it, 93
# without, against 70 and 61 with 24 names).
#
# decodeprof_spill_peak(WHAT ENV OUT_VAR ARGS...): decodeprof_spill_summarize of ARGS..., then
# OUT_VAR is its peak RSS in whole MiB (said on a line with WHAT), or "skip" where the spill
# directory ${OUT}/spill is held in memory (decodeprof_spill_held_in_memory).
#
# decodeprof_spill_held_in_memory(ERR SPILL_DIR OUT_VAR): OUT_VAR is TRUE, with a SKIP line
# for CTest, where the run's stderr ERR says the spill directory is held in memory (tmpfs):
# nothing goes to files there, so the script returns.
#
# decodeprof_spill_last_stage(ERR PEAK_VAR MEMORY_VAR FILES_VAR): from the write stage's line of
# ERR, the peak RSS in whole MiB and the large blocks made in memory and in files; fails
# where the line is missing.
function(decodeprof_spill_summarize what err_var env)
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env "ASAN_OPTIONS=$ENV{ASAN_OPTIONS}:quarantine_size_mb=0"
            ${env} DECODEPROF_STAGE_TIMES=1 "${DECODEPROF}" summarize ${ARGN} -q
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "summarize of ${what} failed (${rc}): ${err}")
  endif()
  set(${err_var} "${err}" PARENT_SCOPE)
endfunction()

function(decodeprof_spill_held_in_memory err spill out_var)
  set(held FALSE)
  if(err MATCHES "is held in memory")
    message("SKIP: ${spill} is held in memory (tmpfs)")
    set(held TRUE)
  endif()
  set(${out_var} ${held} PARENT_SCOPE)
endfunction()

function(decodeprof_spill_last_stage err peak_var memory_var files_var)
  if(NOT err MATCHES
     "stage write [^\n]* ([0-9]+)(\\.[0-9]*)? MiB peak RSS; large blocks ([0-9]+) in memory, ([0-9]+) in files")
    message(FATAL_ERROR "no peak RSS and large-block counts on the write stage's line:\n${err}")
  endif()
  set(${peak_var} ${CMAKE_MATCH_1} PARENT_SCOPE)
  set(${memory_var} ${CMAKE_MATCH_3} PARENT_SCOPE)
  set(${files_var} ${CMAKE_MATCH_4} PARENT_SCOPE)
endfunction()

function(decodeprof_spill_peak what env out_var)
  decodeprof_spill_summarize("${what}" err "${env}" ${ARGN})
  decodeprof_spill_held_in_memory("${err}" "${OUT}/spill" held)
  if(held)
    set(${out_var} "skip" PARENT_SCOPE)
    return()
  endif()
  decodeprof_spill_last_stage("${err}" peak in_memory in_files)
  message("${what}: peak ${peak} MiB")
  set(${out_var} "${peak}" PARENT_SCOPE)
endfunction()
