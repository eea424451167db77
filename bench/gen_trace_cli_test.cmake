# CTest script: runs decodeprof_gen_trace twice with the same arguments and fails unless every
# output file is byte-identical; then checks that an unknown model is a usage error (exit 2).
# Variables: GEN (the generator), OUT (a scratch directory).
include("${CMAKE_CURRENT_LIST_DIR}/same_files.cmake")
set(files t_kernel_trace.csv t_kernel_stats.csv t_bench.log t_plain_bench.log
          t_model/config.json)
foreach(run a b)
  file(REMOVE_RECURSE "${OUT}/${run}")
  execute_process(
    COMMAND "${GEN}" --model mamba2-hybrid --tokens 3 --warmup-tokens 1 --prompt-tokens 32
            --temperature 0.7 --top-p 0.9 --seed 11 --name t --out-dir "${OUT}/${run}"
    RESULT_VARIABLE rc OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "decodeprof_gen_trace run ${run} failed: ${rc}")
  endif()
endforeach()
decodeprof_expect_same_files("${OUT}/a" "${OUT}/b" "decodeprof_gen_trace"
                             "two runs with the same arguments" ${files})
file(READ "${OUT}/a/t_bench.log" log)
foreach(mark warmup_start measured_start decode_start measured_end)
  if(NOT log MATCHES "\\[phase\\] ${mark} monotonic_ns=[0-9]+ boottime_ns=[0-9]+\n")
    message(FATAL_ERROR "t_bench.log lacks the ${mark} mark")
  endif()
endforeach()
execute_process(COMMAND "${GEN}" --model gpt2 --name t --out-dir "${OUT}/c"
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "an unknown --model should exit 2, got ${rc}")
endif()
file(REMOVE_RECURSE "${OUT}")
