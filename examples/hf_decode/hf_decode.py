#!/usr/bin/env python3
"""A transformers decode driver for decodeprof: the seed bench's flags, results block and
phase marks, on PyTorch + transformers (CUDA, eager).

Builds one of four models from its published configuration (configs/<name>.json) with
random weights (fixed seed; no download), bf16, batch 1, then runs a warmup pass and a
measured pass, each a manual prefill followed by one forward pass per generated token with
the model's KV (and, for the hybrids, recurrent-state) cache. Sampling is plain torch:
greedy argmax, or temperature with optional top-p and a multinomial draw.

  python3 hf_decode.py --model llama -n 128 --warmup-tokens 20 --prompt-tokens 512 \
      --ignore-eos [--temperature T] [--top-p P] [--module-ranges] [--cuda-graph]
      [--sdpa-backend auto|flash|efficient|cudnn|math]

Models: llama (Llama-3.1-8B-Instruct), qwen3-moe (Qwen3-30B-A3B), granite
(granite-4.0-h-tiny), nemotron (NVIDIA-Nemotron-3-Nano-30B-A3B), or a path to a config.json.

Outputs
  stdout: the seed's results block ([Profile Results], Prompt tokens, Generated tokens,
          Prefill, Decode, peak memory); decode tok/s = generated tokens / decode time,
          the first generated token coming from the prefill.
  stderr: "[hf_decode] ..." notes (versions, model, cache); with DECODEPROF_PHASE_MARKS=1 (or
          MLXCEL_BENCH_PHASE_MARKS=1) the seed's mark lines
          "[phase] <label> monotonic_ns=<n> boottime_ns=<n>" for warmup_start,
          measured_start, decode_start (= measured_end - decode time) and measured_end.
  NVTX (always): decodeprof:warmup around the warmup pass, decodeprof:prefill around the
          measured prefill, decodeprof:decode around the measured decode loop and
          decodeprof:step around each of its steps; with --module-ranges also one range per
          module call, named "<ModuleClass>:<qualified name>" (the root: its class alone).

Decode timing: the sampled token of each step is read back to the host (the next step and
the stop check need it), which is the only synchronization per token.
Exit status: 0 on success, 1 when the model cannot be built or run, 2 on bad arguments.
"""
import argparse
import inspect
import json
import os
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = {
    "llama": ("llama.json", "meta-llama/Llama-3.1-8B-Instruct"),
    "qwen3-moe": ("qwen3-moe.json", "Qwen/Qwen3-30B-A3B"),
    "granite": ("granite.json", "ibm-granite/granite-4.0-h-tiny"),
    "nemotron": ("nemotron.json", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"),
}
PROMPT_SEED = 1234
SAMPLER_SEED = 4321


def note(msg):
    print(f"[hf_decode] {msg}", file=sys.stderr, flush=True)


def marks_enabled():
    for var in ("DECODEPROF_PHASE_MARKS", "MLXCEL_BENCH_PHASE_MARKS"):
        if os.environ.get(var, "").strip() == "1":
            return True
    return False


def boottime_ns():
    try:
        return time.clock_gettime_ns(time.CLOCK_BOOTTIME)
    except (AttributeError, OSError):
        return None


def monotonic_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def mark(label, mono=None, boot=None, enabled=True):
    """The seed's phase-mark line; stamps are read now unless given."""
    if not enabled:
        return
    if mono is None:
        mono = monotonic_ns()
        boot = boottime_ns()
    m = "na" if mono is None else str(mono)
    b = "na" if boot is None else str(boot)
    print(f"[phase] {label} monotonic_ns={m} boottime_ns={b}", file=sys.stderr, flush=True)


class Nvtx:
    """NVTX ranges through torch.cuda.nvtx (no-ops off CUDA)."""

    def __init__(self, torch, device):
        self._nvtx = torch.cuda.nvtx if device == "cuda" else None

    def push(self, name):
        if self._nvtx is not None:
            self._nvtx.range_push(name)

    def pop(self):
        if self._nvtx is not None:
            self._nvtx.range_pop()

    def range(self, name):
        outer = self

        class _Range:
            def __enter__(self):
                outer.push(name)
                return self

            def __exit__(self, *exc):
                outer.pop()
                return False

        return _Range()


class ModuleRanges:
    """One NVTX range per module call (forward pre-hook pushes, forward hook pops)."""

    def __init__(self, model, nvtx):
        self.handles = []
        for qualname, module in model.named_modules():
            label = type(module).__name__ + (":" + qualname if qualname else "")

            def pre(_mod, _args, label=label):
                nvtx.push(label)

            def post(_mod, _args, _out):
                nvtx.pop()

            self.handles.append(module.register_forward_pre_hook(pre))
            try:
                self.handles.append(module.register_forward_hook(post, always_call=True))
            except TypeError:  # torch without always_call
                self.handles.append(module.register_forward_hook(post))
        note(f"module ranges on {len(self.handles) // 2} modules")


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="transformers decode driver with the seed bench's flags and marks")
    ap.add_argument("-m", "--model", required=True,
                    help="llama | qwen3-moe | granite | nemotron | path to a config.json")
    ap.add_argument("-p", "--prompt", default="profile",
                    help="ignored (as in the seed bench, the synthesized prompt is used)")
    ap.add_argument("-n", "--max-tokens", type=int, default=128, dest="max_tokens",
                    help="tokens to generate, the first one from the prefill (default 128)")
    ap.add_argument("--warmup-tokens", type=int, default=20)
    ap.add_argument("--prompt-tokens", type=int, default=512)
    ap.add_argument("--temperature", type=float, default=0.0, help="0 = greedy")
    ap.add_argument("--top-p", type=float, default=1.0, help="1 = off; only with temperature > 0")
    ap.add_argument("--ignore-eos", action="store_true",
                    help="-inf logit bias on every EOS id: always generate -n tokens")
    ap.add_argument("--module-ranges", action="store_true",
                    help="one NVTX range per module call, for op-path attribution")
    ap.add_argument("--cuda-graph", action="store_true",
                    help="static KV cache and each decode step (forward + greedy pick) replayed "
                         "from one captured CUDA graph; greedy only (the CUDA-graph unit applied)")
    ap.add_argument("--sdpa-backend", default="auto",
                    choices=["auto", "flash", "efficient", "cudnn", "math"],
                    help="pin torch's scaled_dot_product_attention to one backend "
                         "(default auto: PyTorch chooses per call)")
    ap.add_argument("--seed", type=int, default=0, help="weight seed (default 0)")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"],
                    help="cpu: a dry run of the loop without a GPU (no NVTX), for tests")
    args = ap.parse_args(argv)
    if args.max_tokens < 1:
        ap.error("-n must be at least 1")
    if args.warmup_tokens < 0:
        ap.error("--warmup-tokens must be >= 0")
    if args.prompt_tokens < 1:
        ap.error("--prompt-tokens must be at least 1")
    if args.temperature < 0:
        ap.error("--temperature must be >= 0")
    if not 0.0 < args.top_p <= 1.0:
        ap.error("--top-p must be in (0, 1]")
    if args.cuda_graph and (args.temperature > 0 or args.device != "cuda"):
        ap.error("--cuda-graph needs greedy decoding (--temperature 0) on cuda")
    return args


