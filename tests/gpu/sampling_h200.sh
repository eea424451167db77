#!/usr/bin/env bash
# GPU run of sampled recording (issue 15), for the H200 machine (never in CI): the whole-run
# decode slowdown of `decodeprof record` in its modes against a plain run and torch.profiler,
# in separate processes, ROUNDS rounds alternating the variants, and the kernel figures of
# sampled and full recordings side by side.
#
# usage: tests/gpu/sampling_h200.sh STAGE_DIR [PHASE...]
#   STAGE_DIR holds decodeprof, libdecodeprof_cupti.so, libsqlite3.so.0, libsimdjson.so.14
#   and graph_loop (examples/graph_loop, nvcc -arch=sm_90).
#   PHASE: cpp (graph_loop --eager: ~500 launches a step, no graphs, no NVTX), eager
#   (tests/gpu/record_decode.py, eager PyTorch), compile (the same with torch.compile
#   reduce-overhead: CUDA graphs), cppprobe (what CUPTI costs the cpp program with nothing
#   recorded: attached only; and the offset clock), cppblocks (the cpp program's step time
#   inside, before and between the sampled periods, in one process: graph_loop --blocks).
#   Default: cpp eager.
# Results under $OUT (default /tmp/sampling-out): run.log, <phase>_runs.jsonl (one line per
# run: phase, variant, round, ms per step), <phase>_summary_*.json (the summaries of the last
# round's traces) and sampling.json (medians, slowdowns, the agreement of GPU ms per step).
# Environment: ROUNDS (3), STEPS_CPP (600), STEPS_PT (96), LAYERS_PT (32), SAMPLE_N (8),
# PT_VARIANTS (plain full sampled sampled_switch torchprof), CPP_VARIANTS (all of them),
# STEPS_BLOCKS (3000), BLOCK (25 steps), BLOCK_VARIANTS, PIN (a CPU for taskset), PIN_PT (CPUs
# for the PyTorch phases, e.g. 2-9), KEEP_TRACES (copy the last round's PyTorch traces to
# $OUT/traces). PT variants: plain full sampled sampled_switch sampled_detach sampled32 idle
# (CUPTI attached, the step gate never opening) kernels kernels_discard torchprof.
set -u
STAGE=$(cd "$1" && pwd); shift
PHASES="${*:-cpp eager}"
OUT=${OUT:-/tmp/sampling-out}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
TMP=$(mktemp -d)
exec > >(tee -a "$OUT/run.log") 2>&1
DP="$STAGE/decodeprof"
export LD_LIBRARY_PATH="$STAGE:${LD_LIBRARY_PATH:-}"
ROUNDS=${ROUNDS:-3}
STEPS_CPP=${STEPS_CPP:-600}
STEPS_BLOCKS=${STEPS_BLOCKS:-3000}
STEPS_PT=${STEPS_PT:-96}
LAYERS_PT=${LAYERS_PT:-32}
N=${SAMPLE_N:-8}
CUPTI=$(ls /usr/local/cuda/lib64/libcupti.so.13 /usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13 \
          /usr/local/cuda/targets/x86_64-linux/lib/libcupti.so.13 2>/dev/null | head -n 1)
