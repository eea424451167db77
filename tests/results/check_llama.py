#!/usr/bin/env python3
"""llama.cpp traces recorded on the H200 (tests/gpu/llama_finder_h200.sh), in CI (issue 23).

usage: check_llama.py DECODEPROF DIR

DIR holds NAME.sqlite.xz (llama-decode -r 3 recorded by decodeprof; the engine writes no
marks) and NAME.recorded.txt (that run's own timing, a line per repetition). Each trace is
summarized without marks and tests/gpu/llama_check.py --expect-runs 3 must pass: the found
window's wall time per forward pass within 1 % of llama-decode's decode_ms / N of the run it
chose, the three runs counted, high confidence. Exit 1 on a failed check, 2 on usage errors.
"""
import glob
import lzma
import os
import shutil
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu", "llama_check.py")


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    dp, d = argv[1], argv[2]
    names = sorted(os.path.basename(p)[:-len(".sqlite.xz")]
                   for p in glob.glob(os.path.join(d, "llama_*.sqlite.xz")))
    if not names:
        print(f"no llama_*.sqlite.xz in {d}", file=sys.stderr)
        return 2
    failed = 0
    tmp = tempfile.mkdtemp(prefix="dp_llama_")
    try:
        for name in names:
            trace = os.path.join(tmp, f"{name}.sqlite")
            with lzma.open(os.path.join(d, f"{name}.sqlite.xz")) as src, open(trace, "wb") as dst:
                shutil.copyfileobj(src, dst)
            run = subprocess.run([dp, "summarize", "--trace", trace, "--name", name, "--out-dir",
                                  tmp], capture_output=True, text=True, timeout=300)
            if run.returncode != 0:
                print(f"FAIL {name}: summarize exit {run.returncode}: {run.stderr[-2000:]}")
                failed += 1
                continue
            check = subprocess.run([sys.executable, CHECK, os.path.join(tmp, f"{name}_summary.json"),
                                    os.path.join(d, f"{name}.recorded.txt"), "--expect-runs", "3"],
                                   capture_output=True, text=True)
            print(f"{name}: {check.stdout.strip()}{check.stderr.strip()}")
            failed += 0 if check.returncode == 0 else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
