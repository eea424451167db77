# CTest script: `decodeprof summarize --window all` of generated traces of FORMATS (native,
# nsys, rocpd; a list) of 140 000 kernels (two parts of at least base::kMinPassPart for each
# pass), once on one CPU (taskset) and once on every CPU the test may use, must write
# byte-identical outputs: the reads and passes cut into parts on threads (one per CPU) merge to
# what one pass gives. (On a machine of one CPU both runs take one part.)
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
  foreach(cpus one all)
    set(prefix "")
    if(cpus STREQUAL "one")
      set(prefix "${TASKSET}" -c 0)
    endif()
    execute_process(
      COMMAND ${prefix} "${DECODEPROF}" summarize --trace "${trace}" --window all
              --out-dir "${OUT}/${format}_${cpus}" -q
      RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "summarize of ${format} on ${cpus} CPU(s) failed (${rc}): ${err}")
    endif()
  endforeach()
  decodeprof_expect_same_files("${OUT}/${format}_one" "${OUT}/${format}_all"
                               "summarize of ${format}" "one CPU and every CPU"
                               ${format}_summary.json ${format}_decode_kernels.csv)
endforeach()
file(REMOVE_RECURSE "${OUT}")
