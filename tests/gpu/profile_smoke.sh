#!/usr/bin/env bash
# GPU smoke run of `decodeprof profile` end to end on the H200 machine (never in CI): one model,
# a few tokens, guard (NVML) + plain run + recorded run (CUPTI) + summarize + report.
#
# usage: tests/gpu/profile_smoke.sh STAGE_DIR    (decodeprof, libdecodeprof_cupti.so,
#        libsqlite3.so.0 built on the dev machine); results under $OUT (default /tmp/profile-out)
set -u
STAGE=$(cd "$1" && pwd)
OUT=${OUT:-/tmp/profile-out}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
. "$ROOT/tests/gpu/common.sh"
dp_find_cupti
MODELS=$(mktemp -d)
mkdir -p "$MODELS/Llama-3.1-8B-Instruct"
cp "$ROOT/examples/hf_decode/configs/llama.json" "$MODELS/Llama-3.1-8B-Instruct/config.json"
cd "$ROOT"
echo "== decodeprof profile ($(date -u +%FT%TZ))"
timeout 240 "$STAGE/decodeprof" profile --idle-secs 5 --tokens 8 --warmup-tokens 2 \
  --prompt-tokens 64 --out "$OUT/results" --model "$MODELS/Llama-3.1-8B-Instruct" \
  --bench-args '-m {model} -n {tokens} --warmup-tokens {warmup} --ignore-eos
                --prompt-tokens {prompt} --temperature {temperature} --top-p {top_p}' \
  -- python3 examples/hf_decode/hf_decode.py
echo "profile exit: $?"
"$STAGE/decodeprof" report "$OUT/results" > "$OUT/report.md"
echo "report exit: $?"
cat "$OUT/report.md"
ls -la "$OUT/results"