def config_path(model):
    if model in MODELS:
        return os.path.join(HERE, "configs", MODELS[model][0]), MODELS[model][1]
    if os.path.isfile(model):
        return model, model
    if os.path.isfile(os.path.join(model, "config.json")):
        return os.path.join(model, "config.json"), model
    print(f"hf_decode: unknown model {model!r} (names: {', '.join(MODELS)}, or a path to a "
          "config.json)", file=sys.stderr)
    sys.exit(2)


def load_config(path):
    """The published config as transformers reads a checkpoint's config.json (auto_map
    dropped so that the in-library class is used, never remote code)."""
    from transformers import AutoConfig
    with open(path) as f:
        raw = json.load(f)
    data = {k: v for k, v in raw.items() if k != "auto_map"}
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "config.json"), "w") as f:
            json.dump(data, f)
        try:
            return AutoConfig.from_pretrained(tmp)
        except Exception as e:  # noqa: BLE001 - report and try the class directly
            note(f"AutoConfig.from_pretrained refused the config ({type(e).__name__}: {e}); "
                 "trying the config class directly")
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING
    return CONFIG_MAPPING[data["model_type"]].from_dict(data)


def build_model(torch, cfg, seed, device):
    from transformers import AutoModelForCausalLM
    torch.manual_seed(seed)
    if device == "cuda":
        torch.cuda.manual_seed_all(seed)
    cfg.use_cache = True
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)  # no fp32 copy of the weights on the way
    try:
        with torch.device(device):
            try:
                model = AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16)
            except TypeError:
                model = AutoModelForCausalLM.from_config(cfg, torch_dtype=torch.bfloat16)
    finally:
        torch.set_default_dtype(previous)
    first = next(model.parameters())
    if first.device.type == "meta":  # a loader that deferred the weights: build directly
        note("from_config left the weights on the meta device; constructing the class")
        torch.set_default_dtype(torch.bfloat16)
        try:
            with torch.device(device):
                model = type(model)(cfg)
        finally:
            torch.set_default_dtype(previous)
        first = next(model.parameters())
    if first.device.type != device:
        note(f"model was built on {first.device}; moving it to {device}")
        model = model.to(device)
    return model.eval()


