# CTest script: within a memory budget, the whole window's peak RSS follows the window's distinct
# names, not its dispatches, in the text formats and with many names (issue 29; src/base/spill.h,
# docs/user-guide.md "Memory"); spill_flat_test.cmake does the native window with few names.
# Each summarize runs with DECODEPROF_MEMORY_MIB=16 and --window all; the peaks are the last
# stage's "peak RSS" (DECODEPROF_STAGE_TIMES).
# - A native trace with 50 000 distinct names: 4 times the kernels (250 000 -> 1 000 000) must
#   add less than 24 MiB, and the 50 000 names less than 1 KiB each over the same window with
#   the generator's 24 names.
# - A rocprofv3 CSV of 120 MB and of 480 MB (about 0.4 M and 1.6 M kernels, a window of 20 and
#   80 MiB), and a Kineto trace of 200 and of 500 steps of 1 400 kernels (250 MB and 630 MB;
#   fewer steps would fit in the budget): the larger must add less than 24 MiB.
# This VM (2 CPUs, a release build): native 24 names 38 MiB, 50 000 names 59 and 67 MiB; CSV 37
# and 36 MiB; Kineto 42 and 42 MiB. The ci preset's ASan build, without its quarantine
# (spill_summarize.cmake): native 60, then 92 and 98 MiB; CSV 47 and 51; Kineto 55 and 53. A
# build directory held in memory (tmpfs) skips it.
# Variables: DECODEPROF (the CLI), GEN_NATIVE, GEN_TRACE, GEN_KINETO (gen_kineto_trace.py),
# PYTHON3, OUT.
include("${CMAKE_CURRENT_LIST_DIR}/spill_summarize.cmake")
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}/spill")
set(budget "DECODEPROF_SPILL=${OUT}/spill" DECODEPROF_MEMORY_MIB=16)

# peak_of(WHAT TRACE OUT_VAR [ARGS...]): the peak RSS in MiB of a whole-window summarize of
# TRACE within the budget, or "skip" where the spill directory is held in memory.
function(peak_of what trace out_var)
  decodeprof_spill_peak("${what}" "${budget}" peak --trace "${trace}" ${ARGN} --window all
                        --out-dir "${OUT}/o")
  set(${out_var} "${peak}" PARENT_SCOPE)
endfunction()

function(generate what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "generating ${what} failed (${rc}): ${err}")
  endif()
endfunction()

# check_growth(WHAT SMALL LARGE LIMIT): fails where LARGE - SMALL reaches LIMIT MiB.
function(check_growth what small large limit)
  math(EXPR growth "${large} - ${small}")
  if(growth GREATER_EQUAL ${limit})
    message(FATAL_ERROR "with a 16 MiB budget ${what}: ${small} -> ${large} MiB, "
                        "${limit} MiB or more")
  endif()
endfunction()

# The native window: few names, then 50 000 at two sizes.
generate("the native trace, 24 names" "${GEN_NATIVE}" "${OUT}/n24.sqlite" 250000 7)
peak_of("250 000 native kernels, 24 names" "${OUT}/n24.sqlite" few)
if(few STREQUAL "skip")
  return()
endif()
file(REMOVE "${OUT}/n24.sqlite")
foreach(kernels 250000 1000000)
  generate("the native trace, 50 000 names" "${GEN_NATIVE}" "${OUT}/n${kernels}.sqlite" ${kernels} 7
           names=50000)
  peak_of("${kernels} native kernels, 50 000 names" "${OUT}/n${kernels}.sqlite" many${kernels})
  file(REMOVE "${OUT}/n${kernels}.sqlite")
endforeach()
check_growth("4 times the native kernels with 50 000 names grew the peak" "${many250000}"
             "${many1000000}" 24)
check_growth("50 000 names (against 24) grew the peak by 1 KiB a name or more" "${few}"
             "${many250000}" 49)

# The rocprofv3 CSV at two sizes.
foreach(bytes 120000000 480000000)
  generate("the CSV of ${bytes} bytes" "${GEN_TRACE}" --model llama --name c --out-dir
           "${OUT}/csv${bytes}" --target-bytes ${bytes})
  peak_of("a CSV of ${bytes} bytes" "${OUT}/csv${bytes}/c_kernel_trace.csv" csv${bytes})
  file(REMOVE_RECURSE "${OUT}/csv${bytes}")
endforeach()
check_growth("4 times the CSV grew the peak" "${csv120000000}" "${csv480000000}" 24)

# Kineto at two sizes.
foreach(steps 200 500)
  generate("the Kineto trace of ${steps} steps" "${PYTHON3}" "${GEN_KINETO}"
           "${OUT}/k${steps}.json" ${steps} 1400)
  peak_of("a Kineto trace of ${steps} steps" "${OUT}/k${steps}.json" kineto${steps})
  file(REMOVE "${OUT}/k${steps}.json")
endforeach()
check_growth("2.5 times the Kineto steps grew the peak" "${kineto200}" "${kineto500}" 24)
file(REMOVE_RECURSE "${OUT}")
