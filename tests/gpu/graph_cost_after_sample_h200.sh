#!/usr/bin/env bash
# Does a sampled recording keep costing a CUDA-graph program after its sampled step? (GPU
# machine, never in CI.) examples/graph_loop in graph mode (one graph replay and a host sync a
# token, no NVTX: the graph launches are the steps) runs GENERATES generate calls of STEPS
# steps, each timed by the program; `record --sample-steps N` with N large enough that exactly
# one step is sampled (in the middle call) shows whether the calls after it run slower than
# those before it and than the plain runs' (CUPTI keeping the replayed graph instrumented),
# beside full recording and --sample-steps 32. Rounds alternate the modes (ROUNDS, default 2),
# at two kernel lengths (SCALES, default "100 25": --scale of graph_loop). MODES (default
# "plain one full steps32") may add one-noattach, one-nowatch, one-apioff (see below).
#
# usage: tests/gpu/graph_cost_after_sample_h200.sh STAGE_DIR
#   STAGE_DIR: decodeprof, libdecodeprof_cupti.so, libsqlite3.so.0, libsimdjson.so.14, graph_loop
# Results in $OUT (default /tmp/graphcost-out): run.log, runs.txt (one line per run: scale, mode,
# round, exit, per-call decode ms), summary.txt (per scale and mode: median ms a call before,
# at and after the sampled call).
set -u
OUT=${OUT:-/tmp/graphcost-out}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/common.sh"
dp_start "$1"
export LD_LIBRARY_PATH="$STAGE:${LD_LIBRARY_PATH:-}"
ROUNDS=${ROUNDS:-2}
STEPS=${STEPS:-128}
GENERATES=${GENERATES:-6}
LAYERS=${LAYERS:-124}
W=/tmp/graphcost-work
rm -rf "$W"
mkdir -p "$W"
# One sample: graph launches counted from the first (the warm-up launches no graph); N/2
# lands in the middle of call GENERATES/2 (0-based) when N/2 = STEPS * GENERATES/2 + STEPS/2.
WARMUP=4
ONE=$((2 * (STEPS * (GENERATES / 2) + STEPS / 2)))
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for scale in ${SCALES:-100 25}; do
  for r in $(seq 1 "$ROUNDS"); do
    for mode in ${MODES:-plain one full steps32}; do
      rec=()
      case $mode in
        # Variants of one, for finding what costs: the kinds never enabled before the period,
        # no graph callbacks, no launch API records.
        one-noattach) rec=(env DECODEPROF_RECORD_ENABLE_AT_ATTACH=0 "$DP" record --sample-steps "$ONE" -o "$W/t.sqlite" --) ;;
        one-nowatch) rec=(env DECODEPROF_RECORD_GRAPH_WATCH=0 "$DP" record --sample-steps "$ONE" -o "$W/t.sqlite" --) ;;
        one-apioff) rec=(env DECODEPROF_RECORD_API_GATE=off "$DP" record --sample-steps "$ONE" -o "$W/t.sqlite" --) ;;
        one) rec=("$DP" record --sample-steps "$ONE" -o "$W/t.sqlite" --) ;;
        full) rec=("$DP" record -o "$W/t.sqlite" --) ;;
        steps32) rec=("$DP" record --sample-steps 32 -o "$W/t.sqlite" --) ;;
      esac
      rm -f "$W/t.sqlite" "$W/truth.json"
      timeout 300 "${rec[@]}" "$STAGE/graph_loop" --layers "$LAYERS" --steps "$STEPS" \
        --warmup "$WARMUP" --generates "$GENERATES" --scale "$scale" --out "$W/truth.json" \
        >"$W/out.txt" 2>"$W/err.txt"
      rc=$?
      calls=$(python3 -c 'import json,sys; print(" ".join(f"{v/1e6:.2f}" for v in json.load(open(sys.argv[1]))["decode_wall_ns_per_generate"]))' "$W/truth.json" 2>/dev/null)
      sampled=""
      [ -s "$W/t.sqlite" ] && sampled=$(python3 -c 'import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); print(d.execute("select count(*) from ranges r join strings s on s.id=r.name_id where s.text=\"decodeprof:sampled\"").fetchone()[0], d.execute("select value from meta where key=\"graph_call_time\"").fetchone())' "$W/t.sqlite" 2>/dev/null)
      echo "$scale $mode $r rc=$rc calls: $calls | sampled: $sampled" | tee -a "$OUT/runs.txt"
      [ $rc -eq 0 ] || tail -5 "$W/err.txt"
    done
  done
done
python3 - "$OUT/runs.txt" "$GENERATES" <<'PY' | tee "$OUT/summary.txt"
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    head, _, rest = line.partition(" calls: ")
    scale, mode, _r, _rc = head.split()
    calls = [float(x) for x in rest.split("|")[0].split()]
    if calls:
        rows.setdefault((scale, mode), []).append(calls)
g = int(sys.argv[2])
mid = g // 2  # the sampled call (0-based) of mode "one"
for (scale, mode), runs in sorted(rows.items()):
    before = statistics.median(c for run in runs for c in run[1:mid])  # the first call warms up
    at = statistics.median(run[mid] for run in runs)
    after = statistics.median(c for run in runs for c in run[mid + 1:])
    print(f"scale {scale:>3} {mode:8s} ms a call: before {before:8.2f}  sampled call {at:8.2f}  after {after:8.2f}")
PY
tar -C "$OUT" -cf /tmp/graphcost.tar . && mv /tmp/graphcost.tar "$OUT/all.tar"
