#!/usr/bin/env bash
# First real recordings of transformers decode on the GPU machine (issue 5; never in CI).
#
# usage: tests/gpu/hf_collect.sh STAGE_DIR [MODEL...]
#   STAGE_DIR holds decodeprof, libdecodeprof_cupti.so and libsqlite3.so.0 (built on the dev
#   machine, as for tests/gpu/record_h200.sh). MODEL: llama granite qwen3-moe nemotron (the
#   default, in this order: smallest and most likely to work first).
# For each model, each step in its own process under `timeout`, going on after a failure:
#   1. a plain run of examples/hf_decode/hf_decode.py (greedy, --ignore-eos),
#   2. the same run under `decodeprof record` with the phase marks on,
#   3. `decodeprof summarize --pack pytorch-cuda` over the trace and both logs,
#   4. the distinct kernel names with calls and total time, whole process and decode window.
# Environment: OUT (default /tmp/hf-out), BUDGET_S (seconds the whole script may take,
# default 540: later steps get shorter timeouts and are skipped when it is spent), N,
# WARMUP, PROMPT (default 16, 4, 128: few tokens, small traces), TEMPERATURE and TOP_P
# (default 0 and 1: greedy), MODULE_RANGES=1 (adds --module-ranges), NO_PLAIN=1 (skips
# step 1), DRIVER (another decode script taking hf_decode.py's flags). The run tag is the seed's: greedy, or t<T> with -p<P> when P is not 1, then
# -modules with MODULE_RANGES=1; run name = <model>_<tag>.
# Results in $OUT (the device tool brings back at most 8 files): run.log (everything,
# appended), results_<tag>.tar.gz (per model: <name>_bench.log, <name>_plain_bench.log,
# <name>_kernels.tsv, summaries/<name>_{summary.json,decode_kernels.csv}, and env.txt),
# and <name>.sqlite.gz for each recorded model.
set -u
STAGE=$(cd "$1" && pwd); shift
MODELS="${*:-llama granite qwen3-moe nemotron}"
OUT=${OUT:-/tmp/hf-out}
BUDGET_S=${BUDGET_S:-540}
N=${N:-16}
WARMUP=${WARMUP:-4}
PROMPT=${PROMPT:-128}
TEMPERATURE=${TEMPERATURE:-0}
TOP_P=${TOP_P:-1}
case "$TEMPERATURE" in 0|0.0) TAG=greedy ;; *) TAG="t$TEMPERATURE" ;; esac
case "$TOP_P" in 1|1.0) ;; *) TAG="$TAG-p$TOP_P" ;; esac
EXTRA=()
if [ "${MODULE_RANGES:-0}" = 1 ]; then EXTRA=(--module-ranges); TAG="$TAG-modules"; fi
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DRIVER=${DRIVER:-"$ROOT/examples/hf_decode/hf_decode.py"}
DP="$STAGE/decodeprof"
START=$(date +%s)
mkdir -p "$OUT"
WORK=$(mktemp -d)
mkdir -p "$WORK/res/summaries"
exec > >(tee -a "$OUT/run.log") 2>&1

export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
CUPTI=$(ls /usr/local/cuda/lib64/libcupti.so.13 /usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13 \
          /usr/local/cuda/targets/x86_64-linux/lib/libcupti.so.13 2>/dev/null | head -n 1)
if [ -z "$CUPTI" ]; then
  CUPTI=$(find / -xdev -name 'libcupti.so.13*' -not -path '/proc/*' 2>/dev/null | head -n 1)
fi
export DECODEPROF_CUPTI_LIB="$CUPTI"

left() { echo $((BUDGET_S - ($(date +%s) - START))); }
# limit WANTED: the timeout for the next step, WANTED seconds or what the budget leaves
# (less 15 s for packing up); 0 when fewer than 30 s would remain.
limit() {
  local l; l=$(($(left) - 15))
  if [ "$l" -lt 30 ]; then echo 0; elif [ "$l" -lt "$1" ]; then echo "$l"; else echo "$1"; fi
}
scrub() { # the published logs name no local path
  python3 - "$1" "$ROOT/" "$WORK/" <<'PY'
import sys
path, root, work = sys.argv[1:4]
data = open(path, "rb").read().replace(root.encode(), b"").replace(work.encode(), b"<work>/")
open(path, "wb").write(data)
PY
}
pack() {
  (cd "$WORK/res" && tar czf "$OUT/results_$TAG.tar.gz.tmp" . && mv "$OUT/results_$TAG.tar.gz.tmp" "$OUT/results_$TAG.tar.gz")
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  uname -r
  echo "CUPTI: $CUPTI"
  python3 -c 'import sys, torch, transformers; print("python", sys.version.split()[0], "torch", torch.__version__, "transformers", transformers.__version__)'
  echo "args: -n $N --warmup-tokens $WARMUP --prompt-tokens $PROMPT --ignore-eos --temperature $TEMPERATURE --top-p $TOP_P ${EXTRA[*]}"
} > "$WORK/res/env.txt" 2>&1
echo "== env"; cat "$WORK/res/env.txt"