[ -n "$CUPTI" ] || CUPTI=$(find / -xdev -name 'libcupti.so.13*' -not -path '/proc/*' 2>/dev/null | head -n 1)
export DECODEPROF_CUPTI_LIB="$CUPTI"
export DECODEPROF_RECORD_QUIET=1
echo "== $(date -u +%FT%TZ) phases: $PHASES, rounds $ROUNDS, sample one step in $N; CUPTI $CUPTI"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
phase_on() { case " $PHASES " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# note PHASE VARIANT ROUND MS: one run's figure into the phase's runs file.
note() { echo "{\"phase\": \"$1\", \"variant\": \"$2\", \"round\": $3, \"ms_per_step\": ${4:-null}}" >> "$OUT/$1_runs.jsonl"; }

if phase_on cpp; then
  echo "== cpp: graph_loop --eager --layers 124 --scale 30, $STEPS_CPP steps"
  rm -f "$OUT/cpp_runs.jsonl"
  GL=("$STAGE/graph_loop" --eager --layers 124 --scale 30 --steps "$STEPS_CPP" --warmup 8)
  for r in $(seq 1 "$ROUNDS"); do
    for v in ${CPP_VARIANTS:-plain full kernels time50_500 time50_500_switch time50_500_off nvtx_plain nvtx_steps nvtx_steps_switch}; do
      rec=(); args=("${GL[@]}"); env=()
      case $v in
        plain) ;;
        full) rec=("$DP" record -o "$TMP/cpp_$v.sqlite" --) ;;
        kernels) env=(DECODEPROF_RECORD_API=0); rec=("$DP" record -o "$TMP/cpp_$v.sqlite" --) ;;
        time50_500) rec=("$DP" record --sample-time 50/500 -o "$TMP/cpp_$v.sqlite" --) ;;
        time50_500_switch) env=(DECODEPROF_RECORD_API_GATE=switch); rec=("$DP" record --sample-time 50/500 -o "$TMP/cpp_$v.sqlite" --) ;;
        time50_500_off) env=(DECODEPROF_RECORD_API_GATE=off); rec=("$DP" record --sample-time 50/500 -o "$TMP/cpp_$v.sqlite" --) ;;
        time50_5000_off) env=(DECODEPROF_RECORD_API_GATE=off); rec=("$DP" record --sample-time 50/5000 -o "$TMP/cpp_$v.sqlite" --) ;;
        time50_500_off_noflush) env=(DECODEPROF_RECORD_API_GATE=off DECODEPROF_RECORD_FLUSH_MS=0); rec=("$DP" record --sample-time 50/500 -o "$TMP/cpp_$v.sqlite" --) ;;
        kernels_discard) env=(DECODEPROF_RECORD_API=0 DECODEPROF_RECORD_DISCARD=1); rec=("$DP" record -o "$TMP/cpp_$v.sqlite" --) ;;
        nvtx_plain) args+=(--nvtx) ;;
        nvtx_steps) args+=(--nvtx); rec=("$DP" record --sample-steps "$N" -o "$TMP/cpp_$v.sqlite" --) ;;
        nvtx_steps_switch) args+=(--nvtx); env=(DECODEPROF_RECORD_API_GATE=switch); rec=("$DP" record --sample-steps "$N" -o "$TMP/cpp_$v.sqlite" --) ;;
      esac
      line=$(env "${env[@]}" DECODEPROF_PHASE_MARKS=0 timeout 60 "${rec[@]}" "${args[@]}" 2> "$TMP/cpp_${v}_stderr.txt" | grep 'ms per step')
      ms=$(echo "$line" | sed -n 's/.* \([0-9.]*\) ms per step.*/\1/p')
      echo "round $r $v: ${ms:-FAILED} ms/step $(grep -h 'decodeprof: record' "$TMP/cpp_${v}_stderr.txt" | sed 's/.*sqlite: //')"
      note cpp "$v" "$r" "$ms"
    done
  done
  for v in full kernels time50_500 time50_500_switch time50_500_off nvtx_steps nvtx_steps_switch; do
    [ -f "$TMP/cpp_$v.sqlite" ] || continue
    timeout 60 "$DP" summarize --trace "$TMP/cpp_$v.sqlite" --quiet --out-dir "$OUT" --name "cpp_summary_$v" 2>&1 | tail -n 4
    echo "summarize cpp $v exit: ${PIPESTATUS[0]}"
  done
  ls -la "$TMP"/cpp_*.sqlite
fi

if phase_on cppprobe; then
  echo "== cppprobe: graph_loop --eager --layers 124 --scale 30, $STEPS_CPP steps"
  rm -f "$OUT/cppprobe_runs.jsonl"
  GL=("$STAGE/graph_loop" --eager --layers 124 --scale 30 --steps "$STEPS_CPP" --warmup 8)
  for r in $(seq 1 "$ROUNDS"); do
    for v in plain attached attached_offset kernels kernels_offset; do
      rec=(); env=()
      case $v in
        attached) env=(DECODEPROF_RECORD_API_GATE=off); rec=("$DP" record --sample-time 1/3600000 -o "$TMP/p.sqlite" --) ;;
        attached_offset) env=(DECODEPROF_RECORD_API_GATE=off DECODEPROF_RECORD_CLOCK=offset); rec=("$DP" record --sample-time 1/3600000 -o "$TMP/p.sqlite" --) ;;
        kernels) env=(DECODEPROF_RECORD_API=0); rec=("$DP" record -o "$TMP/p.sqlite" --) ;;
        kernels_offset) env=(DECODEPROF_RECORD_API=0 DECODEPROF_RECORD_CLOCK=offset); rec=("$DP" record -o "$TMP/p.sqlite" --) ;;
      esac
      line=$(env "${env[@]}" DECODEPROF_PHASE_MARKS=0 timeout 60 "${rec[@]}" "${GL[@]}" 2> "$TMP/probe_stderr.txt" | grep 'ms per step')
      ms=$(echo "$line" | sed -n 's/.* \([0-9.]*\) ms per step.*/\1/p')
      echo "round $r $v: ${ms:-FAILED} ms/step $(grep -h 'decodeprof: record' "$TMP/probe_stderr.txt" | sed 's/.*sqlite: //')"
      note cppprobe "$v" "$r" "$ms"
    done
  done
