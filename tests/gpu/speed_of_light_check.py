#!/usr/bin/env python3
"""Checks the speed-of-light ledger of two H200 decodes against an independent reading
(issue 27, tests/gpu/speed_of_light_h200.sh):

  MBU (independent) = the run's own tokens/s × bytes a token ÷ the measured peak,

with the bytes counted here from the shapes (Llama-3.1-8B: bf16 for the torch.compile decode,
q4_0 as make_gguf.py writes it for llama.cpp) and the tokens/s from the program itself
(record_decode.py's results, llama-decode's ms_per_token of the repetition the window is).
PASS when the ledger's mbu_pct is within 2 % of it (relative). Also sets the ledger's GEMV
class GB/s beside the microbenchmark (gemv_bench.py) of the same shapes.

usage: speed_of_light_check.py --bandwidth B.json --compile-summary S.json --compile-results R.json
         --llama-summary S.json --llama-out RECORDED.txt --gemv G.json --prompt P --steps N
         --llama-prompt P --llama-steps N --out CHECK.json
"""
import argparse
import json
import sys

H, F, V, KV, L = 4096, 14336, 128256, 1024, 32


def llama_weights(bytes_of):  # bytes_of(elements) of a 2-D weight
    per_layer = bytes_of(H * H) * 2 + bytes_of(KV * H) * 2 + bytes_of(F * H) * 3
    norms = (2 * L + 1) * H
    return L * per_layer + bytes_of(V * H), norms


def main():
    ap = argparse.ArgumentParser()
    for a in ("bandwidth", "compile-summary", "compile-results", "llama-summary", "llama-out",
              "gemv", "out"):
        ap.add_argument("--" + a, default="")
    for a in ("prompt", "steps", "llama-steps"):
        ap.add_argument("--" + a, type=int, default=0)
    ap.add_argument("--llama-prompt", default="")  # comma-separated, one per llama summary
    args = ap.parse_args()
    peak = json.load(open(args.bandwidth))["peak_bandwidth_gbps"]
    out = {"measured_peak_gbps": peak, "checks": []}
    ok = True

    def check(name, ledger, indep, extra):
        nonlocal ok
        diff = abs(ledger - indep) / indep * 100
        verdict = "PASS" if diff <= 2.0 else "FAIL"
        ok = ok and verdict == "PASS"
        out["checks"].append({"name": name, "ledger_mbu_pct": ledger, "independent_mbu_pct": indep,
                              "diff_pct": diff, "verdict": verdict, **extra})
        print(f"{verdict} {name}: ledger MBU {ledger:.2f} %, independent {indep:.2f} % "
              f"({diff:.2f} % apart) {extra}")

    gemv = json.load(open(args.gemv)) if args.gemv else None
    if args.compile_summary:
        s = json.load(open(args.compile_summary))
        sol = s.get("speed_of_light")
        runs = json.load(open(args.compile_results))["runs"]
        tok_s = [r["tok_s"] for r in runs if "tok_s" in r][-1]
        w, norms = llama_weights(lambda n: 2 * n)
        context = args.prompt + (args.steps + 1) / 2
        bytes_tok = w + 2 * norms + 2 * H + 2 * KV * 2 * L * context  # + one embedding row
        indep = tok_s * bytes_tok / (peak * 1e9) * 100
        if sol is None:
            print("FAIL compile: no speed_of_light in the summary"); ok = False
        else:
            check("torch.compile bf16", sol["mbu_pct"], indep,
                  {"tok_s": tok_s, "bytes_per_token_here": bytes_tok,
                   "bytes_per_token_ledger": sol["bytes_per_token"],
                   "ledger_ms_per_token": sol["wall_ms_per_token"]})
            cls = sol["classes"].get("gemm") or sol["classes"].get("gemv")
            if gemv and cls:
                out["compile_gemv"] = {"ledger_gbps": cls["achieved_gbps"],
                                       "microbench_gbps": gemv["model_bf16_gbps"]}
                print(f"compile GEMVs: ledger {cls['achieved_gbps']:.1f} GB/s, microbenchmark "
                      f"{gemv['model_bf16_gbps']:.1f} GB/s")
    llama = zip(args.llama_summary.split(","), args.llama_out.split(","),
                args.llama_prompt.split(",")) if args.llama_summary else []
    for summary, recorded, prompt in llama:
        s = json.load(open(summary))
        sol = s.get("speed_of_light")
        reps = [l.split() for l in open(recorded) if l.startswith("rep ")]
        ms = [float(r[r.index("ms_per_token") + 1]) for r in reps]
        run = (s.get("window_evidence") or {}).get("run") or len(ms)
        tok_s = 1000 / ms[min(run, len(ms)) - 1]
        w, norms = llama_weights(lambda n: n // 32 * 18)
        context = int(prompt) + (args.llama_steps + 1) / 2
        bytes_tok = w + 4 * norms + H // 32 * 18 + 2 * KV * 2 * L * context
        indep = tok_s * bytes_tok / (peak * 1e9) * 100
        name = f"llama.cpp q4_0, prompt {prompt}"
        if sol is None:
            print(f"FAIL {name}: no speed_of_light in the summary"); ok = False
            continue
        check(name, sol["mbu_pct"], indep,
              {"tok_s": tok_s, "window_run": run, "bytes_per_token_here": bytes_tok,
               "bytes_per_token_ledger": sol["bytes_per_token"],
               "ledger_ms_per_token": sol["wall_ms_per_token"],
               "floor_ms_per_token": sol["floor_ms_per_token"]})
        cls = sol["classes"].get("gemv")
        if gemv and cls:
            out.setdefault("llama_gemv", []).append(
                {"prompt": prompt, "ledger_gbps": cls["achieved_gbps"],
                 "microbench_read_gbps": gemv["model_q4_0_gbps"]})
            print(f"{name} GEMVs: ledger {cls['achieved_gbps']:.1f} GB/s, reading the same "
                  f"bytes {gemv['model_q4_0_gbps']:.1f} GB/s")
    json.dump(out, open(args.out, "w"), indent=2)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
