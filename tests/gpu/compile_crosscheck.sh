#!/usr/bin/env bash
# A torch.compile(mode="reduce-overhead") Llama decode (StaticCache, every decode step
# replayed from cudagraph trees' CUDA graphs) recorded by torch.profiler and by `decodeprof
# record`, both summarized by decodeprof (Kineto importer against native importer), for the
# GPU machine (never in CI). Issue 10's acceptance: decode dispatches within 0.1 % and GPU
# busy within 0.5 % of each other.
#
# usage: tests/gpu/compile_crosscheck.sh STAGE_DIR     (STAGE_DIR as for record_h200.sh)
#   LAYERS (default 8): decoder layers of the Llama-3.1-8B config (compile time grows with
#   them); STEPS (default 32): decode steps per run. Results in $OUT (default
#   /tmp/compile-out), 8 files: run.log, compile_check.json (compile_check.py: both
#   summaries' figures, relative differences, PASS/FAIL per threshold, what each trace holds
#   in its decode range, both runs' compile times), report.md (`decodeprof report --full`
#   over both summaries), the two summaries and kernel tables (torch-profiler_*,
#   decodeprof-record_*) and torch_trace.json.xz (the Kineto trace). Exit status: that of
#   compile_check.py (0 PASS, 1 FAIL), 3 when a run left nothing to compare.
#
# Time: each process imports torch, builds the model and compiles the step; the first one
# compiles cold (TORCHINDUCTOR_CACHE_DIR is a fresh folder shared by the runs, so the later
# ones load its kernels and autotuning picks from there). The runs share RUN_BUDGET seconds
# (each also its own limit), the summaries and checks after them at most ~90 s, so the
# script ends within about 8 minutes even when every step hangs; expected about 3 minutes.
set -u
OUT=${OUT:-/tmp/compile-out}
LAYERS=${LAYERS:-8}
STEPS=${STEPS:-32}
RUN_BUDGET=${RUN_BUDGET:-390} # seconds for all python runs together
T_FIRST=${T_FIRST:-200}       # torch.profiler run (cold compile)
T_RECORD=${T_RECORD:-150}     # decodeprof record run
T_RETRY=${T_RETRY:-120}       # torch.profiler again, CUPTI initialized before the capture
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/common.sh"
dp_start "$1"
TMP=$(mktemp -d /tmp/compile.XXXXXX)
export TORCHINDUCTOR_CACHE_DIR="$TMP/inductor-cache"
cd "$HERE" || exit 1
ARGS=(--compile reduce-overhead --layers "$LAYERS" --steps "$STEPS")
SECONDS=0
echo "== compile_crosscheck: LAYERS=$LAYERS STEPS=$STEPS, $(date -u +%FT%TZ)"

limit() { # N: N, or what is left of RUN_BUDGET when that is less (at least 1: timeout 0 never ends)
  local left=$((RUN_BUDGET - SECONDS))
  [ "$left" -lt 1 ] && left=1
  if [ "$left" -lt "$1" ]; then echo "$left"; else echo "$1"; fi
}

# torchprof TAG LIMIT [EXTRA...]: one torch.profiler run (CPU + CUDA activity,
# record_function ranges decodeprof:decode and decodeprof:step) after the unprofiled warm-up
# that compiles and records the graphs; its log also in $TMP/torchprof_TAG.log.
torchprof() {
  local tag=$1 lim=$2; shift 2
  timeout "$lim" python3 record_decode.py --runs torchprof "${ARGS[@]}" "$@" \
    --torch-trace "$TMP/torch_trace_$tag.json" --out "$TMP/torch_$tag.json" 2>&1 |
    tee "$TMP/torchprof_$tag.log"
  echo "torch.profiler run $tag exit: ${PIPESTATUS[0]} (limit $lim s; ${SECONDS} s into the script)"
}
# Kernels inside the last decodeprof:decode range of a trace (0 when none or unreadable).
count() { # --count-kineto|--count-native FILE
  local n
  n=$(python3 compile_check.py "$1" "$2" 2>/dev/null | tail -n 1)
  case $n in '' | *[!0-9]*) echo 0 ;; *) echo "$n" ;; esac
}

torchprof first "$(limit "$T_FIRST")"
TAG=first
n_first=$(count --count-kineto "$TMP/torch_trace_first.json")

# The same decode under decodeprof with a plain run (its trace holds the warm-up run's
# decode too: summarize takes the last decodeprof:decode range).
lim=$(limit "$T_RECORD")
timeout "$lim" "$DP" record -o "$TMP/decodeprof.sqlite" -- python3 record_decode.py \
  --runs plain "${ARGS[@]}" --out "$TMP/decodeprof.json"
echo "decodeprof record run exit: $? (limit $lim s; ${SECONDS} s into the script)"
n_native=$(count --count-native "$TMP/decodeprof.sqlite")
echo "kernels in the decode range: torch.profiler $n_first, decodeprof record $n_native"

