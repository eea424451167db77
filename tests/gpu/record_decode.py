#!/usr/bin/env python3
"""A transformers decode for recorder overhead and cross-checks (issue 4, tests/gpu).

Random-weight Llama-3.1-8B configuration, bf16, batch 1, a manual prefill + greedy decode
loop (one host sync per token, as a real decoder's stop check has). Each decode step is
wrapped in an NVTX range "decodeprof:step" (and a torch.profiler record_function of the
same name), the decode in "decodeprof:decode"; the seed's phase-mark lines go to stderr.

usage: record_decode.py --runs plain,torchprof,... --out RESULTS.json
         [--prompt 128] [--steps 64] [--torch-trace TRACE.json]
Run kinds: plain (nothing attached in-process; under `decodeprof record` this is the
recorded run), torchprof (torch.profiler with CPU + CUDA activity around the decode),
torchprof_cuda (CUDA activity only), gated (a plain run inside the NVTX range
"decodeprof:record": under `decodeprof record --only-range decodeprof:record` it is the
recorded run and the plain runs of the same process are not recorded), torchprof_ab
(torch.profiler, CPU + CUDA activity, started before and stopped after this run alone,
without record_function annotations: alternated with plain runs it is the in-process
counterpart of gated). The first run of the list is preceded by one warm-up run that is
not reported. A torchprof_ab run that raises (torch.profiler refusing to start again in
the same process) is reported with its error, without tok_s, and the list goes on.
"""
import argparse
import json
import sys
import time
import traceback

import torch
from transformers import LlamaConfig, LlamaForCausalLM


def llama31_8b_config():
    """Llama-3.1-8B's published shape; the llama3 RoPE scaling if this transformers takes it
    in the old spelling (it does not change the kernels of a short decode)."""
    shape = dict(
        vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=131072,
        rms_norm_eps=1e-5, rope_theta=500000.0, hidden_act="silu", tie_word_embeddings=False,
        bos_token_id=128000, eos_token_id=128001)
    try:
        return LlamaConfig(**shape, rope_scaling={
            "rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
            "high_freq_factor": 4.0, "original_max_position_embeddings": 8192})
    except Exception as e:  # noqa: BLE001 - any refusal: fall back to plain RoPE
        print(f"note: llama3 rope scaling not accepted ({e}); plain RoPE", file=sys.stderr)
        return LlamaConfig(**shape)


def phase(label):
    print(f"[phase] {label} monotonic_ns={time.monotonic_ns()} "
          f"boottime_ns={time.clock_gettime_ns(time.CLOCK_BOOTTIME)}", file=sys.stderr,
          flush=True)


@torch.inference_mode()
def decode(model, prompt, steps, annotate):
    """Prefill + `steps` greedy decode steps; returns decode seconds."""
    from transformers import DynamicCache
    cache = DynamicCache()
    out = model(input_ids=prompt, past_key_values=cache, use_cache=True)
    token = out.logits[:, -1].argmax(-1, keepdim=True)
    token.item()
    torch.cuda.synchronize()
    phase("decode_start")
    torch.cuda.nvtx.range_push("decodeprof:decode")
    with annotate("decodeprof:decode"):  # torch.profiler's trace gets the decode range too
        t0 = time.perf_counter()
        for _ in range(steps):
            torch.cuda.nvtx.range_push("decodeprof:step")
            with annotate("decodeprof:step"):
                out = model(input_ids=token, past_key_values=cache, use_cache=True)
                token = out.logits[:, -1].argmax(-1, keepdim=True)
                token.item()  # the per-token host sync of a real decoder's stop check
            torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
        seconds = time.perf_counter() - t0
    torch.cuda.nvtx.range_pop()
    phase("measured_end")
    return seconds


class NoAnnotate:
    def __init__(self, name):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *args):
        return False


# The NVTX range of a gated run: `decodeprof record --only-range decodeprof:record` records
# CUDA activity inside it only.
GATE_RANGE = "decodeprof:record"
RUN_KINDS = ("plain", "gated", "torchprof", "torchprof_cuda", "torchprof_ab")


def run_once(kind, model, prompt, args):
    """One reported run of `kind`; returns its decode seconds."""
    if kind == "plain":
        return decode(model, prompt, args.steps, NoAnnotate)
    if kind == "gated":
        # The range opens before the prefill and closes after the decode's final sync, so
        # the recorder's switching on and off falls outside the timed decode.
        torch.cuda.nvtx.range_push(GATE_RANGE)
        try:
            return decode(model, prompt, args.steps, NoAnnotate)
        finally:
            torch.cuda.nvtx.range_pop()
    from torch.profiler import ProfilerActivity, profile, record_function
    if kind == "torchprof_ab":
        # A new profiler per run, started and stopped around this run only (torch.profiler
        # keeps no session open between them); the events are dropped unexported.
        prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
        prof.start()
        try:
            return decode(model, prompt, args.steps, NoAnnotate)
        finally:
            prof.stop()
    acts = [ProfilerActivity.CUDA] if kind == "torchprof_cuda" else [
        ProfilerActivity.CPU, ProfilerActivity.CUDA]
    with profile(activities=acts) as prof:
        seconds = decode(model, prompt, args.steps, record_function)
    if args.torch_trace and kind == "torchprof":
        prof.export_chrome_trace(args.torch_trace)
        args.torch_trace = ""
    return seconds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--prompt", type=int, default=128)
    ap.add_argument("--steps", type=int, default=64)
    ap.add_argument("--torch-trace", default="")
    args = ap.parse_args()
    kinds = args.runs.split(",")
    unknown = sorted(set(kinds) - set(RUN_KINDS))
    if unknown:
        raise SystemExit(f"unknown run kind(s) {','.join(unknown)}; known: {','.join(RUN_KINDS)}")

    torch.manual_seed(0)
    t_load = time.perf_counter()
    torch.set_default_dtype(torch.bfloat16)  # no fp32 copy of the 8B weights on the way
    with torch.device("cuda"):
        model = LlamaForCausalLM(llama31_8b_config()).eval()
    torch.set_default_dtype(torch.float32)
    torch.cuda.synchronize()
    load_s = time.perf_counter() - t_load
    prompt = torch.randint(0, 128000, (1, args.prompt), device="cuda")

    phase("warmup_start")
    decode(model, prompt, args.steps, NoAnnotate)  # warm-up, not reported
    phase("measured_start")
    results = []
    for kind in kinds:
        try:
            seconds = run_once(kind, model, prompt, args)
        except Exception as e:  # noqa: BLE001 - reported in the results, the list goes on
            if kind != "torchprof_ab":
                raise
            traceback.print_exc()
            results.append({"kind": kind, "error": f"{type(e).__name__}: {e}"})
            print(f"{kind}: failed: {e}", file=sys.stderr, flush=True)
            continue
        results.append({"kind": kind, "decode_s": seconds,
                        "tok_s": args.steps / seconds})
        print(f"{kind}: {args.steps / seconds:.2f} tok/s", file=sys.stderr, flush=True)
    json.dump({"model": "Llama-3.1-8B config, random weights, bf16, batch 1",
               "prompt_tokens": args.prompt, "decode_steps": args.steps,
               "model_init_s": load_s, "torch": torch.__version__,
               "runs": results}, open(args.out, "w"), indent=2)


if __name__ == "__main__":
    main()
