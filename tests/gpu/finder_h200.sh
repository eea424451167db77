#!/usr/bin/env bash
# Real traces of four decode styles, each recorded with its step marks, for developing the
# marks-free decode-loop finder against the marked truth (GPU machine, never in CI):
#   pt_compile  tests/gpu/decode_styles.py --mode compile (torch.compile reduce-overhead,
#               StaticCache: one cudagraph-trees replay a step; the step never synchronizes)
#   pt_eager    decode_styles.py --mode eager (transformers DynamicCache, op by op; no sync)
#   cpp_graph   examples/graph_loop --nvtx --generates 3 (one CUDA graph a token, read back)
#   cpp_eager   graph_loop --eager --layers 124 --nvtx --generates 3 (~500 kernels a token,
#               the token read back every step)
# Each Python style runs twice, plain and under `decodeprof record`, and the two runs' token
# ids must be equal (verdict in run.log); the graph_loop styles are recorded only. Every
# trace is summarized as recorded and again as a copy with every row of its ranges table
# deleted (NAME.noranges.sqlite: the finder's input; that summarize may fail, its exit code
# and stderr are kept and the script goes on).
#
# usage: tests/gpu/finder_h200.sh STAGE_DIR   (decodeprof, libdecodeprof_cupti.so,
#   libsqlite3.so.0, libsimdjson.so.14 and graph_loop — nvcc -arch=sm_90
#   examples/graph_loop/graph_loop.cu — in STAGE_DIR)
#   LAYERS (8), STEPS (128), GENERATES (3), PROMPT (128): the Python styles' settings (STEPS
#   and GENERATES also graph_loop's); DEADLINE (470 s): every step's limit is cut to what is
#   left of it, and packing the results takes at most ~50 s after it (under 9 minutes).
# Results in $OUT (default /tmp/finder-out), 6 files: NAME.sqlite.xz for the four styles
# (the marked traces), summaries.tar.xz (sum/: both summaries of each trace with stdout and
# stderr; runs/: each run's results JSON — token ids — or graph_loop truth JSON and its
# log) and run.log (commands, exit codes, timings, token-id verdicts, what each trace holds,
# the summaries' window figures).
set -u
OUT=${OUT:-/tmp/finder-out}
LAYERS=${LAYERS:-8}
STEPS=${STEPS:-128}
GENERATES=${GENERATES:-3}
PROMPT=${PROMPT:-128}
DEADLINE=${DEADLINE:-470}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/common.sh"
dp_start "$1"
W=$(mktemp -d /tmp/finder.XXXXXX)
mkdir -p "$W/sum" "$W/runs"
export TORCHINDUCTOR_CACHE_DIR="$W/inductor-cache" # shared: the recorded run loads the plain one's kernels
cd "$ROOT" || exit 1
SECONDS=0
echo "== finder_h200: LAYERS=$LAYERS STEPS=$STEPS GENERATES=$GENERATES PROMPT=$PROMPT, $(date -u +%FT%TZ), CUPTI ${DECODEPROF_CUPTI_LIB:-none}"
timeout 20 nvidia-smi -L

lim() { # N [RESERVE]: N, or what is left of DEADLINE less RESERVE when that is less (at least 1)
  local left=$((DEADLINE - ${2:-0} - SECONDS))
  [ "$left" -lt 1 ] && left=1
  if [ "$left" -lt "$1" ]; then echo "$left"; else echo "$1"; fi
}

# run NAME LIMIT CMD...: one bounded run, its stdout and stderr in runs/NAME.log.
run() {
  local name=$1 l=$2 t0=$SECONDS rc; shift 2
  echo "-- $name (limit $l s): $*"
  timeout -k 10 "$l" "$@" > "$W/runs/$name.log" 2>&1
  rc=$?
  echo "$name: exit $rc after $((SECONDS - t0)) s (${SECONDS} s into the script)"
  grep -E '^(generate|warm-up|\[compile\]|graph_loop:|decodeprof: record)' "$W/runs/$name.log" | cut -c1-400
  [ "$rc" = 0 ] || tail -n 15 "$W/runs/$name.log"
  return "$rc"
}

