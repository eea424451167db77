#!/usr/bin/env python3
"""The runs of tests/gpu/recording_modes_h200.sh: one JSON line per run (note), and the
verdicts over all of them (report). Python 3 standard library only.

note: --program P --mode M --round R --kind torch|llama|cpp --rc RC --wall-ms MS --result FILE
      --trace FILE --summarize-rc RC --summary FILE --stderr FILE --summarize-stderr FILE
  Prints one JSON object: the run's exit status; its token ids (torch: every generate call's
  ids; llama: each repetition's tokens_fnv; cpp: the final token counter) and run time (the
  sum of the generate calls' decode wall ms); for a recorded run the trace's loss counters
  (every one must be 0) and recorder meta, and the summary's figures (gpu_ms_per_token,
  generated_tokens, window_tokens, sampling) or the summarize error.

report: RUNS.jsonl [--json OUT.json]
  Per program and mode: runs, exits, token ids against the plain runs' (and the plain runs
  against each other), losses, summaries, the median run time and its slowdown over plain,
  and the median gpu_ms_per_token against the full recording's. Exit 0 when every run exited
  0 with the plain runs' tokens, no record was lost and every trace summarized; else 1.
"""
import argparse
import json
import os
import sqlite3
import statistics
import sys

# Counters of a native trace that mean records were lost (docs/trace-format.md).
LOSS_COUNTERS = ("cupti_dropped_records", "buffer_pool_exhausted", "nvtx_events_dropped",
                 "write_failures", "translation_failures", "incomplete_kernel_records")
META = ("recording_status", "sample_period_end", "gate_deferred_off_time", "gate_flush_time",
        "gate_switch_on_time", "gate_switch_off_time", "cupti_detach", "warnings",
        "only_range_warnings", "graph_call_time", "sample_stretch")


def read_result(kind, path):
    """(tokens, run_ms) of the program's own output; (None, None) when it has none."""
    try:
        if kind == "torch":
            r = json.load(open(path))
            calls = r["generates"]
            return [c["token_ids"] for c in calls], sum(c["decode_wall_ms"] for c in calls)
        if kind == "llama":
            reps = [line.split() for line in open(path) if line.startswith("rep ")]
            if not reps:
                return None, None
            tokens = [rep[rep.index("tokens_fnv") + 1] for rep in reps]
            return tokens, sum(float(rep[rep.index("decode_ms") + 1]) for rep in reps)
        if kind == "cpp":
            r = json.load(open(path))
            return r.get("final_token"), r["decode_wall_ns"] / 1e6
    except (OSError, ValueError, KeyError, IndexError):
        pass
    return None, None


def read_trace(path):
    if not os.path.exists(path):
        return None
    out = {"counters": {}, "meta": {}}
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        for name, value in db.execute("SELECT name, value FROM counters"):
            out["counters"][name] = value
        for key, value in db.execute("SELECT key, value FROM meta"):
            if key in META:
                out["meta"][key] = value
        out["kernels"] = db.execute("SELECT COUNT(*) FROM kernels").fetchone()[0]
        db.close()
    except sqlite3.Error as e:
        out["error"] = str(e)
    return out


def tail(path, n=600):
    try:
        return open(path, errors="replace").read()[-n:]
    except OSError:
        return ""


