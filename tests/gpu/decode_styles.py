#!/usr/bin/env python3
"""A PyTorch decode engine in the style of serving engines, for the marks-free decode-loop
finder (tests/gpu/finder_h200.sh): its NVTX marks are the truth the finder is checked against.

Random-weight Llama-3.1-8B configuration (record_decode.llama31_8b_config) cut to --layers N,
bf16, batch 1, greedy. THE DECODE STEP NEVER SYNCHRONIZES: the argmax token stays on the GPU
and is the next step's input, and is also copied into a device buffer of the call's ids; the
ids are read back once per generate call, after its decode loop (the loop's end is
torch.cuda.synchronize(), inside the decode range). The prefill does not synchronize either.

  --mode eager    transformers DynamicCache, the model's forward launched op by op;
  --mode compile  a transformers StaticCache of fixed length (made once, reset in place by each
                  call) and a decode step (forward at a cache_position tensor + argmax)
                  compiled with torch.compile(mode="reduce-overhead", fullgraph=True), as
                  record_decode.py --compile does: every step after the warm-up replays
                  cudagraph trees' CUDA graph; the step's input id and position are static
                  tensors updated by eager kernels after each replay. The prefill is eager.
                  Should fullgraph=True be refused, it compiles again with graph breaks
                  allowed and says so (results: "fullgraph": false).

One process: a warm-up generate (--warmup-steps, default 16: cudagraph trees run a new
function eagerly on its first call, record it on the second, replay it from the third) inside
the NVTX range "decodeprof:warmup" with no other mark inside it, then --generates K generate
calls, each of a fresh random prompt (--prompt tokens; prompt i from torch.Generator seeded
with --seed + 1 + i, all made on the GPU before the warm-up) and --steps decode steps:

  decodeprof:prefill   around the call's prefill (its forward and the first token's argmax);
  decodeprof:decode    around the call's decode loop and the synchronization after it;
  decodeprof:step      around each decode step (forward + argmax + the id's copies).

Each call yields 1 + --steps ids (the prefill's token first). The decode loop runs with
torch.cuda.set_sync_debug_mode("warn") and counts the synchronizing operations PyTorch warns
about (sync_warnings; 0 = the loop never waited for the GPU). --out RESULTS.json: the
settings, and per call its token ids, decode wall ms (host, from the loop's start to the end
of the synchronization after it), decode GPU ms (CUDA events after the prefill and after the
last step) and sync_warnings.

--no-marks: no NVTX range at all (an engine without marks: a sampled recording then takes
the CUDA graph launches as its steps). --torch-profiler: the generate calls (not the warm-up)
run under torch.profiler with CPU and CUDA activities (its cost, for comparison; the trace is
not exported).

usage: decode_styles.py --mode eager|compile --out RESULTS.json [--layers 8] [--steps 128]
         [--generates 3] [--prompt 128] [--warmup-steps 16] [--seed 0] [--no-marks]
         [--torch-profiler]
"""
import argparse
import inspect
import json
import os
import sys
import time
import warnings

import torch
import transformers
from transformers import LlamaForCausalLM

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_decode  # noqa: E402 - the model's config and the StaticCache helpers
from record_decode import llama31_8b_config  # noqa: E402


def nvtx_push(name, on=True):
    if on:
        torch.cuda.nvtx.range_push(name)


def nvtx_pop(on=True):
    if on:
        torch.cuda.nvtx.range_pop()


def pick(logits):
    """The greedy token, ties broken toward the lower id: random weights give bf16 logits
    with exact ties at the top, and a compiled argmax may return either of them (the same
    program gave different tokens in different processes), so a small ramp down the
    vocabulary is subtracted in float32 first."""
    scores = logits.float()
    ramp = torch.arange(scores.shape[-1], device=scores.device, dtype=torch.float32)
    return (scores - ramp * 2.0 ** -20).argmax(-1, keepdim=True)


class EagerEngine:
    """transformers' DynamicCache, a new one per call; the forward launched op by op."""

    def __init__(self, model):
        self.model = model
        self.keep = "logits_to_keep" in inspect.signature(model.forward).parameters
        self.extra = {"logits_to_keep": 1} if self.keep else {}
        self.cache = None

    def prefill(self, prompt):
        from transformers import DynamicCache
        self.cache = DynamicCache()
        out = self.model(input_ids=prompt, past_key_values=self.cache, use_cache=True,
                         **self.extra)
        return pick(out.logits[:, -1])

    def step(self, token):
        out = self.model(input_ids=token, past_key_values=self.cache, use_cache=True)
        return pick(out.logits[:, -1])


