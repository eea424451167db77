#!/usr/bin/env bash
# The CUDA-graph unit applied for real (issue 5): Llama-3.1-8B-Instruct's config, greedy,
# prompt 512, 20 warmup tokens, 128 generated tokens, eager (the campaign's plain run) vs
# `hf_decode.py --cuda-graph` (static KV cache, one captured graph per decode step), both
# plain, alternating, ROUNDS rounds (default 3); then one recorded run of each mode
# (`decodeprof record`, marks on) summarized with the built-in pack, to show where the time
# goes once the host gap is gone and what the recorder costs on a graph-replayed decode.
#
# usage: tests/gpu/cuda_graph_check.sh STAGE_DIR    (as tests/gpu/campaign_h200.sh)
# Results in $OUT (default /tmp/graph-out): run.log, graph_check.json (tok/s per process,
# medians, speedup), graph_summaries.tar.gz (summaries + kernel tables + logs).
set -u
OUT=${OUT:-/tmp/graph-out}
ROUNDS=${ROUNDS:-3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/gpu/common.sh"
dp_start "$1"
WORK=$(mktemp -d /tmp/graph.XXXXXX)
mkdir -p "$WORK/models/Llama-3.1-8B-Instruct" "$WORK/res"
cp "$ROOT/examples/hf_decode/configs/llama.json" "$WORK/models/Llama-3.1-8B-Instruct/config.json"
cd "$ROOT" || exit 1
ARGS=(-m llama -n 128 --warmup-tokens 20 --prompt-tokens 512 --ignore-eos)

run_plain() { # MODE ROUND
  local extra=(); [ "$1" = graph ] && extra=(--cuda-graph)
  timeout 180 python3 examples/hf_decode/hf_decode.py "${ARGS[@]}" "${extra[@]}" \
    > "$WORK/res/plain_$1_$2.txt" 2> "$WORK/res/plain_$1_$2.err"
  echo "plain $1 round $2 exit $?: $(grep 'Decode:' "$WORK/res/plain_$1_$2.txt")"
  tail -n 3 "$WORK/res/plain_$1_$2.err"
}
for ((i = 1; i <= ROUNDS; i++)); do
  if [ $((i % 2)) = 1 ]; then run_plain eager "$i"; run_plain graph "$i"
  else run_plain graph "$i"; run_plain eager "$i"; fi
done

for mode in eager graph; do
  extra=(); [ "$mode" = graph ] && extra=(--cuda-graph)
  name="Llama-3.1-8B-Instruct_greedy-$mode"
  DECODEPROF_PHASE_MARKS=1 timeout 240 "$DP" record -o "$WORK/$mode.sqlite" -- \
    python3 examples/hf_decode/hf_decode.py "${ARGS[@]}" "${extra[@]}" \
    > "$WORK/res/${name}_bench.log" 2>&1
  echo "recorded $mode exit $?: $(grep 'Decode:' "$WORK/res/${name}_bench.log")"
  timeout 120 "$DP" summarize --trace "$WORK/$mode.sqlite" --log "$WORK/res/${name}_bench.log" \
    --plain-log "$WORK/res/plain_${mode}_1.txt" \
    --model-dir "$WORK/models/Llama-3.1-8B-Instruct" --name "$name" --out-dir "$WORK/res"
  echo "summarize $mode exit $?"
done

python3 - "$WORK/res" "$OUT/graph_check.json" "$ROUNDS" <<'PY'
import json, re, statistics, sys
res, out, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
def toks(mode):
    xs = []
    for i in range(1, rounds + 1):
        try:
            m = re.search(r"Decode:\s+([\d.]+) ms \(([\d.]+) tok/s\)", open(f"{res}/plain_{mode}_{i}.txt").read())
            xs.append(float(m.group(2)))
        except Exception:
            xs.append(None)
    return xs
eager, graph = toks("eager"), toks("graph")
ok = lambda xs: [x for x in xs if x]
r = {"rounds": rounds, "eager_tok_s": eager, "graph_tok_s": graph,
     "median_eager_tok_s": statistics.median(ok(eager)) if ok(eager) else None,
     "median_graph_tok_s": statistics.median(ok(graph)) if ok(graph) else None}
per = [g / e for e, g in zip(eager, graph) if e and g]
r["speedup_per_round"] = per
r["median_speedup"] = statistics.median(per) if per else None
json.dump(r, open(out, "w"), indent=2)
print(json.dumps(r, indent=1))
PY
for f in "$WORK/res"/*; do
  dp_scrub "$f" "$ROOT/" "$WORK/"
done
"$DP" report --full "$WORK/res" > "$OUT/graph_report.md" 2>/dev/null || "$DP" report "$WORK/res" > "$OUT/graph_report.md"
cat "$OUT/graph_report.md" | head -30
(cd "$WORK/res" && tar czf "$OUT/graph_summaries.tar.gz" .)