def eos_ids(cfg, vocab):
    ids = getattr(cfg, "eos_token_id", None)
    if ids is None:
        ids = []
    elif isinstance(ids, int):
        ids = [ids]
    return sorted({int(i) for i in ids if 0 <= int(i) < vocab})


def cache_candidates(torch, model, device):
    """Ways to make an empty cache, most specific first: (label, factory). A factory that
    returns None lets the model make its own cache on the prefill."""
    cfg = model.config
    out = []
    try:
        from transformers.cache_utils import Cache
    except ImportError:
        Cache = None
    module = sys.modules.get(type(model).__module__)
    if module is not None and Cache is not None:
        for name in sorted(dir(module)):
            cls = getattr(module, name)
            if (isinstance(cls, type) and issubclass(cls, Cache)
                    and cls.__module__ == module.__name__):
                out.append((name, lambda cls=cls: construct(torch, cls, cfg, device)))
    try:
        from transformers import DynamicCache
        out.append(("DynamicCache(config)", lambda: DynamicCache(config=cfg)))
        out.append(("DynamicCache()", lambda: DynamicCache()))
    except ImportError:
        pass
    out.append(("made by the model", lambda: None))
    return out


def construct(torch, cls, cfg, device):
    """Constructs a model-specific cache class from its parameter names."""
    values = {"config": cfg, "batch_size": 1, "max_batch_size": 1, "dtype": torch.bfloat16,
              "device": device}
    kwargs = {}
    for name, p in inspect.signature(cls.__init__).parameters.items():
        if name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if name in values:
            kwargs[name] = values[name]
        elif p.default is p.empty:
            raise TypeError(f"{cls.__name__} needs {name!r}")
    return cls(**kwargs)


def sdpa_backend(torch, name):
    """A context pinning scaled_dot_product_attention to one backend (auto: no pinning)."""
    import contextlib
    if name == "auto":
        return contextlib.nullcontext()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backend = {"flash": SDPBackend.FLASH_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION,
               "cudnn": SDPBackend.CUDNN_ATTENTION, "math": SDPBackend.MATH}[name]
    note(f"scaled_dot_product_attention pinned to {name}")
    return sdpa_kernel([backend])


class Decoder:
    def __init__(self, torch, model, args, eos, nvtx, device):
        self.torch = torch
        self.model = model
        self.args = args
        self.nvtx = nvtx
        self.keep = "logits_to_keep" in inspect.signature(model.forward).parameters
        self.eos = set(eos)
        self.eos_index = torch.tensor(eos, dtype=torch.long, device=device) if eos else None
        self.gen = torch.Generator(device=device)
        self.gen.manual_seed(SAMPLER_SEED)

    def forward(self, ids, cache):
        kw = {"input_ids": ids, "use_cache": True}
        if cache is not None:
            kw["past_key_values"] = cache
        if self.keep:
            kw["logits_to_keep"] = 1
        out = self.model(**kw)
        return out.logits[:, -1, :], out.past_key_values

    def sample(self, logits):
        """Next token, shape [1, 1] (int64), from the last position's logits [1, vocab]."""
        torch = self.torch
        if self.args.ignore_eos and self.eos_index is not None:
            logits = logits.index_fill(-1, self.eos_index, float("-inf"))
        if self.args.temperature <= 0:
            return logits.argmax(dim=-1, keepdim=True)
        x = logits.float() / self.args.temperature
        if self.args.top_p < 1.0:
            sorted_x, order = torch.sort(x, dim=-1, descending=True)
            probs = torch.softmax(sorted_x, dim=-1)
            before = probs.cumsum(dim=-1) - probs  # mass of the better-ranked tokens
            sorted_x = sorted_x.masked_fill(before > self.args.top_p, float("-inf"))
            choice = torch.multinomial(torch.softmax(sorted_x, dim=-1), 1, generator=self.gen)
            return order.gather(-1, choice)
        return torch.multinomial(torch.softmax(x, dim=-1), 1, generator=self.gen)

    def run(self, prompt, tokens, make_cache, measured):
        """Prefill + decode until `tokens` tokens exist (or an EOS without --ignore-eos).
        Returns (generated, prefill_ns, decode_ns, end_monotonic, end_boottime)."""
        cache = make_cache()
        nvtx = self.nvtx
        t0 = monotonic_ns()
        if measured:
            nvtx.push("decodeprof:prefill")
        try:
            logits, cache_out = self.forward(prompt, cache)
            if cache is None:
                cache = cache_out
            if cache is None:
                raise RuntimeError("the model returned no cache")
            token = self.sample(logits)
            token_id = int(token.item())  # waits for the prefill
        finally:
            if measured:
                nvtx.pop()
        last = [token]

        def step():
            logits, _ = self.forward(last[0], cache)
            last[0] = self.sample(logits)
            return int(last[0].item())  # the per-token read-back (a sync)

        return self.decode_loop(t0, token_id, step, tokens, measured)

    def decode_loop(self, t0, token_id, step, tokens, measured):
        """Calls step() (one decode step; returns the new token id) until `tokens` tokens
        exist or an EOS ends it; NVTX decode/step ranges when measured. Returns run()'s
        tuple (the first token, from the prefill, counts as generated)."""
        nvtx = self.nvtx
        d0 = monotonic_ns()
        generated = 1
        if measured:
            nvtx.push("decodeprof:decode")
        try:
            while generated < tokens and (self.args.ignore_eos or token_id not in self.eos):
                if measured:
                    nvtx.push("decodeprof:step")
                try:
                    token_id = step()
                finally:
                    if measured:
                        nvtx.pop()
                generated += 1
            end_mono = monotonic_ns()
            end_boot = boottime_ns()
        finally:
            if measured:
                nvtx.pop()
        return generated, d0 - t0, end_mono - d0, end_mono, end_boot


