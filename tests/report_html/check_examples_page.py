#!/usr/bin/env python3
"""The golden HTML page over examples/data, with the GPU-busy timelines.

    check_examples_page.py DECODEPROF SOURCE_DIR WORK_DIR

Summarizes the three real H200 recordings of examples/data with --emit-dispatches (as
examples/data/README.md's "Using them" does, plus the dispatch tables) into WORK_DIR/runs, prints
`decodeprof report --format html WORK_DIR/runs` and compares it byte for byte with
tests/golden/report_html/examples_data.html. DECODEPROF_UPDATE_GOLDEN=1 rewrites that file
instead (review the diff). The dispatch tables (4 to 10 MB each) are made here, not committed.
"""

import difflib
import os
import shutil
import subprocess
import sys

RUNS = ("Llama-3.1-8B-Instruct_greedy", "NVIDIA-Nemotron-3-Nano-30B-A3B_greedy")
MODULES_RUN = "llama_greedy-modules"


def run(command):
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"FAIL: {' '.join(command)} exited {result.returncode}\n{result.stderr}")
    return result.stdout


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    binary, source_dir, work_dir = sys.argv[1:]
    data = os.path.join(source_dir, "examples/data")
    runs_dir = os.path.join(work_dir, "runs")
    shutil.rmtree(runs_dir, ignore_errors=True)
    os.makedirs(runs_dir)
    for name in RUNS:
        d = os.path.join(data, name)
        run([binary, "summarize", "--trace", os.path.join(d, name + ".sqlite"),
             "--log", os.path.join(d, name + "_bench.log"),
             "--plain-log", os.path.join(d, name + "_plain_bench.log"), "--model-dir", d,
             "--name", name, "--out-dir", runs_dir, "--emit-dispatches"])
    d = os.path.join(data, MODULES_RUN)
    run([binary, "summarize", "--trace", os.path.join(d, MODULES_RUN + ".sqlite"), "--name",
         MODULES_RUN, "--out-dir", runs_dir, "--emit-dispatches"])
    page = run([binary, "report", "--format", "html", runs_dir])
    golden = os.path.join(source_dir, "tests/golden/report_html/examples_data.html")
    if os.environ.get("DECODEPROF_UPDATE_GOLDEN") == "1":
        os.makedirs(os.path.dirname(golden), exist_ok=True)
        with open(golden, "w", encoding="utf-8", newline="") as f:
            f.write(page)
        print(f"wrote {golden}")
        return 0
    with open(golden, encoding="utf-8", newline="") as f:
        expected = f.read()
    if page != expected:
        diff = difflib.unified_diff(expected.splitlines(), page.splitlines(), golden, "actual",
                                    lineterm="", n=1)
        print("\n".join(list(diff)[:80]))
        print(f"FAIL: the page differs from {golden} (DECODEPROF_UPDATE_GOLDEN=1 rewrites it)")
        return 1
    timelines = page.count('aria-label="GPU busy over the decode window"')
    if timelines != len(RUNS) + 1:
        print(f"FAIL: {timelines} timelines in the page, expected {len(RUNS) + 1}")
        return 1
    print(f"ok: {golden} ({len(page)} bytes, {timelines} timelines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
