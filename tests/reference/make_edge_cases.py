#!/usr/bin/env python3
"""Writes the hand-made edge cases of the seed comparison into OUT_DIR.

Usage: make_edge_cases.py OUT_DIR

Each case is a folder OUT_DIR/<case>/ holding trace.csv, bench.log, optionally plain.log and
model/config.json, plus two small files the driver reads:
  args     the summarize options after --trace/--log, one per line (paths relative to the
           case folder);
  expect   `ok` (both summarizers must succeed and agree) or `fail` (both must fail).
The runs are small synthetic MLX-on-ROCm decode runs (a few layers, a few tokens) built from
real rocprofv3 kernel-name shapes; each hand_* case varies one thing the spec calls out, the
err_* cases must be rejected, and the random_* cases mix everything (overlaps, zero-length
dispatches, grids of 0, windows cut through dispatches) from fixed seeds.
"""

import csv
import json
import os
import random
import sys

P = "void mlx::core::rocm::"
H = "(__half const*, __half*, long)"
K = {
    "embed": P + "gather_rows_kernel<__half, unsigned int>(__half const*, unsigned int const*, "
                 "__half*, long, long)",
    "rms": P + "rms_norm_kernel<__half, 256, 4>(__half const*, __half const*, __half*, float, "
               "int, long)",
    "qmv": P + "qmv_wide_kernel<__half, 64, 4, false>(__half const*, unsigned int const*, "
               "__half const*, __half const*, __half*, int, int)",
    "qmm": P + "qmm_t_kernel<__half, 64, 4, 64, 64, 32>(__half const*, unsigned int const*, "
               "__half*, int, int, int)",
    "rope": P + "rope_single_freqs_1d<__half, false>(__half const*, __half*, int const*, float)",
    "kv": P + "copy_gg_byval<__half, __half, long, 4>(__half const*, __half*, long, "
              "mlx::core::rocm::hip_array<int, 8>)",
    "sdpa": P + "kernel_sdpav_1pass<__half, true, 128>(__half const*, __half const*, "
                "__half const*, __half*, mlx::core::rocm::AttnParams)",
    "add": P + "binary_vv<mlx::core::rocm::Add, __half, __half, unsigned int, 8>(__half const*, "
               "__half const*, __half*, unsigned int)",
    "addf": P + "binary_vv<mlx::core::rocm::Add, float, float, unsigned int, 4>(float const*, "
                "float const*, float*, unsigned int)",
    "mul": P + "binary_g<mlx::core::rocm::Multiply, float, float, long, 4>(float const*, "
               "float const*, float*, long)",
    "div": P + "binary_vs<mlx::core::rocm::Divide, float, float, unsigned int, 4>(float const*, "
               "float const*, float*, unsigned int)",
    "swiglu": P + "CV2ISigmoidMultiplyMultiply_7311865491522407651_contiguous<unsigned int, 4>"
                  "(__half const*, __half const*, __half*, unsigned int)",
    "silu": P + "BV2ISigmoidMultiply_9912837465_contiguous<unsigned int, 4>(float const*, "
                "float*, unsigned int)",
    "cast": P + "copy_v<__half, float, unsigned int, 8>(__half const*, float*, unsigned int)",
    "argmax": P + "arg_reduce_final<float, mlx::core::rocm::ArgMax<float>, 256, 4>(float const*, "
                  "unsigned int*, long)",
    "softmax": P + "softmax_kernel<__half, float, 256, 4>(__half const*, __half*, int)",
    "sort": P + "block_sort_kernel<float, unsigned int, 256, 8>(float const*, unsigned int*, int)",
    "arange": P + "arange_kernel<unsigned int>(unsigned int*, unsigned int, unsigned int, "
                  "unsigned int)",
    "gqmv": P + "gather_qmv_wide_kernel<__half, 64, 4>(__half const*, unsigned int const*, "
                "unsigned int const*, __half*, int, int)",
    "colsum": P + "col_reduce_looped<float, mlx::core::rocm::Sum, 256>(float const*, float*, long)",
    "conv": P + "depthwise_conv1d_kernel<__half, 4>(__half const*, __half const*, __half*, int)",
    "exp": P + "unary_v<mlx::core::rocm::Exp, float, float, unsigned int, 4>(float const*, "
               "float*, unsigned int)",
    "scan": P + "contiguous_scan<float, mlx::core::rocm::Sum, true, false, 4>(float const*, "
                "float*, int)",
    "rbits": P + "rbits_kernel<unsigned int>(unsigned int const*, unsigned int*, int)",
    "cumsum": P + "strided_scan<float, mlx::core::rocm::Sum, false, true>(float const*, float*)",
    "fill": "__amd_rocclr_fillBufferAligned",
    "copybuf": "__amd_rocclr_copyBuffer",
}
HEAD_GRID = (128256 * 64, 1, 1)


