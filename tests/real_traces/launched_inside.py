#!/usr/bin/env python3
"""Counts the GPU dispatches of a Kineto trace that were launched inside named CPU ranges.

    python3 launched_inside.py TRACE GLOB

TRACE is a torch.profiler (Kineto) Chrome trace, .json or .json.gz. GLOB is an fnmatch pattern
(case-sensitive) matched against the names of the trace's user_annotation ranges ("ph": "X").

A dispatch is a complete event ("ph": "X") of cat kernel / gpu_memcpy / gpu_memset (PyTorch
1.x: Kernel / Memcpy / Memset). Its launch call is the CPU event of cat cuda_runtime /
cuda_driver (HIP: hip_runtime / hip_driver; PyTorch 1.x: Runtime) with the same
args.correlation. The dispatch counts as launched inside when that call starts within
[ts, ts + dur] of a matching range (bounds included). Times are compared exactly as decimals.

Prints one JSON object: {"dispatches_launched_inside": N, "ranges_matched": M}. Exit 0; 2 when
the file is no Kineto trace or the arguments are wrong. Standard library only; it shares no
code with decodeprof.
"""
import decimal
import fnmatch
import gzip
import json
import sys

D = decimal.Decimal

DISPATCH_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
LAUNCH_CATS = {"cuda_runtime", "cuda_driver", "hip_runtime", "hip_driver", "Runtime"}


def events_of(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw, parse_float=D, parse_int=D)
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        raise ValueError("no traceEvents array: not a Kineto trace")
    return [e for e in events if isinstance(e, dict) and e.get("ph") == "X"]


def correlation(event):
    value = (event.get("args") or {}).get("correlation")
    return int(value) if isinstance(value, D) else None


def count(path, glob):
    events = events_of(path)
    ranges = []
    for e in events:
        if e.get("cat") != "user_annotation" or not isinstance(e.get("name"), str):
            continue
        if not fnmatch.fnmatchcase(e["name"], glob):
            continue
        ts, dur = e.get("ts"), e.get("dur")
        if isinstance(ts, D) and isinstance(dur, D):
            ranges.append((ts, ts + dur))
    # Every launch call's start, by correlation id (a list: ids are not promised unique).
    launches = {}
    for e in events:
        if e.get("cat") not in LAUNCH_CATS or not isinstance(e.get("ts"), D):
            continue
        corr = correlation(e)
        if corr is not None:
            launches.setdefault(corr, []).append(e["ts"])
    inside = 0
    for e in events:
        if e.get("cat") not in DISPATCH_CATS:
            continue
        corr = correlation(e)
        starts = launches.get(corr, []) if corr is not None else []
        if any(lo <= t <= hi for t in starts for lo, hi in ranges):
            inside += 1
    return {"dispatches_launched_inside": inside, "ranges_matched": len(ranges)}


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        result = count(argv[1], argv[2])
    except (OSError, ValueError, EOFError, gzip.BadGzipFile) as e:
        print(f"launched_inside: {argv[1]}: {e}", file=sys.stderr)
        return 2
    json.dump(result, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
