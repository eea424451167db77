#!/usr/bin/env bash
# llama.cpp (ggml's CUDA backend, no NVTX) recorded for the marks-free decode-loop finder (GPU
# machine, never in CI): a real C++ engine nobody here wrote. Three generate calls a process
# (llama-decode -r 3: the KV cache cleared, a 32-token prompt, 128 tokens greedily), run
#   graph   CUDA graphs on (ggml replays one graph a token), and
#   eager   GGML_CUDA_DISABLE_GRAPHS=1 (one launch a kernel, ~220 a token),
# each plain and under `decodeprof record`; the recorded run's token hashes must equal the
# plain run's (tokens_fnv, verdict in run.log). Each trace is summarized without marks (it has
# none); llama-decode's own ms_per_token of each repetition is the independent figure the
# found window's wall time per forward pass is checked against (tests/gpu/llama_check.py).
#
# usage: tests/gpu/llama_finder_h200.sh STAGE_DIR ENGINE_DIR
#   STAGE_DIR: decodeprof, libdecodeprof_cupti.so, libsqlite3.so.0, libsimdjson.so.14;
#   ENGINE_DIR: a copy of ../shared/engines/llama.cpp (carried: an ignored folder of the
#   checkout). MODEL (llama-3.2-1b:f16), P (32), N (128), R (3), JOBS (16), TRACES_OUT (the
#   traces to put in $OUT: "llama_graph llama_eager").
# Results in $OUT (default /tmp/llama-out): llama_graph.sqlite.xz, llama_eager.sqlite.xz,
# llama.tar.xz (the summaries, llama_check.py's verdicts, llama-decode's stdout of every run,
# stderr tails) and run.log.
set -u
OUT=${OUT:-/tmp/llama-out}
MODEL=${MODEL:-llama-3.2-1b:f16}
P=${P:-32}
N=${N:-128}
R=${R:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/common.sh"
dp_start "$1"
ENGINE=$(cd "$2" && pwd) || exit 2
W=/tmp/llama-work
mkdir -p "$W/res"
date -u +"== start %FT%TZ"
nvidia-smi -L

echo "== build llama.cpp (JOBS=${JOBS:-16})"
JOBS=${JOBS:-16} MODELS="$MODEL" SKIP_SMOKE=1 BUILD_TIMEOUT=420 \
  timeout 480 bash "$ENGINE/build_and_run.sh" "$W" 2>&1 | tail -8
BIN="$W/build/bin/llama-decode"
GGUF="$W/models/${MODEL%%:*}-${MODEL##*:}.gguf"
[ -x "$BIN" ] && [ -s "$GGUF" ] || { echo "FAIL: no llama-decode or model"; exit 1; }
export LD_LIBRARY_PATH="$W/build/bin:${LD_LIBRARY_PATH:-}"

run() {  # NAME ENV... -- plain and recorded runs of one style
  local name=$1
  shift
  echo "== $name plain"
  env "$@" timeout 120 "$BIN" -m "$GGUF" -p "$P" -n "$N" -r "$R" >"$W/res/$name.plain.txt" \
    2>"$W/res/$name.plain.stderr"
  echo "exit $?"
  cat "$W/res/$name.plain.txt"
  echo "== $name recorded"
  env "$@" timeout 180 "$DP" record -o "$W/$name.sqlite" -- "$BIN" -m "$GGUF" -p "$P" -n "$N" \
    -r "$R" >"$W/res/$name.recorded.txt" 2>"$W/res/$name.recorded.stderr"
  echo "exit $?"
  cat "$W/res/$name.recorded.txt"
  grep "decodeprof" "$W/res/$name.recorded.stderr" | tail -3
  if [ "$(awk '{print $NF}' "$W/res/$name.plain.txt")" = \
       "$(awk '{print $NF}' "$W/res/$name.recorded.txt")" ]; then
    echo "TOKENS $name: plain and recorded equal"
  else
    echo "TOKENS $name: plain and recorded DIFFER"
  fi
  echo "== $name summarize (no marks)"
  timeout 120 "$DP" summarize --trace "$W/$name.sqlite" --name "$name" --out-dir "$W/res" \
    >"$W/res/$name.summarize.stdout" 2>"$W/res/$name.summarize.stderr"
  echo "exit $?"
  cat "$W/res/$name.summarize.stderr" "$W/res/$name.summarize.stdout" | head -12
  python3 "$HERE/llama_check.py" "$W/res/${name}_summary.json" "$W/res/$name.recorded.txt" \
    --expect-runs "$R" | tee "$W/res/$name.check.json"
}
run llama_graph -u GGML_CUDA_DISABLE_GRAPHS
run llama_eager GGML_CUDA_DISABLE_GRAPHS=1

for name in ${TRACES_OUT:-llama_graph llama_eager}; do
  [ -s "$W/$name.sqlite" ] && xz -T4 -6 -c "$W/$name.sqlite" >"$OUT/$name.sqlite.xz"
done
tail -c 4000 "$W/res/llama_graph.plain.stderr" >"$W/res/llama_graph.plain.stderr.tail"
rm -f "$W/res/"*.plain.stderr "$W/res/"*.recorded.stderr.full
tar -C "$W" -cJf "$OUT/llama.tar.xz" res
ls -la "$OUT"
date -u +"== end %FT%TZ"
