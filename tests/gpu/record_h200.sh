#!/usr/bin/env bash
# GPU acceptance run of `decodeprof record` (issue 4), for the H200 machine (never in CI).
#
# usage: tests/gpu/record_h200.sh STAGE_DIR [PHASE...]
#   STAGE_DIR holds decodeprof, libdecodeprof_cupti.so, libsqlite3.so.0 (built on the dev
#   machine), calibrate (examples/calibrate, nvcc -arch=sm_90) and libbare_cupti.so
#   (tests/gpu/record_bare_cupti.cc); calibrate is rebuilt there when missing and nvcc is.
#   PHASE: env calib calibbare overhead decode decodefloor decodeab (default: env calib
#   calibbare overhead decode). Results go to $OUT (default /tmp/record-out): run.log,
#   calib_truth.json, calib.sqlite, calib_check.json, calib_truth_bare.json, overhead.json,
#   decode.json, crosscheck.json, decode_floor.json, decode_ab.json and raw.tar.gz (the raw
#   inputs).
set -u
STAGE=$(cd "$1" && pwd); shift
PHASES="${*:-env calib calibbare overhead decode}"
OUT=${OUT:-/tmp/record-out}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
TMP=$(mktemp -d)
exec > >(tee -a "$OUT/run.log") 2>&1
DP="$STAGE/decodeprof"
LAUNCHES=${LAUNCHES:-200000}

# The toolkit's CUPTI for programs without one of their own (a program that loaded its own,
# like PyTorch, keeps it: the recorder shares an already-loaded libcupti).
CUPTI=$(ls /usr/local/cuda/lib64/libcupti.so.13 /usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13 \
          /usr/local/cuda/targets/x86_64-linux/lib/libcupti.so.13 2>/dev/null | head -n 1)
if [ -z "$CUPTI" ]; then
  CUPTI=$(find / -xdev -name 'libcupti.so.13*' -not -path '/proc/*' 2>/dev/null | head -n 1)
fi
export DECODEPROF_CUPTI_LIB="$CUPTI"

if [ ! -x "$STAGE/calibrate" ] && command -v nvcc >/dev/null; then
  nvcc -O2 -std=c++17 -arch=sm_90 -I"$HERE/../../include" "$HERE/../../examples/calibrate/calibrate.cu" \
    -o "$TMP/calibrate" -ldl && cp "$TMP/calibrate" "$STAGE/calibrate"
fi

phase_on() { case " $PHASES " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

if phase_on env; then
  echo "== env"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
  uname -r; ldd --version | head -n 1
  echo "CUPTI: $CUPTI"; find / -xdev -name 'libcupti.so*' -not -path '/proc/*' 2>/dev/null | head
  ldd "$DP" "$STAGE/libdecodeprof_cupti.so" "$STAGE/calibrate" | grep -E 'not found|=>|:' 
  python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)'
fi

if phase_on calib; then
  echo "== calibration"
  timeout 120 "$DP" record -o "$OUT/calib.sqlite" -- "$STAGE/calibrate" truth "$OUT/calib_truth.json" \
    2> >(tee "$TMP/calib_stderr.txt" >&2)
  echo "record exit: $?"
  python3 "$HERE/record_calibrate_check.py" "$OUT/calib_truth.json" "$OUT/calib.sqlite" \
    "$TMP/calib_stderr.txt" "$OUT/calib_check.json"
  echo "check exit: $?"
fi

