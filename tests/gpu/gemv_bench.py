#!/usr/bin/env python3
"""Microbenchmarks of the decode GEMVs' shapes on the GPU (issue 27, tests/gpu): what a
batch-1 GEMV of each Llama-3.1-8B weight shape achieves, to hold the speed-of-light ledger's
per-class GB/s against.

  bf16     torch.nn.functional.linear(x[1, in], W[out, in]) in bf16: cuBLAS, the kernels a
           torch.compile decode runs for its projections.
  q4_0     a read of the same bytes a q4_0 matrix of that shape holds (18 bytes a block of 32
           weights): torch.sum over a float32 buffer of that size, the best any kernel reading
           those bytes does (llama.cpp's own kernels cannot be called from here).

Each shape rotates over enough copies of its weights (at least 1 GiB in all) that no call
finds its matrix in the 60 MB L2, and is timed with CUDA events over 5 replays of a CUDA graph of 100 calls (no launch gaps).
GB/s = the matrix's bytes / the time of one call. The model figure weighs each shape by the
times a token reads it: Σ bytes / Σ times.

usage: gemv_bench.py --out RESULT.json
"""
import argparse
import json

import torch

H, F, V, KV = 4096, 14336, 128256, 1024
LAYERS = 32
# (name, out, in, times a token reads it)
SHAPES = [("q_proj", H, H, LAYERS), ("k_proj", KV, H, LAYERS), ("v_proj", KV, H, LAYERS),
          ("o_proj", H, H, LAYERS), ("gate_proj", F, H, LAYERS), ("up_proj", F, H, LAYERS),
          ("down_proj", H, F, LAYERS), ("lm_head", V, H, 1)]
ROTATE_BYTES = 1 << 30
CALLS = 100
REPLAYS = 5


def timed(fn, calls):
    """ms a call of fn(i), i = 0..calls-1, captured in one CUDA graph and replayed REPLAYS
    times: the GPU's time alone (a Python loop of launches takes ~30 us a call, longer than
    most of these kernels)."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for i in range(3):  # warm-up outside the capture (cuBLAS picks its kernel)
            fn(i)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(calls):
            fn(i)
    graph.replay()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(REPLAYS):
        graph.replay()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / (calls * REPLAYS)  # ms a call


def bench_bf16(out_f, in_f):
    nbytes = out_f * in_f * 2
    copies = max(2, -(-ROTATE_BYTES // nbytes))
    ws = [torch.randn(out_f, in_f, device="cuda", dtype=torch.bfloat16) for _ in range(copies)]
    x = torch.randn(1, in_f, device="cuda", dtype=torch.bfloat16)
    ms = timed(lambda i: torch.nn.functional.linear(x, ws[i % copies]), CALLS)
    del ws
    return nbytes, ms


def bench_read(nbytes):
    n = nbytes // 4
    copies = max(2, -(-ROTATE_BYTES // nbytes))
    bufs = [torch.ones(n, device="cuda", dtype=torch.float32) for _ in range(copies)]
    ms = timed(lambda i: torch.sum(bufs[i % copies]), CALLS)
    del bufs
    return n * 4, ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "shapes": []}
    totals = {"bf16": [0.0, 0.0], "q4_0": [0.0, 0.0]}
    for name, out_f, in_f, count in SHAPES:
        b, ms = bench_bf16(out_f, in_f)
        q_bytes = out_f * in_f // 32 * 18
        qb, qms = bench_read(q_bytes)
        row = {"name": name, "out": out_f, "in": in_f, "per_token": count,
               "bf16_bytes": b, "bf16_ms": ms, "bf16_gbps": b / ms / 1e6,
               "q4_0_bytes": qb, "q4_0_read_ms": qms, "q4_0_read_gbps": qb / qms / 1e6}
        result["shapes"].append(row)
        totals["bf16"][0] += b * count
        totals["bf16"][1] += ms * count
        totals["q4_0"][0] += qb * count
        totals["q4_0"][1] += qms * count
        print(f"{name:10s} {out_f:6d}x{in_f:5d}  bf16 {row['bf16_gbps']:7.1f} GB/s"
              f"  q4_0-bytes read {row['q4_0_read_gbps']:7.1f} GB/s", flush=True)
    for kind, (b, ms) in totals.items():
        result[f"model_{kind}_gbps"] = b / ms / 1e6
        result[f"model_{kind}_ms_per_token"] = ms
        print(f"model {kind}: {b / 1e9:.3f} GB in {ms:.3f} ms = {b / ms / 1e6:.1f} GB/s")
    json.dump(result, open(args.out, "w"), indent=2)


if __name__ == "__main__":
    main()