class Run:
    """Builds one synthetic profiled run: dispatches on the boottime clock and phase marks."""

    def __init__(self, seed=1, t0=1_724_188_061_281_035, mono_offset=3_741,
                 sampler="greedy"):
        self.rng = random.Random(seed)
        self.t = t0
        self.mono_offset = mono_offset
        self.rows = []  # [name, start, end, (gx, gy, gz)]
        self.marks = {}  # label -> (monotonic, boottime)
        self.mark_order = []
        self.sampler = sampler

    def k(self, key_or_name, dur=None, gap=None, grid=(256, 1, 1)):
        name = K.get(key_or_name, key_or_name)
        dur = dur if dur is not None else self.rng.randint(1_500, 60_000)
        gap = gap if gap is not None else self.rng.randint(800, 4_000)
        start = self.t + gap
        self.rows.append([name, start, start + dur, grid])
        self.t = start + dur

    def idle(self, ns):
        self.t += ns

    def mark(self, label, at=None):
        at = self.t if at is None else at
        self.marks[label] = (at - self.mono_offset, at)
        self.mark_order.append(label)

    # Model pieces.
    def attention(self):
        self.k("rms")
        self.k("qmv", grid=(4096, 1, 1))
        self.k("qmv", grid=(1024, 1, 1))
        self.k("qmv", grid=(1024, 1, 1))
        self.k("rope")
        self.k("kv")
        self.k("kv")
        self.k("rope")
        self.k("sdpa")
        self.k("qmv", grid=(4096, 1, 1))  # o_proj
        self.k("add")

    def dense_mlp(self):
        self.k("rms")
        self.k("qmv", grid=(14336, 1, 1))
        self.k("qmv", grid=(14336, 1, 1))
        self.k("swiglu")
        self.k("qmv", grid=(4096, 1, 1))
        self.k("add")

    def moe_mlp(self, arange_inside=False):
        self.k("rms")
        self.k("qmv", grid=(128, 1, 1))  # router
        self.k("softmax")
        self.k("sort")
        self.k("div")
        for _ in range(2 if arange_inside else 3):
            self.k("arange")
        self.k("gqmv")
        self.k("gqmv")
        if arange_inside:
            self.k("arange")
        self.k("swiglu")
        self.k("gqmv")
        self.k("mul")
        self.k("cast")
        self.k("colsum")
        self.k("add")

    def mamba(self):
        self.k("rms")
        self.k("qmv", grid=(8192, 1, 1))  # in_proj
        self.k("cast")
        self.k("kv")
        self.k("conv")
        self.k("exp")
        self.k("mul")
        self.k("silu")
        self.k("scan")
        self.k("mul")
        self.k("silu")
        self.k("rms")
        self.k("mul")
        self.k("qmv", grid=(4096, 1, 1))  # out_proj
        self.k("add")

    def head_and_sample(self):
        self.k("rms")
        self.k("qmv", grid=HEAD_GRID)
        self.k("cast")
        self.k("addf")  # --ignore-eos logit bias
        if self.sampler == "greedy":
            self.k("argmax")
            return
        self.k("div")  # temperature
        if self.sampler == "topp":
            self.k("softmax")
            self.k("sort")
            self.k("cumsum")
        self.k("rbits")
        self.k("argmax")

    def step(self, layers):
        self.k("embed", grid=(4096, 1, 1))
        for layer in layers:
            layer()
        self.head_and_sample()

    def run(self, layers, tokens, prefill_gap=2_000_000):
        """warmup, measured prefill, `tokens - 1` decode passes, trailing dispatches."""
        for _ in range(3):
            self.k("fill", gap=50_000)
        self.idle(1_000_000)
        self.mark("warmup_start")
        self.prefill(layers)
        for _ in range(2):
            self.step(layers)
        self.idle(5_000_000)
        self.mark("measured_start")
        self.prefill(layers)
        self.idle(prefill_gap)
        self.mark("decode_start")
        for _ in range(tokens - 1):
            self.step(layers)
        self.idle(3_000)
        self.mark("measured_end")
        self.idle(400_000)
        self.k("copybuf")
        self.k("fill")

    def prefill(self, layers):
        self.k("embed", grid=(4096, 1, 1))
        for _ in layers:
            self.k("rms")
            self.k("qmm", dur=400_000)
            self.k("sdpa")
            self.k("qmm", dur=900_000)
        self.head_and_sample()

    # Output.
    def write_trace(self, path, columns="rocprofv3", order=None):
        rows = self.rows if order is None else [self.rows[i] for i in order]
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
            if columns == "rocprofv3":
                w.writerow(["Kind", "Agent_Id", "Queue_Id", "Kernel_Name", "Correlation_Id",
                            "Start_Timestamp", "End_Timestamp", "Grid_Size_X", "Grid_Size_Y",
                            "Grid_Size_Z"])
                for i, (name, s, e, g) in enumerate(rows):
                    w.writerow(["KERNEL_DISPATCH", "Agent 1", 1, name, i + 1, s, e, *g])
            elif columns == "no_grid":
                w.writerow(["Kind", "Kernel_Name", "Start_Timestamp", "End_Timestamp"])
                for name, s, e, _ in rows:
                    w.writerow(["KERNEL_DISPATCH", name, s, e])
            elif columns == "old":
                w.writerow(["Index", "EndNs", "BeginNs", "KernelName", "Grid_Size_X"])
                for i, (name, s, e, g) in enumerate(rows):
                    w.writerow([i, e, s, name, g[0]])
            elif columns == "empty_grid":  # grid cells empty or 0 -> 1
                w.writerow(["Kernel_Name", "Start_Timestamp", "End_Timestamp", "Grid_Size_X",
                            "Grid_Size_Y"])
                for i, (name, s, e, g) in enumerate(rows):
                    w.writerow([name, s, e, g[0], "" if i % 2 else 0])
            else:
                raise ValueError(columns)

    def log_text(self, tokens, marks=True, clocks=("monotonic", "boottime"), generated=True,
                 prompt_tokens=512):
        lines = ["W20260930 19:36:27.023868 140470968230016 tool.cpp:2317] rocprofv3 1.3.5",
                 "Loading model from models/synthetic",
                 "[long-prompt] target=512 tokens -> using 512 tokens (synthesized)"]
        if marks:
            for label in self.mark_order:
                mono, boot = self.marks[label]
                m = str(mono) if "monotonic" in clocks else "na"
                b = str(boot) if "boottime" in clocks else "na"
                lines.append(f"[phase] {label} monotonic_ns={m} boottime_ns={b}")
        lo, hi = self.marks["decode_start"][1], self.marks["measured_end"][1]
        lines += self.results(tokens, (hi - lo) / 1e6, generated, prompt_tokens)
        return "\n".join(lines) + "\n"

    @staticmethod
    def results(tokens, decode_ms, generated=True, prompt_tokens=512, factor=1.0):
        decode_ms *= factor
        tok_s = tokens / (decode_ms / 1000) if decode_ms > 0 else 0.0
        out = ["", "[Profile Results]", f"  Prompt tokens:    {prompt_tokens}"]
        if generated:
            out.append(f"  Generated tokens: {tokens}")
        out += [f"  Prefill:          578.22 ms (885.48 tok/s)",
                f"  Decode:           {decode_ms:.2f} ms ({tok_s:.2f} tok/s)",
                "  MLX peak memory:  4.65 GB"]
        return out


LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
         "rope_scaling": {"factor": 8.0, "rope_type": "llama3"}}
LLAMA_PLAIN = {"model_type": "llama", "rope_scaling": None}
LLAMA_YARN = {"model_type": "llama", "rope_scaling": {"type": "yarn", "factor": 4.0}}
QWEN3 = {"model_type": "qwen3_moe", "num_experts": 128}
GRANITE = {"model_type": "granitemoehybrid"}
NEMOTRON = {"model_type": "nemotron_h"}
MIXTRAL = {"model_type": "mixtral"}


class Case:
    def __init__(self, root, name):
        self.dir = os.path.join(root, name)
        os.makedirs(self.dir, exist_ok=True)
        self.args = []
        self.expect = "ok"

    def write(self, filename, text):
        path = os.path.join(self.dir, filename)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)

    def config(self, cfg, filename="model/config.json"):
        if cfg is not None:
            self.write(filename, json.dumps(cfg, indent=2) + "\n")
        self.args += ["--model-dir", os.path.dirname(filename)]

    def plain(self, tokens, decode_ms, factor=0.93):
        self.write("plain.log", "\n".join(Run.results(tokens, decode_ms, factor=factor)) + "\n")
        self.args += ["--plain-log", "plain.log"]

    def finish(self):
        self.write("args", "".join(a + "\n" for a in self.args))
        self.write("expect", self.expect + "\n")


