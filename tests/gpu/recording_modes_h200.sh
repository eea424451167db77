#!/usr/bin/env bash
# Every recording mode against a plain run of the same program (GPU machine, never in CI):
# does the program exit 0 and generate the same token ids, does the trace hold every record
# and summarize, what does the run cost, and do the sampled modes' GPU ms per token agree with
# the full recording's. ROUNDS rounds, each running every mode once in its own process, in
# turn (alternating processes: the machine drifts between processes).
#
# usage: tests/gpu/recording_modes_h200.sh STAGE_DIR PHASE [ENGINE_DIR]
#   STAGE_DIR: decodeprof, libdecodeprof_cupti.so, libsqlite3.so.0, libsimdjson.so.14 and
#     graph_loop (examples/graph_loop, nvcc -arch=sm_90).
#   PHASE, one program per call:
#     compile  tests/gpu/decode_styles.py --mode compile: torch.compile reduce-overhead, one
#              CUDA graph replay a step, the step never synchronizes (Llama-3.1-8B shape cut
#              to LAYERS_PT layers, bf16, batch 1, 3 generate calls of 128 steps);
#     eager    the same, eager PyTorch;
#     llama    llama.cpp (ENGINE_DIR: its built `build/bin` and `models`, see below), CUDA
#              graphs on, no NVTX: MODELS (default "llama-3.2-1b:f16 llama-3.1-8b:q4_0");
#     cpp      examples/graph_loop --eager --layers 124 (~500 launches a token, no graphs,
#              a host sync a token) with NVTX step ranges, 3 generate calls of 128 steps.
#   ENGINE_DIR (llama): a copy of ../shared/engines/llama.cpp (carried: an ignored folder of the
#     checkout); llama-decode is LLAMA_BIN/llama-decode when given (built beforehand, e.g. by
#     recording_modes_all_h200.sh while another phase runs), else built into /tmp/llama-build
#     (~4 minutes at JOBS=16). The models are written into /tmp/modes-models when missing.
# Modes: plain; full (`record`); steps (`record --sample-steps N`, N = SAMPLE_N, default 32;
# on llama.cpp and with --no-marks the CUDA graph launches are the steps); graph (compile
# only: --sample-steps N on the program run with --no-marks); time (`record --sample-time
# SAMPLE_TIME`, default 50/500); torchprof (PyTorch phases: torch.profiler, CPU + CUDA).
# The first round runs every mode; the others (MODES_REST) those whose cost is compared:
# plain, full, steps and torchprof (cpp: time too, its cheap mode). MODES_FIRST overrides.
# Variants of a mode (MODE-VARIANT: -apioff, -apiswitch, -nostretch, -n128; see run()) measure
# the recorder's choices side by side. DEADLINE_AT (epoch seconds): no run starts after it.
# The compiled program runs with --deterministic unless DETERMINISTIC=0.
# Results in $OUT (default /tmp/modes-out): run.log, runs.jsonl (one line per run, from
# recording_modes.py note), report.json and report.txt (recording_modes.py report), and the
# summaries and stderr of every run in modes.tar.xz, the sampled modes' traces in traces/.
set -u
OUT=${OUT:-/tmp/modes-out}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/common.sh"
dp_start "$1"
PHASE=${2:?usage: recording_modes_h200.sh STAGE_DIR PHASE [ENGINE_DIR]}
ENGINE=${3:-}
export LD_LIBRARY_PATH="$STAGE:${LD_LIBRARY_PATH:-}"
ROUNDS=${ROUNDS:-3}
N=${SAMPLE_N:-32}
TIME=${SAMPLE_TIME:-50/500}
LAYERS_PT=${LAYERS_PT:-8}
STEPS=${STEPS:-128}
GENERATES=${GENERATES:-3}
W=/tmp/modes-work
rm -rf "$W"
mkdir -p "$W/res" "$OUT/traces"
date -u +"== start %FT%TZ phase $PHASE rounds $ROUNDS sample-steps $N sample-time $TIME"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