# torch.profiler may miss the kernels of CUDA graphs captured before its first session
# (PyTorch's known limitation; torch.profiler._utils._init_for_cuda_graphs, an empty session
# before the capture, is its workaround). When the first run compiled ("[compile] graphs
# ready") but its decode range holds under half the kernels of decodeprof's (or none, when
# decodeprof's trace has none either), once more with --cupti-preinit.
want=$((n_native / 2)); [ "$want" -lt 1 ] && want=1
if [ "$n_first" -lt "$want" ] && grep -q '^\[compile\] graphs ready' "$TMP/torchprof_first.log"; then
  lim=$(limit "$T_RETRY")
  if [ "$lim" -ge 60 ]; then
    echo "== torch.profiler trace short of kernels: again with --cupti-preinit"
    torchprof preinit "$lim" --cupti-preinit
    n_pre=$(count --count-kineto "$TMP/torch_trace_preinit.json")
    echo "kernels in the decode range: torch.profiler with --cupti-preinit $n_pre"
    [ "$n_pre" -gt "$n_first" ] && TAG=preinit
  else
    echo "== torch.profiler trace short of kernels; no time left ($lim s) for --cupti-preinit"
  fi
fi
echo "torch.profiler trace used: $TAG"
ls -la "$TMP"
for f in "$TMP/torch_$TAG.json" "$TMP/decodeprof.json"; do
  echo "--- $(basename "$f")"; cat "$f" 2>/dev/null; echo
done

mkdir -p "$TMP/sum"
RANGES=(--decode-range decodeprof:decode --step-range decodeprof:step)
# The trace the summary reads is named as it is published (torch_trace.json[.xz]), so that
# re-summarizing the published trace gives the same file (tests/results/check_kineto_real.py).
[ -f "$TMP/torch_trace_$TAG.json" ] && ln -f "$TMP/torch_trace_$TAG.json" "$TMP/torch_trace.json"
timeout 20 "$DP" summarize --trace "$TMP/torch_trace.json" --format kineto-json \
  "${RANGES[@]}" --name torch-profiler --out-dir "$TMP/sum"
echo "summarize kineto exit: $?"
timeout 20 "$DP" summarize --trace "$TMP/decodeprof.sqlite" --format native "${RANGES[@]}" \
  --name decodeprof-record --out-dir "$TMP/sum"
echo "summarize native exit: $?"
timeout 15 "$DP" report --full "$TMP/sum" > "$OUT/report.md"
echo "report exit: $?"
head -30 "$OUT/report.md"

A="$TMP/sum/decodeprof-record_summary.json"
B="$TMP/sum/torch-profiler_summary.json"
rc=3
if [ -f "$A" ] && [ -f "$B" ]; then
  python3 compile_check.py "$A" "$B" "$OUT/compile_check.json" --trace-a "$TMP/decodeprof.sqlite" \
    --trace-b "$TMP/torch_trace_$TAG.json" --run-a "$TMP/decodeprof.json" --run-b "$TMP/torch_$TAG.json"
  rc=$?
  echo "compile_check exit: $rc"
else
  echo "FAIL: a summary is missing (decodeprof-record: $([ -f "$A" ] && echo yes || echo no), torch-profiler: $([ -f "$B" ] && echo yes || echo no))"
fi
# Per step: kernel names and counts, kernel time (kernels only, not memory operations);
# decodeprof's trace holds the warm-up run first: skip its steps. A diagnostic, in run.log.
if [ -f "$TMP/decodeprof.sqlite" ] && [ -f "$TMP/torch_trace_$TAG.json" ]; then
  skip=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["warmup_steps"])' \
    "$TMP/decodeprof.json" 2>/dev/null || echo "$STEPS")
  timeout 30 python3 record_crosscheck.py "$TMP/decodeprof.sqlite" "$TMP/torch_trace_$TAG.json" \
    "$TMP/crosscheck.json" "$skip"
  echo "record_crosscheck (diagnostic) exit: $?"
fi

for f in "$TMP/sum"/* "$OUT/report.md" "$OUT/compile_check.json"; do
  [ -f "$f" ] && dp_scrub "$f" "$ROOT/" "$TMP/"
done
for f in torch-profiler_summary.json torch-profiler_decode_kernels.csv \
         decodeprof-record_summary.json decodeprof-record_decode_kernels.csv; do
  [ -f "$TMP/sum/$f" ] && cp "$TMP/sum/$f" "$OUT/$f"
done
[ -f "$TMP/torch_trace_$TAG.json" ] && xz -T0 -6 -c "$TMP/torch_trace_$TAG.json" > "$OUT/torch_trace.json.xz"
echo "done after ${SECONDS} s"
ls -la "$OUT"
rm -rf "$TMP"
exit "$rc"