if phase_on overhead; then
  echo "== overhead: $LAUNCHES empty-kernel launches, 3 alternating rounds of each variant"
  # name|environment of `decodeprof record` ("" = bare run, "cupti" = the bare CUPTI floor)
  VARIANTS=("bare|" "rec|DECODEPROF_RECORD_API=1" "recnoapi|DECODEPROF_RECORD_API=0"
            "reckern|DECODEPROF_RECORD_API=0 DECODEPROF_RECORD_MEMORY=0 DECODEPROF_RECORD_FLUSH_MS=0"
            "reckernoff|DECODEPROF_RECORD_API=0 DECODEPROF_RECORD_MEMORY=0 DECODEPROF_RECORD_FLUSH_MS=0 DECODEPROF_RECORD_CLOCK=offset"
            "reckerndiscard|DECODEPROF_RECORD_API=0 DECODEPROF_RECORD_MEMORY=0 DECODEPROF_RECORD_FLUSH_MS=0 DECODEPROF_RECORD_DISCARD=1"
            "cupti|cupti")
  for round in 1 2 3; do
    for v in "${VARIANTS[@]}"; do
      name=${v%%|*}; envs=${v#*|}
      if [ -z "$envs" ]; then
        timeout 60 "$STAGE/calibrate" launch-loop "$LAUNCHES" "$TMP/ov_${name}_$round.json"
      elif [ "$envs" = cupti ]; then
        CUDA_INJECTION64_PATH="$STAGE/libbare_cupti.so" LD_LIBRARY_PATH="$(dirname "$CUPTI")" \
          timeout 60 "$STAGE/calibrate" launch-loop "$LAUNCHES" "$TMP/ov_${name}_$round.json"
      else
        # shellcheck disable=SC2086 # word splitting of the NAME=VALUE list is intended
        env $envs timeout 120 "$DP" record -o "$TMP/ov_${name}_$round.sqlite" -- \
          "$STAGE/calibrate" launch-loop "$LAUNCHES" "$TMP/ov_${name}_$round.json"
      fi
    done
  done
  python3 - "$TMP" "$OUT/overhead.json" <<'PY'
import json, sqlite3, statistics, sys
tmp, out = sys.argv[1:3]
labels = {"bare": "bare", "rec": "decodeprof record (default)",
          "recnoapi": "decodeprof record, API records off",
          "reckern": "  + memory records off, no periodic flush",
          "reckernoff": "  + offset clock mapping (no timestamp callback)",
          "reckerndiscard": "  (callback clock) + buffers discarded, no rows written",
          "cupti": "bare CUPTI, concurrent kernels only (floor)"}
res = {}
for kind in labels:
    runs = []
    for r in (1, 2, 3):
        try:
            runs.append(json.load(open(f"{tmp}/ov_{kind}_{r}.json")))
        except Exception as e:
            runs.append({"error": str(e)})
    ok = [x["us_per_launch"] for x in runs if "us_per_launch" in x]
    res[kind] = {"label": labels[kind], "runs": runs,
                 "median_us_per_launch": statistics.median(ok) if ok else None}
    if kind.startswith("rec") and kind != "reckerndiscard":
        traces = []
        for r in (1, 2, 3):
            try:
                db = sqlite3.connect(f"{tmp}/ov_{kind}_{r}.sqlite")
                traces.append({"kernels": db.execute("select count(*) from kernels").fetchone()[0],
                               "api_calls": db.execute("select count(*) from api_calls").fetchone()[0],
                               "counters": dict(db.execute("select name, value from counters"))})
            except Exception as e:
                traces.append({"error": str(e)})
        res[kind]["traces"] = traces
b = res["bare"]["median_us_per_launch"]
for kind in labels:
    m = res[kind]["median_us_per_launch"]
    res[kind]["ratio_to_bare"] = m / b if (m and b) else None
    res[kind]["extra_us_per_launch"] = m - b if (m and b) else None
json.dump(res, open(out, "w"), indent=2)
for kind, label in labels.items():
    r = res[kind]
    print(f"{label:50s} {r['median_us_per_launch']} us/launch  x{r['ratio_to_bare']}  "
          f"runs {[x.get('us_per_launch') for x in r['runs']]}")
    for t in r.get("traces", []):
        print(f"    kernels {t.get('kernels')} api {t.get('api_calls')} dropped "
              f"{t.get('counters', {}).get('cupti_dropped_records')}")
PY
fi

if phase_on calibbare; then
  # The workload alone, no recorder: its event-measured fixed kernel cost without CUPTI.
  echo "== calibration without the recorder"
  timeout 60 "$STAGE/calibrate" truth "$OUT/calib_truth_bare.json" 2>/dev/null
  echo "bare calibrate exit: $?"
  python3 -c 'import json,sys; print("event fixed cost, no recorder:", json.load(open(sys.argv[1]))["event_fixed_cost"])' "$OUT/calib_truth_bare.json"
fi

if phase_on decode; then
  # One kind of run per process (torch.profiler slows the runs that follow it in the same
  # process, so plain runs never share a process with it). Per round four processes: P
  # (plain), B (bare CUPTI, concurrent kernels only: the floor), R (decodeprof record), T
  # (torch.profiler, CPU + CUDA activity); the order rotates from round to round so that no
  # kind always runs first. ROUNDS rounds (default 5). Every process is pinned to the same
  # 4 cores (taskset), which removes the scheduler's core migrations from the noise.
  ROUNDS=${ROUNDS:-5}
  echo "== decode: $ROUNDS rounds of P (plain), B (bare CUPTI), R (decodeprof record), T (torch.profiler)"
  cd "$HERE" || exit 1
  export PYTHONUNBUFFERED=1
  PIN="taskset -c 2-5"
  command -v taskset >/dev/null || PIN=""
  KINDS=(P B R T)
  for ((i = 1; i <= ROUNDS; i++)); do
    for ((k = 0; k < 4; k++)); do
      kind=${KINDS[$(((k + i - 1) % 4))]}
      case $kind in
        P) $PIN timeout 120 python3 record_decode.py --runs plain,plain,plain --out "$TMP/decode_P$i.json" ;;
        B) CUDA_INJECTION64_PATH="$STAGE/libbare_cupti.so" $PIN timeout 120 python3 record_decode.py \
             --runs plain,plain,plain --out "$TMP/decode_B$i.json" ;;
        R) $PIN timeout 150 "$DP" record -o "$TMP/decode_R$i.sqlite" -- python3 record_decode.py \
             --runs plain,plain,plain --out "$TMP/decode_R$i.json" ;;
        T) extra=""; [ "$i" = 1 ] && extra="--torch-trace $TMP/torch_trace.json"
           # shellcheck disable=SC2086
           $PIN timeout 150 python3 record_decode.py --runs torchprof,torchprof,torchprof $extra \
             --out "$TMP/decode_T$i.json" ;;
      esac
      echo "$kind$i exit: $?"
    done
    [ "$i" -gt 1 ] && rm -f "$TMP/decode_R$i.sqlite"
  done
  python3 - "$TMP" "$OUT/decode.json" "$ROUNDS" <<'PY'