class CompiledEngine:
    """StaticCache + the decode step under torch.compile(mode="reduce-overhead").
    make_cache and mark_cache_static are record_decode.CompiledDecoder's (they read
    self.model, self.max_len and self.cache)."""

    make_cache = record_decode.CompiledDecoder.make_cache
    mark_cache_static = record_decode.CompiledDecoder.mark_cache_static

    def __init__(self, model, max_len):
        self.model = model
        self.max_len = max_len
        self.keep = "logits_to_keep" in inspect.signature(model.forward).parameters
        self.extra = {"logits_to_keep": 1} if self.keep else {}
        self.cache = None
        self.ids = torch.zeros((1, 1), dtype=torch.long, device="cuda")  # the step's input
        self.pos = torch.zeros((1,), dtype=torch.long, device="cuda")  # its cache position
        self.fullgraph = True
        self.compiled = torch.compile(self._step, mode="reduce-overhead", fullgraph=True)
        self.calls = 0
        self.marked_static = None
        compiler = getattr(torch, "compiler", None)
        self.mark_step = getattr(compiler, "cudagraph_mark_step_begin", None)

    def _step(self, ids, pos, cache):
        out = self.model(input_ids=ids, past_key_values=cache, use_cache=True,
                         cache_position=pos, **self.extra)
        return pick(out.logits[:, -1])

    def prefill(self, prompt):
        if self.cache is None:
            self.cache = self.make_cache()
        else:
            self.cache.reset()  # zeroed in place: the graphs keep the tensors' addresses
        n = prompt.shape[1]
        out = self.model(input_ids=prompt, past_key_values=self.cache, use_cache=True,
                         cache_position=torch.arange(n, device=prompt.device), **self.extra)
        token = pick(out.logits[:, -1])
        if self.marked_static is None:  # the cache's tensors exist after the first prefill
            self.marked_static = self.mark_cache_static()
        self.ids.copy_(token)
        self.pos.fill_(n)
        return token

    def step(self, token):
        """`token` is self.ids' value already (prefill and every step copy it there)."""
        if self.mark_step is not None:
            self.mark_step()
        try:
            out = self.compiled(self.ids, self.pos, self.cache)
        except Exception as e:  # noqa: BLE001 - fullgraph refused: once more, breaks allowed
            if self.calls > 0 or not self.fullgraph:
                raise
            print(f"[compile] fullgraph=True failed ({type(e).__name__}: {e}); compiling "
                  "again with fullgraph=False", file=sys.stderr, flush=True)
            torch._dynamo.reset()
            self.fullgraph = False
            self.compiled = torch.compile(self._step, mode="reduce-overhead", fullgraph=False)
            out = self.compiled(self.ids, self.pos, self.cache)
        self.calls += 1
        self.pos.add_(1)
        self.ids.copy_(out)  # before the next replay overwrites the graph's output
        return self.ids


