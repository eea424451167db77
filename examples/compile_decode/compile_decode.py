#!/usr/bin/env python3
"""A torch.compile(mode="reduce-overhead") decode loop, the way hand-written compiled
decoders are built: a transformers StaticCache, an eager prefill, and a compiled decode step
(forward at a cache_position tensor + greedy pick) whose CUDA graphs inductor's cudagraph
trees replay from the third call on. Random-weight Llama-3.1-8B shape (its first --layers
decoder layers), bf16, batch 1; nothing is downloaded.

    python3 examples/compile_decode/compile_decode.py [--layers 8] [--prompt 128]
        [--steps 64] [--warmup-steps 8] [--no-ranges]
    DECODEPROF_PHASE_MARKS=1 decodeprof record -o compiled.sqlite -- \\
        python3 examples/compile_decode/compile_decode.py

The warm-up decode (compile, graph recording, first replays) runs inside the NVTX range
decodeprof:warmup, the measured prefill inside decodeprof:prefill and the measured decode
inside decodeprof:decode, one decodeprof:step per generated token; the seed's [phase] lines
go to stderr when DECODEPROF_PHASE_MARKS=1. --no-ranges opens no NVTX range at all (a
decoder that annotates nothing). The per-token read-back of the token is the host sync of
a real decoder's stop check. Prints the seed's results block (Prompt/Generated/Decode).
"""
import argparse
import os
import sys
import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM


def phase(label):
    if os.environ.get("DECODEPROF_PHASE_MARKS", "0") in ("", "0"):
        return
    print(f"[phase] {label} monotonic_ns={time.monotonic_ns()} "
          f"boottime_ns={time.clock_gettime_ns(time.CLOCK_BOOTTIME)}", file=sys.stderr,
          flush=True)


class Ranges:
    def __init__(self, enabled):
        self.enabled = enabled

    def push(self, name):
        if self.enabled:
            torch.cuda.nvtx.range_push(name)

    def pop(self):
        if self.enabled:
            torch.cuda.nvtx.range_pop()


def llama_config(layers):
    return LlamaConfig(
        vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=layers,
        num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=131072,
        rms_norm_eps=1e-5, rope_theta=500000.0, hidden_act="silu", tie_word_embeddings=False,
        bos_token_id=128000, eos_token_id=128001)


def static_cache(config, max_len):
    from transformers import StaticCache
    for kw in (dict(config=config, max_cache_len=max_len),
               dict(config=config, max_batch_size=1, max_cache_len=max_len, device="cuda",
                    dtype=torch.bfloat16)):
        try:
            return StaticCache(**kw)
        except TypeError:
            continue
    raise SystemExit("compile_decode: StaticCache takes none of the known argument sets")


class Decoder:
    def __init__(self, model, max_len):
        self.model = model
        self.cache = static_cache(model.config, max_len)
        self.ids = torch.zeros((1, 1), dtype=torch.long, device="cuda")
        self.pos = torch.zeros((1,), dtype=torch.long, device="cuda")
        self.step = torch.compile(self._step, mode="reduce-overhead", fullgraph=True)
        self.mark = getattr(getattr(torch, "compiler", None), "cudagraph_mark_step_begin", None)

    def _step(self, ids, pos, cache):
        out = self.model(input_ids=ids, past_key_values=cache, use_cache=True,
                         cache_position=pos, logits_to_keep=1)
        return out.logits[:, -1].argmax(-1, keepdim=True)

    @torch.no_grad()
    def run(self, prompt, steps, ranges, measured):
        self.cache.reset()
        n = prompt.shape[1]
        if measured:
            phase("measured_start")
            ranges.push("decodeprof:prefill")
        out = self.model(input_ids=prompt, past_key_values=self.cache, use_cache=True,
                         cache_position=torch.arange(n, device="cuda"), logits_to_keep=1)
        token = out.logits[:, -1].argmax(-1, keepdim=True)
        token.item()
        if measured:
            ranges.pop()
        self.ids.copy_(token)
        self.pos.fill_(n)
        torch.cuda.synchronize()
        if measured:
            phase("decode_start")
            ranges.push("decodeprof:decode")
        t0 = time.perf_counter()
        for _ in range(steps):
            if measured:
                ranges.push("decodeprof:step")
            if self.mark is not None:
                self.mark()
            token = self.step(self.ids, self.pos, self.cache)
            self.pos.add_(1)
            self.ids.copy_(token)
            token.item()
            if measured:
                ranges.pop()
        torch.cuda.synchronize()
        seconds = time.perf_counter() - t0
        if measured:
            ranges.pop()
            phase("measured_end")
        return seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--prompt", type=int, default=128)
    ap.add_argument("--steps", type=int, default=64)
    ap.add_argument("--warmup-steps", type=int, default=8,
                    help="decode steps of the warm-up (at least 5: compile, record, replay)")
    ap.add_argument("--no-ranges", action="store_true", help="open no NVTX range")
    args = ap.parse_args()
    if args.layers < 1 or args.steps < 1 or args.prompt < 1:
        ap.error("--layers, --steps and --prompt must be at least 1")
    ranges = Ranges(not args.no_ranges)
    torch.manual_seed(0)
    torch.set_default_dtype(torch.bfloat16)
    with torch.device("cuda"):
        model = LlamaForCausalLM(llama_config(args.layers)).eval()
    torch.set_default_dtype(torch.float32)
    model.requires_grad_(False)
    prompt = torch.randint(0, 128000, (1, args.prompt), device="cuda")
    warmup = max(args.warmup_steps, 5)
    decoder = Decoder(model, args.prompt + max(args.steps, warmup) + 8)
    phase("warmup_start")
    ranges.push("decodeprof:warmup")
    t = time.perf_counter()
    decoder.run(prompt, warmup, ranges, measured=False)
    ranges.pop()
    print(f"[compile] warm-up ({warmup} steps, compile included): "
          f"{time.perf_counter() - t:.1f} s", file=sys.stderr, flush=True)
    seconds = decoder.run(prompt, args.steps, ranges, measured=True)
    print(f"Prompt: {args.prompt} tokens")
    print(f"Generated: {args.steps + 1} tokens")
    print(f"Decode: {seconds * 1000:.3f} ms ({args.steps / seconds:.2f} tok/s)")


if __name__ == "__main__":
    main()