fi

if phase_on cppblocks; then
  # In-process view (graph_loop --blocks): the wall time of every BLOCK steps, classed by the
  # trace's sampled periods — before the first one, inside one, or between two — so that
  # what a sampled recording costs between its periods is measured within one process,
  # free of the machine's process-to-process drift. PIN: a CPU to pin the program to.
  echo "== cppblocks: graph_loop --eager --layers 124 --scale 30, $STEPS_BLOCKS steps"
  rm -f "$OUT/cppblocks_runs.jsonl"
  GL=("$STAGE/graph_loop" --eager --layers 124 --scale 30 --steps "$STEPS_BLOCKS" --warmup 8
      --block-steps "${BLOCK:-25}")
  pin=(); [ -n "${PIN:-}" ] && command -v taskset > /dev/null && pin=(taskset -c "$PIN")
  for r in $(seq 1 "$ROUNDS"); do
    for v in ${BLOCK_VARIANTS:-plain t50_1000 t50_1000_nodetach t50_1000_apioff nvtx_plain steps8 steps8_detach}; do
      rec=(); args=("${GL[@]}" --blocks "$OUT/blocks_${v}_$r.txt"); env=()
      trace="$TMP/blk_${v}.sqlite"; rm -f "$trace"
      case $v in
        plain) ;;
        t50_1000) rec=("$DP" record --sample-time 50/1000 -o "$trace" --) ;;
        t50_1000_nodetach) env=(DECODEPROF_RECORD_DETACH=0); rec=("$DP" record --sample-time 50/1000 -o "$trace" --) ;;
        t50_1000_apioff) env=(DECODEPROF_RECORD_API_GATE=off); rec=("$DP" record --sample-time 50/1000 -o "$trace" --) ;;
        t50_2000) rec=("$DP" record --sample-time 50/2000 -o "$trace" --) ;;
        t100_2000) rec=("$DP" record --sample-time 100/2000 -o "$trace" --) ;;
        full) rec=("$DP" record -o "$trace" --) ;;
        kernels) env=(DECODEPROF_RECORD_API=0); rec=("$DP" record -o "$trace" --) ;;
        kernels_discard) env=(DECODEPROF_RECORD_API=0 DECODEPROF_RECORD_DISCARD=1); rec=("$DP" record -o "$trace" --) ;;
        nvtx_plain) args+=(--nvtx) ;;
        steps8) args+=(--nvtx); rec=("$DP" record --sample-steps "$N" -o "$trace" --) ;;
        steps8_detach) args+=(--nvtx); env=(DECODEPROF_RECORD_DETACH=1); rec=("$DP" record --sample-steps "$N" -o "$trace" --) ;;
      esac
      line=$(env "${env[@]}" DECODEPROF_PHASE_MARKS=0 timeout 120 "${pin[@]}" "${rec[@]}" "${args[@]}" 2> "$TMP/blk_stderr.txt" | grep 'ms per step')
      ms=$(echo "$line" | sed -n 's/.* \([0-9.]*\) ms per step.*/\1/p')
      classes=$(python3 - "$OUT/blocks_${v}_$r.txt" "$trace" <<'PY'
import sqlite3, sys, os, json
blocks = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
periods, meta = [], {}
if os.path.exists(sys.argv[2]):
    db = sqlite3.connect(sys.argv[2])
    periods = db.execute("select r.start_ns, r.end_ns from ranges r join strings s on s.id = r.name_id "
                         "where s.text in ('decodeprof:sampled', 'decodeprof:sampled-time') order by 1").fetchall()
    meta = dict(db.execute("select key, value from meta where key like 'cupti_%'").fetchall())
first = periods[0][0] if periods else None
acc = {"pre": [0, 0], "in": [0, 0], "between": [0, 0]}
for b, e, n in blocks:
    overlaps = any(ps < e and pe > b for ps, pe in periods)
    c = "in" if overlaps else ("pre" if first is None or e <= first else "between")
    acc[c][0] += e - b; acc[c][1] += n
res = {c: round(ns / 1e6 / n, 4) for c, (ns, n) in acc.items() if n}
res.update({"steps_" + c: n for c, (ns, n) in acc.items() if n})
res["periods"] = len(periods)
res.update(meta)
print(json.dumps(res))
PY
)
      echo "round $r $v: ${ms:-FAILED} ms/step; blocks $classes $(grep -h 'decodeprof: record' "$TMP/blk_stderr.txt" | sed 's/.*sqlite: //')"
      echo "{\"phase\": \"cppblocks\", \"variant\": \"$v\", \"round\": $r, \"ms_per_step\": ${ms:-null}, \"blocks\": ${classes:-null}}" >> "$OUT/cppblocks_runs.jsonl"
    done
  done
  for v in full t50_1000 t50_2000 t100_2000 steps8 steps8_detach; do
    [ -f "$TMP/blk_$v.sqlite" ] || continue
    timeout 120 "$DP" summarize --trace "$TMP/blk_$v.sqlite" --quiet --out-dir "$OUT" --name "cppblocks_summary_$v" 2>&1 | tail -n 4
    echo "summarize cppblocks $v exit: ${PIPESTATUS[0]}"
  done
