#!/usr/bin/env python3
"""A transformers decode for recorder overhead and cross-checks (issue 4, tests/gpu).

Random-weight Llama-3.1-8B configuration, bf16, batch 1, a manual prefill + greedy decode
loop (one host sync per token, as a real decoder's stop check has). Each decode step is
wrapped in an NVTX range "decodeprof:step" (and a torch.profiler record_function of the
same name), the decode in "decodeprof:decode"; the seed's phase-mark lines go to stderr.

usage: record_decode.py --runs plain,torchprof,... --out RESULTS.json
         [--prompt 128] [--steps 64] [--torch-trace TRACE.json] [--layers 32]
         [--compile reduce-overhead] [--cupti-preinit]
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

--layers N cuts the model to its first N decoder layers (default 32, the whole model).
--compile reduce-overhead (default off: the eager decode above, unchanged) decodes with a
transformers StaticCache of fixed length and a decode step (forward at a cache_position
tensor + greedy pick) wrapped in torch.compile(mode="reduce-overhead"), so that every
decode step replays the CUDA graphs of inductor's cudagraph trees; the prefill stays eager.
Compilation and the graphs' recording happen in the unreported warm-up run (at least
COMPILE_WARMUP_STEPS steps of the one decode shape: cudagraph trees run a new function
eagerly on its first call, record it on the second and replay it from the third on); the
compile time is printed ("[compile] ...") and written to RESULTS.json. --cupti-preinit
opens and closes an empty torch.profiler session before anything is compiled or captured
(torch.profiler._utils._init_for_cuda_graphs, PyTorch's workaround for profiling CUDA
graphs captured before the profiler's first use).
"""
import argparse
import inspect
import json
import sys
import time
import traceback

import torch
import transformers
from transformers import LlamaConfig, LlamaForCausalLM


