#!/usr/bin/env bash
# Throughput and memory of `decodeprof summarize` on a large torch.profiler (Kineto) trace.
#
# usage: bench/kineto_throughput.sh [DECODEPROF] [STEPS] [KERNELS_PER_STEP]
#
#   DECODEPROF        the decodeprof binary (default: build/release/src/cli/decodeprof)
#   STEPS, KERNELS    the generated decode (default 200 x 1400: about 250 MB of JSON)
#
# Generates the trace with bench/gen_kineto_trace.py, then measures in the same run, each
# best of $RUNS (default 3): (a) the baseline a PyTorch user has, Python's json.load of the
# trace plus a list of its kernel events, and (b) `decodeprof summarize --trace T.json`
# (stream parse, window, attribution, outputs). Prints seconds and peak RSS of both and the
# ratios; PASS when (b) is at least 1.5 times as fast and its peak RSS at most 256 MiB.
# Exit status: 0 PASS, 1 FAIL or a failed run, 2 usage error.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;; esac
decodeprof=${1:-build/release/src/cli/decodeprof}
steps=${2:-200}
per=${3:-1400}
runs=${RUNS:-3}
[[ -x $decodeprof ]] || { echo "decodeprof binary not found: $decodeprof (build it first)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 not found" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d -t decodeprof-kineto.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "generating a Kineto trace of $steps steps x $per kernels ..." >&2
python3 "$here/gen_kineto_trace.py" "$work/trace.json" "$steps" "$per"

python3 - "$decodeprof" "$work" "$runs" "$steps" <<'PY'
import os, subprocess, sys, time
decodeprof, work, runs, steps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
trace = f"{work}/trace.json"
baseline = ("import json,sys\nd=json.load(open(sys.argv[1]))\n"
            "k=[(e['name'],e['ts'],e['dur']) for e in d['traceEvents'] if e.get('cat')=='kernel']\n"
            "print(len(k))\n")
def measure(cmd):
    best = None
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        dt = time.perf_counter() - t0
        if status != 0:
            sys.exit(f"failed: {' '.join(cmd)}: {p.stderr.read().decode()}")
        rss = usage.ru_maxrss / 1024
        best = (dt, rss) if best is None or dt < best[0] else best
    return best
size = os.path.getsize(trace) / 1e6
py = measure([sys.executable, "-c", baseline, trace])
dp = measure([decodeprof, "summarize", "--trace", trace, "--name", "bench",
              "--out-dir", f"{work}/out", "--generated-tokens", str(steps + 1)])
print(f"trace: {size:.1f} MB")
print(f"python json.load + kernel list: {py[0]:.2f} s ({size / py[0]:.0f} MB/s), peak RSS {py[1]:.0f} MiB")
print(f"decodeprof summarize:           {dp[0]:.2f} s ({size / dp[0]:.0f} MB/s), peak RSS {dp[1]:.0f} MiB")
ratio, mem = py[0] / dp[0], py[1] / dp[1]
print(f"speed ratio {ratio:.2f}x, memory ratio {mem:.1f}x")
ok = ratio >= 1.5 and dp[1] <= 256
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