fi

pt_phase() {  # pt_phase PHASE EXTRA_ARGS...
  local ph=$1; shift
  echo "== $ph: record_decode.py $* --steps $STEPS_PT --layers $LAYERS_PT"
  rm -f "$OUT/${ph}_runs.jsonl"
  for r in $(seq 1 "$ROUNDS"); do
    for v in ${PT_VARIANTS:-plain full sampled sampled_switch torchprof}; do
      rec=(); env=(); runs=plain
      case $v in
        full) rec=("$DP" record -o "$TMP/${ph}_$v.sqlite" --) ;;
        sampled) rec=("$DP" record --sample-steps "$N" -o "$TMP/${ph}_$v.sqlite" --) ;;
        sampled_switch) env=(DECODEPROF_RECORD_API_GATE=switch); rec=("$DP" record --sample-steps "$N" -o "$TMP/${ph}_$v.sqlite" --) ;;
        sampled_detach) env=(DECODEPROF_RECORD_DETACH=1); rec=("$DP" record --sample-steps "$N" -o "$TMP/${ph}_$v.sqlite" --) ;;
        sampled32) rec=("$DP" record --sample-steps 32 -o "$TMP/${ph}_$v.sqlite" --) ;;
        idle) rec=("$DP" record --sample-steps "$N" --step-range decodeprof:never -o "$TMP/${ph}_$v.sqlite" --) ;;
        kernels) env=(DECODEPROF_RECORD_API=0); rec=("$DP" record -o "$TMP/${ph}_$v.sqlite" --) ;;
        kernels_discard) env=(DECODEPROF_RECORD_API=0 DECODEPROF_RECORD_DISCARD=1); rec=("$DP" record -o "$TMP/${ph}_$v.sqlite" --) ;;
        torchprof) runs=torchprof ;;
      esac
      pin=(); [ -n "${PIN_PT:-}" ] && command -v taskset > /dev/null && pin=(taskset -c "$PIN_PT")
      env "${env[@]}" timeout 240 "${pin[@]}" "${rec[@]}" python3 "$HERE/record_decode.py" --runs "$runs" \
        --out "$TMP/${ph}_${v}_$r.json" --steps "$STEPS_PT" --layers "$LAYERS_PT" "$@" \
        > "$TMP/${ph}_${v}_stdout.txt" 2> "$TMP/${ph}_${v}_stderr.txt"
      rc=$?
      ms=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=[x for x in d['runs'] if 'tok_s' in x][-1]; print(round(1000/r['tok_s'],4))" "$TMP/${ph}_${v}_$r.json" 2>/dev/null)
      echo "round $r $v: exit $rc, ${ms:-FAILED} ms/token $(grep -h 'decodeprof: record' "$TMP/${ph}_${v}_stderr.txt" | sed 's/.*sqlite: //') (${SECONDS} s)"
      [ -n "$ms" ] || tail -n 5 "$TMP/${ph}_${v}_stderr.txt"
      [ -f "$TMP/${ph}_$v.sqlite" ] && python3 -c "import sqlite3,sys