def standard(root, name, layers_of, tokens=6, cfg=LLAMA, sampler="greedy", temperature=None,
             columns="rocprofv3", plain=True, seed=1, **log_kw):
    run = Run(seed=seed, sampler=sampler)
    run.run(layers_of(run), tokens)
    case = Case(root, name)
    run.write_trace(os.path.join(case.dir, "trace.csv"), columns)
    case.write("bench.log", run.log_text(tokens, **log_kw))
    if plain:
        lo, hi = run.marks["decode_start"][1], run.marks["measured_end"][1]
        case.plain(tokens, (hi - lo) / 1e6)
    if cfg is not False:
        case.config(cfg)
    if temperature is not None:
        case.args += ["--temperature", temperature]
    return run, case


def dense(run):
    return [run.attention, run.dense_mlp] * 2


def moe(run):
    return [run.attention, run.moe_mlp] * 2


def hybrid(run):
    return [run.mamba, run.moe_mlp, run.mamba, run.attention, run.moe_mlp]


def nemotron(run):
    return [run.mamba, run.moe_mlp, run.attention, run.dense_mlp, run.mamba]


def random_case(root, seed):
    """A seeded random run: overlapping and zero-length dispatches, random grids (0 too),
    dispatches across decode_start and measured_end, random column spelling, config, clock
    availability, token count (0 in some), plain log and temperature."""
    rng = random.Random(seed)
    run = Run(seed=seed, sampler=rng.choice(["greedy", "sampled", "topp"]))
    keys = list(K)

    def random_layer():
        for _ in range(rng.randint(5, 40)):
            grid = (rng.choice([0, 1, 128, 4096, HEAD_GRID[0]]), rng.randint(1, 3), 1)
            run.k(rng.choice(keys), dur=rng.choice([0, rng.randint(1, 20_000)]),
                  gap=rng.randint(-8_000, 6_000), grid=grid)

    layers = [rng.choice([run.attention, run.dense_mlp, run.moe_mlp, run.mamba, random_layer])
              for _ in range(rng.randint(1, 5))]
    tokens = rng.randint(2, 7)
    run.run(layers, tokens, prefill_gap=rng.choice([0, 10, 2_000_000]))
    lo, hi = run.marks["decode_start"][1], run.marks["measured_end"][1]
    for _ in range(rng.randint(0, 4)):
        s = rng.randint(lo - 50_000, hi + 50_000)
        run.rows.append([K[rng.choice(keys)], s, s + rng.randint(0, 80_000), (1, 1, 1)])
    run.rows.sort(key=lambda r: r[1])
    case = Case(root, f"random_{seed}")
    run.write_trace(os.path.join(case.dir, "trace.csv"),
                    rng.choice(["rocprofv3", "no_grid", "old", "empty_grid"]))
    case.write("bench.log", run.log_text(
        tokens if rng.random() > 0.1 else 0,
        clocks=rng.choice([("monotonic", "boottime"), ("boottime",)])))
    if rng.random() < 0.7:
        case.plain(tokens, (hi - lo) / 1e6, factor=rng.choice([0.5, 0.93, 1.2]))
    cfg = rng.choice([LLAMA, LLAMA_PLAIN, QWEN3, GRANITE, NEMOTRON, MIXTRAL, {}, False])
    if cfg is not False:
        case.config(cfg)
    if rng.random() < 0.6:
        case.args += ["--temperature", rng.choice(["0.7", "1", "0", "0.0001"])]
    case.finish()


