#!/usr/bin/env python3
"""The marks-free window of a llama.cpp trace against llama.cpp's own timing (issue 23).

usage: llama_check.py SUMMARY_JSON LLAMA_STDOUT [--expect-runs N]

SUMMARY_JSON: `decodeprof summarize` of a llama-decode recording without marks (the finder's
window). LLAMA_STDOUT: that recorded run's stdout, one line per repetition ("rep R prompt_ms X
P p decode_ms Y N n ms_per_token Z tokens_fnv H"). The finder takes the last of the runs, so
its window's wall time per forward pass must be within 1 % of its repetition's decode_ms /
N (llama-decode times its decode loop on the host: an independent clock of the same loop), and
its forward passes N - 1 or N. With --expect-runs N the finder must have seen N runs, taken
the last, with high confidence. Prints one JSON object; exit 0 on PASS, 1 on FAIL, 2 on usage
errors. Python 3 standard library only.
"""
import json
import sys


def main(argv):
    if len(argv) not in (3, 5):
        print(__doc__, file=sys.stderr)
        return 2
    s = json.load(open(argv[1]))
    reps = [line.split() for line in open(argv[2]) if line.startswith("rep ")]
    if not reps:
        print(__doc__, file=sys.stderr)
        return 2
    ev = s.get("window_evidence") or {}
    # The repetition the finder chose: its run, when it saw one run a repetition.
    pick = reps[-1]
    if ev.get("runs") == len(reps) and ev.get("run"):
        pick = reps[ev["run"] - 1]
    last = dict(zip(pick[0::2], pick[1::2]))
    n = int(last["N"])
    host_ms_per_token = float(last["decode_ms"]) / n
    passes = s["decode_forward_passes"]
    wall_per_pass = s["decode_wall_ms"] / passes
    ev = s.get("window_evidence") or {}
    checks = {
        "forward_passes": passes in (n - 1, n),
        "wall_per_pass_within_1pct": abs(wall_per_pass / host_ms_per_token - 1) <= 0.01,
        "says_how": s.get("window_source") in ("graph-launches", "periodic"),
    }
    if len(argv) == 5:
        want = int(argv[4])
        checks["runs_counted"] = ev.get("runs") == want and ev.get("run") == want
        checks["confidence_high"] = ev.get("confidence") == "high"
    out = {"forward_passes": passes, "decode_wall_ms_per_pass": round(wall_per_pass, 4),
           "llama_decode_ms_per_token": round(host_ms_per_token, 4),
           "gpu_ms_per_pass": round(s["decode_gpu_busy_ms"] / passes, 4),
           "window_source": s.get("window_source"),
           "evidence": {k: ev.get(k) for k in ("steps", "runs", "run", "boundary", "confidence",
                                               "reasons", "graph_launches_per_step")},
           "checks": checks, "verdict": "PASS" if all(checks.values()) else "FAIL"}
    print(json.dumps(out))
    return 0 if out["verdict"] == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
