#!/usr/bin/env bash
# Where the peak RSS of a whole-window summarize is on the GPU machine's host (16 CPUs) under a
# memory budget (src/base/spill.h): a generated native trace with a range a launch, each build
# in STAGE run with DECODEPROF_MEMORY_MIB (and once with DECODEPROF_SPILL=off) while a sampler
# reads /proc/PID/status every 0.5 ms (RssAnon: memory, RssFile: the file blocks' mapped pages)
# and the threads' scheduling policy (the watcher's SCHED_FIFO). Nothing here needs the GPU.
#
# usage: tests/gpu/spill_rss_many_cores.sh STAGE
#   STAGE: decodeprof builds (BINARIES, default decodeprof) and decodeprof_gen_native_trace,
#   with the shared libraries (tests/gpu/README.md, "Staging").
# Environment: KERNELS (default 4200000; several, space-separated, each its own trace), BUDGETS
# (MiB; default "64 256"), RUNS (default 2), THREADS (DECODEPROF_THREADS values, "-" for unset;
# default "-"), SPILL_OFF (default 1: a run with the spill off too), OPS (default 1: a range a
# launch), MEMCPY (default 0; 1: a token read-back ending each step, so that the role rules read
# the kernels' compact view), NAMES (distinct kernel names, several each its own trace; default
# the generator's 24). Each time the RSS passes the last look by 32 MiB the sampler reads /proc/PID/smaps
# too and sums the resident pages by mapping (anon, heap, spill files, the trace, libraries),
# so that the top sample says what holds the pages.
# Writes $OUT/spill_rss.json and prints a line a run.
set -euo pipefail
stage=$(cd "${1:?usage: $0 STAGE}" && pwd)
out=${OUT:-/tmp/spill-rss-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$stage${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
work=$(mktemp -d -t decodeprof-spill-rss.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 - "$stage" "$work" "$out" <<'PY'
import json, os, re, shutil, subprocess, sys, time

stage, work, out = sys.argv[1:4]
kernel_sizes = [int(k) for k in os.environ.get("KERNELS", "4200000").split()]
threads_list = os.environ.get("THREADS", "-").split()
spill_off = os.environ.get("SPILL_OFF", "1") == "1"
ops = os.environ.get("OPS", "1") == "1"
memcpy = os.environ.get("MEMCPY", "0") == "1"
names_list = os.environ.get("NAMES", "-").split()
budgets = os.environ.get("BUDGETS", "64 256").split()
runs = int(os.environ.get("RUNS", "2"))
binaries = os.environ.get("BINARIES", "decodeprof").split()
print(f"host: {len(os.sched_getaffinity(0))} CPUs, uid {os.getuid()}", flush=True)

def smaps(pid):
    found, kind = {}, None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            head = line.split(None, 5)
            if len(head) >= 5 and "-" in head[0] and not line.startswith(("Rss", "Pss", "Size")) and head[0][0] in "0123456789abcdef" and ":" not in head[0]:
                path = head[5].strip() if len(head) > 5 else ""
                if path == "":
                    kind = "anon"
                elif path.startswith("["):
                    kind = path
                elif "(deleted)" in path:
                    kind = "deleted file (spill)"
                elif path.endswith(".sqlite"):
                    kind = "trace"
                else:
                    kind = "file " + os.path.basename(path)
            elif line.startswith("Rss:") and kind is not None:
                found[kind] = found.get(kind, 0) + int(line.split()[1]) // 1024
    return {k: v for k, v in sorted(found.items(), key=lambda kv: -kv[1]) if v >= 1}

def status(pid):
    d = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("RssAnon", "RssFile", "VmRSS")):
                k, v = line.split(":")
                d[k] = int(v.split()[0]) // 1024
    return d

def policies(pid):
    found = set()
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            found.add(int(fields[38]))  # field 41: policy (0 other, 1 FIFO)
        except (OSError, IndexError, ValueError):
            pass
    return found

rows = []
for kernels, names in [(k, n) for k in kernel_sizes for n in names_list]:
  trace = os.path.join(work, "native.sqlite")
  if os.path.exists(trace):
      os.remove(trace)
  subprocess.run([os.path.join(stage, "decodeprof_gen_native_trace"), trace, str(kernels), "7"] +
                 (["memcpy"] if memcpy else []) + (["ops"] if ops else []) +
                 ([f"names={names}"] if names != "-" else []),
                 check=True, stdout=subprocess.DEVNULL)
  print(f"trace {kernels} kernels, names {names}", flush=True)
  for binary in binaries:
    for threads in threads_list:
     for budget in (["off"] if spill_off else []) + budgets:
        for run in range(runs):
            env = {**os.environ, "DECODEPROF_STAGE_TIMES": "1"}
            if threads != "-":
                env["DECODEPROF_THREADS"] = threads
            if budget == "off":
                env["DECODEPROF_SPILL"] = "off"
            else:
                env["DECODEPROF_MEMORY_MIB"] = budget
            outdir = os.path.join(work, f"o_{kernels}_{binary}_{threads}_{budget}_{run}")
            t0 = time.perf_counter()
            p = subprocess.Popen([os.path.join(stage, binary), "summarize", "--trace", trace,
                                  "--window", "all", "--out-dir", outdir, "-q"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
            samples, pols = [], set()
            looked, maps = 0, []
            while p.poll() is None:
                try:
                    st_now = status(p.pid)
                    samples.append((time.perf_counter() - t0, st_now))
                    if st_now.get("VmRSS", 0) >= looked + 32:
                        looked = st_now["VmRSS"]
                        maps.append((time.perf_counter() - t0, looked, smaps(p.pid)))
                    if len(samples) % 50 == 1:
                        pols |= policies(p.pid)
                except (OSError, ValueError):
                    pass
                time.sleep(0.0005)
            err = p.stderr.read().decode(errors="replace")
            wall = time.perf_counter() - t0
            stages = []
            for line in err.splitlines():
                m = re.match(r"decodeprof: stage (.+?)\s+([0-9.]+) s wall.*?([0-9.]+) MiB RSS\s+([0-9.]+) MiB peak RSS; large blocks ([0-9]+) in memory, ([0-9]+) in files \(([0-9.]+) MiB, ([0-9]+) trims(?:, [0-9]+ releases)?\)", line)
                if m:
                    stages.append({"stage": m.group(1), "s": float(m.group(2)), "rss": float(m.group(3)),
                                   "peak": float(m.group(4)), "memory_blocks": int(m.group(5)),
                                   "file_blocks": int(m.group(6)), "file_mib": float(m.group(7)),
                                   "trims": int(m.group(8))})
            top = max(samples, key=lambda s: s[1].get("VmRSS", 0)) if samples else (0, {})
            # the stage at the top sample: stages end at their cumulative wall times
            at, acc, in_stage = top[0], 0.0, None
            for st in stages:
                acc += st["s"]
                if at <= acc + 0.001:
                    in_stage = st["stage"]
                    break
            shutil.rmtree(outdir, ignore_errors=True)
            row = {"kernels": kernels, "names": names, "threads": threads, "smaps": maps[-3:],
                   "binary": binary, "budget": budget, "run": run, "s": wall, "rc": p.returncode,
                   "peak_rss_mib": stages[-1]["peak"] if stages else None,
                   "sampled_top": {"t": top[0], **top[1], "stage": in_stage},
                   "max_anon": max((s[1].get("RssAnon", 0) for s in samples), default=0),
                   "max_file": max((s[1].get("RssFile", 0) for s in samples), default=0),
                   "policies": sorted(pols), "samples": len(samples), "stages": stages}
            rows.append(row)
            print(f"{kernels} names {names} threads {threads:>2} {binary:12} budget {budget:>4} run {run}: {wall:6.3f} s, peak {row['peak_rss_mib']} MiB, "
                  f"sampled top {top[1]} in {in_stage!r} at {top[0]:.3f} s, max anon {row['max_anon']} "
                  f"file {row['max_file']}, policies {sorted(pols)}", flush=True)
            if maps:
                print(f"    smaps at {maps[-1][0]:.3f} s, RSS {maps[-1][1]} MiB: {maps[-1][2]}", flush=True)
            for st in stages:
                print(f"    {st['stage']:18} {st['s']:6.3f} s  rss {st['rss']:7.1f}  peak {st['peak']:7.1f}  "
                      f"blocks {st['memory_blocks']}/{st['file_blocks']}  trims {st['trims']}", flush=True)
with open(os.path.join(out, "spill_rss.json"), "w") as f:
    json.dump({"kernels": kernel_sizes, "rows": rows}, f, indent=1)
PY
