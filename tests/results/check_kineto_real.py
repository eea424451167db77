#!/usr/bin/env python3
"""A real torch.profiler trace through decodeprof's Kineto importer (tests/gpu/kineto_crosscheck.sh).

usage: check_kineto_real.py DECODEPROF DIR

DIR (benchmarks/h200/kineto-<commit>) holds torch_trace.json.xz, a Kineto trace of a Llama
decode written by torch.profiler on the H200, the summary decodeprof made of it there
(torch-profiler_summary.json, torch-profiler_decode_kernels.csv), and the summary of the same
decode recorded by `decodeprof record` in another process (decodeprof-record_summary.json).
Checks that:
  * summarizing the trace here gives byte-identical files (the importer on a real trace,
    and deterministic output);
  * the two recorders agree on the decode: the same dispatches per token, GPU time per
    token within 1 %, and every kernel class's share within 0.5 percentage points.
    decodeprof-record_summary.json predates memory operations as dispatches (it has no
    trace_format): for it, the torch.profiler side is compared by its kernels alone (the
    memcpy/memset rows of its kernel table are taken out of the counts and GPU time, and the
    memcpy/memset classes out of the shares).
Exits 1 on a failed check, 2 on usage errors.
"""
import json
import lzma
import os
import subprocess
import sys
import tempfile


def kernels_only(summary, kernels_csv):
    """The summary's dispatch, GPU-time and class-share figures without memory operations."""
    import csv
    tokens = summary["generated_tokens"]
    memory_calls = memory_ns = 0
    with open(kernels_csv, newline="") as f:
        for row in csv.DictReader(f):
            if row["class"] in ("memcpy", "memset"):
                memory_calls += int(row["calls"])
                memory_ns += int(row["total_ns"])
    out = dict(summary)
    out["dispatches_per_token"] = round((summary["decode_dispatches"] - memory_calls) / tokens, 2)
    kernel_ms = summary["gpu_ms_per_token"] - memory_ns / 1e6 / tokens
    out["gpu_ms_per_token"] = round(kernel_ms, 4)
    scale = summary["gpu_ms_per_token"] / kernel_ms
    out["class_share_pct"] = {c: round(v * scale, 2) for c, v in summary["class_share_pct"].items()
                              if c not in ("memcpy", "memset")}
    return out


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    decodeprof, data = argv[1:3]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "torch_trace.json")
        with lzma.open(os.path.join(data, "torch_trace.json.xz")) as src, open(trace, "wb") as dst:
            dst.write(src.read())
        out = os.path.join(tmp, "out")
        run = subprocess.run([decodeprof, "summarize", "--trace", trace, "--format", "kineto-json",
                              "--name", "torch-profiler", "--out-dir", out],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(f"summarize failed ({run.returncode}): {run.stderr}", file=sys.stderr)
            return 1
        for name in ("torch-profiler_summary.json", "torch-profiler_decode_kernels.csv"):
            with open(os.path.join(out, name), "rb") as a, open(os.path.join(data, name), "rb") as b:
                # The trace's file name (a temporary copy here) was recorded after these
                # summaries were committed: compared without it.
                fresh = b"".join(line for line in a.read().splitlines(keepends=True)
                                 if not line.startswith(b'  "trace_file": '))
                if fresh != b.read():
                    failures.append(f"{name} differs from the committed one")
    torch = json.load(open(os.path.join(data, "torch-profiler_summary.json")))
    native = json.load(open(os.path.join(data, "decodeprof-record_summary.json")))
    if "trace_format" not in native:
        torch = kernels_only(torch, os.path.join(data, "torch-profiler_decode_kernels.csv"))
    if torch["dispatches_per_token"] != native["dispatches_per_token"]:
        failures.append(f"dispatches/token {torch['dispatches_per_token']} (torch.profiler) vs "
                        f"{native['dispatches_per_token']} (decodeprof record)")
    ratio = torch["gpu_ms_per_token"] / native["gpu_ms_per_token"]
    if abs(ratio - 1) > 0.01:
        failures.append(f"GPU ms/token ratio {ratio:.4f} is not within 1%")
    for cls in sorted(set(torch["class_share_pct"]) | set(native["class_share_pct"])):
        a = torch["class_share_pct"].get(cls, 0.0)
        b = native["class_share_pct"].get(cls, 0.0)
        if abs(a - b) > 0.5:
            failures.append(f"class {cls}: {a}% (torch.profiler) vs {b}% (decodeprof record)")
    for f in failures:
        print(f"FAIL {f}", file=sys.stderr)
    print(f"kineto real trace: dispatches/token {torch['dispatches_per_token']} both; GPU ms/token "
          f"{torch['gpu_ms_per_token']} vs {native['gpu_ms_per_token']} (ratio {ratio:.4f}); "
          f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