import json, statistics, sys
tmp, out, rounds_n = sys.argv[1], sys.argv[2], int(sys.argv[3])
procs = {}
for i in range(1, rounds_n + 1):
    for kind in "PBRT":
        try:
            procs[f"{kind}{i}"] = json.load(open(f"{tmp}/decode_{kind}{i}.json"))
        except Exception as e:
            procs[f"{kind}{i}"] = {"error": str(e), "runs": []}
m = lambda xs: statistics.mean(xs) if xs else None
tok = lambda kind: [r["tok_s"] for p, d in procs.items() if p[0] == kind for r in d["runs"]]
res = {"rounds": rounds_n, "processes": procs,
       "mean_tok_s": {k: m(tok(k)) for k in "PBRT"}}
for k, name in (("B", "bare_cupti"), ("R", "decodeprof"), ("T", "torch_profiler")):
    if m(tok("P")) and m(tok(k)):
        res[f"slowdown_{name}_pooled"] = 1 - m(tok(k)) / m(tok("P"))
# Per round: each process against the plain process of its round.
per = []
for i in range(1, rounds_n + 1):
    p = m([x["tok_s"] for x in procs[f"P{i}"]["runs"]])
    row = {}
    for k, name in (("B", "bare_cupti"), ("R", "decodeprof"), ("T", "torch_profiler")):
        v = m([x["tok_s"] for x in procs[f"{k}{i}"]["runs"]])
        row[name] = (1 - v / p) if (p and v) else None
    if row["decodeprof"] is not None and row["torch_profiler"]:
        row["ratio_decodeprof_to_torch_profiler"] = row["decodeprof"] / row["torch_profiler"]
    per.append(row)
