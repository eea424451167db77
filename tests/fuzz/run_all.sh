#!/usr/bin/env bash
# Runs prebuilt libFuzzer targets (the fuzz preset's build/fuzz/tests/fuzz, or a copy of that
# folder on another machine) for SECONDS each, JOBS at a time, each with its dictionary
# (<BIN_DIR>/<target>.dict, written there by tests/fuzz/CMakeLists.txt) and a scratch copy of
# its seeds, and prints one line per target: executions, crashes, leaks, timeouts,
# out-of-memory. Exits 1 when any target found something or could not run. docs/fuzzing.md.
#
#   tests/fuzz/run_all.sh [-t SECONDS] [-j JOBS] [-c CORPUS_DIR] [-o OUT_DIR] BIN_DIR [TARGET...]
#     -t SECONDS     per target (default 60)
#     -j JOBS        targets run at once, one core each (default: the core count)
#     -c CORPUS_DIR  the seeds, one folder per target (default: tests/fuzz/corpus beside this
#                    script); never written
#     -o OUT_DIR     where the work goes (default: BIN_DIR/../../fuzz-run): OUT_DIR/corpus/<t>/
#                    (seeds + what the run added), OUT_DIR/logs/<t>.log, OUT_DIR/artifacts/<t>/
#                    (crash-*, leak-*, timeout-*, oom-*: reproduce with `BIN_DIR/<t> FILE`)
#     TARGET         e.g. native_fuzzer (default: every executable BIN_DIR/*_fuzzer)
# Environment: ASAN_OPTIONS and UBSAN_OPTIONS are passed on (defaults: detect_leaks=1;
# print_stacktrace=1:halt_on_error=1). Each target runs with -timeout=10 (a hang) and
# -rss_limit_mb=2048.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

usage() {
  echo "usage: tests/fuzz/run_all.sh [-t SECONDS] [-j JOBS] [-c CORPUS_DIR] [-o OUT_DIR]" \
       "BIN_DIR [TARGET...]" >&2
  exit 2
}

seconds=60
jobs=$(nproc 2>/dev/null || echo 1)
corpus=$here/corpus
out=""
while getopts "t:j:c:o:h" opt; do
  case "$opt" in
    t) seconds=$OPTARG ;;
    j) jobs=$OPTARG ;;
    c) corpus=$OPTARG ;;
    o) out=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
bin=$(cd "$1" 2>/dev/null && pwd) || { echo "run_all.sh: no folder $1" >&2; exit 2; }
shift
for value in "$seconds" "$jobs"; do
  case "$value" in
    '' | *[!0-9]* | 0) echo "run_all.sh: -t and -j need a positive integer, got '$value'" >&2
                       exit 2 ;;
  esac
done
[ -n "$out" ] || out=$bin/../../fuzz-run
mkdir -p "$out/logs" "$out/corpus" "$out/artifacts"
out=$(cd "$out" && pwd)

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for path in "$bin"/*_fuzzer; do
    [ -x "$path" ] && targets+=("$(basename "$path")")
  done
fi
if [ ${#targets[@]} -eq 0 ]; then
  echo "run_all.sh: no *_fuzzer executable in $bin (build the fuzz preset first)" >&2
  exit 2
fi
for target in "${targets[@]}"; do
  if [ ! -x "$bin/$target" ]; then
    echo "run_all.sh: no fuzz target $bin/$target" >&2
    exit 2
  fi
done

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

run_target() {
  local target=$1
  local work=$out/corpus/$target artifacts=$out/artifacts/$target log=$out/logs/$target.log
  rm -rf "$work" "$artifacts"
  mkdir -p "$work" "$artifacts"
  if [ -d "$corpus/$target" ]; then cp -R "$corpus/$target"/. "$work"/ 2>/dev/null || true; fi
  local command=("$bin/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048
                 -print_final_stats=1 -artifact_prefix="$artifacts/")
  if [ -f "$bin/$target.dict" ]; then command+=(-dict="$bin/$target.dict"); fi
  command+=("$work")
  echo "${command[*]}" >"$log"
  local rc=0
  "${command[@]}" >>"$log" 2>&1 || rc=$?
  echo "$rc" >"$out/logs/$target.rc"
}

# One line for a target; returns 1 when it found something or failed.
summarize_target() {
  local target=$1 log=$out/logs/$target.log artifacts=$out/artifacts/$target
  local rc runs crashes leaks timeouts ooms dict=no
  rc=$(cat "$out/logs/$target.rc" 2>/dev/null || echo 1)
  # "Done N runs in S second(s)" at a normal end; the final stats also after a finding.
  runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -1)
  [ -n "$runs" ] || runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" |
                           tail -1)
  [ -n "$runs" ] || runs=0
  crashes=$(find "$artifacts" -name 'crash-*' | wc -l)
  leaks=$(find "$artifacts" -name 'leak-*' | wc -l)
  timeouts=$(find "$artifacts" -name 'timeout-*' | wc -l)
  ooms=$(find "$artifacts" -name 'oom-*' | wc -l)
  # A finding whose artifact could not be written still shows in the log.
  if [ "$crashes" -eq 0 ] && grep -qE '^==[0-9]+==ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer)|deadly signal|runtime error:' "$log"; then
    if ! grep -q 'ERROR: LeakSanitizer' "$log"; then crashes=1; fi
  fi
  if [ "$leaks" -eq 0 ] && grep -q 'ERROR: LeakSanitizer' "$log"; then leaks=1; fi
  if [ "$timeouts" -eq 0 ] && grep -q 'ERROR: libFuzzer: timeout' "$log"; then timeouts=1; fi
  if [ "$ooms" -eq 0 ] && grep -q 'ERROR: libFuzzer: out-of-memory' "$log"; then ooms=1; fi
  if grep -q '^Dictionary: [1-9]' "$log"; then dict=yes; fi
  local verdict=ok
  if [ "$((crashes + leaks + timeouts + ooms))" -gt 0 ]; then
    verdict="FOUND (see $artifacts/, $log)"
  elif [ "$rc" -ne 0 ]; then
    verdict="FAILED (exit $rc, no artifact; see $log)"
  fi
  printf '%-26s %11s executions  %s crashes  %s leaks  %s timeouts  %s ooms  dict %-3s  %s\n' \
    "$target" "$runs" "$crashes" "$leaks" "$timeouts" "$ooms" "$dict" "$verdict"
  [ "$verdict" = ok ]
}

echo "== fuzz: ${#targets[@]} targets, ${seconds}s each, $jobs at a time ($bin)" >&2
running=0
for target in "${targets[@]}"; do
  run_target "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true

status=0
for target in "${targets[@]}"; do
  summarize_target "$target" || status=1
done
if [ "$status" -ne 0 ]; then
  echo "run_all.sh: fuzzing found problems (artifacts under $out/artifacts/)" >&2
else
  echo "run_all.sh: fuzzing found nothing (${#targets[@]} targets, ${seconds}s each)" >&2
fi
exit "$status"
