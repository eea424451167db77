#!/usr/bin/env python3
"""Marks-free decode windows against marked ones (issue 12's acceptance), for one trace.

usage: window_check.py DP NAME TRACE OUT_DIR [--expect-runs N] [--log BENCH_LOG]
                       [--generated-tokens N]

Summarizes TRACE (a decodeprof native file recorded with marks) twice with decodeprof DP:
  marked:     with its ranges (and --log / --generated-tokens when given);
  marks-free: a copy of TRACE with every range and mark removed, without --log and without
              --generated-tokens: decodeprof must find the decode loop itself.
Prints one JSON object (and writes OUT_DIR/NAME_window_check.json): both runs' forward
passes, GPU busy ms per forward pass, window_source and evidence, and PASS/FAIL of the
acceptance: forward passes equal within 1, GPU ms per forward pass within 1 %; with
--expect-runs N also the decode runs the finder saw (window_evidence.runs) equal to N, the
window the last of them, and its confidence high (issue 23). Exit 0 on
PASS, 1 on FAIL, 2 on usage errors or when a summarize run failed. Python 3 stdlib only.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys


def summarize(dp, trace, name, out_dir, extra):
    cmd = [dp, "summarize", "--trace", trace, "--name", name, "--out-dir", out_dir] + extra
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {p.stderr.strip()[-2000:]}"
    with open(os.path.join(out_dir, f"{name}_summary.json")) as f:
        return json.load(f), p.stderr.strip()[-2000:]


def figures(s):
    passes = s.get("decode_forward_passes")
    busy = s.get("decode_gpu_busy_ms")
    return {"forward_passes": passes, "decode_gpu_busy_ms": busy,
            "gpu_ms_per_forward_pass": busy / passes if busy is not None and passes else None,
            "decode_dispatches": s.get("decode_dispatches"),
            "window_source": s.get("window_source"), "window_evidence": s.get("window_evidence")}


def main(argv):
    if len(argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    dp, name, trace, out_dir = argv[1:5]
    extra = argv[5:]
    expect_runs = None
    if "--expect-runs" in extra:
        i = extra.index("--expect-runs")
        expect_runs = int(extra[i + 1])
        del extra[i:i + 2]
    os.makedirs(out_dir, exist_ok=True)
    marked, err_m = summarize(dp, trace, f"{name}_marked", out_dir, extra)
    bare = os.path.join(out_dir, f"{name}_no_ranges.sqlite")
    shutil.copyfile(trace, bare)
    db = sqlite3.connect(bare)
    removed = {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("ranges", "marks")}
    db.execute("DELETE FROM ranges")
    db.execute("DELETE FROM marks")
    db.commit()
    db.close()
    free, err_f = summarize(dp, bare, f"{name}_marks_free", out_dir, [])
    os.remove(bare)
    result = {"name": name, "trace": os.path.basename(trace), "removed": removed,
              "marked_stderr": err_m, "marks_free_stderr": err_f}
    if marked is None or free is None:
        result["verdict"] = "ERROR"
        print(json.dumps(result, indent=1))
        json.dump(result, open(os.path.join(out_dir, f"{name}_window_check.json"), "w"), indent=1)
        return 2
    a, b = figures(marked), figures(free)
    result["marked"], result["marks_free"] = a, b
    checks = {}
    if a["forward_passes"] is not None and b["forward_passes"] is not None:
        checks["forward_passes_within_1"] = abs(a["forward_passes"] - b["forward_passes"]) <= 1
    else:
        checks["forward_passes_within_1"] = False
    pa, pb = a["gpu_ms_per_forward_pass"], b["gpu_ms_per_forward_pass"]
    if pa and pb:
        result["gpu_ms_per_forward_pass_rel_diff"] = (pb - pa) / pa
        checks["gpu_ms_per_forward_pass_within_1pct"] = abs(pb - pa) / pa <= 0.01
    else:
        checks["gpu_ms_per_forward_pass_within_1pct"] = False
    checks["says_how"] = b["window_source"] in ("graph-launches", "periodic")
    if expect_runs is not None:
        ev = b["window_evidence"] or {}
        checks["runs_counted"] = ev.get("runs") == expect_runs and ev.get("run") == expect_runs
        checks["confidence_high"] = ev.get("confidence") == "high"
    result["checks"] = checks
    result["verdict"] = "PASS" if all(checks.values()) else "FAIL"
    print(json.dumps(result, indent=1))
    json.dump(result, open(os.path.join(out_dir, f"{name}_window_check.json"), "w"), indent=1)
    return 0 if result["verdict"] == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