res["slowdown_per_round"] = per
for name in ("bare_cupti", "decodeprof", "torch_profiler", "ratio_decodeprof_to_torch_profiler"):
    xs = [r[name] for r in per if r.get(name) is not None]
    res[f"median_{name}"] = statistics.median(xs) if xs else None
json.dump(res, open(out, "w"), indent=2)
print(json.dumps({k: v for k, v in res.items() if k != "processes"}, indent=1))
PY
  if [ -f "$TMP/decode_R1.sqlite" ] && [ -f "$TMP/torch_trace.json" ]; then
    steps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["decode_steps"])' "$TMP/decode_R1.json" 2>/dev/null || echo 64)
    # decodeprof's trace holds the warm-up run first: skip its steps.
    python3 record_crosscheck.py "$TMP/decode_R1.sqlite" "$TMP/torch_trace.json" "$OUT/crosscheck.json" "$steps"
    echo "crosscheck exit: $?"
  fi
fi

if phase_on decodefloor; then
  # Where decodeprof's decode cost goes: plain (P), bare CUPTI with concurrent kernels only
  # (B, the floor), decodeprof without launch API records (A), decodeprof without API
  # records writing nothing (D). Two rounds, one kind per process.
  echo "== decode floor: P / B (bare CUPTI) / A (record, API off) / D (record, API off, discard), 2 rounds"
  cd "$HERE" || exit 1
  export PYTHONUNBUFFERED=1
  for i in 1 2; do
    timeout 120 python3 record_decode.py --runs plain,plain,plain --out "$TMP/floor_P$i.json"
    # No LD_LIBRARY_PATH here: it would change which CUDA libraries PyTorch loads; the
    # library's libcupti.so.13 is PyTorch's, already loaded, or found by its run path.
    CUDA_INJECTION64_PATH="$STAGE/libbare_cupti.so" \
      timeout 120 python3 record_decode.py --runs plain,plain,plain --out "$TMP/floor_B$i.json"
    DECODEPROF_RECORD_API=0 timeout 150 "$DP" record -o "$TMP/floor_A$i.sqlite" -- \
      python3 record_decode.py --runs plain,plain,plain --out "$TMP/floor_A$i.json"
    DECODEPROF_RECORD_API=0 DECODEPROF_RECORD_DISCARD=1 timeout 150 "$DP" record \
      -o "$TMP/floor_D$i.sqlite" -- python3 record_decode.py --runs plain,plain,plain \
      --out "$TMP/floor_D$i.json"
  done
  python3 - "$TMP" "$OUT/decode_floor.json" <<'PY'
import json, statistics, sys
tmp, out = sys.argv[1:3]
res = {}
for kind in "PBAD":
    xs = []
    for i in (1, 2):
        try:
            xs += [r["tok_s"] for r in json.load(open(f"{tmp}/floor_{kind}{i}.json"))["runs"]]
        except Exception as e:
            res.setdefault("errors", []).append(f"{kind}{i}: {e}")
    res[kind] = {"tok_s": xs, "mean": statistics.mean(xs) if xs else None}
p = res["P"]["mean"]
for kind in "BAD":
    if p and res[kind]["mean"]:
        res[kind]["slowdown"] = 1 - res[kind]["mean"] / p
try:
    import sqlite3
    db = sqlite3.connect(f"{tmp}/floor_A1.sqlite")
    res["recorder_meta"] = dict(db.execute("select key, value from meta"))
    res["recorder_counters"] = dict(db.execute("select name, value from counters"))
except Exception as e:
    res["recorder_meta"] = str(e)
json.dump(res, open(out, "w"), indent=2)
print(json.dumps(res, indent=1))
PY
fi