# ids PLAIN RECORDED: are the two runs' token ids equal, call by call.
ids() {
  python3 - "$1" "$2" <<'PY'
import json, sys
try:
    a, b = (json.load(open(p)) for p in sys.argv[1:3])
except Exception as e:  # noqa: BLE001
    print(f"token ids: NO VERDICT ({type(e).__name__}: {e})"); sys.exit()
ga, gb = a["generates"], b["generates"]
bad = []
for i, (x, y) in enumerate(zip(ga, gb)):
    if x["token_ids"] != y["token_ids"]:
        at = next((j for j, (p, q) in enumerate(zip(x["token_ids"], y["token_ids"])) if p != q),
                  min(len(x["token_ids"]), len(y["token_ids"])))
        bad.append(f"call {i + 1} first differs at position {at}")
if len(ga) != len(gb):
    bad.append(f"calls {len(ga)} vs {len(gb)}")
n = [len(x["token_ids"]) for x in ga]
print(f"token ids: {'EQUAL' if not bad else 'DIFFER'} ({len(ga)} calls of {n} ids; plain vs recorded)"
      + ("" if not bad else ": " + "; ".join(bad)))
for tag, d in (("plain", a), ("recorded", b)):
    print(f"  {tag}: decode wall ms {[round(g['decode_wall_ms'], 1) for g in d['generates']]}, "
          f"GPU ms {[round(g['decode_gpu_ms'], 1) for g in d['generates']]}, sync warnings "
          f"{[g['sync_warnings'] for g in d['generates']]} {d['generates'][0].get('first_sync_warning') or ''}"
          + (f", compile {d['compile']}" if "compile" in d else ""))
PY
}

# facts TRACE: what a trace holds (rows, ranges by name, launches inside decode ranges).
facts() {
  timeout 60 python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
q = lambda s: db.execute(s).fetchall()
n = {t: q(f"SELECT COUNT(*) FROM {t}")[0][0] for t in ("kernels", "memory_ops", "api_calls", "ranges", "marks")}
g = q("SELECT COUNT(*) FROM kernels WHERE graph_id != 0")[0][0]
print(f"  rows {n}; kernels from graphs {g}")
print("  ranges", dict(q("SELECT s.text, COUNT(*) FROM ranges r JOIN strings s ON s.id = r.name_id GROUP BY s.text")))
print("  meta", {k: v for k, v in q("SELECT key, value FROM meta WHERE key IN ('recording_status', 'complete', 'clock_mapping')")},
      "counters", {k: v for k, v in q("SELECT name, value FROM counters WHERE value != 0")})
dec = q("SELECT r.start_ns, r.end_ns FROM ranges r JOIN strings s ON s.id = r.name_id "
        "WHERE s.text = 'decodeprof:decode' ORDER BY r.start_ns")
for i, (a, b) in enumerate(dec):
    steps = q(f"SELECT COUNT(*) FROM ranges r JOIN strings s ON s.id = r.name_id WHERE s.text = "
              f"'decodeprof:step' AND r.start_ns >= {a} AND r.end_ns <= {b}")[0][0]
    kl = q(f"SELECT COUNT(*), SUM(k.graph_id != 0) FROM api_calls c JOIN kernels k ON k.correlation = c.correlation "
           f"WHERE c.start_ns >= {a} AND c.start_ns <= {b}")[0]
    gl = q(f"SELECT COUNT(*) FROM api_calls c JOIN strings s ON s.id = c.name_id WHERE s.text LIKE '%GraphLaunch%' "
           f"AND c.start_ns >= {a} AND c.start_ns <= {b}")[0][0]
    print(f"  decode range {i + 1}: {(b - a) / 1e6:.1f} ms, {steps} steps, {kl[0]} kernels launched in it "
          f"({kl[1] or 0} from graphs), {gl} graph launches")
PY
  echo "  facts exit: $?"
}

# summarize NAME TRACE: one summary into sum/, its exit code, and the window's figures.
summ() {
  local name=$1 trace=$2 l rc
  l=$(lim 60)
  timeout -k 5 "$l" "$DP" summarize --trace "$trace" --name "$name" --out-dir "$W/sum" \
    > "$W/sum/$name.stdout" 2> "$W/sum/$name.stderr"
  rc=$?
  echo "$rc" > "$W/sum/$name.exit"
  echo "summarize $name: exit $rc (limit $l s)"
  [ "$rc" = 0 ] || tail -n 5 "$W/sum/$name.stderr" | cut -c1-600
  [ -f "$W/sum/${name}_summary.json" ] && [ "$rc" = 0 ] && python3 - "$W/sum/${name}_summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
keys = ("decode_dispatches", "decode_forward_passes", "generated_tokens", "gpu_ms_per_token",
        "decode_gpu_busy_ms", "dispatches_per_token", "window_source")
print("  " + ", ".join(f"{k} {s.get(k)}" for k in keys))
print("  window_evidence", json.dumps(s.get("window_evidence")))
PY
}

