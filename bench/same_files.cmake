# decodeprof_expect_same_files(A B WHO BETWEEN FILE...): fails unless each FILE exists in
# directory A ("WHO wrote no FILE") and is byte-identical in directory B ("FILE differs
# between BETWEEN"). For the CTest scripts that run summarize twice and compare (-P mode).
function(decodeprof_expect_same_files a b who between)
  foreach(f ${ARGN})
    if(NOT EXISTS "${a}/${f}")
      message(FATAL_ERROR "${who} wrote no ${f}")
    endif()
    execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${a}/${f}" "${b}/${f}"
                    RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${f} differs between ${between}")
    endif()
  endforeach()
endfunction()
