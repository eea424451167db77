#!/usr/bin/env bash
# Marks-free decode windows on the H200 (issue 12's acceptance). Four decodes, each recorded
# once by `decodeprof record` with its marks:
#   eager     examples/hf_decode/hf_decode.py (transformers, eager, DynamicCache)
#   graph     the same with --cuda-graph (StaticCache, one captured graph per decode step)
#   compiled  examples/compile_decode/compile_decode.py (torch.compile reduce-overhead)
#   loop      examples/graph_loop (CUDA C++, no NVTX; [phase] log lines only)
# then each summarized with its marks and again with every range removed
# (tests/gpu/window_check.py): the marks-free window must give the same forward passes (±1)
# and GPU ms per forward pass within 1 %, and say how it was found.
#
# usage: tests/gpu/window_crosscheck.sh STAGE_DIR   (decodeprof, libdecodeprof_cupti.so and
#   graph_loop — nvcc -arch=sm_90 examples/graph_loop/graph_loop.cu — in STAGE_DIR)
#   TOKENS (default 48) generated per decode. Results in $OUT (default /tmp/window-out):
#   run.log, window_check.json (every check), traces.tar.xz (the four traces and logs).
set -u
OUT=${OUT:-/tmp/window-out}
TOKENS=${TOKENS:-48}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/common.sh"
dp_start "$1"
W=$(mktemp -d /tmp/window.XXXXXX)
mkdir -p "$W/traces" "$W/res"
export TORCHINDUCTOR_CACHE_DIR="$W/inductor-cache"
cd "$ROOT" || exit 1
SECONDS=0
HF=(-m llama -n "$TOKENS" --warmup-tokens 8 --prompt-tokens 256 --ignore-eos)

rec() { # NAME LIMIT CMD...: one recorded run, its output in traces/NAME_bench.log
  local name=$1 lim=$2; shift 2
  DECODEPROF_PHASE_MARKS=1 timeout "$lim" "$DP" record -o "$W/traces/$name.sqlite" -- "$@" \
    > "$W/traces/${name}_bench.log" 2>&1
  echo "recorded $name: exit $? after ${SECONDS} s; $(grep -E 'Decode:|graph_loop:' "$W/traces/${name}_bench.log" | tail -n 1)"
  tail -n 2 "$W/traces/${name}_bench.log"
}
rec eager 240 python3 examples/hf_decode/hf_decode.py "${HF[@]}"
rec graph 240 python3 examples/hf_decode/hf_decode.py "${HF[@]}" --cuda-graph
rec compiled 300 python3 examples/compile_decode/compile_decode.py --layers 8 --steps $((TOKENS - 1))
rec loop 60 "$STAGE/graph_loop" --steps $((TOKENS - 1)) --out "$W/traces/loop_truth.json"
(cd "$W/traces" && tar cJf "$OUT/traces.tar.xz" .)
ls -la "$W/traces"

if "$DP" summarize --help 2>&1 | grep -q -- '--window'; then
  checks=()
  for name in eager graph compiled; do
    [ -s "$W/traces/$name.sqlite" ] || continue
    python3 "$HERE/window_check.py" "$DP" "$name" "$W/traces/$name.sqlite" "$W/res"
    echo "window_check $name: exit $?"
    checks+=("$W/res/${name}_window_check.json")
  done
  if [ -s "$W/traces/loop.sqlite" ]; then
    python3 "$HERE/window_check.py" "$DP" loop "$W/traces/loop.sqlite" "$W/res" \
      --log "$W/traces/loop_bench.log" --generated-tokens "$TOKENS"
    echo "window_check loop: exit $?"
    checks+=("$W/res/loop_window_check.json")
  fi
  python3 - "$OUT/window_check.json" "${checks[@]}" <<'PY'
import json, sys
out = [json.load(open(p)) for p in sys.argv[2:]]
json.dump(out, open(sys.argv[1], "w"), indent=1)
for r in out:
    print(r["name"], r["verdict"], r.get("checks"), r.get("gpu_ms_per_forward_pass_rel_diff"))
PY
  "$DP" report "$W/res" > "$OUT/window_report.md" 2>&1 || true
else
  echo "this decodeprof has no marks-free window (no --window): traces recorded only"
fi
# The census of a command recorded on the fly, as a CI gate: --expect passes on a kernel the
# command dispatches and fails (exit 1) on one it does not.
if "$DP" kernels --help >/dev/null 2>&1; then
  "$DP" kernels --top 5 --expect gl_sample --expect 'gl_(qkv|mlp)_gemm' -- "$STAGE/graph_loop" --steps 5 \
    > "$W/res/kernels_pass.txt" 2>&1
  echo "kernels --expect present: exit $? (want 0)"; cat "$W/res/kernels_pass.txt"
  "$DP" kernels --top 3 --expect gl_sample --expect fused_moe_kernel -- "$STAGE/graph_loop" --steps 5 \
    > "$W/res/kernels_fail.txt" 2>&1
  echo "kernels --expect absent: exit $? (want 1)"; tail -n 3 "$W/res/kernels_fail.txt"
  "$DP" kernels "$W/traces/loop.sqlite" --window decode --top 5 2>&1 | tee "$W/res/kernels_decode.txt"
  (cd "$W/res" && tar czf "$OUT/window_results.tar.gz" ./*.json ./*.txt ./*.csv 2>/dev/null)
fi
echo "done after ${SECONDS} s"