class GraphDecoder(Decoder):
    """The decode step captured once in a CUDA graph and replayed per token (--cuda-graph).

    A transformers StaticCache of fixed length holds the KV cache; the prefill runs eagerly;
    the graph holds one decode forward pass at the position in a device tensor, the greedy
    pick, the copy of the picked token into the graph's input and the position increment, so
    that a step on the host is one graph launch plus the read-back of the token. The cache
    and the graph are made on the first run and reused (the cache is reset) by later runs."""

    def __init__(self, torch, model, args, eos, nvtx, device, max_len):
        super().__init__(torch, model, args, eos, nvtx, device)
        self.max_len = max_len
        self.cache = None
        self.graph = None
        self.ids = torch.zeros((1, 1), dtype=torch.long, device=device)
        self.pos = torch.zeros((1,), dtype=torch.long, device=device)

    def make_cache(self):
        from transformers import StaticCache
        cfg = self.model.config
        attempts = (dict(config=cfg, max_cache_len=self.max_len),
                    dict(config=cfg, max_batch_size=1, max_cache_len=self.max_len,
                         device="cuda", dtype=self.torch.bfloat16))
        last = None
        for kw in attempts:
            try:
                return StaticCache(**kw)
            except TypeError as e:
                last = e
        raise last

    def step_body(self):
        out = self.model(input_ids=self.ids, past_key_values=self.cache, use_cache=True,
                         cache_position=self.pos, **({"logits_to_keep": 1} if self.keep else {}))
        token = self.sample(out.logits[:, -1, :])
        self.ids.copy_(token)
        self.pos.add_(1)

    def capture(self, start_pos, token):
        torch = self.torch
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up passes outside the capture (allocations)
            for _ in range(3):
                self.step_body()
        torch.cuda.current_stream().wait_stream(side)
        self.ids.copy_(token)
        self.pos.fill_(start_pos)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.step_body()
        torch.cuda.synchronize()

    def run(self, prompt, tokens, make_cache, measured):
        torch = self.torch
        nvtx = self.nvtx
        if self.cache is None:
            self.cache = self.make_cache()
        elif hasattr(self.cache, "reset"):
            self.cache.reset()
        n = prompt.shape[1]
        t0 = monotonic_ns()
        if measured:
            nvtx.push("decodeprof:prefill")
        try:
            out = self.model(input_ids=prompt, past_key_values=self.cache, use_cache=True,
                             cache_position=torch.arange(n, device=prompt.device),
                             **({"logits_to_keep": 1} if self.keep else {}))
            token = self.sample(out.logits[:, -1, :])
            token_id = int(token.item())
        finally:
            if measured:
                nvtx.pop()
        if self.graph is None:
            self.capture(n, token)  # the capture's warm-up wrote past n; replays rewrite it
        self.ids.copy_(token)
        self.pos.fill_(n)

        def step():
            self.graph.replay()
            return int(self.ids.item())  # the per-token read-back (a sync)

        return self.decode_loop(t0, token_id, step, tokens, measured)