def llama31_8b_config(layers=32):
    """Llama-3.1-8B's published shape (its first `layers` decoder layers); the llama3 RoPE
    scaling if this transformers takes it in the old spelling (it does not change the
    kernels of a short decode)."""
    shape = dict(
        vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=layers,
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


# Decode steps of the one shape that the warm-up runs at least, with --compile: cudagraph
# trees run a new compiled function eagerly on its first call, record its CUDA graph on the
# second and replay it from the third on; the rest is margin.
COMPILE_WARMUP_STEPS = 5


class CompiledDecoder:
    """The decode of --compile reduce-overhead: a transformers StaticCache of fixed length
    (made once, reset in place by every later run, so its tensors keep the addresses the
    graphs hold), an eager prefill at cache_position 0..n-1, then per token one call of the
    compiled step (forward at a cache_position tensor of shape [1] + the greedy pick: the
    same shapes on every call, so it is compiled once) and the per-token read-back of the
    token. The NVTX and record_function ranges and the [phase] lines are decode()'s."""

    def __init__(self, model, prompt_len, steps):
        self.model = model
        self.max_len = prompt_len + max(steps, COMPILE_WARMUP_STEPS) + 8
        self.keep = "logits_to_keep" in inspect.signature(model.forward).parameters
        self.extra = {"logits_to_keep": 1} if self.keep else {}
        self.cache = None
        self.ids = torch.zeros((1, 1), dtype=torch.long, device="cuda")
        self.pos = torch.zeros((1,), dtype=torch.long, device="cuda")
        self.fullgraph = True
        self.compiled = self._compile(True)
        self.calls = 0
        self.first_calls_s = []  # the first three step calls: compile, graph recording, replay
        compiler = getattr(torch, "compiler", None)
        self.mark_step = getattr(compiler, "cudagraph_mark_step_begin", None)
        if self.mark_step is None:
            print("note: torch.compiler.cudagraph_mark_step_begin missing; relying on "
                  "cudagraph trees' own generation tracking", file=sys.stderr)

    def _step(self, ids, pos, cache):
        out = self.model(input_ids=ids, past_key_values=cache, use_cache=True,
                         cache_position=pos, **self.extra)
        return out.logits[:, -1].argmax(-1, keepdim=True)

    def _compile(self, fullgraph):
        return torch.compile(self._step, mode="reduce-overhead", fullgraph=fullgraph)

    def make_cache(self):
        """transformers 5.x: StaticCache(config=, max_cache_len=); older versions also took
        the batch size, device and dtype (as examples/hf_decode's GraphDecoder tries)."""
        try:
            from transformers import StaticCache
        except ImportError:
            from transformers.cache_utils import StaticCache
        cfg = self.model.config
        attempts = (dict(config=cfg, max_cache_len=self.max_len),
                    dict(config=cfg, max_batch_size=1, max_cache_len=self.max_len,
                         device="cuda", dtype=torch.bfloat16))
        last = None
        for kw in attempts:
            try:
                return StaticCache(**kw)
            except TypeError as e:
                last = e
        raise RuntimeError(f"StaticCache takes none of the known argument sets ({last})")

    def mark_cache_static(self):
        """transformers marks a StaticCache's tensors as static addresses when it allocates
        them (lazily, in the eager prefill); marked again here in case this version does not,
        since cudagraph trees skip a graph that mutates an input that is not static."""
        layers = getattr(self.cache, "layers", None)
        tensors = []
        if layers is not None:  # transformers 5.x: one layer object per decoder layer
            for layer in layers:
                tensors += [getattr(layer, "keys", None), getattr(layer, "values", None)]
        else:  # 4.x: lists of tensors
            tensors += list(getattr(self.cache, "key_cache", None) or [])
            tensors += list(getattr(self.cache, "value_cache", None) or [])
        marked = 0
        for t in tensors:
            if isinstance(t, torch.Tensor):
                try:
                    torch._dynamo.mark_static_address(t)
                    marked += 1
                except Exception as e:  # noqa: BLE001 - reported, the run goes on
                    print(f"note: mark_static_address refused: {e}", file=sys.stderr)
                    break
        return marked

    def call_step(self):
        """One compiled step; returns the token (a graph output the next replay overwrites)."""
        if self.mark_step is not None:
            self.mark_step()
        t0 = time.perf_counter() if self.calls < 3 else None
        try:
            token = self.compiled(self.ids, self.pos, self.cache)
        except Exception as e:  # noqa: BLE001 - fullgraph refused: once more, breaks allowed
            if self.calls > 0 or not self.fullgraph:
                raise
            traceback.print_exc(limit=8)
            print(f"[compile] fullgraph=True failed ({type(e).__name__}: {e}); compiling "
                  "again with fullgraph=False (graph breaks allowed)", file=sys.stderr,
                  flush=True)
            torch._dynamo.reset()
            self.fullgraph = False
            self.compiled = self._compile(False)
            token = self.compiled(self.ids, self.pos, self.cache)
        if t0 is not None:  # warm-up only: each of the first three calls timed to its end
            token.item()
            self.first_calls_s.append(time.perf_counter() - t0)
            what = ("dynamo + inductor compile and cudagraph trees' eager warm-up",
                    "CUDA graph recording", "first replay")[self.calls]
            print(f"[compile] step call {self.calls + 1} ({what}): "
                  f"{self.first_calls_s[-1]:.2f} s", file=sys.stderr, flush=True)
        self.calls += 1
        return token

    @torch.no_grad()
    def decode(self, prompt, steps, annotate):
        """Prefill + `steps` greedy decode steps; returns decode seconds."""
        fresh = self.cache is None
        if fresh:
            self.cache = self.make_cache()
        else:
            self.cache.reset()  # zeroed in place
        n = prompt.shape[1]
        out = self.model(input_ids=prompt, past_key_values=self.cache, use_cache=True,
                         cache_position=torch.arange(n, device=prompt.device), **self.extra)
        token = out.logits[:, -1].argmax(-1, keepdim=True)
        token.item()
        del out
        if fresh:
            print(f"[compile] StaticCache {type(self.cache).__name__}, max_cache_len "
                  f"{self.max_len}; {self.mark_cache_static()} cache tensors marked static; "
                  f"logits_to_keep {self.keep}", file=sys.stderr, flush=True)
        self.ids.copy_(token)
        self.pos.fill_(n)
        torch.cuda.synchronize()
        phase("decode_start")
        torch.cuda.nvtx.range_push("decodeprof:decode")
        with annotate("decodeprof:decode"):  # torch.profiler's trace gets the decode range too
            t0 = time.perf_counter()
            for _ in range(steps):
                torch.cuda.nvtx.range_push("decodeprof:step")
                with annotate("decodeprof:step"):
                    token = self.call_step()
                    self.pos.add_(1)
                    self.ids.copy_(token)  # the next step's input, before a replay overwrites it
                    token.item()  # the per-token host sync of a real decoder's stop check
                torch.cuda.nvtx.range_pop()
            torch.cuda.synchronize()
            seconds = time.perf_counter() - t0
        torch.cuda.nvtx.range_pop()
        phase("measured_end")
        return seconds


def dynamo_counters():
    """torch._dynamo's compile counters (graphs, graph breaks, cudagraph skips)."""
    try:
        from torch._dynamo.utils import counters
        return {"unique_graphs": int(counters["stats"].get("unique_graphs", 0)),
                "calls_captured": int(counters["stats"].get("calls_captured", 0)),
                "graph_breaks": int(sum(counters["graph_break"].values())),
                "cudagraph_skips": int(counters["inductor"].get("cudagraph_skips", 0))}
    except Exception as e:  # noqa: BLE001 - a torch without these counters
        return {"error": f"{type(e).__name__}: {e}"}


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


def run_once(kind, dec, prompt, args):
    """One reported run of `kind` (`dec`: decode() or CompiledDecoder.decode, called as
    dec(prompt, steps, annotate)); returns its decode seconds."""
    if kind == "plain":
        return dec(prompt, args.steps, NoAnnotate)
    if kind == "gated":
        # The range opens before the prefill and closes after the decode's final sync, so
        # the recorder's switching on and off falls outside the timed decode.
        torch.cuda.nvtx.range_push(GATE_RANGE)
        try:
            return dec(prompt, args.steps, NoAnnotate)
        finally:
            torch.cuda.nvtx.range_pop()
    from torch.profiler import ProfilerActivity, profile, record_function
    if kind == "torchprof_ab":
        # A new profiler per run, started and stopped around this run only (torch.profiler
        # keeps no session open between them); the events are dropped unexported.
        prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
        prof.start()
        try:
            return dec(prompt, args.steps, NoAnnotate)
        finally:
            prof.stop()
    acts = [ProfilerActivity.CUDA] if kind == "torchprof_cuda" else [
        ProfilerActivity.CPU, ProfilerActivity.CUDA]
    with profile(activities=acts) as prof:
        seconds = dec(prompt, args.steps, record_function)
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
    ap.add_argument("--layers", type=int, default=32,
                    help="decoder layers of the model (default 32, Llama-3.1-8B's all)")
    ap.add_argument("--compile", choices=("off", "reduce-overhead"), default="off",
                    help="reduce-overhead: StaticCache + torch.compile(mode='reduce-overhead') "
                         "decode steps replayed as CUDA graphs (default off: eager)")
    ap.add_argument("--cupti-preinit", action="store_true",
                    help="an empty torch.profiler session before anything is compiled or "
                         "captured (torch.profiler._utils._init_for_cuda_graphs)")
    args = ap.parse_args()
    kinds = args.runs.split(",")
    unknown = sorted(set(kinds) - set(RUN_KINDS))
    if unknown:
        raise SystemExit(f"unknown run kind(s) {','.join(unknown)}; known: {','.join(RUN_KINDS)}")
    if args.layers < 1:
        raise SystemExit("--layers must be at least 1")
    compiled = args.compile == "reduce-overhead"

    if args.cupti_preinit:
        try:
            from torch.profiler._utils import _init_for_cuda_graphs
            _init_for_cuda_graphs()
            print("note: CUPTI initialized by an empty torch.profiler session "
                  "(_init_for_cuda_graphs)", file=sys.stderr, flush=True)
        except Exception as e:  # noqa: BLE001 - reported, the run goes on without it
            print(f"note: --cupti-preinit failed ({type(e).__name__}: {e})", file=sys.stderr,
                  flush=True)

    torch.manual_seed(0)
    t_load = time.perf_counter()
    torch.set_default_dtype(torch.bfloat16)  # no fp32 copy of the 8B weights on the way
    with torch.device("cuda"):
        model = LlamaForCausalLM(llama31_8b_config(args.layers)).eval()
    torch.set_default_dtype(torch.float32)
    torch.cuda.synchronize()
    load_s = time.perf_counter() - t_load
    prompt = torch.randint(0, 128000, (1, args.prompt), device="cuda")

    extra = {"layers": args.layers, "transformers": transformers.__version__}
    if compiled:
        model.requires_grad_(False)
        try:  # why a graph is recompiled or not graphed, on stderr
            torch._logging.set_logs(recompiles=True, perf_hints=True)
        except Exception as e:  # noqa: BLE001 - only the diagnostics are lost
            print(f"note: torch._logging.set_logs failed: {e}", file=sys.stderr)
        decoder = CompiledDecoder(model, args.prompt, args.steps)
        dec = decoder.decode
        warmup_steps = max(args.steps, COMPILE_WARMUP_STEPS)
    else:
        def dec(p, steps, annotate):
            return decode(model, p, steps, annotate)
        warmup_steps = args.steps

    phase("warmup_start")
    t_warm = time.perf_counter()
    dec(prompt, warmup_steps, NoAnnotate)  # warm-up, not reported
    warm_s = time.perf_counter() - t_warm
    if compiled:
        counts = dynamo_counters()
        print(f"[compile] graphs ready: warm-up run {warm_s:.1f} s ({warmup_steps} steps), "
              f"first step calls {[round(x, 3) for x in decoder.first_calls_s]} s, "
              f"fullgraph {decoder.fullgraph}, counters {counts}", file=sys.stderr, flush=True)
        if counts.get("cudagraph_skips"):
            print("[compile] WARNING: cudagraph trees skipped a graph: the decode is not "
                  "(only) replayed from CUDA graphs (see the perf hints above)",
                  file=sys.stderr, flush=True)
        extra.update({"compile": args.compile, "cupti_preinit": args.cupti_preinit,
                      "warmup_steps": warmup_steps, "warmup_s": warm_s,
                      "compile_first_step_s": decoder.first_calls_s[0],
                      "first_step_calls_s": decoder.first_calls_s,
                      "fullgraph": decoder.fullgraph, "max_cache_len": decoder.max_len,
                      "counters_after_warmup": counts})
    phase("measured_start")
    results = []
    for kind in kinds:
        try:
            seconds = run_once(kind, dec, prompt, args)
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
    if compiled:
        counts = dynamo_counters()
        extra["counters_at_end"] = counts
        new = {k: counts.get(k, 0) - extra["counters_after_warmup"].get(k, 0)
               for k in ("unique_graphs", "cudagraph_skips") if k in counts}
        print(f"[compile] during the reported runs: {new} (0 = no recompile, no skip)",
              file=sys.stderr, flush=True)
    model_name = "Llama-3.1-8B config, random weights, bf16, batch 1"
    if args.layers != 32:
        model_name += f", {args.layers} of 32 layers"
    if compiled:
        model_name += f", StaticCache + torch.compile(mode={args.compile!r})"
    json.dump({"model": model_name,
               "prompt_tokens": args.prompt, "decode_steps": args.steps,
               "model_init_s": load_s, "torch": torch.__version__,
               "runs": results, **extra}, open(args.out, "w"), indent=2)


if __name__ == "__main__":
    main()
