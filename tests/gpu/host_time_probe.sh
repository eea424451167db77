#!/usr/bin/env bash
# Where does eager decode's host time per token come from? (issue 5 diagnosis, GPU machine)
# Plain runs of the Llama config, greedy, 128 tokens, prompt 512:
#   1. hf_decode.py at prompt 128 and 512, and tests/gpu/record_decode.py (64 steps, 3 runs
#      in one process) at prompt 128 and 512 -- measured 2026-11-30: hf_decode 15.89 / 18.73
#      tok/s, record_decode 48-50 / 42-50 tok/s, so the prompt length is not the cause;
#   2. hf_decode.py with --sdpa-backend flash, efficient, cudnn, math: the campaign charged
#      ~1 ms of host gap to every cuDNN attention call (33 ms per token on Llama), so the
#      hypothesis is cuDNN SDPA's per-call plan building for a KV length that grows every
#      step (record_decode.py's DynamicCache() may let PyTorch pick another backend).
# usage: PHASES="lengths backends" tests/gpu/host_time_probe.sh   results: $OUT/host_time_probe.txt
set -u
OUT=${OUT:-/tmp/probe-out}
PHASES=${PHASES:-"lengths backends"}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$OUT"
cd "$ROOT" || exit 1
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
{
  case " $PHASES " in *" lengths "*)
    for p in 128 512; do
      echo "hf_decode prompt $p: $(timeout 120 python3 examples/hf_decode/hf_decode.py -m llama -n 128 \
        --warmup-tokens 20 --prompt-tokens "$p" --ignore-eos 2>/dev/null | grep 'Decode:')"
    done
    for p in 128 512; do
      timeout 150 python3 tests/gpu/record_decode.py --runs plain,plain,plain --prompt "$p" \
        --out "$OUT/rd_$p.json" 2>/dev/null
      echo "record_decode prompt $p: $(python3 -c 'import json,sys; print([round(r["tok_s"],2) for r in json.load(open(sys.argv[1]))["runs"]])' "$OUT/rd_$p.json")"
    done ;;
  esac
  case " $PHASES " in *" backends "*)
    for b in auto flash efficient cudnn math; do
      echo "hf_decode --sdpa-backend $b: $(timeout 120 python3 examples/hf_decode/hf_decode.py -m llama -n 128 \
        --warmup-tokens 20 --prompt-tokens 512 --ignore-eos --sdpa-backend "$b" 2>"$OUT/sdpa_$b.err" | grep 'Decode:') $(grep -m1 -o 'Error.*' "$OUT/sdpa_$b.err")"
    done ;;
  esac
} 2>&1 | tee "$OUT/host_time_probe.txt"