def note(a):
    tokens, run_ms = read_result(a.kind, a.result)
    rec = {"program": a.program, "mode": a.mode, "round": a.round, "rc": a.rc,
           "process_ms": a.wall_ms, "run_ms": run_ms, "tokens": tokens}
    trace = read_trace(a.trace)
    if trace is not None:
        rec["trace"] = trace
        rec["lost"] = sum(int(trace["counters"].get(c, 0) or 0) for c in LOSS_COUNTERS)
        rec["summarize_rc"] = a.summarize_rc
        if a.summarize_rc == 0 and os.path.exists(a.summary):
            s = json.load(open(a.summary))
            rec["summary"] = {k: s.get(k) for k in (
                "gpu_ms_per_token", "generated_tokens", "window_tokens", "decode_dispatches",
                "decode_gpu_busy_ms", "window_source", "sampling")}
            ev = s.get("window_evidence") or {}
            rec["summary"]["window_range"] = ev.get("range")
            rec["summary"]["warnings"] = [d.get("code") for d in s.get("diagnostics", [])
                                          if d.get("severity") not in ("info",)]
        else:
            rec["summarize_error"] = tail(a.summarize_stderr)
    if a.rc != 0 or tokens is None:
        rec["stderr_tail"] = tail(a.stderr, 1500)
    print(json.dumps(rec, sort_keys=True))


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def report(a):
    runs = [json.loads(line) for line in open(a.runs) if line.strip()]
    out = {"programs": {}}
    ok = True
    lines = []
    for program in sorted({r["program"] for r in runs}):
        mine = [r for r in runs if r["program"] == program]
        plain = [r for r in mine if r["mode"] == "plain"]
        ref = next((r["tokens"] for r in plain if r["tokens"] is not None), None)
        plain_ms = median([r["run_ms"] for r in plain])
        full_gpu = median([(r.get("summary") or {}).get("gpu_ms_per_token")
                           for r in mine if r["mode"] == "full"])
        prof = median([r["run_ms"] for r in mine if r["mode"] == "torchprof"])
        prof_slow = (100 * (prof / plain_ms - 1)) if prof and plain_ms else None
        modes = {}
        lines.append(f"== {program}: plain {plain_ms and round(plain_ms, 1)} ms a run (median)")
        for mode in dict.fromkeys(r["mode"] for r in mine):
            rs = [r for r in mine if r["mode"] == mode]
            exits = [r["rc"] for r in rs]
            same = [r["tokens"] == ref for r in rs] if ref is not None else []
            recorded = [r for r in rs if "trace" in r]
            lost = sum(r.get("lost", 0) for r in recorded)
            summarized = [r.get("summarize_rc") == 0 for r in recorded]
            ms = median([r["run_ms"] for r in rs])
            slow = 100 * (ms / plain_ms - 1) if ms and plain_ms else None
            gpu = median([(r.get("summary") or {}).get("gpu_ms_per_token") for r in rs])
            gpu_vs_full = 100 * (gpu / full_gpu - 1) if gpu and full_gpu else None
            m = {"runs": len(rs), "exits": exits, "tokens_equal_plain": same,
                 "lost_records": lost, "summarized": summarized, "median_run_ms": ms,
                 "slowdown_pct": slow, "gpu_ms_per_token": gpu,
                 "gpu_vs_full_pct": gpu_vs_full,
                 "per_round_gpu_ms_per_token": [(r.get("summary") or {}).get("gpu_ms_per_token")
                                                for r in rs],
                 "per_round_run_ms": [r["run_ms"] for r in rs]}
            if prof_slow is not None and slow is not None and mode not in ("plain", "torchprof"):
                m["slowdown_over_torchprof"] = slow / prof_slow if prof_slow > 0 else None
            modes[mode] = m
            good = (all(e == 0 for e in exits) and all(same) and len(same) == len(rs)
                    and lost == 0 and all(summarized))
            ok = ok and good
            fmt = lambda v, d=2: "-" if v is None else f"{v:.{d}f}"  # noqa: E731
            lines.append(
                f"  {mode:9s} {'ok  ' if good else 'FAIL'} exits {exits} tokens="
                f"{sum(same)}/{len(rs)} lost {lost} summarized {sum(summarized)}/"
                f"{len(recorded)}; run {fmt(ms, 1)} ms ({fmt(slow)} %)"
                + (f", x{m['slowdown_over_torchprof']:.2f} of torch.profiler's"
                   if m.get("slowdown_over_torchprof") is not None else "")
                + (f"; gpu ms/token {fmt(gpu, 4)} ({fmt(gpu_vs_full, 3)} % vs full)"
                   if gpu is not None else ""))
        out["programs"][program] = {"plain_run_ms": plain_ms, "torchprof_slowdown_pct": prof_slow,
                                    "modes": modes}
    out["ok"] = ok
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
    print("\n".join(lines))
    print("ALL OK" if ok else "SOME RUN FAILED A CHECK")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    n = sub.add_parser("note")
    for flag in ("--program", "--mode", "--kind", "--result", "--trace", "--summary", "--stderr",
                 "--summarize-stderr"):
        n.add_argument(flag, required=True)
    for flag in ("--round", "--rc", "--wall-ms", "--summarize-rc"):
        n.add_argument(flag, type=int, required=True)
    r = sub.add_parser("report")
    r.add_argument("runs")
    r.add_argument("--json")
    a = ap.parse_args()
    if a.cmd == "note":
        note(a)
        return 0
    return report(a)


if __name__ == "__main__":
    sys.exit(main())
