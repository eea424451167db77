#!/usr/bin/env bash
# GPU acceptance run of `decodeprof record` (issue 4), for the H200 machine (never in CI).
#
# usage: tests/gpu/record_h200.sh STAGE_DIR [PHASE...]
#   STAGE_DIR holds decodeprof, libdecodeprof_cupti.so, libsqlite3.so.0 (built on the dev
#   machine), calibrate (examples/calibrate, nvcc -arch=sm_90) and libbare_cupti.so
#   (tests/gpu/record_bare_cupti.cc); calibrate is rebuilt there when missing and nvcc is.
#   PHASE: env calib overhead decode (default: all). Results go to $OUT (default
#   /tmp/record-out): run.log, calib_truth.json, calib.sqlite, calib_check.json,
#   overhead.json, decode.json, crosscheck.json and raw.tar.gz (the raw inputs).
set -u
STAGE=$(cd "$1" && pwd); shift
PHASES="${*:-env calib overhead decode}"
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
  echo "== overhead: $LAUNCHES empty-kernel launches; bare / recorded / recorded without API records / bare CUPTI"
  for round in 1 2 3; do
    timeout 60 "$STAGE/calibrate" launch-loop "$LAUNCHES" "$TMP/ov_bare_$round.json"
    timeout 120 "$DP" record -o "$TMP/ov_rec_$round.sqlite" -- \
      "$STAGE/calibrate" launch-loop "$LAUNCHES" "$TMP/ov_rec_$round.json"
    DECODEPROF_RECORD_API=0 timeout 120 "$DP" record -o "$TMP/ov_recnoapi_$round.sqlite" -- \
      "$STAGE/calibrate" launch-loop "$LAUNCHES" "$TMP/ov_recnoapi_$round.json"
    CUDA_INJECTION64_PATH="$STAGE/libbare_cupti.so" LD_LIBRARY_PATH="$(dirname "$CUPTI")" \
      timeout 60 "$STAGE/calibrate" launch-loop "$LAUNCHES" "$TMP/ov_cupti_$round.json"
  done
  python3 - "$TMP" "$OUT/overhead.json" <<'PY'
import json, sqlite3, statistics, sys
tmp, out = sys.argv[1:3]
res = {}
for kind in ("bare", "rec", "recnoapi", "cupti"):
    runs = []
    for r in (1, 2, 3):
        try:
            runs.append(json.load(open(f"{tmp}/ov_{kind}_{r}.json")))
        except Exception as e:
            runs.append({"error": str(e)})
    ok = [x["us_per_launch"] for x in runs if "us_per_launch" in x]
    res[kind] = {"runs": runs, "median_us_per_launch": statistics.median(ok) if ok else None}
    if kind.startswith("rec"):
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
for kind in ("rec", "recnoapi", "cupti"):
    m = res[kind]["median_us_per_launch"]
    res[kind]["ratio_to_bare"] = m / b if (m and b) else None
json.dump(res, open(out, "w"), indent=2)
for kind, label in (("bare", "bare"), ("rec", "decodeprof record"),
                    ("recnoapi", "decodeprof record, API records off"), ("cupti", "bare CUPTI (kernels only)")):
    print(f"{label:40s} {res[kind]['median_us_per_launch']} us/launch  ratio {res[kind].get('ratio_to_bare')}")
for kind in ("rec", "recnoapi"):
    print(kind, [t.get("kernels") for t in res[kind]["traces"]], [t.get("counters", {}).get("cupti_dropped_records") for t in res[kind]["traces"]])
PY
fi

if phase_on decode; then
  echo "== decode: plain vs torch.profiler (alternating, one process), then decodeprof record, then plain again"
  cd "$HERE" || exit 1
  export PYTHONUNBUFFERED=1
  timeout 240 python3 record_decode.py --runs plain,torchprof,plain,torchprof,plain,torchprof,torchprof_cuda \
    --torch-trace "$TMP/torch_trace.json" --out "$TMP/decode_A.json"
  echo "A exit: $?"
  timeout 180 "$DP" record -o "$TMP/decode_rec.sqlite" -- python3 record_decode.py --runs plain,plain,plain \
    --out "$TMP/decode_B.json"
  echo "B exit: $?"
  timeout 150 python3 record_decode.py --runs plain,plain,plain --out "$TMP/decode_C.json"
  echo "C exit: $?"
  python3 - "$TMP" "$OUT/decode.json" <<'PY'
import json, statistics, sys
tmp, out = sys.argv[1:3]
runs = {}
for p in "ABC":
    try:
        runs[p] = json.load(open(f"{tmp}/decode_{p}.json"))
    except Exception as e:
        runs[p] = {"error": str(e), "runs": []}
def tok(p, kind):
    return [r["tok_s"] for r in runs[p]["runs"] if r["kind"] == kind]
plain_a, prof, prof_cuda = tok("A", "plain"), tok("A", "torchprof"), tok("A", "torchprof_cuda")
rec, plain_c = tok("B", "plain"), tok("C", "plain")
plain = plain_a + plain_c
m = lambda xs: statistics.mean(xs) if xs else None
res = {"processes": runs,
       "tok_s": {"plain_A": plain_a, "plain_C": plain_c, "torch_profiler": prof,
                 "torch_profiler_cuda_only": prof_cuda, "decodeprof_record": rec}}
if plain and rec and prof and plain_a:
    res["slowdown_decodeprof"] = 1 - m(rec) / m(plain)
    res["slowdown_torch_profiler"] = 1 - m(prof) / m(plain_a)
    if prof_cuda:
        res["slowdown_torch_profiler_cuda_only"] = 1 - m(prof_cuda) / m(plain_a)
json.dump(res, open(out, "w"), indent=2)
print(json.dumps({k: v for k, v in res.items() if k != "processes"}, indent=1))
PY
  if [ -f "$TMP/decode_rec.sqlite" ] && [ -f "$TMP/torch_trace.json" ]; then
    steps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["decode_steps"])' "$TMP/decode_B.json" 2>/dev/null || echo 64)
    # decodeprof's trace holds the warm-up run first: skip its steps.
    python3 record_crosscheck.py "$TMP/decode_rec.sqlite" "$TMP/torch_trace.json" "$OUT/crosscheck.json" "$steps"
    echo "crosscheck exit: $?"
  fi
fi
# Raw inputs of the summaries above, to re-check them off the machine.
(cd "$TMP" && tar czf "$OUT/raw.tar.gz" --ignore-failed-read ov_*.json decode_*.json \
   decode_rec.sqlite torch_trace.json 2>/dev/null)
ls -la "$OUT"
rm -rf "$TMP"
