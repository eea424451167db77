#!/usr/bin/env bash
# The peak RSS of a whole-window summarize (--window all) in every format at three sizes, under
# the default memory budget and smaller ones (src/base/spill.h, docs/user-guide.md "Memory"),
# and of one native size with more distinct kernel names: whether the peak follows the window's
# dispatches or its names (issue 29). Nothing here needs the GPU; run it on the GPU machine's
# host for its 16 CPUs.
#
# usage: tests/gpu/whole_window_peaks.sh STAGE
#   STAGE: decodeprof and the generators (decodeprof_gen_{native,nsys,rocpd}_trace,
#   decodeprof_gen_trace) with the shared libraries (tests/gpu/README.md, "Staging").
# Environment: FORMATS (default: native-ops nsys nsys-ops rocpd csv kineto; native-ops and
#   nsys-ops have an NVTX range around each launch, native-ops a memcpy ending each step),
#   KERNELS (SQLite formats; default 1000000 4200000 16800000), CSV_BYTES (default 150000000
#   600000000 2400000000), KINETO_STEPS (of 1400 kernels; default 200 800 3200), NAMES
#   (distinct names for native-ops at NAMES_KERNELS kernels; default 2000 20000 200000;
#   NAMES_KERNELS default 4200000), BUDGETS (DECODEPROF_MEMORY_MIB values, "default" for
#   unset; default "default 32 16"),
#   RUNS (best of; default 1).
# Each run's wall time, CPU time and peak RSS (wait4's ru_maxrss) go to $OUT/peaks.json as they
# are measured (a line each), and a table is printed at the end.
set -euo pipefail
stage=$(cd "${1:?usage: $0 STAGE}" && pwd)
out=${OUT:-/tmp/whole-window-peaks-out}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$stage${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
work=$(mktemp -d -t decodeprof-peaks.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 - "$stage" "$work" "$out" "$here/../../bench/gen_kineto_trace.py" <<'PY'
import json, os, shutil, subprocess, sys, time

stage, work, out, gen_kineto = sys.argv[1:5]
env = os.environ.get
formats = env("FORMATS", "native-ops nsys nsys-ops rocpd csv kineto").split()
sizes = [int(x) for x in env("KERNELS", "1000000 4200000 16800000").split()]
csv_bytes = [int(x) for x in env("CSV_BYTES", "150000000 600000000 2400000000").split()]
kineto_steps = [int(x) for x in env("KINETO_STEPS", "200 800 3200").split()]
names = [int(x) for x in env("NAMES", "2000 20000 200000").split()]
names_kernels = int(env("NAMES_KERNELS", "4200000"))
budgets = env("BUDGETS", "default 32 16").split()
runs = int(env("RUNS", "1"))
ncpu = len(os.sched_getaffinity(0))
print(f"host: {ncpu} CPUs, load {os.getloadavg()}", flush=True)
spill = os.path.join(work, "spill")
os.makedirs(spill)
log = open(os.path.join(out, "peaks.json"), "a")

def summarize(trace, budget):
    best = None
    for _ in range(runs):
        e = {k: v for k, v in os.environ.items() if k != "DECODEPROF_MEMORY_MIB"}
        e["DECODEPROF_SPILL"] = spill
        if budget != "default":
            e["DECODEPROF_MEMORY_MIB"] = budget
        t = time.perf_counter()
        p = subprocess.Popen([os.path.join(stage, "decodeprof"), "summarize", "--trace", trace,
                              "--window", "all", "--out-dir", os.path.join(work, "o")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=e)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t
        err = p.stderr.read().decode(errors="replace")
        if os.waitstatus_to_exitcode(status) != 0:
            return {"error": err[-400:]}
        r = {"s": round(wall, 3), "cpu_s": round(ru.ru_utime + ru.ru_stime, 3),
             "peak_mib": round(ru.ru_maxrss / 1024, 1)}
        best = r if best is None or r["peak_mib"] < best["peak_mib"] else best
    return best

rows = []
def measure(fmt, label, kernels, n_names, trace):
    for budget in budgets:
        r = summarize(trace, budget)
        row = {"format": fmt, "size": label, "kernels": kernels, "names": n_names,
               "bytes": os.path.getsize(trace), "budget": budget, **r}
        rows.append(row)
        log.write(json.dumps(row) + "\n")
        log.flush()
        print(json.dumps(row), flush=True)

gens = {"native-ops": ("decodeprof_gen_native_trace", ["memcpy", "ops"]),
        "nsys": ("decodeprof_gen_nsys_trace", []),
        "nsys-ops": ("decodeprof_gen_nsys_trace", ["ops"]),
        "rocpd": ("decodeprof_gen_rocpd_trace", [])}
jobs = []  # (fmt, label, kernels, names, path, process or None)
for fmt in formats:
    if fmt in gens:
        for n in sizes:
            path = os.path.join(work, f"{fmt}{n}.sqlite")
            jobs.append((fmt, f"{n} kernels", n, None, path, [os.path.join(stage, gens[fmt][0]), path, str(n), "7"] + gens[fmt][1]))
        if fmt == "native-ops":
            for m in names:
                path = os.path.join(work, f"{fmt}{names_kernels}n{m}.sqlite")
                jobs.append((fmt, f"{names_kernels} kernels, {m} names", names_kernels, m, path,
                             [os.path.join(stage, gens[fmt][0]), path, str(names_kernels), "7"] + gens[fmt][1] + [f"names={m}"]))
    elif fmt == "csv":
        for b in csv_bytes:
            d = os.path.join(work, f"csv{b}")
            jobs.append((fmt, f"{b / 1e6:.0f} MB", None, None, os.path.join(d, f"c{b}_kernel_trace.csv"),
                         [os.path.join(stage, "decodeprof_gen_trace"), "--model", "llama", "--name", f"c{b}",
                          "--out-dir", d, "--target-bytes", str(b)]))
    elif fmt == "kineto":
        for s in kineto_steps:
            path = os.path.join(work, f"kineto{s}.json")
            jobs.append((fmt, f"{s} steps", s * 1400, None, path, [sys.executable, gen_kineto, path, str(s), "1400"]))
    else:
        sys.exit(f"unknown format {fmt}")
t = time.perf_counter()
procs = [subprocess.Popen(j[5], stdout=subprocess.DEVNULL) for j in jobs]
for j, p in zip(jobs, procs):
    if p.wait() != 0:
        sys.exit(f"generating {j[4]} failed")
print(f"generated {len(jobs)} traces in {time.perf_counter() - t:.0f} s", flush=True)
for fmt, label, kernels, n_names, path, _ in jobs:
    measure(fmt, label, kernels, n_names, path)
    os.remove(path)

print(f"\n{'format':<11} {'size':<28}" + "".join(f" {('budget ' + b):>18}" for b in budgets))
seen = []
for r in rows:
    key = (r["format"], r["size"])
    if key in seen:
        continue
    seen.append(key)
    cells = []
    for b in budgets:
        m = [x for x in rows if (x["format"], x["size"]) == key and x["budget"] == b]
        cells.append(f"{m[0]['peak_mib']:>7.0f} MiB {m[0]['s']:>6.2f} s" if m and "peak_mib" in m[0] else f"{'error':>18}")
    print(f"{key[0]:<11} {key[1]:<28}" + "".join(f" {c:>18}" for c in cells))
PY
