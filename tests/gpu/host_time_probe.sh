#!/usr/bin/env bash
# Where does eager decode's host time per token come from? (issue 5 diagnosis, GPU machine)
# Plain runs of the Llama config, greedy, 128 tokens: hf_decode.py at prompt 128 and 512,
# and tests/gpu/record_decode.py (64 steps, 4 runs in one process) at prompt 128 and 512.
# usage: tests/gpu/host_time_probe.sh     results: $OUT/host_time_probe.txt
set -u
OUT=${OUT:-/tmp/probe-out}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$OUT"
cd "$ROOT" || exit 1
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
{
  for p in 128 512; do
    echo "hf_decode prompt $p: $(timeout 120 python3 examples/hf_decode/hf_decode.py -m llama -n 128 \
      --warmup-tokens 20 --prompt-tokens "$p" --ignore-eos 2>/dev/null | grep 'Decode:')"
  done
  for p in 128 512; do
    timeout 150 python3 tests/gpu/record_decode.py --runs plain,plain,plain --prompt "$p" \
      --out "$OUT/rd_$p.json" 2>/dev/null
    echo "record_decode prompt $p: $(python3 -c 'import json,sys; print([round(r["tok_s"],2) for r in json.load(open(sys.argv[1]))["runs"]])' "$OUT/rd_$p.json")"
  done
} 2>&1 | tee "$OUT/host_time_probe.txt"