if phase_on decodeab; then
  # The recorder's decode overhead inside one process, so that the machine's drift between
  # processes cancels: plain and gated runs alternate (ABAB...) under
  # `decodeprof record --only-range decodeprof:record`, which records the gated runs only
  # (record_decode.py wraps them in that NVTX range). Each gated run is paired with the mean
  # of its neighbouring plain runs. ROUNDS such processes (R), plus one process of the same
  # alternation with no recorder at all (N: its plain runs show what the injected but gated
  # library costs outside the range, against the plain runs of R; its "gated" runs, whose
  # range nobody listens to, give the pairing's null result) and one process alternating
  # plain runs with torch.profiler started and stopped around every second run (T).
  ROUNDS=${ROUNDS:-5}
  AB=plain,gated,plain,gated,plain,gated,plain,gated
  TAB=plain,torchprof_ab,plain,torchprof_ab,plain,torchprof_ab,plain,torchprof_ab
  GATE=decodeprof:record
  echo "== decodeab: $ROUNDS processes of $AB under record --only-range $GATE, one without a recorder, one with torch.profiler"
  cd "$HERE" || exit 1
  export PYTHONUNBUFFERED=1
  PIN="taskset -c 2-5"
  command -v taskset >/dev/null || PIN=""
  T_AFTER=$((ROUNDS < 2 ? 1 : 2))
  for ((i = 1; i <= ROUNDS; i++)); do
    $PIN timeout 300 "$DP" record --only-range "$GATE" -o "$TMP/ab_R$i.sqlite" -- \
      python3 record_decode.py --runs "$AB" --out "$TMP/ab_R$i.json"
    echo "R$i exit: $?"
    if [ "$i" = 1 ]; then
      $PIN timeout 300 python3 record_decode.py --runs "$AB" --out "$TMP/ab_N.json"
      echo "N exit: $?"
    fi
    if [ "$i" = "$T_AFTER" ]; then
      $PIN timeout 400 python3 record_decode.py --runs "$TAB" --out "$TMP/ab_T.json"
      echo "T exit: $?"
    fi
  done
  python3 - "$TMP" "$OUT/decode_ab.json" "$ROUNDS" "$GATE" <<'PY'
import bisect, json, sqlite3, statistics, sys
tmp, out, rounds_n, gate = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]

def load(name):
    try:
        return json.load(open(f"{tmp}/{name}.json"))
    except Exception as e:
        return {"error": str(e), "runs": []}

def med(xs):
    return statistics.median(xs) if xs else None

def mean(xs):
    return statistics.mean(xs) if xs else None

def paired(runs, kind):
    """Each run of `kind` against the mean tok/s of the nearest plain run before and after."""
    ok = [(i, r) for i, r in enumerate(runs) if "tok_s" in r]
    pairs = []
    for j, r in ok:
        if r["kind"] != kind:
            continue
        before = [x for i, x in ok if i < j and x["kind"] == "plain"][-1:]
        after = [x for i, x in ok if i > j and x["kind"] == "plain"][:1]
        refs = [x["tok_s"] for x in before + after]
        if refs:
            ref = mean(refs)
            pairs.append({"index": j, "tok_s": r["tok_s"], "neighbour_plain_tok_s": ref,
                          "neighbours": len(refs), "slowdown": 1 - r["tok_s"] / ref})
    return pairs

def process(d, kind):
    runs = d.get("runs", [])
    pairs = paired(runs, kind)
    s = [p["slowdown"] for p in pairs]
    return {"plain_mean_tok_s": mean([r["tok_s"] for r in runs if r["kind"] == "plain" and "tok_s" in r]),
            f"{kind}_mean_tok_s": mean([r["tok_s"] for r in runs if r["kind"] == kind and "tok_s" in r]),
            "errors": [r["error"] for r in runs if "error" in r] + ([d["error"]] if "error" in d else []),
            "pairs": pairs, "median_slowdown": med(s), "mean_slowdown": mean(s)}

