#!/usr/bin/env bash
# Import speed of a compressed Kineto trace (gzip, zstd, xz) against the same trace
# uncompressed, measured in the same run.
#
# usage: bench/compressed_import.sh [BENCH] [SIZE_MB | TRACE]
#
#   BENCH     the decodeprof_kineto_bench binary (default:
#             build/release/bench/decodeprof_kineto_bench)
#   SIZE_MB   size of the libkineto-shaped trace bench/gen_kineto_trace.py generates (default
#             256); or TRACE, an uncompressed Kineto trace of your own (TRACE.gz, TRACE.zst,
#             TRACE.xz beside it are used as they are, for a machine without those tools)
#
# Compresses the trace with gzip -6, zstd -3 and xz -1 (the tools' usual levels; xz -1 since
# -6 takes minutes on a large file), then times, each best of $RUNS (default 3) in a child
# process with the file in the page cache:
#   import      the importer plug-in (decodeprof_kineto_bench import: everything read, the
#               dispatches of a 1 ms window kept) on the plain file and on each compressed one;
#   decompress  `gzip -dc` / `zstd -dc` / `xz -dc` to /dev/null: the codec alone, the floor
#               of a one-stream decompression (where the tool is installed).
# Prints per file: wall seconds, MB/s of JSON (the uncompressed size over the seconds), the
# import's time as a multiple of the plain import's, CPU seconds (user + system, both threads)
# and peak RSS. The compressed import decodes on a
# thread of its own while the parse runs (src/io/common/input_stream.h), so its time is about
# the larger of the plain import and the decompression, not their sum. Exit status: 0, or 1 when
# a run fails, 2 on a usage error. Environment: RUNS, TMPDIR, KEEP_TMP=1.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '3,24p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;; esac
bench=${1:-build/release/bench/decodeprof_kineto_bench}
input=${2:-256}
[[ -x $bench ]] || { echo "benchmark binary not found: $bench (build it first)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 not found" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d -t decodeprof-compressed-import.XXXXXX)
if [[ ${KEEP_TMP:-0} == 1 ]]; then echo "keeping $work" >&2; else trap 'rm -rf "$work"' EXIT; fi

python3 - "$bench" "$here/gen_kineto_trace.py" "$work" "${RUNS:-3}" "$input" <<'PY'
import os, shutil, subprocess, sys, time
bench, gen, work, runs, source = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
BASE = 1775078550000000000  # the generator's baseTimeNanoseconds; its first step starts at 1 ms
window = [str(BASE + 1_000_000), str(BASE + 2_000_000)]
trace = f"{work}/trace.json"
if os.path.isfile(source):
    shutil.copyfile(source, trace)
else:
    steps = max(1, round(float(source) / 1.262))
    subprocess.run([sys.executable, gen, trace, str(steps), "1400", "7"], check=True)
mb = os.path.getsize(trace) / 1e6
codecs = {"gzip": (["gzip", "-6", "-c"], ["gzip", "-dc"], ".gz"),
          "zstd": (["zstd", "-3", "-q", "-c"], ["zstd", "-dc", "-q"], ".zst"),
          "xz": (["xz", "-1", "-T1", "-c"], ["xz", "-dc"], ".xz")}
files = {"plain": trace}
for name, (pack, _, suffix) in codecs.items():
    files[name] = trace + suffix
    if os.path.isfile(source + suffix):
        shutil.copyfile(source + suffix, files[name])
    elif shutil.which(pack[0]):
        with open(files[name], "wb") as out:
            subprocess.run(pack + [trace], stdout=out, check=True)
    else:
        sys.exit(f"{pack[0]} not found, and no {source + suffix}")

def measure(cmd):
    best = None
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = p.stdout.read(), p.stderr.read()
        _, status, usage = os.wait4(p.pid, 0)
        dt = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        cpu = usage.ru_utime + usage.ru_stime
        if p.returncode != 0:
            sys.exit(f"failed: {' '.join(cmd)}: {err.decode()[:400]}")
        words = out.decode().split()
        rss = int(words[words.index("peak_rss_kib") + 1]) / 1024 if "peak_rss_kib" in words else None
        best = (dt, rss, cpu) if best is None or dt < best[0] else best
    return best

for path in files.values():
    subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)  # into the page cache
print(f"load average at the start: {os.getloadavg()[0]:.2f}; {os.cpu_count()} CPUs")
print(f"trace: {mb:.0f} MB of JSON" + ("" if os.path.isfile(source) else f" ({source} MB asked)"))
rows = {name: measure([bench, "import", path] + window) for name, path in files.items()}
floor = {name: measure(["sh", "-c", " ".join(unpack) + ' "$0" > /dev/null', files[name]])
         for name, (_, unpack, _) in codecs.items() if shutil.which(unpack[0])}
plain = rows["plain"][0]
print(f"  {'file':6} {'file MB':>8} {'import s':>9} {'MB/s':>6} {'× plain':>8} {'CPU s':>6}"
      f" {'peak RSS':>9} {'decompress s':>13} {'MB/s':>6}")
for name, (s, rss, cpu) in rows.items():
    size = os.path.getsize(files[name]) / 1e6
    memory = f"{rss:5.0f} MiB" if rss is not None else f"{'-':>9}"
    unpack = f"{floor[name][0]:13.3f} {mb / floor[name][0]:6.0f}" if name in floor else f"{'':13} {'':6}"
    print(f"  {name:6} {size:8.1f} {s:9.3f} {mb / s:6.0f} {s / plain:8.2f} {cpu:6.2f} {memory}"
          f" {unpack}")
print(f"load average at the end: {os.getloadavg()[0]:.2f}")
PY
