#!/usr/bin/env bash
# Throughput and memory benchmark of `decodeprof summarize` on a large rocprofv3 kernel trace.
#
# usage: bench/summarize_throughput.sh [DECODEPROF] [SIZE_BYTES]
#
#   DECODEPROF   the decodeprof binary (default: build/release/src/cli/decodeprof)
#   SIZE_BYTES   size of the generated trace (default: 629145600 = 600 MiB)
#
# Generates a synthetic qwen3-moe decode run of at least SIZE_BYTES with decodeprof_gen_trace
# into a temporary directory, then measures in the same run, each best of $RUNS (default 3):
#   (a) Python's csv module reading the trace (the seed summarizer's parser), and
#   (b) `decodeprof summarize --trace ... --log ... --name bench --out-dir ...`,
# plus the peak RSS of (b) (os.wait4 rusage of each run). Prints the file size, seconds and
# MB/s of both, the throughput ratio (b over a) and the peak RSS, then PASS when the ratio is
# at least 5 and the peak RSS at most 256 MiB, FAIL otherwise.
#
# Environment: GEN_TRACE (the generator; default: the decodeprof_gen_trace built next to
# DECODEPROF, i.e. <build dir>/bench/decodeprof_gen_trace), RUNS, KEEP_TMP=1 (keep the
# temporary directory and print its path), TMPDIR (where the trace goes).
# Exit status: 0 PASS, 1 FAIL or a failed run, 2 usage error.
set -euo pipefail

usage() {
  sed -n '3,7p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

case "${1:-}" in -h | --help) usage ;; esac
[[ $# -le 2 ]] || usage

decodeprof=${1:-build/release/src/cli/decodeprof}
size=${2:-629145600}
runs=${RUNS:-3}
[[ $size =~ ^[0-9]+$ && $size -gt 0 ]] || { echo "SIZE_BYTES must be a positive integer: $size" >&2; exit 2; }
[[ $runs =~ ^[0-9]+$ && $runs -gt 0 ]] || { echo "RUNS must be a positive integer: $runs" >&2; exit 2; }
[[ -x $decodeprof ]] || { echo "decodeprof binary not found: $decodeprof (build it first)" >&2; exit 2; }

build_dir=$(cd "$(dirname "$decodeprof")/../.." && pwd)
gen=${GEN_TRACE:-$build_dir/bench/decodeprof_gen_trace}
[[ -x $gen ]] || {
  echo "generator not found: $gen (cmake --build $build_dir --target decodeprof_gen_trace," \
       "or set GEN_TRACE)" >&2
  exit 2
}
command -v python3 >/dev/null || { echo "python3 not found" >&2; exit 2; }

work=$(mktemp -d -t decodeprof-bench.XXXXXX)
if [[ ${KEEP_TMP:-0} == 1 ]]; then
  echo "keeping $work" >&2
else
  trap 'rm -rf "$work"' EXIT
fi

echo "generating a qwen3-moe trace of at least $size bytes ..." >&2
"$gen" --model qwen3-moe --name bench --out-dir "$work/run" --target-bytes "$size" >&2

python3 - "$decodeprof" "$work" "$runs" <<'PY'
import os
import subprocess
import sys
import time

decodeprof, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
run = os.path.join(work, "run")
trace = os.path.join(run, "bench_kernel_trace.csv")
size = os.path.getsize(trace)

# Both readers start from a warm page cache.
with open(trace, "rb") as f:
    while f.read(1 << 24):
        pass

CSV_READER = "import csv,sys; n=sum(1 for _ in csv.reader(open(sys.argv[1], newline='')))"


def timed(cmd, tag):
    """Runs cmd; returns (seconds, peak RSS in KiB) from the child's own rusage."""
    out_path = os.path.join(work, tag + ".out")
    with open(out_path, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        with open(out_path, "rb") as f:
            tail = f.read()[-2000:].decode("utf-8", "replace")
        sys.stderr.write(f"{tag} failed with exit status {proc.returncode}:\n{tail}\n")
        print("FAIL")
        sys.exit(1)
    return seconds, usage.ru_maxrss


python_runs = [timed([sys.executable, "-c", CSV_READER, trace], "python_csv") for _ in range(runs)]
summarize = [
    decodeprof, "summarize",
    "--trace", trace,
    "--log", os.path.join(run, "bench_bench.log"),
    "--plain-log", os.path.join(run, "bench_plain_bench.log"),
    "--model-dir", os.path.join(run, "bench_model"),
    "--name", "bench",
    "--out-dir", os.path.join(work, "out"),
]
dp_runs = [timed(summarize, "decodeprof") for _ in range(runs)]

mb = size / 1e6
py_s = min(s for s, _ in python_runs)
dp_s = min(s for s, _ in dp_runs)
py_rate, dp_rate = mb / py_s, mb / dp_s
ratio = dp_rate / py_rate
peak_mib = max(rss for _, rss in dp_runs) / 1024.0
with open(os.path.join(work, "decodeprof.out"), "rb") as f:
    dp_line = f.read().decode("utf-8", "replace").strip().splitlines()

print(f"trace:                 {trace}")
print(f"file size:             {size} bytes ({mb:.1f} MB)")
print(f"python csv.reader:     {py_s:8.3f} s  {py_rate:8.1f} MB/s  (best of {runs})")
print(f"decodeprof summarize:  {dp_s:8.3f} s  {dp_rate:8.1f} MB/s  (best of {runs})")
if dp_line:
    print(f"decodeprof said:       {dp_line[-1]}")
print(f"throughput ratio:      {ratio:.2f}x (decodeprof over python csv; need >= 5)")
print(f"peak RSS (decodeprof): {peak_mib:.1f} MiB (limit 256)")
ok = ratio >= 5.0 and peak_mib <= 256.0
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
