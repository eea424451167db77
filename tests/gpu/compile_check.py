#!/usr/bin/env python3
"""Compares two decodeprof summaries of the same decode recorded by two tools (issue 10:
a torch.compile mode="reduce-overhead" decode recorded by `decodeprof record` and by
torch.profiler, tests/gpu/compile_crosscheck.sh). Python 3 standard library only.

usage: compile_check.py SUMMARY_A SUMMARY_B OUT.json [--trace-a NATIVE.sqlite]
                        [--trace-b KINETO.json] [--run-a RUN.json] [--run-b RUN.json]
       compile_check.py --count-kineto KINETO.json | --count-native NATIVE.sqlite

SUMMARY_A is the one under test (decodeprof record), SUMMARY_B the reference
(torch.profiler): relative differences are (A - B) / B. Thresholds:
  * decode dispatches within 0.1 %: dispatches_per_token, and decode_dispatches when both
    runs generated the same number of tokens;
  * GPU busy within 0.5 %: gpu_ms_per_token, and decode_gpu_busy_ms when the token counts
    are equal.
The two runs are separate processes: when generated_tokens differ, OUT.json says so and only
the per-token figures are judged. class_share_pct is compared (percentage points) but not
judged: a tool may name a dispatch differently (torch.profiler shows a CUDA graph's memcpy
nodes as `memcpy32_post` kernels).

--trace-a / --trace-b add what the traces hold inside their last `decodeprof:decode` range
(kernels, memory operations, how many came from CUDA graphs, `memcpy32_post` kernels); with
--trace-a, the decode must have replayed CUDA graphs (over half of its kernels with a graph
id), else that check fails too. --run-a / --run-b copy record_decode.py's results files
(compile times, counters) into OUT.json.

Prints one PASS or FAIL line per check; exits 0 when all pass, 1 when one fails, 2 on usage
errors. --count-kineto / --count-native print the number of kernels inside the trace's
last `decodeprof:decode` range (0 without one) and exit 0 (1, printing 0, when the file
cannot be read).
"""
import json
import sqlite3
import sys

DISPATCH_TOL = 0.001  # 0.1 %
BUSY_TOL = 0.005  # 0.5 %
DECODE_RANGE = "decodeprof:decode"
FIELDS = ("name", "trace_format", "clock", "generated_tokens", "decode_dispatches",
          "dispatches_per_token", "decode_gpu_busy_ms", "gpu_ms_per_token", "decode_gpu_sum_ms",
          "decode_wall_ms", "decode_forward_passes", "class_share_pct")


def rel(a, b):
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) or not b:
        return None
    return (a - b) / b


def kineto_decode(path):
    """What a Kineto trace holds inside its last decodeprof:decode range."""
    events = json.load(open(path)).get("traceEvents", [])
    ranges = [e for e in events if e.get("ph") == "X" and e.get("name") == DECODE_RANGE
              and e.get("cat") in ("user_annotation", "gpu_user_annotation")]
    cpu = [e for e in ranges if e.get("cat") == "user_annotation"] or ranges
    if not cpu:
        return {"decode_range": False, "kernels": 0}
    last = max(cpu, key=lambda e: float(e["ts"]))
    lo, hi = float(last["ts"]), float(last["ts"]) + float(last.get("dur", 0))
    inside = [e for e in events if e.get("ph") == "X" and lo <= float(e.get("ts", -1)) <= hi]
    kernels = [e for e in inside if e.get("cat") == "kernel"]
    graph = [e for e in kernels
             if any("graph" in k.lower() and v not in (None, 0, -1, "0")
                    for k, v in (e.get("args") or {}).items())]
    names = {}
    for e in kernels:
        names[e.get("name", "")] = names.get(e.get("name", ""), 0) + 1
    return {"decode_range": True, "decode_range_us": hi - lo, "kernels": len(kernels),
            "kernels_with_graph_args": len(graph),
            "memcpy32_post_kernels": names.get("memcpy32_post", 0),
            "gpu_memcpy": sum(e.get("cat") == "gpu_memcpy" for e in inside),
            "gpu_memset": sum(e.get("cat") == "gpu_memset" for e in inside),
            "cuda_graph_launches": sum(e.get("cat") in ("cuda_runtime", "cuda_driver")
                                       and "GraphLaunch" in e.get("name", "") for e in inside),
            "distinct_kernel_names": len(names)}