for k, v in sqlite3.connect(sys.argv[1]).execute(\"select key, value from meta where key like 'gate_%' or key like 'cupti_%' order by key\"): print('   ', k + ':', v)" "$TMP/${ph}_$v.sqlite"
      note "$ph" "$v" "$r" "$ms"
    done
  done
  for v in full sampled sampled_switch sampled_detach sampled32; do
    [ -f "$TMP/${ph}_$v.sqlite" ] || continue
    [ -n "${KEEP_TRACES:-}" ] && mkdir -p "$OUT/traces" && cp "$TMP/${ph}_$v.sqlite" "$OUT/traces/"
    timeout 120 "$DP" summarize --trace "$TMP/${ph}_$v.sqlite" --decode-range decodeprof:decode \
      --step-range decodeprof:step --quiet --out-dir "$OUT" --name "${ph}_summary_$v" 2>&1 | tail -n 4
    echo "summarize $ph $v exit: ${PIPESTATUS[0]}"
  done
}
phase_on eager && pt_phase eager
phase_on compile && pt_phase compile --compile reduce-overhead

python3 - "$OUT" <<'PY'
import json, os, statistics, sys
out = sys.argv[1]
result = {}
for ph in ("cpp", "cppprobe", "cppblocks", "eager", "compile"):
    path = os.path.join(out, f"{ph}_runs.jsonl")
    if not os.path.exists(path):
        continue
    runs = [json.loads(l) for l in open(path)]
    med = {}
    for v in dict.fromkeys(r["variant"] for r in runs):
        vals = [r["ms_per_step"] for r in runs if r["variant"] == v and r["ms_per_step"] is not None]
        med[v] = {"ms": vals, "median": statistics.median(vals) if vals else None}
    base = "plain"
    for v, m in med.items():
        b = med.get("nvtx_plain" if v.startswith("nvtx") else base, {}).get("median")
        m["slowdown_pct"] = round((m["median"] / b - 1) * 100, 2) if m["median"] and b else None
    agree = {}
    full = os.path.join(out, f"{ph}_summary_full_summary.json")
    if os.path.exists(full):
        f = json.load(open(full))
        per = lambda s: s["decode_gpu_busy_ms"] / max(1, (s.get("generated_tokens") or 2) - 1)
        for v in ("sampled", "sampled_switch", "sampled_detach", "sampled32", "kernels", "t50_1000", "t50_2000",
                  "t100_2000", "steps8", "steps8_detach", "time50_500", "time50_500_switch",
                  "time50_500_off", "nvtx_steps", "nvtx_steps_switch"):
            p = os.path.join(out, f"{ph}_summary_{v}_summary.json")
            if os.path.exists(p):
                s = json.load(open(p))
                agree[v] = {"gpu_ms_per_step": round(per(s), 4), "full": round(per(f), 4),
                            "diff_pct": round((per(s) / per(f) - 1) * 100, 3),
                            "window_source": s.get("window_source"),
                            "sampling": s.get("sampling"),
                            "steps": (s.get("generated_tokens") or 0) - 1}
    if ph == "cppblocks":
        # In-process slowdown: the whole run's step time over the same process's step time
        # between the sampled periods (CUPTI detached there: the program's own pace).
        for v, m in med.items():
            own = [r["ms_per_step"] / r["blocks"]["between"] - 1 for r in runs
                   if r["variant"] == v and r.get("blocks") and r["blocks"].get("between")
                   and r["ms_per_step"]]
            m["in_process_slowdown_pct"] = [round(x * 100, 2) for x in own]
            if own:
                m["in_process_slowdown_median_pct"] = round(statistics.median(own) * 100, 2)
    result[ph] = {"variants": med, "agreement": agree}
    print(ph, json.dumps(result[ph], indent=1))
json.dump(result, open(os.path.join(out, "sampling.json"), "w"), indent=2)
PY
echo "== done in ${SECONDS} s"
