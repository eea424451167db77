#!/usr/bin/env bash
# Throughput and peak memory of the Kineto importer at several trace sizes, against baselines
# measured in the same run.
#
# usage: bench/kineto_import.sh [BENCH] [SIZE_MB...]
#
#   BENCH     the decodeprof_kineto_bench binary (default:
#             build/release/bench/decodeprof_kineto_bench)
#   SIZE_MB   trace sizes in MB (default: 64 256 1024)
#
# For each size, generates a libkineto-shaped trace with bench/gen_kineto_trace.py (1400
# kernels per step, about 1.26 MB a step) and times, each best of $RUNS (default 3) in a child
# process, the wall time and the peak RSS (the child's own VmHWM; a child's ru_maxrss would
# also count the Python driver it was forked from):
#   cat        cat FILE > /dev/null, the I/O floor (the file is in the page cache);
#   ondemand   a plain simdjson On-Demand pass: the file loaded into a padded string, every
#              event visited, name/ts/dur read from kernel events (decodeprof_kineto_bench);
#   import     the importer plug-in, keeping the dispatches of a 1 ms decode window;
#   summarize  `decodeprof summarize` of the same trace, whole pipeline, with the trace's
#              decodeprof:decode range over its last 7 steps (a small window in a large file):
#              its peak RSS is the figure that must not grow with the file ($DECODEPROF,
#              default build/release/src/cli/decodeprof; peak RSS from wait4's ru_maxrss);
#   python     json.load plus the list of kernel events, up to $PYTHON_MAX_MB (default 300:
#              at 1 GB it takes half a minute and 4 GB of memory).
# Prints MB/s, the importer's speed as a multiple of each, and peak RSS; then PASS when, at
# every size, the importer runs at least 0.8 times as fast as the On-Demand pass and the peak
# RSS of the importer and of summarize stays under 128 MiB. Environment: RUNS,
# PYTHON_MAX_MB, DECODEPROF, TMPDIR, KEEP_TMP=1.
# Exit status: 0 PASS, 1 FAIL or a failed run, 2 usage error.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '3,27p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;; esac
bench=${1:-build/release/bench/decodeprof_kineto_bench}
shift || true
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(64 256 1024)
[[ -x $bench ]] || { echo "benchmark binary not found: $bench (build it first)" >&2; exit 2; }
decodeprof=${DECODEPROF:-build/release/src/cli/decodeprof}
[[ -x $decodeprof ]] || { echo "decodeprof not found: $decodeprof (set DECODEPROF)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 not found" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d -t decodeprof-kineto-import.XXXXXX)
if [[ ${KEEP_TMP:-0} == 1 ]]; then echo "keeping $work" >&2; else trap 'rm -rf "$work"' EXIT; fi

python3 - "$bench" "$here/gen_kineto_trace.py" "$work" "${RUNS:-3}" "${PYTHON_MAX_MB:-300}" \
    "$decodeprof" "${sizes[@]}" <<'PY'
import os, subprocess, sys, time
bench, gen, work, runs, python_max = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
decodeprof = sys.argv[6]
sizes = [float(s) for s in sys.argv[7:]]
BASE = 1775078550000000000  # the generator's baseTimeNanoseconds; its first step starts at 1 ms
window = [str(BASE + 1_000_000), str(BASE + 2_000_000)]
baseline = ("import json,sys\nd=json.load(open(sys.argv[1]))\n"
            "k=[(e['name'],e['ts'],e['dur']) for e in d['traceEvents'] if e.get('cat')=='kernel']\n"
            "hwm=[l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1]\n"
            "print(len(k), 'peak_rss_kib', hwm)\n")

def measure(cmd):
    best = None
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = p.stdout.read(), p.stderr.read()
        _, status, usage = os.wait4(p.pid, 0)
        dt = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            sys.exit(f"failed: {' '.join(cmd)}: {err.decode()}")
        words = out.decode().split()
        value = lambda key: int(words[words.index(key) + 1]) if key in words else None
        rss = value("peak_rss_kib")
        if rss is None and cmd[0] == decodeprof:
            rss = usage.ru_maxrss
        run = (dt, rss / 1024 if rss is not None else None, value("launches"))
        best = run if best is None or run[0] < best[0] else best
    return best

print(f"load average at the start: {os.getloadavg()[0]:.2f}")
rows, ok = [], True
for size in sizes:
    steps = max(1, round(size / 1.262))
    trace = f"{work}/trace_{size:g}.json"
    subprocess.run([sys.executable, gen, trace, str(steps), "1400", "7"], check=True)
    mb = os.path.getsize(trace) / 1e6
    subprocess.run(["cat", trace], stdout=subprocess.DEVNULL, check=True)  # into the page cache
    tools = {"cat": ["sh", "-c", 'cat "$0" > /dev/null', trace], "ondemand": [bench, "ondemand", trace],
             "import": [bench, "import", trace] + window,
             "summarize": [decodeprof, "summarize", "--trace", trace, "--quiet",
                           "--out-dir", work, "--name", "bench"]}
    if mb <= python_max:
        tools["python"] = [sys.executable, "-c", baseline, trace]
    got = {name: measure(cmd) for name, cmd in tools.items()}
    imp = got["import"][0]
    print(f"\n{mb:.0f} MB ({steps} steps, {steps * 1400} kernels):")
    print(f"  {'':10} {'seconds':>8} {'MB/s':>7} {'import ×':>9} {'peak RSS':>10}")
    for name in ("cat", "ondemand", "import", "summarize", "python"):
        if name in got:
            s, rss, _ = got[name]
            memory = f"{rss:7.0f} MiB" if rss is not None else f"{'-':>7}"
            print(f"  {name:10} {s:8.3f} {mb / s:7.0f} {s / imp:9.2f} {memory}")
    ratio = got["ondemand"][0] / imp
    ok = ok and ratio >= 0.8 and got["import"][1] < 128 and got["summarize"][1] < 128
    rows.append((mb, imp, got["import"][1], got["import"][2] * 40 / 2**20, ratio,
                 got["summarize"][1]))
print("\nimporter: size, seconds per GB, peak RSS (of it the launch-call table the import")
print("returns, 40 bytes a call; the rest is the importer's own), speed / On-Demand pass;")
print("summarize: peak RSS (the launch calls of the window only)")
for mb, s, rss, table, ratio, summarize_rss in rows:
    print(f"  {mb:6.0f} MB  {s / mb * 1000:6.3f} s/GB  {rss:5.0f} MiB ({table:3.0f} + {rss - table:3.0f})"
          f"  {ratio:5.2f}   summarize {summarize_rss:5.0f} MiB")
print(f"load average at the end: {os.getloadavg()[0]:.2f}")
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
