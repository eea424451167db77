#!/usr/bin/env bash
# The programs of tests/gpu/recording_modes_h200.sh in one call of the GPU machine (a
# session's device time allows few calls): llama.cpp is built in the background (JOBS, default
# 12 of the 16 cores) while the compile phase runs (its decode is GPU-bound: CUDA graphs, no
# synchronization in a step; its costs are not compared in that phase, only its tokens and
# figures), then llama, then cpp, then eager, each only if named in PHASES and started before
# DEADLINE seconds from the start (default 540; no run starts after it).
# Rounds and modes per phase: ROUNDS_<PHASE> and MODES_<PHASE>_FIRST / MODES_<PHASE>_REST
# (defaults: 2 rounds, every mode in the first, the compared ones in the others).
#
# usage: tests/gpu/recording_modes_all_h200.sh STAGE_DIR LLAMA_ENGINE_DIR
# Results: $OUT/reports.txt (every phase's report) and $OUT/everything.tar (each phase's
# recording_modes_h200.sh results under <phase>/, llama-build.log).
set -u
STAGE=$1
ENGINE=$2
OUT=${OUT:-/tmp/modes-out}
HERE=$(cd "$(dirname "$0")" && pwd)
DEADLINE=${DEADLINE:-540}
PHASES=${PHASES:-compile llama cpp eager}
export DEADLINE_AT=$(($(date +%s) + DEADLINE))
mkdir -p "$OUT"
BUILD=
if [[ " $PHASES " == *" llama "* ]]; then
  ( JOBS=${JOBS:-12} SKIP_MODELS=1 SKIP_SMOKE=1 BUILD_TIMEOUT=480 \
      bash "$ENGINE/build_and_run.sh" /tmp/llama-build >"$OUT/llama-build.log" 2>&1 ) &
  BUILD=$!
  # The models too (recording_modes_h200.sh's names; it skips those present).
  ( mkdir -p /tmp/modes-models
    for m in ${MODELS:-llama-3.2-1b:f16 llama-3.1-8b:q4_0}; do
      g="/tmp/modes-models/${m%%:*}-${m##*:}.gguf"
      [ -s "$g" ] || { python3 "$ENGINE/make_gguf.py" --shape "${m%%:*}" --type "${m##*:}" \
        --out "$g.tmp" >/dev/null && mv "$g.tmp" "$g"; }
    done ) >"$OUT/models.log" 2>&1 &
  MODELS_JOB=$!
fi
phase() {  # PHASE ROUNDS [ENV...]
  local p=$1 r=$2
  shift 2
  [[ " $PHASES " == *" $p "* ]] || return 0
  [ "$(date +%s)" -lt "$DEADLINE_AT" ] || { echo "== $p skipped: past the deadline"; return 0; }
  env OUT="$OUT/$p" ROUNDS="$r" "$@" bash "$HERE/recording_modes_h200.sh" "$STAGE" "$p" "$ENGINE" \
    >/dev/null 2>&1
  echo "== $p done at $SECONDS s: $(tail -1 "$OUT/$p/report.txt" 2>/dev/null)"
}
phase compile "${ROUNDS_COMPILE:-2}" "MODES_FIRST=${MODES_COMPILE_FIRST:-plain time steps full}" \
  "MODES_REST=${MODES_COMPILE_REST:-plain}"
if [ -n "$BUILD" ]; then
  wait "$BUILD" "$MODELS_JOB"
  echo "== llama.cpp built at $SECONDS s: $(tail -2 "$OUT/llama-build.log" | head -1)"
fi
phase llama "${ROUNDS_LLAMA:-2}" LLAMA_BIN=/tmp/llama-build/build/bin \
  "MODES_FIRST=${MODES_LLAMA_FIRST:-plain full steps time}" \
  "MODES_REST=${MODES_LLAMA_REST:-plain full steps}"
phase cpp "${ROUNDS_CPP:-2}" "MODES_FIRST=${MODES_CPP_FIRST:-plain full steps time}" \
  "MODES_REST=${MODES_CPP_REST:-plain full steps time}"
phase eager "${ROUNDS_EAGER:-1}" "MODES_FIRST=${MODES_EAGER_FIRST:-plain steps full plain}" \
  "MODES_REST=${MODES_EAGER_REST:-plain steps torchprof}"
# Few files come back from the GPU machine: the reports in one text file, everything in one
# archive.
for p in $PHASES; do
  [ -s "$OUT/$p/report.txt" ] && { echo "#### $p"; cat "$OUT/$p/report.txt"; }
done >/tmp/modes-reports.txt
tar -C "$OUT" -cf /tmp/modes-everything.tar . && rm -rf "${OUT:?}"/* &&
  mv /tmp/modes-everything.tar "$OUT/everything.tar" && mv /tmp/modes-reports.txt "$OUT/reports.txt"
cat "$OUT/reports.txt"
