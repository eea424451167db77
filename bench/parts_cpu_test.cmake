# CTest script: `decodeprof summarize --window all` of generated traces of FORMATS (native,
# nsys, rocpd; a list) of 140 000 kernels (two parts of at least base::kMinPassPart for each
# pass), once on one CPU (taskset), once on every CPU the test may use and once with
# DECODEPROF_THREADS=16 (a thread a part whatever the CPUs), must write byte-identical outputs:
# the reads and passes cut into parts on threads merge to what one pass gives. The run on every
# CPU sets DECODEPROF_THREADS to a value out of range, which must say so on stderr and be
# ignored.
# Variables: FORMATS, DECODEPROF (the CLI), GEN_NATIVE, GEN_NSYS, GEN_ROCPD (the generators of
# the FORMATS), OUT.
include("${CMAKE_CURRENT_LIST_DIR}/same_files.cmake")
find_program(TASKSET taskset REQUIRED)
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
foreach(format ${FORMATS})
  string(TOUPPER "${format}" upper)
  set(trace "${OUT}/${format}.sqlite")
  execute_process(COMMAND "${GEN_${upper}}" "${trace}" 140000 7 RESULT_VARIABLE rc OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "generating the ${format} trace failed: ${rc}")
  endif()
  foreach(cpus one all many)
    if(cpus STREQUAL "one")
      set(prefix "${TASKSET}" -c 0)
    elseif(cpus STREQUAL "all")
      set(prefix "${CMAKE_COMMAND}" -E env DECODEPROF_THREADS=0)
    else()
      set(prefix "${CMAKE_COMMAND}" -E env DECODEPROF_THREADS=16)
    endif()
    execute_process(
      COMMAND ${prefix} "${DECODEPROF}" summarize --trace "${trace}" --window all
              --out-dir "${OUT}/${format}_${cpus}" -q
      RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "summarize of ${format} on ${cpus} CPU(s) failed (${rc}): ${err}")
    endif()
    if(cpus STREQUAL "all" AND NOT err MATCHES "DECODEPROF_THREADS=0 is not a number from 1 to 16; ignored")
      message(FATAL_ERROR "DECODEPROF_THREADS=0 was not refused on stderr:\n${err}")
    endif()
  endforeach()
  decodeprof_expect_same_files("${OUT}/${format}_one" "${OUT}/${format}_all"
                               "summarize of ${format}" "one CPU and every CPU"
                               ${format}_summary.json ${format}_decode_kernels.csv)
  decodeprof_expect_same_files("${OUT}/${format}_one" "${OUT}/${format}_many"
                               "summarize of ${format}" "one CPU and 16 threads"
                               ${format}_summary.json ${format}_decode_kernels.csv)
endforeach()
file(REMOVE_RECURSE "${OUT}")
