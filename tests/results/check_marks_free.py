#!/usr/bin/env python3
"""Marks-free decode windows on real H200 traces, in CI (issue 12; tests/gpu/window_crosscheck.sh
recorded them).

usage: check_marks_free.py DECODEPROF DIR

DIR (benchmarks/h200/marks-free-<commit>) holds native traces recorded with their marks
(NAME.sqlite.xz: eager and CUDA-graph transformers decodes, a torch.compile reduce-overhead
loop, a CUDA C++ graph loop whose marks are only its bench log's [phase] lines) and
window_check.json, what tests/gpu/window_check.py found for them on the H200. Each trace is
decompressed and checked again here with window_check.py: summarized with its marks and with
every range removed, the marks-free window must have the same forward passes (within 1), GPU
ms per forward pass within 1 % and say how it was found; and the figures must equal the ones
measured on the H200 (the same binary logic on the same file). Exits 1 on a failed check, 2 on
usage errors. Python 3 standard library only.
"""
import json
import lzma
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
WINDOW_CHECK = os.path.join(HERE, "..", "gpu", "window_check.py")


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    dp, d = argv[1], argv[2]
    with open(os.path.join(d, "window_check.json")) as f:
        on_gpu = {r["name"]: r for r in json.load(f)}
    failed = 0
    tmp = tempfile.mkdtemp(prefix="dp_marks_free_")
    try:
        for name, measured in sorted(on_gpu.items()):
            trace = os.path.join(tmp, f"{name}.sqlite")
            if not os.path.exists(os.path.join(d, f"{name}.sqlite.xz")):
                print(f"SKIP {name}: its trace is not in {d} (the H200 said "
                      f"{measured.get('verdict')})")
                continue
            with lzma.open(os.path.join(d, f"{name}.sqlite.xz")) as src, open(trace, "wb") as dst:
                shutil.copyfileobj(src, dst)
            extra = []
            if measured["marked"]["window_source"] == "log":
                steps = measured["marked"]["forward_passes"]
                extra = ["--log", os.path.join(d, f"{name}_bench.log"),
                         "--generated-tokens", str(steps + 1)]
            if "runs_counted" in measured.get("checks", {}):
                extra += ["--expect-runs", str(measured["marks_free"]["window_evidence"]["runs"])]
            out = os.path.join(tmp, name)
            p = subprocess.run([sys.executable, WINDOW_CHECK, dp, name, trace, out] + extra,
                               capture_output=True, text=True, timeout=600)
            if p.returncode != 0:
                print(f"FAIL {name}: window_check.py exit {p.returncode}\n{p.stdout[-3000:]}"
                      f"{p.stderr[-2000:]}")
                failed += 1
                continue
            here = json.loads(p.stdout)
            same = here["verdict"] == "PASS" and all(here[side][k] == measured[side][k]
                       for side in ("marked", "marks_free")
                       for k in ("forward_passes", "decode_gpu_busy_ms", "decode_dispatches",
                                 "window_source"))
            verdict = "PASS" if same else "FAIL"
            failed += 0 if same else 1
            print(f"{verdict} {name}: {here['marks_free']['window_source']}, "
                  f"{here['marks_free']['forward_passes']} forward passes "
                  f"(marked {here['marked']['forward_passes']}), "
                  f"{here['marks_free']['gpu_ms_per_forward_pass']:.4f} GPU ms/pass "
                  f"(marked {here['marked']['gpu_ms_per_forward_pass']:.4f})"
                  + ("" if same else "; differs from the H200's window_check.json"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
