#!/usr/bin/env python3
"""Cross-checks decodeprof's recording of a decode against torch.profiler's (issue 4).

usage: record_crosscheck.py DECODEPROF.sqlite TORCH_TRACE.json OUT.json [SKIP]

Both runs come from tests/gpu/record_decode.py, whose decode steps are marked by the range
"decodeprof:step" (NVTX for decodeprof, record_function for torch.profiler) and end with a
host sync, so a step's kernels are those that start inside its range. For every step index
present in both (decodeprof's first SKIP steps left out: its warm-up run), compares the kernel names and counts, and the total kernel time (must be
within 3%). Prints a summary; exits 1 on a mismatch.
"""
import collections
import json
import sqlite3
import sys


def decodeprof_steps(path):
    db = sqlite3.connect(path)
    steps = db.execute("SELECT r.start_ns, r.end_ns FROM ranges r JOIN strings s "
                       "ON s.id = r.name_id WHERE s.text = 'decodeprof:step' "
                       "ORDER BY r.start_ns").fetchall()
    kernels = db.execute("SELECT s.text, k.start_ns, k.end_ns FROM kernels k JOIN strings s "
                         "ON s.id = k.name_id ORDER BY k.start_ns").fetchall()
    return split(steps, kernels)


def torch_steps(path):
    events = json.load(open(path))["traceEvents"]
    steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in events
                   if e.get("cat") == "user_annotation" and e.get("name") == "decodeprof:step")
    kernels = sorted((e["name"], e["ts"], e["ts"] + e["dur"]) for e in events
                     if e.get("cat") == "kernel")
    # microseconds → nanoseconds
    steps = [(a * 1000.0, b * 1000.0) for a, b in steps]
    kernels = [(n, a * 1000.0, b * 1000.0) for n, a, b in kernels]
    kernels.sort(key=lambda k: k[1])
    return split(steps, kernels)


def split(steps, kernels):
    """Per step: (Counter of names, total kernel ns)."""
    out = []
    i = 0
    for lo, hi in steps:
        while i < len(kernels) and kernels[i][1] < lo:
            i += 1
        names = collections.Counter()
        total = 0.0
        j = i
        while j < len(kernels) and kernels[j][1] <= hi:
            names[kernels[j][0]] += 1
            total += kernels[j][2] - kernels[j][1]
            j += 1
        out.append((names, total))
    return out


def main():
    ours_path, torch_path, out_path = sys.argv[1:4]
    skip = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    ours = decodeprof_steps(ours_path)[skip:]
    theirs = torch_steps(torch_path)
    n = min(len(ours), len(theirs))
    per_step = []
    for s in range(n):
        (a_names, a_total), (b_names, b_total) = ours[s], theirs[s]
        only_ours = a_names - b_names
        only_theirs = b_names - a_names
        ratio = a_total / b_total if b_total else float("nan")
        per_step.append({"step": s, "kernels_decodeprof": sum(a_names.values()),
                         "kernels_torch": sum(b_names.values()),
                         "names_and_counts_equal": not only_ours and not only_theirs,
                         "only_decodeprof": dict(list(only_ours.items())[:5]),
                         "only_torch": dict(list(only_theirs.items())[:5]),
                         "kernel_ns_decodeprof": a_total, "kernel_ns_torch": b_total,
                         "time_ratio": ratio})
    equal = sum(p["names_and_counts_equal"] for p in per_step)
    within = sum(abs(p["time_ratio"] - 1.0) <= 0.03 for p in per_step)
    total_ours = sum(p["kernel_ns_decodeprof"] for p in per_step)
    total_theirs = sum(p["kernel_ns_torch"] for p in per_step)
    summary = {"steps_decodeprof": len(ours), "steps_torch": len(theirs), "steps_compared": n,
               "steps_names_and_counts_equal": equal, "steps_time_within_3pct": within,
               "total_kernel_time_ratio": total_ours / total_theirs if total_theirs else None,
               "per_step": per_step}
    json.dump(summary, open(out_path, "w"), indent=2)
    print(f"steps compared {n} (decodeprof {len(ours)}, torch {len(theirs)}); "
          f"names+counts equal in {equal}; kernel time within 3% in {within}; "
          f"total kernel time ratio {summary['total_kernel_time_ratio']}")
    if per_step:
        mid = per_step[n // 2]
        print(f"step {mid['step']}: {mid['kernels_decodeprof']} vs {mid['kernels_torch']} kernels, "
              f"{mid['kernel_ns_decodeprof'] / 1e3:.1f} vs {mid['kernel_ns_torch'] / 1e3:.1f} us, "
              f"only decodeprof {mid['only_decodeprof']}, only torch {mid['only_torch']}")
    ok = n > 0 and equal == n and abs(summary["total_kernel_time_ratio"] - 1.0) <= 0.03
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
