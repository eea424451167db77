#!/usr/bin/env bash
# The speed-of-light ledger on the H200 (issue 27; GPU machine, never in CI):
#   1. `decodeprof bandwidth`: the measured peak (device-to-device copies);
#   2. a torch.compile(mode="reduce-overhead") decode of a Llama-3.1-8B-shaped bf16 model
#      (record_decode.py, random weights, PROMPT tokens then STEPS decode steps), plain and
#      under `decodeprof record`, summarized with --model-dir (its config.json) and the
#      measured peak;
#   3. llama.cpp (../shared/engines/llama.cpp, CUDA graphs on) decoding a Llama-3.1-8B-shaped
#      q4_0 GGUF (make_gguf.py), plain and recorded, summarized with --gguf and the peak;
#   4. gemv_bench.py: the GEMV shapes alone;
#   5. speed_of_light_check.py: each ledger's MBU against tokens/s × bytes ÷ the measured peak.
#
# usage: tests/gpu/speed_of_light_h200.sh STAGE_DIR ENGINE_DIR
#   STAGE_DIR as for record_h200.sh; ENGINE_DIR a copy of ../shared/engines/llama.cpp.
#   PROMPT (512), STEPS (128), LLAMA_P (512), LLAMA_P_LONG (3072), LLAMA_N (128), LLAMA_R (2), PHASES ("bw compile
#   llama gemv check").
# Results in $OUT (default /tmp/sol-out): run.log and sol-PHASES.tar.xz (res/: bandwidth.json,
# the summaries and kernel tables, the runs' outputs, gemv.json, check.json, report.md).
set -u
OUT=${OUT:-/tmp/sol-out}
PROMPT=${PROMPT:-512}
STEPS=${STEPS:-128}
LLAMA_P=${LLAMA_P:-512}
LLAMA_N=${LLAMA_N:-128}
LLAMA_R=${LLAMA_R:-2}
LLAMA_P_LONG=${LLAMA_P_LONG:-3072}
PHASES=${PHASES:-bw compile llama gemv check}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/common.sh"
dp_start "$1"
ENGINE=$(cd "$2" && pwd) || exit 2
W=/tmp/sol-work
R="$W/res"
mkdir -p "$W" "$R" "$OUT"
export TORCHINDUCTOR_CACHE_DIR="$W/inductor-cache"
date -u +"== start %FT%TZ"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader
has() { [[ " $PHASES " == *" $1 "* ]]; }

if [ ! -s "$W/build/bin/llama-decode" ] && has llama; then
  echo "== build llama.cpp in the background"
  (JOBS=12 MODELS="llama-3.1-8b:q4_0" SKIP_SMOKE=1 BUILD_TIMEOUT=420 \
     timeout 480 bash "$ENGINE/build_and_run.sh" "$W" >"$W/llama-build.log" 2>&1) &
  BUILD_PID=$!
fi

if has bw; then
  echo "== bandwidth"
  "$DP" bandwidth -o "$R/bandwidth.json"
  echo "exit $?"
  cat "$R/bandwidth.json"
fi

if has compile; then
  mkdir -p "$W/llama-3.1-8b"
  python3 - "$W/llama-3.1-8b/config.json" <<'PY'
import json, sys
json.dump({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
           "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
           "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": False,
           "rms_norm_eps": 1e-5, "rope_theta": 500000.0, "torch_dtype": "bfloat16",
           "max_position_embeddings": 131072, "hidden_act": "silu"}, open(sys.argv[1], "w"))
