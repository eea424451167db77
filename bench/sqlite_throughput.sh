#!/usr/bin/env bash
# Throughput and memory of `decodeprof summarize` on large SQLite traces — native (default),
# Nsight Systems exports (FORMAT=nsys) or rocpd databases (FORMAT=rocpd) — at three sizes,
# against baselines measured in the same run (issue 14).
#
# usage: bench/sqlite_throughput.sh [DECODEPROF] [KERNELS...]
#
#   DECODEPROF  the decodeprof binary (default: build/release/src/cli/decodeprof)
#   KERNELS     trace sizes in kernels (default: 1250000 2500000 5000000)
#
# Each trace (bench/gen_native_trace.cc, gen_nsys_trace.cc, gen_rocpd_trace.cc: KERNELS
# kernels with their launch records, a decodeprof:decode range over the last 7 steps of 500
# kernels) is summarized with its ranges; best of $RUNS (default 3). Baselines on the same
# file: Python's sqlite3 module scanning the kernels table (`SELECT * FROM kernels`; nsys:
# CUPTI_ACTIVITY_KIND_KERNEL; rocpd: the plain view rocpd_kernel_dispatch) and, when the
# sqlite3 shell is installed, a plain SQLite scan (`SELECT sum(start_ns) FROM kernels`; nsys,
# rocpd: sum(start)). Prints kernels/s, the ratios, the peak RSS (os.wait4) and the CPU
# seconds (user + system: on a loaded machine, what the wall clock is not) per size; PASS
# when every size runs at >= 2 M kernels/s with a peak RSS under 128 MiB, FAIL otherwise.
# WINDOW=all summarizes with --window all (the whole trace is the window: the case of a
# recording of the decode alone); the RSS bar is then not applied (the window holds every
# dispatch), the 2 M kernels/s bar is.
# Environment: FORMAT (native, nsys or rocpd: the nsys and rocpd generators use the
# test-support writers, so they exist only in a build with tests, which the release preset is
# too), GEN (the generator; default: the one built next to DECODEPROF, or for nsys in
# build/default), RUNS, TMPDIR.
set -euo pipefail
decodeprof=${1:-build/release/src/cli/decodeprof}
shift || true
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(1250000 2500000 5000000)
[[ -x $decodeprof ]] || { echo "decodeprof binary not found: $decodeprof (build it first)" >&2; exit 2; }
build_dir=$(cd "$(dirname "$decodeprof")/../.." && pwd)
format=${FORMAT:-native}
case $format in
  native) gen=${GEN:-$build_dir/bench/decodeprof_gen_native_trace}; table=kernels; column=start_ns ;;
  nsys) gen=${GEN:-build/default/bench/decodeprof_gen_nsys_trace}; table=CUPTI_ACTIVITY_KIND_KERNEL; column=start ;;
  rocpd) gen=${GEN:-$build_dir/bench/decodeprof_gen_rocpd_trace}; table=rocpd_kernel_dispatch; column=start ;;
  *) echo "FORMAT must be native, nsys or rocpd: $format" >&2; exit 2 ;;
esac
[[ -x $gen ]] || { echo "generator not found: $gen (cmake --build <its build dir> --target $(basename "$gen"))" >&2; exit 2; }
work=$(mktemp -d -t decodeprof-native-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
for n in "${sizes[@]}"; do "$gen" "$work/k$n.sqlite" "$n" 7 >&2; done
window=${WINDOW:-decode}
case $window in
  decode | all) ;;
  *) echo "WINDOW must be decode or all: $window" >&2; exit 2 ;;
esac
python3 - "$decodeprof" "$work" "${RUNS:-3}" "$table" "$column" "$window" "${sizes[@]}" <<'PY'
import os, shutil, sqlite3, subprocess, sys, time
dp, work, runs, table, column = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
window = sys.argv[6]
sizes = [int(x) for x in sys.argv[7:]]

def timed(argv):
    best, rss, cpu = None, 0, None
    for _ in range(runs):
        t = time.perf_counter()
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, use = os.wait4(p.pid, 0)
        dt = time.perf_counter() - t
        if status != 0:
            sys.exit(f"failed: {' '.join(argv)}")
        best = dt if best is None else min(best, dt)
        rss = max(rss, use.ru_maxrss)  # KiB on Linux
        used = use.ru_utime + use.ru_stime
        cpu = used if cpu is None else min(cpu, used)
    timed.cpu = cpu  # CPU seconds of the best run: what a loaded machine changes least
    return best, rss

def py_scan(path):
    best = None
    for _ in range(runs):
        t = time.perf_counter()
        n = sum(1 for _ in sqlite3.connect(path).execute(f"SELECT * FROM {table}"))
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return best

shell = shutil.which("sqlite3")
ok = True
print(f"window: {window}; load: {os.getloadavg()[0]:.2f} (1-minute average, {os.cpu_count()} CPUs)")
print(f"{'kernels':>9} {'MB':>6} {'summarize s':>11} {'M kernels/s':>11} {'peak RSS MiB':>12} "
      f"{'python scan s':>13} {'x python':>8} {'sqlite scan s':>13} {'x sqlite':>8} {'cpu s':>6}")
for n in sizes:
    path = f"{work}/k{n}.sqlite"
    mb = os.path.getsize(path) / 1e6
    s, rss = timed([dp, "summarize", "--trace", path, "--name", f"b{n}", "--out-dir", f"{work}/out",
                    "--quiet"] + (["--window", "all"] if window == "all" else []))
    cpu = timed.cpu
    py = py_scan(path)
    sq = timed([shell, path, f"SELECT sum({column}) FROM {table}"])[0] if shell else None
    rate = n / s / 1e6
    ok &= rate >= 2 and (window == "all" or rss / 1024 < 128)
    print(f"{n:>9} {mb:>6.0f} {s:>11.2f} {rate:>11.2f} {rss / 1024:>12.1f} {py:>13.2f} "
          f"{py / s:>8.2f} " + (f"{sq:>13.2f} {sq / s:>8.2f}" if sq else f"{'-':>13} {'-':>8}") +
          f" {cpu:>6.2f}")
print("PASS" if ok else "FAIL", "(>= 2 M kernels/s" +
      (" and peak RSS < 128 MiB" if window == "decode" else "") + " at every size)")
sys.exit(0 if ok else 1)
PY