def main(argv):
    args = parse_args(argv)
    path, source = config_path(args.model)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    import transformers
    device = args.device
    if device == "cuda" and not torch.cuda.is_available():
        print("hf_decode: no CUDA device", file=sys.stderr)
        return 1
    on_cuda = device == "cuda"

    def sync():
        if on_cuda:
            torch.cuda.synchronize()

    note(f"torch {torch.__version__}, transformers {transformers.__version__}, device "
         f"{torch.cuda.get_device_name(0) if on_cuda else 'cpu'}")
    marks_on = marks_enabled()
    nvtx = Nvtx(torch, device)

    t_build = time.perf_counter()
    cfg = load_config(path)
    model = build_model(torch, cfg, args.seed, device)
    sync()
    params = sum(p.numel() for p in model.parameters())
    note(f"model {args.model} ({source}): {type(model).__name__}, {params / 1e9:.2f} B "
         f"parameters, random weights (seed {args.seed}), built in "
         f"{time.perf_counter() - t_build:.1f} s; attention "
         f"{getattr(model.config, '_attn_implementation', '?')}, experts "
         f"{getattr(model.config, '_experts_implementation', '-')}")
    if args.module_ranges:
        ModuleRanges(model, nvtx)

    vocab = int(model.config.vocab_size)
    eos = eos_ids(model.config, vocab)
    limit = getattr(model.config, "max_position_embeddings", None) or 1 << 30
    prompt_len = max(1, min(args.prompt_tokens, int(limit) - args.max_tokens))
    gen = torch.Generator().manual_seed(PROMPT_SEED)
    low = min(1000, vocab // 2)
    prompt = torch.randint(low, vocab, (1, prompt_len), generator=gen).to(device)
    print(f"[long-prompt] target={args.prompt_tokens} tokens -> using {prompt_len} tokens "
          f"(synthesized ids, seed {PROMPT_SEED})", flush=True)

    if args.cuda_graph:
        decoder = GraphDecoder(torch, model, args, eos, nvtx, device,
                               prompt_len + max(args.max_tokens, args.warmup_tokens, 2) + 8)
    else:
        decoder = Decoder(torch, model, args, eos, nvtx, device)
    with torch.inference_mode(), sdpa_backend(torch, args.sdpa_backend):
        # Warmup: prefill + the warmup tokens (at least one decode step, which also picks
        # the cache the model accepts).
        chosen = None
        nvtx.push("decodeprof:warmup")
        mark("warmup_start", enabled=marks_on)
        try:
            candidates = ([("StaticCache + CUDA graph", lambda: None)] if args.cuda_graph
                          else cache_candidates(torch, model, device))
            for label, factory in candidates:
                try:
                    decoder.run(prompt, max(args.warmup_tokens, 2), factory, measured=False)
                    chosen = (label, factory)
                    break
                except Exception as e:  # noqa: BLE001 - try the next kind of cache
                    note(f"cache {label}: {type(e).__name__}: {e}")
                    traceback.print_exc(limit=6, file=sys.stderr)
                    sync()  # a CUDA error is sticky: this raises then
        finally:
            nvtx.pop()
        if chosen is None:
            print("hf_decode: no cache kind worked for this model", file=sys.stderr)
            return 1
        note(f"cache: {chosen[0]}; logits_to_keep: {decoder.keep}; eos ids: {eos}")
        sync()

        mark("measured_start", enabled=marks_on)
        generated, prefill_ns, decode_ns, end_mono, end_boot = decoder.run(
            prompt, args.max_tokens, chosen[1], measured=True)
        sync()

    start_boot = None if end_boot is None else max(end_boot - decode_ns, 0)
    mark("decode_start", max(end_mono - decode_ns, 0), start_boot, enabled=marks_on)
    mark("measured_end", end_mono, end_boot, enabled=marks_on)

    prefill_s = prefill_ns / 1e9
    decode_s = decode_ns / 1e9
    peak_gb = torch.cuda.max_memory_allocated() / 1e9 if on_cuda else 0.0
    print()
    print("[Profile Results]")
    print(f"  Prompt tokens:    {prompt_len}")
    print(f"  Generated tokens: {generated}")
    print(f"  Prefill:          {prefill_s * 1e3:.2f} ms "
          f"({(prompt_len / prefill_s if prefill_s > 0 else 0.0):.2f} tok/s)")
    print(f"  Decode:           {decode_s * 1e3:.2f} ms "
          f"({(generated / decode_s if decode_s > 0 else 0.0):.2f} tok/s)")
    print(f"  CUDA peak memory: {peak_gb:.2f} GB", flush=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except SystemExit:
        raise
    except Exception:  # noqa: BLE001 - one line of what failed, then the traceback
        traceback.print_exc(file=sys.stderr)
        sys.exit(1)