def trace_check(path):
    """What the gated trace holds: every kernel and launch call inside a range of the gate?"""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        meta = dict(db.execute("select key, value from meta"))
        counters = dict(db.execute("select name, value from counters"))
        ranges = db.execute("select r.start_ns, r.end_ns from ranges r join strings s on "
                            "s.id = r.name_id where s.text = ? order by r.start_ns", (gate,)).fetchall()
        kernels = db.execute("select start_ns, end_ns from kernels").fetchall()
        launches = [t for (t,) in db.execute("select start_ns from api_calls")]
    except Exception as e:
        return {"error": str(e)}
    starts = [a for a, _ in ranges]
    def inside(t):
        i = bisect.bisect_right(starts, t) - 1
        return i if i >= 0 and t <= ranges[i][1] else None
    per_range = [0] * len(ranges)
    outside = ending_after = 0
    for ks, ke in kernels:
        i = inside(ks)
        if i is None:
            outside += 1
        else:
            per_range[i] += 1
            ending_after += ke > ranges[i][1]
    return {"only_range": meta.get("only_range"), "recording_status": meta.get("recording_status"),
            "complete": meta.get("complete"), "counters": counters, "gate_ranges": len(ranges),
            "kernels": len(kernels), "kernels_per_gate_range": per_range,
            "kernels_starting_outside_gate_ranges": outside,
            "kernels_ending_after_their_range": ending_after,
            "launch_calls": len(launches),
            "launch_calls_outside_gate_ranges": sum(inside(t) is None for t in launches)}

res = {"rounds": rounds_n, "gate": gate,
       "method": "paired slowdown = 1 - tok/s of a run / mean tok/s of the plain runs next to it, "
                 "within one process"}
R = {f"R{i}": process(load(f"ab_R{i}"), "gated") for i in range(1, rounds_n + 1)}
for i in range(1, rounds_n + 1):
    R[f"R{i}"]["trace"] = trace_check(f"{tmp}/ab_R{i}.sqlite")
N = process(load("ab_N"), "gated")
T = process(load("ab_T"), "torchprof_ab")
res["decodeprof_processes"] = R
res["no_recorder_process"] = N
res["torch_profiler_process"] = T
r_meds = [p["median_slowdown"] for p in R.values() if p["median_slowdown"] is not None]
res["decodeprof_per_process_median_slowdown"] = r_meds
res["decodeprof_median_slowdown"] = med(r_meds)
res["decodeprof_median_slowdown_all_pairs"] = med(
    [x["slowdown"] for p in R.values() for x in p["pairs"]])
res["no_recorder_median_slowdown"] = N["median_slowdown"]
res["torch_profiler_median_slowdown"] = T["median_slowdown"]
if res["decodeprof_median_slowdown"] is not None and T["median_slowdown"]:
    res["ratio_decodeprof_to_torch_profiler"] = res["decodeprof_median_slowdown"] / T["median_slowdown"]
r_plain = mean([p["plain_mean_tok_s"] for p in R.values() if p["plain_mean_tok_s"]])
if r_plain and N["plain_mean_tok_s"]:
    # Across processes, so within the machine's drift: the gated library outside its range.
    res["plain_tok_s_injected_gated_off"] = r_plain
    res["plain_tok_s_no_recorder"] = N["plain_mean_tok_s"]
    res["slowdown_of_plain_runs_injected_vs_none"] = 1 - r_plain / N["plain_mean_tok_s"]
json.dump(res, open(out, "w"), indent=2)
brief = {k: v for k, v in res.items() if not k.endswith("_process") and k != "decodeprof_processes"}
print(json.dumps(brief, indent=1))
for name, p in list(R.items()) + [("N", N), ("T", T)]:
    t = p.get("trace", {})
    print(f"{name}: pairs {[round(x['slowdown'], 4) for x in p['pairs']]} median {p['median_slowdown']}"
          + (f" | kernels {t.get('kernels')} outside {t.get('kernels_starting_outside_gate_ranges')}"
             f" per range {t.get('kernels_per_gate_range')} periods "
             f"{t.get('counters', {}).get('only_range_periods')}" if t else "")
          + (f" errors {p['errors']}" if p["errors"] else ""))
PY
  rm -f "$TMP"/ab_R*.sqlite  # summarized above (trace); hundreds of thousands of kernels each
fi

# Raw inputs of the summaries above, to re-check them off the machine.
(cd "$TMP" && tar czf "$OUT/raw.tar.gz" --ignore-failed-read ov_*.json decode_*.json floor_*.json ab_*.json 2>/dev/null)
ls -la "$OUT"
rm -rf "$TMP"