# run PROGRAM MODE ROUND KIND RESULT -- CMD...: one run; KIND tells recording_modes.py how to
# read the program's RESULT (torch: its JSON; llama: its stdout; cpp: its truth JSON).
run() {
  local program=$1 mode=$2 round=$3 kind=$4 result=$5
  shift 6
  local tag="$program.$mode.r$round" rec=()
  local trace="$W/$tag.sqlite"
  case $mode in
    plain | torchprof) ;;
    full) rec=("$DP" record -o "$trace" --) ;;
    steps* | graph*) rec=("$DP" record --sample-steps "$N" -o "$trace" --) ;;
    time) rec=("$DP" record --sample-time "$TIME" -o "$trace" --) ;;
  esac
  # Variants of a mode, for measuring the recorder's choices side by side: MODE-VARIANT with
  # VARIANT apioff | apiswitch (DECODEPROF_RECORD_API_GATE), nostretch
  # (DECODEPROF_RECORD_SAMPLE_STRETCH=0), n128 (--sample-steps 128).
  local env=()
  case $mode in
    *-apioff) env=(DECODEPROF_RECORD_API_GATE=off) ;;
    *-apiswitch) env=(DECODEPROF_RECORD_API_GATE=switch) ;;
    *-nostretch) env=(DECODEPROF_RECORD_SAMPLE_STRETCH=0) ;;
  esac
  case $mode in
    *-n128) rec=("$DP" record --sample-steps 128 -o "$trace" --) ;;
  esac
  [ ${#env[@]} -gt 0 ] && rec=(env "${env[@]}" "${rec[@]}")
  local t0 t1 rc src=-1
  t0=$(date +%s%N)
  timeout 600 "${rec[@]}" "$@" >"$W/res/$tag.stdout" 2>"$W/res/$tag.stderr"
  rc=$?
  t1=$(date +%s%N)
  [ "$kind" = llama ] && result="$W/res/$tag.stdout"
  if [ -s "$trace" ]; then
    timeout 300 "$DP" summarize --trace "$trace" --name "$tag" --out-dir "$W/res" \
      >"$W/res/$tag.summarize.stdout" 2>"$W/res/$tag.summarize.stderr"
    src=$?
  fi
  python3 "$HERE/recording_modes.py" note --program "$program" --mode "$mode" --round "$round" \
    --kind "$kind" --rc "$rc" --wall-ms $(((t1 - t0) / 1000000)) --result "$result" \
    --trace "$trace" --summarize-rc "$src" --summary "$W/res/${tag}_summary.json" \
    --stderr "$W/res/$tag.stderr" --summarize-stderr "$W/res/$tag.summarize.stderr" \
    | tee -a "$OUT/runs.jsonl"
  # The sampled traces are small: kept, to be summarized again by a later build.
  case $mode in
    steps* | graph* | time) [ -s "$trace" ] && xz -T4 -c "$trace" >"$OUT/traces/$tag.sqlite.xz" ;;
  esac
  rm -f "$trace"
}

# modes_of ROUND FIRST REST: the modes of a round: every mode in the first round, the ones
# whose cost is compared (plain, full, the recommended one, torch.profiler) in the others.
modes_of() { if [ "$1" = 1 ]; then echo "${MODES_FIRST:-$2}"; else echo "${MODES_REST:-$3}"; fi; }

torch_phase() {  # compile | eager
  local style=$1 first="plain full steps time torchprof"
  [ "$style" = compile ] && first="plain full steps graph time torchprof"
  local py=(python3 "$HERE/decode_styles.py" --mode "$style" --layers "$LAYERS_PT" --steps "$STEPS"
    --generates "$GENERATES")
  # The compiled decode gives the same ids in every process only in deterministic mode.
  [ "$style" = compile ] && [ "${DETERMINISTIC:-1}" = 1 ] && py+=(--deterministic)
  # Eager: a warm-up as long as a generate call, so that the first call is not slower than
  # the others (the caching allocator grows the KV cache's blocks once).
  [ "$style" = eager ] && py+=(--warmup-steps "${WARMUP_EAGER:-$STEPS}")
  # Compiled: one unrecorded run first, so that torch.compile's caches (Inductor's kernels
  # and their tuned configurations) are the same for every run that follows.
  if [ "$style" = compile ]; then
    echo "== prime"
    timeout 600 "${py[@]}" --out "$W/prime.json" >"$W/res/prime.stdout" 2>"$W/res/prime.stderr"
    echo "prime exit $?; $(grep -c . "$W/res/prime.stderr") stderr lines"
  fi
  for r in $(seq 1 "$ROUNDS"); do
    for m in $(modes_of "$r" "$first" "plain full steps torchprof"); do
      [ -n "${DEADLINE_AT:-}" ] && [ "$(date +%s)" -ge "$DEADLINE_AT" ] && break 2
      local extra=()
      case $m in graph*) extra=(--no-marks) ;; esac
      [ "$m" = torchprof ] && extra=(--torch-profiler)
      run "$style" "$m" "$r" torch "$W/res/$style.$m.r$r.json" -- "${py[@]}" "${extra[@]}" \
        --out "$W/res/$style.$m.r$r.json"
    done
  done
}

