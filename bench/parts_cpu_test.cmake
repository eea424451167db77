# CTest script: `decodeprof summarize --window all` of generated native, nsys and rocpd traces
# of 140 000 kernels (two passes' parts of at least base::kMinPassPart each), once on one CPU
# (taskset) and once on every CPU the test may use, must write byte-identical outputs: the
# reads and passes cut into parts on threads (one per CPU) merge to what one pass gives. (With one CPU only, both runs take one part: a run of the
# sanitizer presets on a machine of several CPUs is what checks the parts.)
# Variables: DECODEPROF (the CLI), GEN_NATIVE, GEN_NSYS, GEN_ROCPD (the generators), OUT.
find_program(TASKSET taskset REQUIRED)
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
foreach(format native nsys rocpd)
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
  foreach(f ${format}_summary.json ${format}_decode_kernels.csv)
    if(NOT EXISTS "${OUT}/${format}_one/${f}")
      message(FATAL_ERROR "summarize of ${format} wrote no ${f}")
    endif()
    execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${OUT}/${format}_one/${f}"
                            "${OUT}/${format}_all/${f}" RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${f} differs between one CPU and every CPU")
    endif()
  endforeach()
endforeach()
file(REMOVE_RECURSE "${OUT}")
