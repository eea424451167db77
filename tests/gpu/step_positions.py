#!/usr/bin/env python3
"""Step times of a step-sampled recording by their place after the last sampled step.

usage: step_positions.py TRACE.sqlite [--range decodeprof:decode] [--max 16]

Reads a decodeprof native trace recorded with `record --sample-steps N` (every step in an
NVTX range "decodeprof:step", the sampled ones inside a "decodeprof:sampled" period) and
prints, for the last decode range of the trace, the median start-to-start time of the steps
0, 1, 2 ... steps after a sampled one (0: the sampled step itself). What sampling costs the
program in one process, free of the drift between processes: position 0 carries switching
recording on and off and the flush (they end the step); position 1, what the first
unrecorded step pays after it (CUPTI taking its instrumentation out again).
"""
import argparse
import sqlite3
import statistics
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--range", default="decodeprof:decode")
    ap.add_argument("--max", type=int, default=16, help="positions shown one by one")
    args = ap.parse_args()
    db = sqlite3.connect(f"file:{args.trace}?mode=ro", uri=True)
    names = dict(db.execute("select id, text from strings"))
    ranges = db.execute("select name_id, start_ns, end_ns from ranges order by start_ns").fetchall()
    by_name = {}
    for name_id, start, end in ranges:
        by_name.setdefault(names[name_id], []).append((start, end))
    decodes = by_name.get(args.range, [])
    if not decodes:
        sys.exit(f"{args.trace}: no range named {args.range}")
    begin, end = decodes[-1]
    steps = [s for s in by_name.get("decodeprof:step", []) if s[0] >= begin and s[1] <= end]
    periods = by_name.get("decodeprof:sampled", [])
    if len(steps) < 2:
        sys.exit(f"{args.trace}: fewer than two steps in the last {args.range}")

    def sampled(step):  # a period covering most of the step
        length = step[1] - step[0]
        return any(min(step[1], p[1]) - max(step[0], p[0]) > length / 2 for p in periods)

    positions = {}
    last = None
    for i in range(len(steps) - 1):
        if sampled(steps[i]):
            last = i
        if last is None:
            continue
        pos = min(i - last, args.max)
        positions.setdefault(pos, []).append((steps[i + 1][0] - steps[i][0]) / 1e6)
    flags = sum(1 for s in steps if sampled(s))
    print(f"{args.trace}: {len(steps)} steps in the last {args.range}, {flags} sampled")
    base = statistics.median(x for p, xs in positions.items() if p >= 3 for x in xs) \
        if any(p >= 3 for p in positions) else None
    for pos in sorted(positions):
        xs = positions[pos]
        label = f"{pos:>3}" if pos < args.max else f">={args.max}"
        med = statistics.median(xs)
        extra = f"  {med - base:+.3f} ms" if base is not None else ""
        print(f"  {label} after: {len(xs):4d} steps, median {med:.3f} ms start to start{extra}")
    if base is not None:
        print(f"  (differences against the median of the steps 3 or more after: {base:.3f} ms)")


if __name__ == "__main__":
    main()
