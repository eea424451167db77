#!/usr/bin/env bash
# `decodeprof summarize` throughput on the GPU machine's host (16 CPUs), where the
# development VM has 2 shared ones (issue 29): per format and trace size, the whole window
# (--window all) and the small one (the generators' decode range / log over the last steps),
# with every CPU, with 2 (taskset) and with 1, each beside its baseline measured in the same
# run on the same file (a plain SQLite scan through Python's sqlite3 for the SQLite formats,
# `cat` for the text ones). Nothing here needs the GPU.
#
# usage: tests/gpu/throughput_many_cores.sh STAGE
#   STAGE holds decodeprof and the generators (build/release: decodeprof,
#   bench/decodeprof_gen_{native,nsys,rocpd}_trace, bench/decodeprof_gen_trace) with the
#   shared libraries decodeprof needs (tests/gpu/README.md, "Staging").
# Environment: FORMATS (default: native nsys rocpd kineto csv; also native-memcpy,
#   native-graph, native-ops and nsys-ops), KERNELS
#   (SQLite formats,
#   generated all at once, one process each,
#   default: 1250000 4200000), KINETO_STEPS (of 1400 kernels; default: 200 800), CSV_BYTES
#   (default: 600000000), RUNS (best of; default 2), CPUS (default: "all 2 1"), WINDOWS
#   (default: "all small"), BINARIES (decodeprof builds in STAGE to compare on the same traces,
#   each the best of RUNS; default: decodeprof).
# Writes $OUT/throughput.json (every measurement, with summarize's stage times:
# DECODEPROF_STAGE_TIMES) and prints a table.
set -euo pipefail
stage=$(cd "${1:?usage: $0 STAGE}" && pwd)
out=${OUT:-/tmp/throughput-out}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$stage${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
work=$(mktemp -d -t decodeprof-throughput.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 - "$stage" "$work" "$out" "$here/../../bench/gen_kineto_trace.py" <<'PY'
import json, os, re, resource, sqlite3, subprocess, sys, time

stage, work, out, gen_kineto = sys.argv[1:5]
formats = os.environ.get("FORMATS", "native nsys rocpd kineto csv").split()
sizes = [int(x) for x in os.environ.get("KERNELS", "1250000 4200000").split()]
runs = int(os.environ.get("RUNS", "2"))
cpus_wanted = os.environ.get("CPUS", "all 2 1").split()
binaries = os.environ.get("BINARIES", "decodeprof").split()
windows = os.environ.get("WINDOWS", "all small").split()
ncpu = len(os.sched_getaffinity(0))
print(f"host: {ncpu} CPUs, load {os.getloadavg()}", flush=True)

def timed(argv, cpus):
    best = None
    for _ in range(runs):
        pre = ["taskset", "-c", ",".join(str(c) for c in sorted(os.sched_getaffinity(0))[:int(cpus)])] if cpus != "all" else []
        t = time.perf_counter()
        # DECODEPROF_STAGE_TIMES: each stage's wall time and the calling thread's CPU time
        # (docs/performance.md, "Stage times"), kept with the run.
        p = subprocess.Popen(pre + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             env={**os.environ, "DECODEPROF_STAGE_TIMES": "1"})
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t
        err = p.stderr.read().decode(errors="replace")
        if os.waitstatus_to_exitcode(status) != 0:
            return {"error": err[-400:]}
        r = {"s": wall, "cpu_s": ru.ru_utime + ru.ru_stime, "rss_mib": ru.ru_maxrss / 1024}
        stages = {}
        for line in err.splitlines():
            m = re.match(r"decodeprof: stage (.+?)\s+([0-9.]+) s wall\s+([0-9.]+) s CPU", line)
            if m:
                stages[m.group(1)] = [float(m.group(2)), float(m.group(3))]
                # The stage's peak RSS so far (MiB), where the line has it: where the peak is.
                m = re.search(r"([0-9.]+) MiB peak RSS", line)
                if m:
                    stages[list(stages)[-1]].append(float(m.group(1)))
            # The large blocks (src/base/spill.h) at the last mark: in memory, in files, trims.
            m = re.search(r"large blocks ([0-9]+) in memory, ([0-9]+) in files \(([0-9.]+) MiB, ([0-9]+) trims(?:, ([0-9]+) releases)?\)", line)
            if m:
                r["spill"] = {"memory_blocks": int(m.group(1)), "blocks": int(m.group(2)),
                              "file_mib": float(m.group(3)), "trims": int(m.group(4))}
        if stages:
            r["stages_wall_cpu_s"] = stages
        if best is None or r["s"] < best["s"]:
            best = r
    return best

def sqlite_scan(path, table, column):
    best = None
    for _ in range(runs):
        t = time.perf_counter()
        db = sqlite3.connect(path)
        db.execute(f"SELECT sum({column}) FROM {table}").fetchone()
        db.close()
        s = time.perf_counter() - t
        best = s if best is None else min(best, s)
    return best

def cat(path):
    return timed(["sh", "-c", 'cat "$0" > /dev/null', path], "all")["s"]

rows = []
def measure(fmt, label, kernels, trace, base_name, base_s, summarize_args):
    for window, extra in (("all", ["--window", "all"]), ("small", [])):
        if window not in windows:
            continue
        for cpus in cpus_wanted:
            if cpus != "all" and int(cpus) > ncpu:
                continue
            for binary in binaries:
                outdir = os.path.join(work, "o")
                dp = os.path.join(stage, binary)
                r = timed([dp, "summarize", "--trace", trace, "--out-dir", outdir] + summarize_args + extra, cpus)
                row = {"format": fmt, "trace": label, "kernels": kernels, "bytes": os.path.getsize(trace),
                       "window": window, "cpus": cpus, "binary": binary, "baseline": base_name,
                       "baseline_s": base_s, **r}
                if "s" in r:
                    row["kernels_per_s"] = kernels / r["s"]
                    row["baseline_ratio"] = base_s / r["s"]
                rows.append(row)
                print(json.dumps(row), flush=True)

# native-memcpy: the native trace with a token read-back (a memcpy) ending each step, as a
# serving engine's steps do: the role rules then see the kernels between memory operations.
# native-graph: that, with each step's kernels one CUDA graph's replay.
# native-ops: native-memcpy with each launch inside an NVTX range of its own (a module or an
# operator): a range a dispatch, which the pytorch-cuda pack's op_path rules read. nsys-ops:
# the nsys trace with such a range (NVTX push/pop) around each launch.
gens = {"native": ("decodeprof_gen_native_trace", "kernels", "start_ns", []),
        "native-memcpy": ("decodeprof_gen_native_trace", "kernels", "start_ns", ["memcpy"]),
        "native-graph": ("decodeprof_gen_native_trace", "kernels", "start_ns", ["memcpy", "graph"]),
        "native-ops": ("decodeprof_gen_native_trace", "kernels", "start_ns", ["memcpy", "ops"]),
        "nsys": ("decodeprof_gen_nsys_trace", "CUPTI_ACTIVITY_KIND_KERNEL", "start", []),
        "nsys-ops": ("decodeprof_gen_nsys_trace", "CUPTI_ACTIVITY_KIND_KERNEL", "start", ["ops"]),
        "rocpd": ("decodeprof_gen_rocpd_trace", "rocpd_kernel_dispatch", "start", [])}
# The SQLite traces are generated at once, one process each (the nsys and rocpd generators
# take about a minute of CPU per million kernels), then measured one at a time.
pending = {}
for fmt in formats:
    if fmt in gens:
        for n in sizes:
            path = os.path.join(work, f"{fmt}{n}.sqlite")
            pending[(fmt, n)] = (path, subprocess.Popen([os.path.join(stage, gens[fmt][0]), path, str(n), "7"] + gens[fmt][3],
                                                        stdout=subprocess.DEVNULL))
for (fmt, n), (path, proc) in pending.items():  # all written before any is timed
    if proc.wait() != 0:
        sys.exit(f"{gens[fmt][0]} failed")
print(f"generated {len(pending)} SQLite traces", flush=True)
for fmt in formats:
    if fmt in gens:
        gen, table, column, _ = gens[fmt]
        for n in sizes:
            path = pending[(fmt, n)][0]
            measure(fmt, f"{n}", n, path, "sqlite_scan", sqlite_scan(path, table, column), [])
            os.remove(path)
for fmt in formats:
    if fmt == "kineto":
        for steps in [int(x) for x in os.environ.get("KINETO_STEPS", "200 800").split()]:
            path = os.path.join(work, f"kineto{steps}.json")
            subprocess.run([sys.executable, gen_kineto, path, str(steps), "1400", "7"], check=True)
            bench = os.path.join(stage, "decodeprof_kineto_bench")
            if os.path.exists(bench):  # the plain simdjson On-Demand pass, the issue's baseline
                base = ("ondemand", timed([bench, "ondemand", path], "all")["s"])
            else:
                base = ("cat", cat(path))
            measure(fmt, f"{steps}x1400", steps * 1400, path, base[0], base[1], ["--format", "kineto-json"])
            os.remove(path)
    elif fmt == "csv":
        for size in [int(x) for x in os.environ.get("CSV_BYTES", "600000000").split()]:
            run = os.path.join(work, "csvrun")
            subprocess.run([os.path.join(stage, "decodeprof_gen_trace"), "--model", "qwen3-moe", "--name", "bench",
                            "--out-dir", run, "--target-bytes", str(size)], check=True, stdout=subprocess.DEVNULL)
            trace = os.path.join(run, "bench_kernel_trace.csv")
            with open(trace) as f:
                kernels = sum(1 for _ in f) - 1
            measure(fmt, f"{size // 1000000}MB", kernels, trace, "cat", cat(trace),
                    ["--log", os.path.join(run, "bench_bench.log")] if os.path.exists(os.path.join(run, "bench_bench.log")) else [])
with open(os.path.join(out, "throughput.json"), "w") as f:
    json.dump({"host_cpus": ncpu, "rows": rows}, f, indent=1)
print(f"{'format':7} {'trace':10} {'window':6} {'cpus':4} {'binary':14} {'s':>7} {'M k/s':>6} {'RSS MiB':>8} {'baseline':>12} {'ratio':>6}")
for r in rows:
    if "s" not in r:
        print(r["format"], r["trace"], r["window"], r["cpus"], r["binary"], "ERROR", r["error"][:200])
        continue
    print(f"{r['format']:7} {r['trace']:10} {r['window']:6} {r['cpus']:4} {r['binary']:14} {r['s']:7.3f} {r['kernels_per_s']/1e6:6.2f} "
          f"{r['rss_mib']:8.0f} {r['baseline']+' '+format(r['baseline_s'],'.3f'):>12} {r['baseline_ratio']:6.3f}"
          + (f" spill {r['spill']['blocks']} blocks {r['spill']['trims']} trims" if r.get("spill", {}).get("blocks") else ""))
PY
