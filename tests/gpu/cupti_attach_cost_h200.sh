#!/usr/bin/env bash
# Which part of an attached CUPTI slows a program that replays a large CUDA graph each token?
# (GPU machine, never in CI.) examples/graph_loop in graph mode (one ~500-node graph replay and
# a host sync a token, no NVTX) runs GENERATES generate calls of STEPS steps, each timed by the
# program, under injection libraries that each do one more part of what the recorder does at
# attach (tests/gpu/cupti_attach_probe.cc), beside a plain run and `decodeprof record
# --sample-steps` sampling one step (mode "one"). Rounds alternate the modes (ROUNDS, default 3)
# at the kernel length SCALES (default 25: --scale of graph_loop, ~1.3 ms a token).
#
# usage: tests/gpu/cupti_attach_cost_h200.sh STAGE_DIR
#   STAGE_DIR: decodeprof, libdecodeprof_cupti.so, libsqlite3.so.0, libsimdjson.so.14,
#   graph_loop, libprobe_empty.so, libprobe_cupti.so
# Results in $OUT (default /tmp/attachcost-out): run.log, runs.txt (one line per run),
# summary.txt (per mode: median ms a call over calls 2.., and against plain).
set -u
OUT=${OUT:-/tmp/attachcost-out}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/common.sh"
dp_start "$1"
export LD_LIBRARY_PATH="$STAGE:${LD_LIBRARY_PATH:-}"
ROUNDS=${ROUNDS:-3}
STEPS=${STEPS:-128}
GENERATES=${GENERATES:-6}
LAYERS=${LAYERS:-124}
W=/tmp/attachcost-work
rm -rf "$W"
mkdir -p "$W"
ONE=$((2 * (STEPS * (GENERATES / 2) + STEPS / 2)))
CUPTI_DIR=$(dirname "$DECODEPROF_CUPTI_LIB")
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
MODES=${MODES:-"plain empty version buffers buffers,device buffers,clock subscribe subscribe,graphcb buffers,apirecs buffers,kernelsoff buffers,device,clock,subscribe,graphcb,kernelsoff one buffers,kernels"}
for scale in ${SCALES:-25}; do
  for r in $(seq 1 "$ROUNDS"); do
    for mode in $MODES; do
      rec=()
      case $mode in
        plain) ;;
        empty) rec=(env CUDA_INJECTION64_PATH="$STAGE/libprobe_empty.so") ;;
        one) rec=("$DP" record --sample-steps "$ONE" -o "$W/t.sqlite" --) ;;
        *) rec=(env CUDA_INJECTION64_PATH="$STAGE/libprobe_cupti.so" DECODEPROF_PROBE_STEPS="$mode"
                LD_LIBRARY_PATH="$CUPTI_DIR:$LD_LIBRARY_PATH") ;;
      esac
      rm -f "$W/t.sqlite" "$W/truth.json"
      timeout 300 "${rec[@]}" "$STAGE/graph_loop" --layers "$LAYERS" --steps "$STEPS" \
        --warmup 4 --generates "$GENERATES" --scale "$scale" --out "$W/truth.json" \
        >"$W/out.txt" 2>"$W/err.txt"
      rc=$?
      calls=$(python3 -c 'import json,sys; print(" ".join(f"{v/1e6:.2f}" for v in json.load(open(sys.argv[1]))["decode_wall_ns_per_generate"]))' "$W/truth.json" 2>/dev/null)
      probe=$(grep -h '^probe:' "$W/err.txt" | tr '\n' ' ')
      echo "$scale $mode $r rc=$rc calls: $calls | $probe" | tee -a "$OUT/runs.txt"
      [ $rc -eq 0 ] || tail -5 "$W/err.txt"
    done
  done
done
python3 - "$OUT/runs.txt" <<'PY' | tee "$OUT/summary.txt"
import statistics, sys
rows, order = {}, []
for line in open(sys.argv[1]):
    head, _, rest = line.partition(" calls: ")
    scale, mode, _r, _rc = head.split()
    calls = [float(x) for x in rest.split("|")[0].split()]
    if (scale, mode) not in rows:
        order.append((scale, mode))
    if calls:
        rows.setdefault((scale, mode), []).extend(calls[1:])  # the first call warms up
for scale, mode in order:
    if (scale, mode) not in rows:
        print(f"scale {scale:>3} {mode:45s} no run finished"); continue
    med = statistics.median(rows[(scale, mode)])
    base = statistics.median(rows.get((scale, "plain"), [med]))
    print(f"scale {scale:>3} {mode:45s} {med:8.2f} ms a call  {100 * (med / base - 1):+6.2f} % vs plain  (n={len(rows[(scale, mode)])})")
PY