llama_phase() {
  [ -n "$ENGINE" ] || { echo "FAIL: llama needs ENGINE_DIR"; exit 2; }
  ENGINE=$(cd "$ENGINE" && pwd)
  local bindir=${LLAMA_BIN:-$ENGINE/bin} models=/tmp/modes-models
  if [ ! -x "$bindir/llama-decode" ] && [ -s "$ENGINE/build_and_run.sh" ]; then
    echo "== build llama.cpp (JOBS=${JOBS:-16})"
    JOBS=${JOBS:-16} SKIP_MODELS=1 SKIP_SMOKE=1 BUILD_TIMEOUT=480 \
      bash "$ENGINE/build_and_run.sh" /tmp/llama-build 2>&1 | tail -3
    bindir=/tmp/llama-build/build/bin
  fi
  local bin="$bindir/llama-decode"
  [ -x "$bin" ] || { echo "FAIL: no llama-decode in $bindir"; exit 2; }
  export LD_LIBRARY_PATH="$bindir:$LD_LIBRARY_PATH"
  mkdir -p "$models"
  for m in ${MODELS:-llama-3.2-1b:f16 llama-3.1-8b:q4_0}; do
    local gguf="$models/${m%%:*}-${m##*:}.gguf"
    if [ ! -s "$gguf" ]; then
      local t0=$SECONDS
      python3 "$ENGINE/make_gguf.py" --shape "${m%%:*}" --type "${m##*:}" --out "$gguf.tmp" \
        >/dev/null && mv "$gguf.tmp" "$gguf"
      echo "== wrote $gguf in $((SECONDS - t0)) s"
    fi
    local name=llama-${m%%:*}-${m##*:}
    for r in $(seq 1 "$ROUNDS"); do
      for mode in $(modes_of "$r" "plain full steps time" "plain full steps"); do
        [ -n "${DEADLINE_AT:-}" ] && [ "$(date +%s)" -ge "$DEADLINE_AT" ] && break 2
        run "$name" "$mode" "$r" llama - -- env -u GGML_CUDA_DISABLE_GRAPHS "$bin" -m "$gguf" \
          -p 32 -n "$STEPS" -r "$GENERATES"
      done
    done
  done
}

cpp_phase() {
  for r in $(seq 1 "$ROUNDS"); do
    for mode in $(modes_of "$r" "plain full steps time" "plain full steps time"); do
      run cpp "$mode" "$r" cpp "$W/res/cpp.$mode.r$r.json" -- env DECODEPROF_PHASE_MARKS=0 \
        "$STAGE/graph_loop" --eager --layers 124 --nvtx --steps "$STEPS" --generates "$GENERATES" \
        --out "$W/res/cpp.$mode.r$r.json"
    done
  done
}

case $PHASE in
  compile | eager) torch_phase "$PHASE" ;;
  llama) llama_phase ;;
  cpp) cpp_phase ;;
  *) echo "unknown phase $PHASE"; exit 2 ;;
esac
python3 "$HERE/recording_modes.py" report "$OUT/runs.jsonl" --json "$OUT/report.json" \
  | tee "$OUT/report.txt"
rc=${PIPESTATUS[0]}
tar -C "$W" -cJf "$OUT/modes.tar.xz" res
# Few files come back from the GPU machine: everything in one more archive.
tar -C "$OUT" -cf "$OUT.tar" . && mv "$OUT.tar" "$OUT/all.tar"
date -u +"== end %FT%TZ"
exit "$rc"