def make_all(root):
    for seed in range(1, 13):
        random_case(root, seed)

    # Realistic runs of each family, greedy and sampled.
    standard(root, "hand_dense_llama3", dense)[1].finish()
    standard(root, "hand_dense_llama_plain_rope", dense, cfg=LLAMA_PLAIN, sampler="sampled",
             temperature="0.7")[1].finish()
    standard(root, "hand_dense_yarn_topp", dense, cfg=LLAMA_YARN, sampler="topp",
             temperature="0.7")[1].finish()
    standard(root, "hand_moe_qwen3", moe, cfg=QWEN3)[1].finish()
    standard(root, "hand_moe_mixtral_arange_inside", lambda r: [
        r.attention, lambda: r.moe_mlp(arange_inside=True)] * 2, cfg=MIXTRAL, sampler="topp",
        temperature="1.0")[1].finish()
    standard(root, "hand_hybrid_granite", hybrid, cfg=GRANITE, sampler="sampled",
             temperature="0.7")[1].finish()
    standard(root, "hand_hybrid_nemotron", nemotron, cfg=NEMOTRON)[1].finish()

    # No grid columns: every qmv counts as the lm_head (spec 2.7 pitfall).
    standard(root, "hand_no_grid_columns", dense, columns="no_grid")[1].finish()
    # Grid columns present with empty and 0 cells (each counts as 1).
    standard(root, "hand_grid_empty_and_zero", moe, cfg=QWEN3, columns="empty_grid")[1].finish()
    # Old rocprofv3 spelling KernelName/BeginNs/EndNs, columns in another order.
    standard(root, "hand_old_column_names", hybrid, cfg=GRANITE, columns="old")[1].finish()

    # Ties in start time, rows out of start order in the file.
    run = Run(seed=3)
    run.run(dense(run), 5)
    lo = run.marks["decode_start"][1]
    decode_rows = [i for i, r in enumerate(run.rows) if r[1] >= lo]
    # Make pairs of decode dispatches start together (end order kept).
    for a in decode_rows[5:60:7]:
        run.rows[a + 1][1] = run.rows[a][1]
    # A tie right before the window too: two rows ending at or before lo with equal starts.
    before = [i for i, r in enumerate(run.rows) if r[2] <= lo]
    run.rows[before[-1]][1] = run.rows[before[-2]][1]
    order = list(range(len(run.rows)))
    rng = random.Random(7)
    rng.shuffle(order)
    # Rows with equal starts keep their relative file order only if the shuffle kept it;
    # put each tied pair back in the order (a, a+1) so file order decides deterministically.
    pos = {row: p for p, row in enumerate(order)}
    for a in decode_rows[5:60:7]:
        if pos[a] > pos[a + 1]:
            order[pos[a]], order[pos[a + 1]] = a + 1, a
            pos[a], pos[a + 1] = pos[a + 1], pos[a]
    case = Case(root, "hand_start_ties_unsorted")
    run.write_trace(os.path.join(case.dir, "trace.csv"), order=order)
    case.write("bench.log", run.log_text(5))
    case.plain(5, 12.5)
    case.config(LLAMA)
    case.finish()

    # Straddling dispatches, dispatches exactly at lo and hi, one running past hi.
    run = Run(seed=4)
    run.run(moe(run), 5)
    lo = run.marks["decode_start"][1]
    hi = run.marks["measured_end"][1]
    run.rows.append([K["fill"], lo - 500, lo + 700, (1, 1, 1)])  # straddles
    run.rows.append([K["copybuf"], lo - 900, lo + 100, (1, 1, 1)])  # straddles
    run.rows.append([K["cast"], lo - 300, lo, (1, 1, 1)])  # ends exactly at lo: before
    run.rows.append([K["mul"], lo, lo + 200, (1, 1, 1)])  # starts at lo: inside
    run.rows.append([K["exp"], hi, hi + 5_000, (1, 1, 1)])  # starts at hi: inside, past hi
    run.rows.append([K["exp"], hi + 1, hi + 10, (1, 1, 1)])  # after the window
    run.rows.sort(key=lambda r: r[1])
    case = Case(root, "hand_straddle_and_edges")
    run.write_trace(os.path.join(case.dir, "trace.csv"))
    case.write("bench.log", run.log_text(5))
    case.plain(5, 9.0)
    case.config(QWEN3)
    case.args += ["--temperature", "0"]
    case.finish()

    # Names with commas, quotes, non-ASCII; a >120-character last dispatch before decode.
    run = Run(seed=5)
    run.run(dense(run), 4)
    lo = run.marks["decode_start"][1]
    odd = [
        'void mlx::core::rocm::copy_v<float, "quoted", x>(float const*, float*)',
        'kernel with ""two"" quotes, and a comma',
        "naïve_kernel_é_ü<float, 2>(float const*)",
        "emoji_kernel_\U0001F600<int>(int*)",
        "tab\tkernel, with tab",
    ]
    extra = []
    for i, name in enumerate(odd):
        s = lo + 1_000 + 900 * i
        extra.append([name, s, s + 300, (1, 1, 1)])
    long_name = ("void mlx::core::rocm::ünïcödé_" + "é" * 60 + "_kernel<float, " +
                 "int, " * 20 + ">(float const*, float*)")
    before = max(r[2] for r in run.rows if r[2] <= lo)
    run.rows.append([long_name, before + 10, before + 20, (1, 1, 1)])
    run.rows.extend(extra)
    run.rows.sort(key=lambda r: r[1])
    case = Case(root, "hand_names_commas_quotes_unicode")
    run.write_trace(os.path.join(case.dir, "trace.csv"))
    case.write("bench.log", run.log_text(4))
    case.plain(4, 7.0)
    case.config(LLAMA)
    case.finish()

    # Zero generated tokens, and no "Generated tokens" line at all.
    run, case = standard(root, "hand_zero_tokens", dense, seed=6)
    case.write("bench.log", run.log_text(6).replace("Generated tokens: 6",
                                                    "Generated tokens: 0"))
    case.finish()
    run, case = standard(root, "hand_no_generated_line", moe, cfg=QWEN3, seed=6,
                         generated=False, sampler="sampled", temperature="0.7")
    case.finish()

    # No plain log; config without model_type; model dir without config.json; no model dir.
    standard(root, "hand_no_plain_log", hybrid, cfg=GRANITE, plain=False)[1].finish()
    standard(root, "hand_config_without_model_type", moe,
             cfg={"architectures": ["X"], "rope_scaling": {"rope_type": "llama3"}})[1].finish()
    run, case = standard(root, "hand_model_dir_without_config", dense, cfg=False)
    os.makedirs(os.path.join(case.dir, "empty_model"), exist_ok=True)
    case.args += ["--model-dir", "empty_model"]
    case.finish()
    standard(root, "hand_no_model_dir", nemotron, cfg=False, sampler="topp",
             temperature="0.7")[1].finish()

    # Clock choice: boottime marks `na`, so monotonic is chosen.
    run = Run(seed=8, mono_offset=0)
    run.run(dense(run), 5)
    case = Case(root, "hand_monotonic_only")
    # Trace stamps on monotonic: shift the marks' boottime copy far away and print it as na.
    run.write_trace(os.path.join(case.dir, "trace.csv"))
    case.write("bench.log", run.log_text(5, clocks=("monotonic",)))
    case.plain(5, 10.0)
    case.config(LLAMA)
    case.finish()
    # Clock choice: the boottime marks bracket nothing, the monotonic ones bracket the run.
    run = Run(seed=9, mono_offset=-10**12)
    run.run(moe(run), 5)
    case = Case(root, "hand_boottime_brackets_nothing")
    run.write_trace(os.path.join(case.dir, "trace.csv"))
    log = run.log_text(5)
    # The trace is on the monotonic clock: swap the two clock values on every mark line.
    swapped = []
    for line in log.splitlines():
        if line.startswith("[phase]"):
            parts = line.split()
            mono = parts[2].split("=")[1]
            boot = parts[3].split("=")[1]
            line = f"{parts[0]} {parts[1]} monotonic_ns={boot} boottime_ns={mono}"
        swapped.append(line)
    case.write("bench.log", "\n".join(swapped) + "\n")
    case.plain(5, 10.0)
    case.config(QWEN3)
    case.finish()

    # A rerun attempt in the log: two result blocks and two mark sets; the last wins, and a
    # later mark replaces the label's whole clock set (here: boottime becomes na).
    run = Run(seed=10)
    run.run(hybrid(run), 5)
    case = Case(root, "hand_rerun_log_last_wins")
    run.write_trace(os.path.join(case.dir, "trace.csv"))
    first = run.log_text(7, prompt_tokens=100)
    second = run.log_text(5, clocks=("monotonic",))
    case.write("bench.log", first + "rocm_gpu_guard: attempt 1: REJECTED\n" + second)
    case.plain(5, 11.0)
    case.config(NEMOTRON)
    case.args += ["--temperature", "0.0"]
    case.finish()

    # The spec's WindowTests case (section 3): 5 rows, monotonic marks contain nothing.
    case = Case(root, "hand_seed_window_test")
    rows = [("warm_kernel", 100_000, 120_000), ("prefill_kernel", 450_000, 500_000),
            ("decode_kernel_a", 610_000, 635_000), ("decode_kernel_b", 735_000, 760_000),
            ("after_kernel", 900_000, 950_000)]
    with open(os.path.join(case.dir, "trace.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["Kernel_Name", "Start_Timestamp", "End_Timestamp"])
        w.writerows(rows)
    marks = [("warmup_start", 1, 90_000), ("measured_start", 2, 400_000),
             ("decode_start", 3, 600_000), ("measured_end", 4, 800_000)]
    log = [f"[phase] {label} monotonic_ns={m} boottime_ns={b}" for label, m, b in marks]
    log += ["  Generated tokens: 2", "  Decode:           0.20 ms (10000.00 tok/s)"]
    case.write("bench.log", "\n".join(log) + "\n")
    case.write("plain.log", "  Decode:           0.25 ms (8000.00 tok/s)\n")
    case.args += ["--plain-log", "plain.log"]
    case.finish()

    # Python rounding ties: avg_ns half-to-even, 0.0625 -> "0.062", calls_per_token ties.
    case = Case(root, "hand_rounding_ties")
    lo, t = 1_000_000, 1_000_000
    rows = [("before_kernel", lo - 1_000, lo - 250)]
    durs = [("tie_a_kernel", [1]), ("tie_b_kernel", [2, 3]), ("tie_c_kernel", [3, 4]),
            ("big_kernel", [1600 - 1 - 5 - 7 - 2]), ("small_kernel", [1, 1])]  # sum 1600
    for name, ds in durs:
        for d in ds:
            rows.append((name, t, t + d))
            t += d + 100
    hi = t + 1_000
    with open(os.path.join(case.dir, "trace.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["Kernel_Name", "Start_Timestamp", "End_Timestamp", "Grid_Size_X"])
        w.writerows([(n, s, e, 1) for n, s, e in rows])
    marks = [("warmup_start", lo - 5_000), ("measured_start", lo - 2_000),
             ("decode_start", lo), ("measured_end", hi)]
    log = [f"[phase] {label} monotonic_ns=na boottime_ns={b}" for label, b in marks]
    log += ["  Generated tokens: 8", "  Decode:           0.01 ms (800000.00 tok/s)"]
    case.write("bench.log", "\n".join(log) + "\n")
    case.write("plain.log", "  Decode:           0.01 ms (640000.00 tok/s)\n")
    case.args += ["--plain-log", "plain.log"]
    case.finish()

    # Class coverage: one dispatch per tricky name inside a small decode window.
    names = [
        "gather_qmm_kernel", "QMV_gather_something", "segmented_mm_kernel", "sorted_rhs_kernel",
        "affine_qmv_fast", "fooqmvbar", "xqvm_kernel", "qmm_n_kernel", "Cijk_Ailk_Bljk_HHS",
        "rocblas_gemv_kernel", "hipblaslt_matmul", "wmma_matmul_f16", "LayerNorm_kernel",
        "RoPE_kernel", "flash_fwd_kernel", "paged_attention_v1_kernel", "logsumexp_kernel",
        "argmin_kernel", "cumsum_kernel", "radix_partition_kernel", "philox_kernel",
        "threefry_kernel", "row_reduce_small", "all_reduce", "scatter_kernel",
        "take_kernel", "slice_update_kernel", "masked_scatter", "fill_kernel",
        "ternary_v_kernel", "select_kernel", "where_kernel", "unary_g_kernel",
        "affine_dequantize_packed_kernel", "paged_copy_kernel",
        P + "CV2ISigmoidMultiply_contiguous<float>(float*)",
        P + "CV2ISigmoidMultiply_a_contiguous<float>(float*)",
        P + "BV2Tanh_x_strided<float>(float*)",
        "void mlx::core::rocm::cv2lower_x_contiguous<float>(float*)",
        "mlx::core::rocm::Abc_def_contiguous_thing<int>", "totally_unknown_kernel",
        "arange_kernel<unsigned int>(unsigned int*)", "Divide_kernel",
    ]
    case = Case(root, "hand_class_coverage")
    lo = 5_000_000
    rows = [("warm", lo - 10_000, lo - 9_000)]
    t = lo + 500
    rng = random.Random(11)
    for rep in range(2):
        for name in names:
            d = rng.randint(100, 3_000)
            rows.append((name, t, t + d, rng.randint(1, 9)))
            t += d + rng.randint(0, 700)
    hi = t + 50
    with open(os.path.join(case.dir, "trace.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["Kernel_Name", "Start_Timestamp", "End_Timestamp", "Grid_Size_X"])
        w.writerow(rows[0] + (1,))
        w.writerows(rows[1:])
    marks = [("warmup_start", lo - 20_000), ("measured_start", lo - 15_000),
             ("decode_start", lo), ("measured_end", hi)]
    log = [f"[phase] {label} monotonic_ns={b - 7} boottime_ns={b}" for label, b in marks]
    log += ["  Generated tokens: 3", "  Decode:           0.20 ms (15000.00 tok/s)"]
    case.write("bench.log", "\n".join(log) + "\n")
    case.config({"model_type": "qwen3_moe"})
    case.args += ["--temperature", "0.5"]
    case.finish()

    # Errors both sides must report: no marks; no dispatch in the decode window; missing
    # required column.
    run, case = standard(root, "err_log_without_marks", dense, marks=False)
    case.expect = "fail"
    case.finish()
    run = Run(seed=12)
    run.run(dense(run), 3)
    lo = run.marks["decode_start"][1]
    hi = run.marks["measured_end"][1]
    run.rows = [r for r in run.rows if not lo <= r[1] <= hi]
    case = Case(root, "err_empty_decode_window")
    run.write_trace(os.path.join(case.dir, "trace.csv"))
    case.write("bench.log", run.log_text(3))
    case.expect = "fail"
    case.finish()
    run = Run(seed=13)
    run.run(dense(run), 3)
    case = Case(root, "err_no_decode_start_mark")
    run.write_trace(os.path.join(case.dir, "trace.csv"))
    case.write("bench.log", "".join(line + "\n" for line in run.log_text(3).splitlines()
                                    if "decode_start" not in line))
    case.expect = "fail"
    case.finish()
    case = Case(root, "err_missing_end_column")
    case.write("trace.csv", "Kernel_Name,Start_Timestamp,Stop\nk,1,2\n")
    case.write("bench.log", "[phase] warmup_start monotonic_ns=0 boottime_ns=0\n")
    case.expect = "fail"
    case.finish()


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: make_edge_cases.py OUT_DIR")
    make_all(argv[1])


if __name__ == "__main__":
    main(sys.argv)