# style NAME: the trace's ranges-free copy, facts and both summaries.
style() {
  local name=$1 trace="$W/$1.sqlite"
  if [ ! -s "$trace" ]; then
    echo "== $name: no trace"
    return
  fi
  echo "== $name: $(du -h "$trace" | cut -f1) trace"
  facts "$trace"
  cp "$trace" "$W/$name.noranges.sqlite"
  timeout 60 python3 - "$W/$name.noranges.sqlite" <<'PY'
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = db.execute("DELETE FROM ranges").rowcount
db.commit()
left = db.execute("SELECT COUNT(*) FROM ranges").fetchone()[0]
marks = db.execute("SELECT COUNT(*) FROM marks").fetchone()[0]
db.close()
print(f"  {os.path.basename(sys.argv[1])}: {n} ranges deleted, {left} left; NVTX marks kept: {marks}")
PY
  echo "  ranges deletion exit: $?"
  summ "$name" "$trace"
  summ "$name.noranges" "$W/$name.noranges.sqlite"
}

# The two graph_loop styles (seconds each), then the Python ones (eager, then the compiled
# one: the longest, its first run compiles cold).
GL=(--nvtx --generates "$GENERATES" --steps "$STEPS")
run cpp_graph "$(lim 60 60)" "$DP" record -o "$W/cpp_graph.sqlite" -- \
  "$STAGE/graph_loop" "${GL[@]}" --out "$W/runs/cpp_graph_truth.json"
style cpp_graph
run cpp_eager "$(lim 90 60)" "$DP" record -o "$W/cpp_eager.sqlite" -- \
  "$STAGE/graph_loop" --eager --layers 124 "${GL[@]}" --out "$W/runs/cpp_eager_truth.json"
style cpp_eager

PY_ARGS=(--layers "$LAYERS" --steps "$STEPS" --generates "$GENERATES" --prompt "$PROMPT")
for mode in eager compile; do
  name=pt_$mode
  # limits and reserves (s): the eager runs leave time for the compiled ones, whose first
  # run compiles cold; the last leaves ~20 s for its summaries.
  if [ "$mode" = eager ]; then l1=$(lim 100 250); else l1=$(lim 240 80); fi
  run "${name}_plain" "$l1" python3 "$HERE/decode_styles.py" --mode "$mode" \
    "${PY_ARGS[@]}" --out "$W/runs/${name}_plain.json"
  if [ "$mode" = eager ]; then l2=$(lim 120 220); else l2=$(lim 200 20); fi
  run "${name}_record" "$l2" "$DP" record -o "$W/$name.sqlite" -- \
    python3 "$HERE/decode_styles.py" --mode "$mode" "${PY_ARGS[@]}" --out "$W/runs/${name}_record.json"
  echo "== $name $(ids "$W/runs/${name}_plain.json" "$W/runs/${name}_record.json")"
  style "$name"
done

echo "== packing after ${SECONDS} s"
plim() { # N: N, or what is left before 530 s into the script (at least 1)
  local left=$((530 - SECONDS))
  [ "$left" -lt 1 ] && left=1
  if [ "$left" -lt "$1" ]; then echo "$left"; else echo "$1"; fi
}
for f in "$W/sum"/* "$W/runs"/*; do
  [ -f "$f" ] && dp_scrub "$f" "$ROOT/" "$W/"
done
for name in pt_compile pt_eager cpp_graph cpp_eager; do
  [ -s "$W/$name.sqlite" ] || continue
  timeout "$(plim 40)" xz -T0 -6 -c "$W/$name.sqlite" > "$OUT/$name.sqlite.xz"
  echo "xz $name: exit $?, $(stat -c %s "$W/$name.sqlite") -> $(stat -c %s "$OUT/$name.sqlite.xz") bytes"
done
(cd "$W" && timeout "$(plim 20)" tar cJf "$OUT/summaries.tar.xz" sum runs)
echo "summaries.tar.xz: exit $?"
ls -la "$OUT"
echo "== done after ${SECONDS} s"
rm -rf "$W"