def generate(engine, prompt, steps, marks):
    """One generate call: prefill + `steps` decode steps, no synchronization until the loop's
    end. Returns (ids, decode wall s, decode GPU ms, sync warnings, first warning)."""
    ids = torch.empty((1, steps + 1), dtype=torch.long, device="cuda")
    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    nvtx_push("decodeprof:prefill", marks)
    token = engine.prefill(prompt)
    ids[:, :1].copy_(token)
    nvtx_pop(marks)
    nvtx_push("decodeprof:decode", marks)
    begin.record()
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cuda.set_sync_debug_mode("warn")
        try:
            for i in range(steps):
                nvtx_push("decodeprof:step", marks)
                token = engine.step(token)
                ids[:, i + 1:i + 2].copy_(token)
                nvtx_pop(marks)
        finally:
            torch.cuda.set_sync_debug_mode("default")
    end.record()
    torch.cuda.synchronize()
    wall_s = time.perf_counter() - t0
    nvtx_pop(marks)
    syncs = [str(w.message) for w in caught if "synchroniz" in str(w.message)]
    return ids[0].tolist(), wall_s, begin.elapsed_time(end), len(syncs), (syncs or [None])[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", choices=("eager", "compile"), required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--steps", type=int, default=128)
    ap.add_argument("--generates", type=int, default=3)
    ap.add_argument("--prompt", type=int, default=128)
    ap.add_argument("--warmup-steps", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-marks", action="store_true")
    ap.add_argument("--torch-profiler", action="store_true")
    ap.add_argument("--deterministic", action="store_true",
                    help="the same token ids in every process: deterministic algorithms, and "
                         "Inductor's deterministic mode where this PyTorch has it (no on-device "
                         "autotuning of reductions, whose picks vary from process to process)")
    args = ap.parse_args()
    if args.deterministic:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # before cuBLAS starts
        torch.use_deterministic_algorithms(True, warn_only=True)
        try:
            import torch._inductor.config as inductor_config
            if hasattr(inductor_config, "deterministic"):
                inductor_config.deterministic = True
            else:
                print("note: this PyTorch's Inductor has no deterministic mode",
                      file=sys.stderr)
        except ImportError:
            pass
    if min(args.layers, args.steps, args.generates, args.prompt) < 1 or args.warmup_steps < 3:
        raise SystemExit("--layers, --steps, --generates, --prompt must be at least 1, "
                         "--warmup-steps at least 3")

    torch.manual_seed(args.seed)
    t_load = time.perf_counter()
    torch.set_default_dtype(torch.bfloat16)  # no fp32 copy of the weights on the way
    with torch.device("cuda"):
        model = LlamaForCausalLM(llama31_8b_config(args.layers)).eval()
    torch.set_default_dtype(torch.float32)
    model.requires_grad_(False)
    prompts = []
    for i in range(args.generates + 1):  # [0]: the warm-up's
        g = torch.Generator().manual_seed(args.seed + 1 + i)
        prompts.append(torch.randint(0, 128000, (1, args.prompt), generator=g).cuda())
    torch.cuda.synchronize()
    load_s = time.perf_counter() - t_load

    if args.mode == "compile":
        try:  # why a graph is recompiled or not graphed, on stderr
            torch._logging.set_logs(recompiles=True, perf_hints=True)
        except Exception as e:  # noqa: BLE001 - only the diagnostics are lost
            print(f"note: torch._logging.set_logs failed: {e}", file=sys.stderr)
        engine = CompiledEngine(model, args.prompt + max(args.steps, args.warmup_steps) + 8)
    else:
        engine = EagerEngine(model)

    with torch.inference_mode() if args.mode == "eager" else torch.no_grad():
        marks = not args.no_marks
        nvtx_push("decodeprof:warmup", marks)
        t_warm = time.perf_counter()
        warm = generate(engine, prompts[0], args.warmup_steps, marks=False)
        warm_s = time.perf_counter() - t_warm
        nvtx_pop(marks)
        after_warmup = record_decode.dynamo_counters() if args.mode == "compile" else None
        print(f"warm-up: {args.warmup_steps} steps in {warm_s:.1f} s; sync warnings {warm[3]}",
              file=sys.stderr, flush=True)
        calls = []
        profiler = None
        if args.torch_profiler:
            acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
            profiler = torch.profiler.profile(activities=acts)
            profiler.__enter__()
        for i in range(args.generates):
            ids, wall_s, gpu_ms, syncs, first = generate(engine, prompts[i + 1], args.steps,
                                                         marks=marks)
            calls.append({"prompt_seed": args.seed + 2 + i, "token_ids": ids,
                          "decode_wall_ms": wall_s * 1e3, "decode_gpu_ms": gpu_ms,
                          "sync_warnings": syncs, "first_sync_warning": first})
            print(f"generate {i + 1}: {args.steps} steps, {wall_s * 1e3:.1f} ms wall "
                  f"({wall_s * 1e3 / args.steps:.3f} ms/step), {gpu_ms:.1f} ms GPU, "
                  f"sync warnings {syncs}", file=sys.stderr, flush=True)
        if profiler is not None:
            profiler.__exit__(None, None, None)

    result = {
        "model": f"Llama-3.1-8B config, random weights, bf16, batch 1, {args.layers} of 32 layers",
        "settings": vars(args), "torch": torch.__version__,
        "transformers": transformers.__version__, "model_init_s": load_s,
        "warmup": {"steps": args.warmup_steps, "s": warm_s, "token_ids": warm[0],
                   "sync_warnings": warm[3]},
        "generates": calls}
    if args.mode == "compile":
        end = record_decode.dynamo_counters()
        result["compile"] = {"fullgraph": engine.fullgraph, "max_cache_len": engine.max_len,
                             "cache_tensors_marked_static": engine.marked_static,
                             "counters_after_warmup": after_warmup, "counters_at_end": end}
        print(f"[compile] fullgraph {engine.fullgraph}; counters after warm-up {after_warmup}, "
              f"at the end {end}", file=sys.stderr, flush=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