for m in $MODELS; do
  name="${m}_$TAG"
  args=(--model "$m" -n "$N" --warmup-tokens "$WARMUP" --prompt-tokens "$PROMPT" --ignore-eos
        --temperature "$TEMPERATURE" --top-p "$TOP_P" "${EXTRA[@]}")
  plain=()
  if [ "${NO_PLAIN:-0}" != 1 ]; then
    t=$(limit 150)
    if [ "$t" = 0 ]; then echo "== $name: skipped, budget spent"; continue; fi
    echo "== $name plain (timeout $t s, $(left) s left)"
    timeout "$t" python3 "$DRIVER" "${args[@]}" > "$WORK/res/${name}_plain_bench.log" 2>&1
    echo "plain exit: $?"; cat "$WORK/res/${name}_plain_bench.log"
    scrub "$WORK/res/${name}_plain_bench.log"
    plain=(--plain-log "$WORK/res/${name}_plain_bench.log")
  fi
  t=$(limit 200)
  if [ "$t" = 0 ]; then echo "== $name: record skipped, budget spent"; pack; continue; fi
  echo "== $name recorded (timeout $t s, $(left) s left)"
  DECODEPROF_PHASE_MARKS=1 timeout "$t" "$DP" record -o "$WORK/$name.sqlite" -- \
    python3 "$DRIVER" "${args[@]}" > "$WORK/res/${name}_bench.log" 2>&1
  echo "record exit: $?"; cat "$WORK/res/${name}_bench.log"
  scrub "$WORK/res/${name}_bench.log"
  if [ -f "$WORK/$name.sqlite" ]; then
    echo "== $name summarize"
    timeout 60 "$DP" summarize --trace "$WORK/$name.sqlite" --log "$WORK/res/${name}_bench.log" \
      "${plain[@]}" --name "$name" --temperature "$TEMPERATURE" \
      --out-dir "$WORK/res/summaries" --pack pytorch-cuda
    echo "summarize exit: $?"
    timeout 60 python3 - "$WORK/$name.sqlite" "$WORK/res/${name}_kernels.tsv" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute(
    "SELECT s.text, count(*), sum(k.end_ns - k.start_ns) FROM kernels k "
    "JOIN strings s ON s.id = k.name_id GROUP BY s.text").fetchall()
win = db.execute(
    "SELECT r.start_ns, r.end_ns FROM ranges r JOIN strings s ON s.id = r.name_id "
    "WHERE s.text = 'decodeprof:decode' ORDER BY r.start_ns DESC LIMIT 1").fetchone()
dec = {}
if win:
    dec = {n: (c, t) for n, c, t in db.execute(
        "SELECT s.text, count(*), sum(k.end_ns - k.start_ns) FROM kernels k "
        "JOIN strings s ON s.id = k.name_id WHERE k.start_ns BETWEEN ? AND ? GROUP BY s.text",
        win).fetchall()}
rows.sort(key=lambda r: (-dec.get(r[0], (0, 0))[1], -r[2], r[0]))
with open(sys.argv[2], "w") as f:
    f.write("kernel\tcalls\ttotal_ns\tdecode_calls\tdecode_total_ns\n")
    for n, c, t in rows:
        dc, dt = dec.get(n, (0, 0))
        f.write(f"{n.replace(chr(9), ' ')}\t{c}\t{t}\t{dc}\t{dt}\n")
print(f"{len(rows)} distinct kernels, {sum(r[1] for r in rows)} kernels, "
      f"decode window {'found' if win else 'missing'}: {len(dec)} distinct, "
      f"{sum(v[0] for v in dec.values())} kernels")
PY
    echo "kernels exit: $?"
    gzip -1 -c "$WORK/$name.sqlite" > "$OUT/$name.sqlite.gz"
    ls -la "$WORK/$name.sqlite" "$OUT/$name.sqlite.gz"
  fi
  pack
done
pack
echo "== done in $(($(date +%s) - START)) s"
ls -la "$OUT"
rm -rf "$WORK"
