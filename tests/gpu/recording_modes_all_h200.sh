#!/usr/bin/env bash
# All four programs of tests/gpu/recording_modes_h200.sh in one call of the GPU machine (a
# session's device time allows few calls): llama.cpp is built in the background (JOBS, default
# 12 of the 16 cores) while the compile phase runs (its decode is GPU-bound: CUDA graphs, no
# synchronization in a step), then llama, then cpp, then eager if time is left (DEADLINE
# seconds from the start, default 540). Rounds and modes per phase: ROUNDS_* and MODES_*
# below (defaults: 2 rounds, every mode in the first, the compared ones in the second).
#
# usage: tests/gpu/recording_modes_all_h200.sh STAGE_DIR LLAMA_ENGINE_DIR
# Results: $OUT/<phase>/ (recording_modes_h200.sh's), $OUT/llama-build.log.
set -u
STAGE=$1
ENGINE=$2
OUT=${OUT:-/tmp/modes-out}
HERE=$(cd "$(dirname "$0")" && pwd)
DEADLINE=${DEADLINE:-540}
mkdir -p "$OUT"
( JOBS=${JOBS:-12} SKIP_MODELS=1 SKIP_SMOKE=1 BUILD_TIMEOUT=480 \
    bash "$ENGINE/build_and_run.sh" /tmp/llama-build >"$OUT/llama-build.log" 2>&1 ) &
BUILD=$!
phase() {  # PHASE ROUNDS [ENV...]
  local p=$1 r=$2
  shift 2
  env OUT="$OUT/$p" ROUNDS="$r" "$@" bash "$HERE/recording_modes_h200.sh" "$STAGE" "$p" "$ENGINE" \
    >/dev/null 2>&1
  echo "== $p done at $SECONDS s: $(tail -1 "$OUT/$p/report.txt" 2>/dev/null)"
}
phase compile "${ROUNDS_COMPILE:-2}" MODES_FIRST="${MODES_COMPILE_FIRST:-plain time steps full}" \
  MODES_REST="${MODES_COMPILE_REST:-plain}"
wait "$BUILD"
echo "== llama.cpp built at $SECONDS s: $(tail -2 "$OUT/llama-build.log" | head -1)"
phase llama "${ROUNDS_LLAMA:-2}" LLAMA_BIN=/tmp/llama-build/build/bin
phase cpp "${ROUNDS_CPP:-2}"
if [ $((DEADLINE - SECONDS)) -gt 200 ]; then
  phase eager 1 MODES_FIRST="${MODES_EAGER:-plain steps full plain}"
fi
