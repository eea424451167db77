#!/usr/bin/env python3
"""A tensor-parallel batch-1 greedy decode on several GPUs of one host, written in plain
PyTorch + NCCL the way Megatron-style TP engines shard a Llama: random-weight
Llama-3.1-8B shape (hidden 4096, 32 query / 8 KV heads of 128, MLP 14336, vocabulary
128256; --layers of its 32 decoder layers), bf16, a static KV cache. Per decoder layer:
  attention block  column-parallel q/k/v (each rank its 32/TP query and 8/TP KV heads),
                   attention over the local heads, row-parallel o_proj, ONE all-reduce;
  MLP block        column-parallel gate/up, SiLU·mul, row-parallel down_proj, ONE all-reduce;
the embedding and the norms are replicated, the LM head is vocabulary-parallel and the
greedy pick all-gathers each rank's (best logit, token). Nothing is downloaded.

    torchrun --nproc-per-node 2 examples/tp_decode/tp_decode.py [--layers 32] [--prompt 128]
        [--tokens 64] [--rounds 2] [--torch-profiler DIR]
    decodeprof record --follow-fork -o tp.sqlite -- \\
        torchrun --nproc-per-node 2 examples/tp_decode/tp_decode.py
    decodeprof summarize --ranks tp.*.sqlite --name tp --out-dir out && decodeprof report out

--rounds N runs N rounds of prefill + --tokens decode steps; the first N-1 run inside the
NVTX range decodeprof:warmup (NCCL's connection setup, cuBLAS heuristics, the allocator),
the last is measured: decodeprof:prefill, then decodeprof:decode with one decodeprof:step per
generated token after the prefill's (so --tokens decode steps give --tokens + 1 tokens).
Every rank opens the same ranges (each rank's trace is cut by its own); with
DECODEPROF_PHASE_MARKS=1 rank 0 also prints the seed's [phase] lines on stderr, and rank 0
prints the results block (Prompt/Generated/Decode) on stdout.

--torch-profiler DIR profiles the measured round with torch.profiler (CPU + CUDA) and
writes DIR/tp_rank<R>.pt.trace.json per rank, the ranges also as record_function
annotations: `decodeprof kernels DIR/tp_rank0.pt.trace.json` against `decodeprof kernels
tp.<pid>.sqlite` of a recorded run of the same arguments compares one rank's kernel counts
(two runs: torch.profiler and the recorder would both subscribe to CUPTI; docs/multi-gpu.md).

NVLink multicast (NVLS) is switched off (NCCL_NVLS_ENABLE=0) before NCCL starts: the
all-reduce is NCCL's ring / tree kernel (ncclDevKernel_AllReduce_*), not a multicast one.
"""
import argparse
import contextlib
import math
import os
import sys
import time

# Before NCCL is loaded: no NVLink multicast (NVLS) all-reduce, whatever the environment says.
os.environ["NCCL_NVLS_ENABLE"] = "0"

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn.functional as F  # noqa: E402

HIDDEN = 4096
HEADS = 32
KV_HEADS = 8
HEAD_DIM = 128
MLP = 14336
VOCAB = 128256
ROPE_THETA = 500000.0
EPS = 1e-5


def phase(label, rank):
    if rank != 0 or os.environ.get("DECODEPROF_PHASE_MARKS", "0") in ("", "0"):
        return
    print(f"[phase] {label} monotonic_ns={time.monotonic_ns()} "
          f"boottime_ns={time.clock_gettime_ns(time.CLOCK_BOOTTIME)}", file=sys.stderr,
          flush=True)


class Ranges:
    """decodeprof's phase ranges: NVTX always; record_function too under torch.profiler."""

    def __init__(self):
        self.annotate = None  # torch.profiler.record_function while profiling

    @contextlib.contextmanager
    def __call__(self, name):
        torch.cuda.nvtx.range_push(name)
        ctx = self.annotate(name) if self.annotate is not None else contextlib.nullcontext()
        try:
            with ctx:
                yield
        finally:
            torch.cuda.nvtx.range_pop()


def rms_norm(x, weight):
    v = x.float().pow(2).mean(-1, keepdim=True)
    return (x.float() * torch.rsqrt(v + EPS)).to(x.dtype) * weight