def native_decode(path):
    """What a decodeprof native trace holds inside its last decodeprof:decode range."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    row = db.execute("SELECT r.start_ns, r.end_ns FROM ranges r JOIN strings s ON s.id = "
                     "r.name_id WHERE s.text = ? ORDER BY r.start_ns DESC LIMIT 1",
                     (DECODE_RANGE,)).fetchone()
    if row is None:
        return {"decode_range": False, "kernels": 0}
    lo, hi = row
    k = db.execute("SELECT count(*), sum(graph_id != 0), count(DISTINCT CASE WHEN graph_id != 0 "
                   "THEN graph_id END) FROM kernels WHERE start_ns BETWEEN ? AND ?",
                   (lo, hi)).fetchone()
    post = db.execute("SELECT count(*) FROM kernels k JOIN strings s ON s.id = k.name_id "
                      "WHERE s.text = 'memcpy32_post' AND k.start_ns BETWEEN ? AND ?",
                      (lo, hi)).fetchone()[0]
    mem = db.execute("SELECT kind, copy_kind, graph_id != 0, count(*) FROM memory_ops WHERE "
                     "start_ns BETWEEN ? AND ? GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
                     (lo, hi)).fetchall()
    api = db.execute("SELECT s.text, count(*) FROM api_calls a JOIN strings s ON s.id = "
                     "a.name_id WHERE a.start_ns BETWEEN ? AND ? GROUP BY 1 ORDER BY 2 DESC",
                     (lo, hi)).fetchall()
    return {"decode_range": True, "decode_range_us": (hi - lo) / 1e3, "kernels": k[0],
            "kernels_from_graphs": k[1] or 0, "graphs": k[2],
            "memcpy32_post_kernels": post,
            "memory_ops": [{"kind": {1: "memcpy", 2: "memset"}.get(a, a), "copy_kind": b,
                            "from_graph": bool(c), "count": n} for a, b, c, n in mem],
            "launch_calls": dict(api)}


def load(path):
    with open(path) as f:
        return json.load(f)


def main(argv):
    if len(argv) == 3 and argv[1] in ("--count-kineto", "--count-native"):
        try:
            read = kineto_decode if argv[1] == "--count-kineto" else native_decode
            print(read(argv[2])["kernels"])
            return 0
        except Exception as e:  # noqa: BLE001 - an unreadable trace counts nothing
            print(f"{argv[1][2:]}: {type(e).__name__}: {e}", file=sys.stderr)
            print(0)
            return 1
    pos, opts = [], {}
    it = iter(argv[1:])
    for a in it:
        if a in ("--trace-a", "--trace-b", "--run-a", "--run-b"):
            opts[a[2:]] = next(it, None)
        elif a.startswith("--"):
            print(__doc__, file=sys.stderr)
            return 2
        else:
            pos.append(a)
    if len(pos) != 3 or None in opts.values():
        print(__doc__, file=sys.stderr)
        return 2
    path_a, path_b, out_path = pos
    a, b = load(path_a), load(path_b)
    res = {"a": {k: a.get(k) for k in FIELDS}, "b": {k: b.get(k) for k in FIELDS},
           "reference": "b", "relative_difference": {}, "thresholds": {
               "dispatches": DISPATCH_TOL, "gpu_busy": BUSY_TOL}, "notes": [], "checks": []}
    ta, tb = a.get("generated_tokens"), b.get("generated_tokens")
    same_tokens = isinstance(ta, int) and ta == tb
    res["generated_tokens_equal"] = same_tokens
    if not same_tokens:
        res["notes"].append(f"generated_tokens differ ({ta} vs {tb}): separate processes; "
                            "only the per-token figures are judged")
    d = res["relative_difference"]
    for k in ("decode_dispatches", "dispatches_per_token", "decode_gpu_busy_ms",
              "gpu_ms_per_token", "decode_gpu_sum_ms", "decode_wall_ms"):
        d[k] = rel(a.get(k), b.get(k))
    # The per-token figures unrounded (the summaries round them).
    for total, name in (("decode_dispatches", "dispatches_per_token_exact"),
                        ("decode_gpu_busy_ms", "gpu_ms_per_token_exact")):
        if isinstance(ta, int) and isinstance(tb, int) and ta and tb:
            va, vb = a.get(total), b.get(total)
            if isinstance(va, (int, float)) and isinstance(vb, (int, float)):
                d[name] = rel(va / ta, vb / tb)
    ca, cb = a.get("class_share_pct") or {}, b.get("class_share_pct") or {}
    res["class_share_pp_difference"] = {
        c: round(ca.get(c, 0.0) - cb.get(c, 0.0), 4) for c in sorted(set(ca) | set(cb))}

    def check(label, key, tol):
        r = d.get(key)
        ok = r is not None and abs(r) <= tol
        res["checks"].append({"check": label, "field": key, "a": a.get(key), "b": b.get(key),
                              "relative_difference": r, "tolerance": tol, "pass": ok})

    for x in (a, b):
        if not x.get("decode_dispatches"):
            res["checks"].append({"check": f"{x.get('name')}: decode dispatches found",
                                  "field": "decode_dispatches", "a": a.get("decode_dispatches"),
                                  "b": b.get("decode_dispatches"), "pass": False})
    check("decode dispatches per token within 0.1 %", "dispatches_per_token", DISPATCH_TOL)
    if same_tokens:
        check("decode dispatches within 0.1 %", "decode_dispatches", DISPATCH_TOL)
    check("GPU busy per token within 0.5 %", "gpu_ms_per_token", BUSY_TOL)
    if same_tokens:
        check("decode GPU busy within 0.5 %", "decode_gpu_busy_ms", BUSY_TOL)

    traces = {}
    for side in ("a", "b"):
        path = opts.get(f"trace-{side}")
        if not path:
            continue
        try:
            traces[side] = native_decode(path) if side == "a" else kineto_decode(path)
        except Exception as e:  # noqa: BLE001 - the trace details are extras
            traces[side] = {"error": f"{type(e).__name__}: {e}"}
    if traces:
        res["traces"] = traces
    if "a" in traces and "error" not in traces["a"]:
        t = traces["a"]
        share = t.get("kernels_from_graphs", 0) / t["kernels"] if t.get("kernels") else 0.0
        t["share_of_kernels_from_graphs"] = round(share, 4)
        res["checks"].append({"check": "the recorded decode replayed CUDA graphs (over half "
                                       "of its kernels with a graph id)",
                              "field": "traces.a.kernels_from_graphs",
                              "a": t.get("kernels_from_graphs"), "b": t.get("kernels"),
                              "pass": share > 0.5})
    runs = {}
    for side in ("a", "b"):
        path = opts.get(f"run-{side}")
        if path:
            try:
                runs[side] = load(path)
            except Exception as e:  # noqa: BLE001 - extras
                runs[side] = {"error": f"{type(e).__name__}: {e}"}
    if runs:
        res["runs"] = runs

    res["pass"] = all(c["pass"] for c in res["checks"])
    with open(out_path, "w") as f:
        json.dump(res, f, indent=2)
        f.write("\n")
    na, nb = a.get("name"), b.get("name")
    for c in res["checks"]:
        r = c.get("relative_difference")
        extra = f" ({r * 100:+.4f} %, tolerance {c['tolerance'] * 100:g} %)" if r is not None \
            else ""
        print(f"{'PASS' if c['pass'] else 'FAIL'} {c['check']}: {na} {c['a']} vs {nb} "
              f"{c['b']}{extra}")
    for n in res["notes"]:
        print(f"note: {n}")
    for side, t in traces.items():
        print(f"trace {side}: {json.dumps(t)}")
    big = {c: v for c, v in res["class_share_pp_difference"].items() if abs(v) >= 0.1}
    print(f"class shares differing by >= 0.1 pp ({na} - {nb}): {big or 'none'}")
    print(f"{'PASS' if res['pass'] else 'FAIL'}: {sum(c['pass'] for c in res['checks'])} of "
          f"{len(res['checks'])} checks")
    return 0 if res["pass"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