PY
  ARGS=(--compile reduce-overhead --prompt "$PROMPT" --steps "$STEPS")
  echo "== compile plain"
  timeout 300 python3 "$HERE/record_decode.py" --runs plain "${ARGS[@]}" \
    --out "$R/compile_plain.json" 2>"$W/compile_plain.stderr"
  echo "exit $?"; grep -E "tok/s|\[compile\] graphs" "$W/compile_plain.stderr"
  echo "== compile recorded"
  timeout 300 "$DP" record -o "$W/compile.sqlite" -- python3 "$HERE/record_decode.py" \
    --runs plain "${ARGS[@]}" --out "$R/compile_recorded.json" 2>"$W/compile_rec.stderr"
  echo "exit $?"; grep -E "tok/s|decodeprof" "$W/compile_rec.stderr" | tail -4
  echo "== compile summarize"
  timeout 200 "$DP" summarize --trace "$W/compile.sqlite" --name compile --out-dir "$R" \
    --model-dir "$W/llama-3.1-8b" --peak-bandwidth "$R/bandwidth.json" \
    --context-tokens "$(python3 -c "print($PROMPT + ($STEPS + 1) / 2)")"
  echo "exit $?"
fi

if has gemv; then
  echo "== gemv microbenchmark"
  timeout 240 python3 "$HERE/gemv_bench.py" --out "$R/gemv.json"
  echo "exit $?"
fi

if has llama; then
  [ -n "${BUILD_PID:-}" ] && wait "$BUILD_PID"
  tail -3 "$W/llama-build.log" 2>/dev/null
  BIN="$W/build/bin/llama-decode"
  GGUF="$W/models/llama-3.1-8b-q4_0.gguf"
  [ -s "$GGUF" ] || python3 "$ENGINE/make_gguf.py" --shape llama-3.1-8b --type q4_0 --out "$GGUF"
  export LD_LIBRARY_PATH="$W/build/bin:${LD_LIBRARY_PATH:-}"
  llama_run() {  # NAME P: plain and recorded runs at prompt P, the recorded one summarized
    local name=$1 p=$2
    echo "== $name plain (P=$p)"
    timeout 120 "$BIN" -m "$GGUF" -p "$p" -n "$LLAMA_N" -r "$LLAMA_R" \
      >"$R/${name}_plain.txt" 2>"$W/${name}_plain.stderr"
    echo "exit $?"; cat "$R/${name}_plain.txt"
    echo "== $name recorded"
    timeout 180 "$DP" record -o "$W/$name.sqlite" -- "$BIN" -m "$GGUF" -p "$p" \
      -n "$LLAMA_N" -r "$LLAMA_R" >"$R/${name}_recorded.txt" 2>"$W/${name}_rec.stderr"
    echo "exit $?"; cat "$R/${name}_recorded.txt"
    echo "== $name summarize"
    timeout 200 "$DP" summarize --trace "$W/$name.sqlite" --name "$name" --out-dir "$R" \
      --gguf "$GGUF" --peak-bandwidth "$R/bandwidth.json" \
      --context-tokens "$(python3 -c "print($p + ($LLAMA_N + 1) / 2)")"
    echo "exit $?"
  }
  llama_run llama "$LLAMA_P"
  # The floor moves with the KV cache: the same decode at a long prompt.
  llama_run llama_long "$LLAMA_P_LONG"
fi


if has check; then
  echo "== check"
  python3 "$HERE/speed_of_light_check.py" --bandwidth "$R/bandwidth.json" \
    --compile-summary "$R/compile_summary.json" --compile-results "$R/compile_recorded.json" \
    --llama-summary "$R/llama_summary.json,$R/llama_long_summary.json" \
    --llama-out "$R/llama_recorded.txt,$R/llama_long_recorded.txt" \
    --gemv "$R/gemv.json" --prompt "$PROMPT" --steps "$STEPS" \
    --llama-prompt "$LLAMA_P,$LLAMA_P_LONG" \
    --llama-steps "$LLAMA_N" --out "$R/check.json"
  echo "check exit $?"
  "$DP" report "$R/compile_summary.json" "$R/llama_summary.json" \
    "$R/llama_long_summary.json" >"$R/report.md" 2>&1
  echo "report exit $?"
fi
for f in "$R"/*.json "$R"/*.txt "$R"/*.md "$R"/*.csv; do [ -f "$f" ] && dp_scrub "$f" "$HERE/../../" "$W/"; done
tar -C "$W" -cJf "$OUT/sol-$(echo "$PHASES" | tr ' ' '-').tar.xz" res
date -u +"== end %FT%TZ"
ls -la "$OUT" "$R"
