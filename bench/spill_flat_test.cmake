# CTest script: the peak RSS of a whole-window summarize within a memory budget does not follow
# the window (src/base/spill.h, docs/user-guide.md "Memory"). Generated native traces of 250 000
# and 1 000 000 kernels, `decodeprof summarize --window all` with DECODEPROF_MEMORY_MIB=16, and
# the larger once with DECODEPROF_SPILL=off; the peaks are the last stage's "peak RSS"
# (DECODEPROF_STAGE_TIMES). With the budget, 4 times the kernels must add less than 24 MiB, and
# the larger window must peak below 0.7 times the spill off's. This VM (2 CPUs): a release build
# 36 -> 45 MiB (44-48 MiB at 1 M beside two busy loops; spill off 115 MiB), the ci preset's
# ASan build 60 -> 68 MiB without its quarantine (spill_summarize.cmake; spill off 141 MiB). A
# build directory held in memory (tmpfs) skips it. Variables: DECODEPROF (the CLI), GEN_NATIVE,
# OUT.
include("${CMAKE_CURRENT_LIST_DIR}/spill_summarize.cmake")
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}/spill")
function(peak_of kernels env out_var)
  set(trace "${OUT}/native${kernels}.sqlite")
  if(NOT EXISTS "${trace}")
    execute_process(COMMAND "${GEN_NATIVE}" "${trace}" ${kernels} 7 RESULT_VARIABLE rc OUTPUT_QUIET)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "generating the native trace of ${kernels} kernels failed: ${rc}")
    endif()
  endif()
  decodeprof_spill_peak("${kernels} kernels, ${env}" "${env}" peak --trace "${trace}"
                        --window all --out-dir "${OUT}/o")
  set(${out_var} "${peak}" PARENT_SCOPE)
endfunction()
set(budget "DECODEPROF_SPILL=${OUT}/spill" DECODEPROF_MEMORY_MIB=16)
peak_of(250000 "${budget}" small)
if(small STREQUAL "skip")
  return()
endif()
peak_of(1000000 "${budget}" large)
peak_of(1000000 DECODEPROF_SPILL=off off)
math(EXPR growth "${large} - ${small}")
if(growth GREATER_EQUAL 24)
  message(FATAL_ERROR "with a 16 MiB budget the peak followed the window: ${small} MiB at 250 000 "
                      "kernels, ${large} MiB at 1 000 000")
endif()
math(EXPR bound "${off} * 7 / 10")
if(large GREATER_EQUAL bound)
  message(FATAL_ERROR "with a 16 MiB budget, 1 000 000 kernels peaked at ${large} MiB, not below "
                      "0.7 x the ${off} MiB of the spill off")
endif()
file(REMOVE_RECURSE "${OUT}")