def rope_tables(max_len, device):
    inv = 1.0 / (ROPE_THETA ** (torch.arange(0, HEAD_DIM, 2, device=device).float() / HEAD_DIM))
    t = torch.arange(max_len, device=device).float()
    freqs = torch.outer(t, inv)
    emb = torch.cat([freqs, freqs], dim=-1)
    return emb.cos().to(torch.bfloat16), emb.sin().to(torch.bfloat16)


def rotate(x, cos, sin):
    half = x.shape[-1] // 2
    rot = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + rot * sin


class Layer:
    """One decoder layer's shard on this rank (random weights, seeded per rank)."""

    def __init__(self, tp, max_len, gen):
        self.h = HEADS // tp
        self.kv = KV_HEADS // tp
        std = 0.02
        mk = lambda *shape: (torch.randn(*shape, generator=gen, device="cuda") * std).to(
            torch.bfloat16)
        self.qkv = mk((self.h + 2 * self.kv) * HEAD_DIM, HIDDEN)   # column-parallel
        self.o = mk(HIDDEN, self.h * HEAD_DIM)                     # row-parallel
        self.gate_up = mk(2 * (MLP // tp), HIDDEN)                 # column-parallel
        self.down = mk(HIDDEN, MLP // tp)                          # row-parallel
        self.norm1 = torch.ones(HIDDEN, dtype=torch.bfloat16, device="cuda")
        self.norm2 = torch.ones(HIDDEN, dtype=torch.bfloat16, device="cuda")
        self.k_cache = torch.zeros(1, self.kv, max_len, HEAD_DIM, dtype=torch.bfloat16,
                                   device="cuda")
        self.v_cache = torch.zeros_like(self.k_cache)

    def __call__(self, x, pos, n, cos, sin):
        # attention block: one all-reduce after the row-parallel o_proj
        y = rms_norm(x, self.norm1)
        qkv = F.linear(y, self.qkv)
        q, k, v = qkv.split([self.h * HEAD_DIM, self.kv * HEAD_DIM, self.kv * HEAD_DIM], -1)
        q = q.view(1, n, self.h, HEAD_DIM).transpose(1, 2)
        k = k.view(1, n, self.kv, HEAD_DIM).transpose(1, 2)
        v = v.view(1, n, self.kv, HEAD_DIM).transpose(1, 2)
        c, s = cos[pos:pos + n], sin[pos:pos + n]
        q, k = rotate(q, c, s), rotate(k, c, s)
        self.k_cache[:, :, pos:pos + n] = k
        self.v_cache[:, :, pos:pos + n] = v
        keys = self.k_cache[:, :, :pos + n].repeat_interleave(self.h // self.kv, dim=1)
        vals = self.v_cache[:, :, :pos + n].repeat_interleave(self.h // self.kv, dim=1)
        a = F.scaled_dot_product_attention(q, keys, vals, is_causal=n > 1)
        a = a.transpose(1, 2).reshape(1, n, self.h * HEAD_DIM)
        out = F.linear(a, self.o)
        dist.all_reduce(out)
        x = x + out
        # MLP block: one all-reduce after the row-parallel down_proj
        y = rms_norm(x, self.norm2)
        gate, up = F.linear(y, self.gate_up).chunk(2, dim=-1)
        out = F.linear(F.silu(gate) * up, self.down)
        dist.all_reduce(out)
        return x + out


class Model:
    def __init__(self, layers, tp, rank, max_len):
        gen = torch.Generator(device="cuda")
        gen.manual_seed(1234)  # replicated weights: the same on every rank
        self.embed = (torch.randn(VOCAB, HIDDEN, generator=gen, device="cuda") * 0.02).to(
            torch.bfloat16)
        self.norm = torch.ones(HIDDEN, dtype=torch.bfloat16, device="cuda")
        gen.manual_seed(5678 + rank)  # this rank's shards
        self.layers = [Layer(tp, max_len, gen) for _ in range(layers)]
        self.vocab = math.ceil(VOCAB / tp)
        self.offset = rank * self.vocab
        self.vocab = min(self.vocab, VOCAB - self.offset)
        self.head = (torch.randn(self.vocab, HIDDEN, generator=gen, device="cuda") * 0.02).to(
            torch.bfloat16)                                          # vocabulary-parallel
        self.cos, self.sin = rope_tables(max_len, "cuda")
        self.tp = tp

    @torch.inference_mode()
    def forward(self, ids, pos):
        n = ids.shape[1]
        x = F.embedding(ids, self.embed)
        for layer in self.layers:
            x = layer(x, pos, n, self.cos, self.sin)
        logits = F.linear(rms_norm(x[:, -1:], self.norm), self.head).float()
        best, index = logits.max(dim=-1)
        mine = torch.stack([best.view(-1), (index + self.offset).float().view(-1)], dim=-1)
        every = torch.empty(self.tp, 2, device="cuda")
        dist.all_gather_into_tensor(every, mine.view(-1))
        return every[every[:, 0].argmax(), 1].long().view(1, 1)


def run_round(model, prompt, tokens, ranges, rank, measured):
    """Prefill + `tokens` decode steps; returns the decode seconds."""
    n = prompt.shape[1]
    if measured:
        phase("measured_start", rank)
    with ranges("decodeprof:prefill") if measured else contextlib.nullcontext():
        token = model.forward(prompt, 0)
        token.item()
    torch.cuda.synchronize()
    if measured:
        phase("decode_start", rank)
    with ranges("decodeprof:decode") if measured else contextlib.nullcontext():
        t0 = time.perf_counter()
        for i in range(tokens):
            with ranges("decodeprof:step") if measured else contextlib.nullcontext():
                token = model.forward(token, n + i)
                token.item()  # the per-token host sync of a real decoder's stop check
        torch.cuda.synchronize()
        seconds = time.perf_counter() - t0
    if measured:
        phase("measured_end", rank)
    return seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layers", type=int, default=32, help="decoder layers (of 32)")
    ap.add_argument("--prompt", type=int, default=128, help="prompt tokens")
    ap.add_argument("--tokens", type=int, default=64, help="decode steps per round")
    ap.add_argument("--rounds", type=int, default=2,
                    help="rounds of prefill + decode; all but the last are warm-up")
    ap.add_argument("--torch-profiler", metavar="DIR", default="",
                    help="profile the measured round with torch.profiler; writes "
                         "DIR/tp_rank<R>.pt.trace.json per rank")
    args = ap.parse_args()
    if min(args.layers, args.prompt, args.tokens, args.rounds) < 1:
        ap.error("--layers, --prompt, --tokens and --rounds must be at least 1")
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    if KV_HEADS % world != 0:
        ap.error(f"tensor parallelism {world} does not divide the {KV_HEADS} KV heads")
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    max_len = args.prompt + args.tokens + 8
    model = Model(args.layers, world, rank, max_len)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(42)  # the same prompt on every rank
    prompt = torch.randint(0, VOCAB, (1, args.prompt), generator=gen, device="cuda")
    ranges = Ranges()
    dist.barrier()
    phase("warmup_start", rank)
    if args.rounds > 1:
        with ranges("decodeprof:warmup"):
            for _ in range(args.rounds - 1):
                run_round(model, prompt, args.tokens, ranges, rank, measured=False)
    dist.barrier()
    torch.cuda.synchronize()
    if args.torch_profiler:
        from torch.profiler import ProfilerActivity, profile, record_function
        os.makedirs(args.torch_profiler, exist_ok=True)
        ranges.annotate = record_function
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            seconds = run_round(model, prompt, args.tokens, ranges, rank, measured=True)
        ranges.annotate = None
        path = os.path.join(args.torch_profiler, f"tp_rank{rank}.pt.trace.json")
        prof.export_chrome_trace(path)
        print(f"[tp_decode] rank {rank}: wrote {path}", file=sys.stderr, flush=True)
    else:
        seconds = run_round(model, prompt, args.tokens, ranges, rank, measured=True)
    dist.barrier()
    if rank == 0:
        print(f"Prompt: {args.prompt} tokens")
        print(f"Generated: {args.tokens + 1} tokens")
        print(f"Decode: {seconds * 1000:.3f} ms ({args.tokens / seconds:.2f} tok/s)")
        print(f"Tensor parallel: {world} ranks, {args.layers} layers, "
              f"{2 * args.layers + 1} collectives per step", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
