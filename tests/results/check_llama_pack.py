#!/usr/bin/env python3
"""The ggml pack on the llama.cpp traces recorded on the H200 (Llama-3.2-1B f16).

usage: check_llama_pack.py DECODEPROF DIR

DIR holds llama_graph.sqlite.xz (one CUDA graph replayed per token) and llama_eager.sqlite.xz
(the same decode, kernels launched one by one). Each is decompressed into a scratch directory
and summarized without --pack. Checks, on both: the pack chosen is ggml, from the kernel names
(the note names mul_mat_vec_f and gives the share of the GPU time), with no pack_choice_weak
or large_kernel_unclassified diagnostic; the GEMVs (class gemv) are over 50 % of the GPU time,
and no kernel over 5 % of it is in class other. On the graph trace: the graph unit is not
ranked (ranked_units value null) and the advice printed says nothing of capturing a graph; on
the eager trace it is ranked. With --pack pytorch-cuda, which does not know ggml's kernels, the
warning large_kernel_unclassified is printed and names mul_mat_vec_f. Exit 1 on a failed check,
2 on usage errors.
"""
import json
import lzma
import os
import shutil
import subprocess
import sys
import tempfile


def check(name, summary, stderr, stdout, failures):
    def fail(what):
        failures.append(f"{name}: {what}")

    if summary.get("pack") != "ggml":
        fail(f"pack {summary.get('pack')!r}, not 'ggml'")
    note = next((line for line in stderr.splitlines() if "pack ggml (chosen" in line), "")
    if "mul_mat_vec_f" not in note or "% of the GPU time" not in note:
        fail(f"the pack note gives no evidence: {note!r}")
    codes = {d["code"] for d in summary.get("diagnostics", [])}
    for code in ("pack_choice_weak", "large_kernel_unclassified"):
        if code in codes:
            fail(f"diagnostic {code}")
    gemv = summary.get("class_share_pct", {}).get("gemv", 0.0)
    if not gemv > 50.0:
        fail(f"class gemv is {gemv} % of the GPU time, not over 50 %")
    other = summary.get("class_share_pct", {}).get("other", 0.0)
    if other > 5.0:
        fail(f"class other is {other} % of the GPU time")
    ranked = {u["id"]: u.get("value") for u in summary.get("ranked_units", [])}
    if "cuda_graph" not in ranked:
        fail("no cuda_graph unit in ranked_units")
    graphs = name == "llama_graph"
    if graphs and ranked.get("cuda_graph") is not None:
        fail(f"cuda_graph ranked ({ranked['cuda_graph']}) on a decode that replays graphs")
    if graphs and "graph" in stdout.split("top kernels")[0].split("do first:")[-1]:
        fail("the printed advice speaks of graphs")
    if not graphs and ranked.get("cuda_graph") is None:
        fail("cuda_graph not ranked on the eager decode")
    return gemv


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    dp, d = argv[1], argv[2]
    failures = []
    tmp = tempfile.mkdtemp(prefix="dp_llama_pack_")
    try:
        for name in ("llama_graph", "llama_eager"):
            packed = os.path.join(d, f"{name}.sqlite.xz")
            if not os.path.exists(packed):
                print(f"no {packed}", file=sys.stderr)
                return 2
            trace = os.path.join(tmp, f"{name}.sqlite")
            with lzma.open(packed) as src, open(trace, "wb") as dst:
                shutil.copyfileobj(src, dst)
            run = subprocess.run([dp, "summarize", "--trace", trace, "--name", name, "--out-dir",
                                  tmp], capture_output=True, text=True, timeout=300)
            if run.returncode != 0:
                failures.append(f"{name}: summarize exit {run.returncode}: {run.stderr[-2000:]}")
                continue
            with open(os.path.join(tmp, f"{name}_summary.json")) as f:
                summary = json.load(f)
            gemv = check(name, summary, run.stderr, run.stdout, failures)
            print(f"{name}: pack {summary.get('pack')}, gemv {gemv} % of the GPU time")
            # With a pack that does not know ggml's kernels, the GEMVs are large kernels in
            # class other: a warning, printed, that names them.
            other = subprocess.run([dp, "summarize", "--trace", trace, "--pack", "pytorch-cuda",
                                    "--name", f"{name}_other", "--out-dir", tmp],
                                   capture_output=True, text=True, timeout=300)
            line = next((l for l in other.stderr.splitlines()
                         if "large_kernel_unclassified" in l), "")
            if other.returncode != 0 or "mul_mat_vec_f" not in line:
                failures.append(f"{name} --pack pytorch-cuda: no large_kernel_unclassified line "
                                f"naming mul_mat_vec_f: {other.stderr[-1000:]}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for line in failures:
        print(f"FAIL {line}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
