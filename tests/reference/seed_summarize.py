#!/usr/bin/env python3
"""Reference re-implementation of the seed harness's `rocm_decode_profile.py summarize`.

Written from shared/spec/seed-harness.md sections 2.2-2.14 alone (not from decodeprof's
sources or packs), so that it can serve as an independent oracle for `decodeprof summarize`:
the same command line, the same two output files (`<name>_summary.json`,
`<name>_decode_kernels.csv`) and the same one-line stdout summary. Standard library only.

Usage:
  seed_summarize.py summarize --trace T --log L [--plain-log P] [--model-dir D]
                              --name N --out-dir O [--temperature T]

Where the spec does not give a text verbatim (a few reach notes and the port descriptions),
the text used here is this script's best reading; those strings are listed in
UNSPECIFIED_TEXTS so that a comparison can tell them apart from specified values.
Errors exit with status 1 and a message on stderr (the seed's wording where the spec gives it).
"""

import argparse
import collections
import csv
import functools
import json
import os
import re
import sys

# ---------------------------------------------------------------------------------------
# Kernel classes (spec 2.6): ordered, first match wins, regex search anywhere in the name,
# case-insensitive except `compiled`.
_I = re.IGNORECASE
CLASSES = [
    ("gather_qmv", re.compile(r"gather.*(?:qmv|qmm)|(?:qmv|qmm).*gather", _I)),
    ("gather_mm", re.compile(r"gather_mm|segmented|sorted_rhs", _I)),
    ("qmv", re.compile(r"\bqmv|qmv_|_qmv|qvm", _I)),
    ("qmm", re.compile(r"\bqmm|qmm_|_qmm", _I)),
    ("gemm", re.compile(r"Cijk_|gemm|gemv|rocblas|hipblaslt|wmma_matmul", _I)),
    ("rms_norm", re.compile(r"rms_norm|rmsnorm", _I)),
    ("layer_norm", re.compile(r"layer_norm|layernorm", _I)),
    ("rope", re.compile(r"rope", _I)),
    ("sdpa", re.compile(r"sdpa|attention|flash", _I)),
    ("softmax", re.compile(r"softmax", _I)),
    ("logsumexp", re.compile(r"logsumexp", _I)),
    ("arg_reduce", re.compile(r"arg_reduce|argreduce|argmax|argmin", _I)),
    ("scan", re.compile(r"scan|cumsum", _I)),
    ("sort", re.compile(r"sort|partition", _I)),
    ("random", re.compile(r"rbits|random|philox|threefry", _I)),
    ("conv", re.compile(r"conv", _I)),
    ("reduce", re.compile(r"reduce", _I)),
    ("gather_scatter", re.compile(r"gather|scatter|take|slice_update|masked", _I)),
    ("copy", re.compile(r"copy|fill|arange", _I)),
    ("binary", re.compile(r"binary", _I)),
    ("ternary", re.compile(r"ternary|select|where", _I)),
    ("unary", re.compile(r"unary", _I)),
    ("dequantize", re.compile(r"dequantize", _I)),
    ("compiled",
     re.compile(r"rocm::[A-Z][A-Za-z0-9]+_[A-Za-z0-9_]*_(?:contiguous|strided)<")),
]


# Cached per name: a decode run has tens of distinct names among tens of thousands of
# dispatches, and 24 searches a dispatch were most of a large run's time.
@functools.lru_cache(maxsize=None)
def classify(name):
    for cls, pattern in CLASSES:
        if pattern.search(name):
            return cls
    return "other"


# ---------------------------------------------------------------------------------------
# Port units (spec 2.8), in #1814's order.
UNIT_PORTS = {
    "2063": "fused_add_rms_norm + fused_rope_qk_append (#1814 item 3)",
    "2064": "samplers (gumbel_max_sample, rejection_sample) (item 4)",
    "2065": "fused MoE decode (moe_gateup, moe_down) (item 5)",
    "2067": "SSM update (ssm_update_kernel) (item 7)",
    "2068": "paged attention (v1, v2, merge) (item 8)",
}
UNIT_ROLES = {
    "2063": ("add_rms_join_post_attn", "rope_append"),
    "2064": ("sampler_tail",),
    "2065": ("moe_expert_gemv", "moe_activation", "moe_weighted_sum", "moe_gather_indices"),
    "2067": ("ssm_step",),
    "2068": ("paged_attention",),
}
MOE_CALLERS = ("qwen3_moe", "qwen3_next", "mixtral", "dbrx", "cohere2_moe", "klear", "afmoe",
               "lfm2", "bailing_moe")
MAMBA2_MODELS = ("granitemoehybrid", "nemotron_h", "falcon_h1", "plamo2")

# Texts the spec describes but does not quote verbatim (this script's best reading).
NOTE_2063_LLAMA = "both paths are on by default in a rocm build"
NOTE_2063_ROPE_TABLE = "; rope_scaling builds a frequency table, which the RoPE kernel cannot take"
NOTE_2065_CALLER = "forward_fused_kernel caller"
NOTE_2065_NEMOTRON = ("nemotron_h defaults to gather_qmm; MLXCEL_FUSED_MOE_RELU2 / "
                      "moe_fc1_relu2 (#2069)")
NOTE_2067_NONE = "no Mamba2 layer"
UNSPECIFIED_TEXTS = set(UNIT_PORTS.values()) | {
    NOTE_2063_LLAMA, NOTE_2063_LLAMA + NOTE_2063_ROPE_TABLE, NOTE_2065_CALLER,
    NOTE_2065_NEMOTRON, NOTE_2067_NONE}


def reach(unit, config, sampled):
    """Returns (roles reached with shipped defaults, roles reached with opt-ins, note)."""
    mt = config.get("model_type") or ""
    scaling = config.get("rope_scaling") or {}
    rope_type = scaling.get("rope_type") or scaling.get("type")
    rope_table = rope_type in ("llama3", "yarn")
    if unit == "2063":
        if mt != "llama":
            return ((), (), f"{mt} never calls fused_add_rms_norm or forward_fused_rope_append")
        reachable = ("add_rms_join_post_attn",) + (() if rope_table else ("rope_append",))
        note = NOTE_2063_LLAMA + (NOTE_2063_ROPE_TABLE if rope_table else "")
        return (reachable, reachable, note)
    if unit == "2064":
        if sampled:
            return (("sampler_tail",), ("sampler_tail",),
                    "sampled run: the draw is the fallback chain")
        return ((), (), "greedy argmax dispatches neither sampler kernel")
    if unit == "2065":
        roles = UNIT_ROLES["2065"]
        if mt in MOE_CALLERS:
            return (roles, roles, NOTE_2065_CALLER)
        if mt == "nemotron_h":
            return ((), (), NOTE_2065_NEMOTRON)
        return ((), (), f"{mt} does not call forward_fused_kernel")
    if unit == "2067":
        if mt in MAMBA2_MODELS:
            return (("ssm_step",), ("ssm_step",), "ssm_kernel_available() gates the decode step")
        return ((), (), NOTE_2067_NONE)
    if unit == "2068":
        return ((), (), "the bench decodes into a dense KVCache; the paged path is not taken")
    raise ValueError(f"unknown unit {unit}")


# ---------------------------------------------------------------------------------------
# Inputs.
class Dispatch:
    __slots__ = ("name", "start", "end", "grid")

    def __init__(self, name, start, end, grid):
        self.name = name
        self.start = start
        self.end = end
        self.grid = grid


def _first_present(fieldnames, names):
    for n in names:
        if n in fieldnames:
            return n
    sys.exit(f"kernel trace has none of the columns ({', '.join(names)}); "
             f"header: [{', '.join(fieldnames)}]")


def read_trace(path):
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        fields = reader.fieldnames or []
        name_col = _first_present(fields, ("Kernel_Name", "KernelName"))
        start_col = _first_present(fields, ("Start_Timestamp", "BeginNs"))
        end_col = _first_present(fields, ("End_Timestamp", "EndNs"))
        grid_cols = [c for c in ("Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z") if c in fields]
        out = []
        for row in reader:
            if grid_cols:
                grid = 1
                for c in grid_cols:
                    grid *= max(int(row[c] or 1), 1)
            else:
                grid = 0
            out.append(Dispatch(row[name_col], int(row[start_col]), int(row[end_col]), grid))
    out.sort(key=lambda d: d.start)  # stable: equal starts keep file order
    return out


PHASE_RE = re.compile(r"^\[phase\] (\w+) monotonic_ns=(\d+|na) boottime_ns=(\d+|na)")
DECODE_RE = re.compile(r"^\s*Decode:\s+([0-9.]+) ms \(([0-9.]+) tok/s\)")
PREFILL_RE = re.compile(r"^\s*Prefill:\s+([0-9.]+) ms \(([0-9.]+) tok/s\)")
GENERATED_RE = re.compile(r"^\s*Generated tokens:\s+(\d+)")
PROMPT_RE = re.compile(r"^\s*Prompt tokens:\s+(\d+)")


def parse_log(path):
    """Phase marks and the results block; later matches overwrite earlier ones."""
    info = {"marks": {}, "decode_tok_s": None, "prefill_tok_s": None,
            "generated_tokens": None, "prompt_tokens": None}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = PHASE_RE.match(line)
            if m:
                clocks = {}
                for clock, value in (("monotonic", m.group(2)), ("boottime", m.group(3))):
                    if value != "na":
                        clocks[clock] = int(value)
                info["marks"][m.group(1)] = clocks
                continue
            m = DECODE_RE.match(line)
            if m:
                info["decode_tok_s"] = float(m.group(2))
                continue
            m = PREFILL_RE.match(line)
            if m:
                info["prefill_tok_s"] = float(m.group(2))
                continue
            m = GENERATED_RE.match(line)
            if m:
                info["generated_tokens"] = int(m.group(1))
                continue
            m = PROMPT_RE.match(line)
            if m:
                info["prompt_tokens"] = int(m.group(1))
    return info


def read_config(model_dir):
    if not model_dir:
        return {}
    path = os.path.join(model_dir, "config.json")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


# ---------------------------------------------------------------------------------------
# Window (spec 2.4).
def pick_clock(dispatches, marks):
    best, best_count = None, 0
    for clock in ("boottime", "monotonic"):
        ws = marks.get("warmup_start", {}).get(clock)
        me = marks.get("measured_end", {}).get(clock)
        if ws is None or me is None:
            continue
        count = sum(1 for d in dispatches if ws <= d.start <= me)
        if best is None or count > best_count:
            best, best_count = clock, count
    if best is None or best_count <= 0:
        sys.exit("no dispatch lies between the warmup_start and measured_end marks on either "
                 "clock; was MLXCEL_BENCH_PHASE_MARKS=1 set?")
    return best


def busy_ns(decode, lo, hi):
    busy = 0
    cur_s = cur_e = None
    for d in decode:
        s, e = max(d.start, lo), min(d.end, hi)
        if e <= s:
            continue
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                busy += cur_e - cur_s
            cur_s, cur_e = s, e
        elif e > cur_e:
            cur_e = e
    if cur_e is not None:
        busy += cur_e - cur_s
    return busy


# ---------------------------------------------------------------------------------------
# Roles (spec 2.7, 2.14).
def is_add(name, cls):
    return cls == "binary" and "::Add," in name


def assign_roles(decode, classes):
    n = len(decode)
    names = [d.name for d in decode]
    c = classes
    role = [None] * n

    # 1. Sampler tail.
    qmv_idx = [i for i in range(n) if c[i] == "qmv"]
    if qmv_idx:
        head = max(decode[i].grid for i in qmv_idx)
        stop = {"qmv", "rms_norm", "dequantize", "gather_qmv", "sdpa", "gemm"}
        for i in qmv_idx:
            if decode[i].grid != head:
                continue
            j = i + 1
            while j < n and c[j] not in stop and "gather_rows" not in names[j]:
                role[j] = "sampler_tail"
                j += 1

    # 2. Mamba2 mixer.
    proj = ("qmv", "gather_qmv")
    for i in range(n):
        if c[i] != "conv" or role[i] is not None:
            continue
        lo = i
        while lo > 0 and c[lo - 1] not in proj:
            lo -= 1
        hi = i
        while hi < n - 1 and c[hi + 1] not in proj:
            hi += 1
        norm_at = None
        for k in range(lo, hi + 1):
            if c[k] == "rms_norm":
                norm_at = k
        for k in range(lo, hi + 1):
            if norm_at is not None and k >= norm_at:
                role[k] = "ssm_gated_norm"
            elif c[k] == "conv" or "copy_gg" in names[k]:
                role[k] = "ssm_conv"
            elif c[k] == "compiled" and "Sigmoid" in names[k]:
                role[k] = "ssm_silu"
            else:
                role[k] = "ssm_step"

    # 3. MoE.
    gq = [i for i in range(n) if c[i] == "gather_qmv"]
    clusters = []
    for i in gq:
        if clusters and i - clusters[-1][-1] <= 12:
            clusters[-1].append(i)
        else:
            clusters.append([i])
    for members in clusters:
        for i in members:
            role[i] = "moe_expert_gemv"
        first, last = members[0], members[-1]
        for k in range(first + 1, last):
            if (role[k] is None and c[k] in ("compiled", "binary", "copy", "unary")
                    and "::Divide," not in names[k]):
                role[k] = "moe_activation"
        k = last + 1
        while (k < n and role[k] is None and not is_add(names[k], c[k])
               and c[k] in ("binary", "copy", "reduce", "unary")):
            role[k] = "moe_weighted_sum"
            k += 1
    if gq:
        for k in range(n):
            if role[k] is None and "arange_kernel<unsigned int>" in names[k]:
                role[k] = "moe_gather_indices"

    # 4. RoPE + cache append.
    for i in range(n):
        if c[i] == "rope" and role[i] is None:
            role[i] = "rope_append"
            j = i + 1
            while j < n and role[j] is None and "copy_gg" in names[j]:
                role[j] = "rope_append"
                j += 1

    # 5. Residual add + RMSNorm.
    for i in range(n - 1):
        if (role[i] is None and role[i + 1] is None and is_add(names[i], c[i])
                and c[i + 1] == "rms_norm"):
            if i >= 2 and c[i - 1] == "qmv" and c[i - 2] == "sdpa":
                label = "add_rms_join_post_attn"
            else:
                label = "add_rms_join"
            role[i] = role[i + 1] = label

    # 6. Paged attention.
    for i in range(n):
        if role[i] is None and "paged" in names[i].lower():
            role[i] = "paged_attention"
    return role


# ---------------------------------------------------------------------------------------
# Gap attribution and ceilings (spec 2.9).
def attribute_gaps(decode, roles, lo, hi):
    if len(decode) != len(roles):
        raise ValueError(f"{len(decode)} dispatches but {len(roles)} roles")
    gaps = {}
    frontier = lo
    for d, r in zip(decode, roles):
        key = r if r is not None else "unattributed"
        gaps[key] = gaps.get(key, 0) + max(0, min(d.start, hi) - frontier)
        frontier = max(frontier, min(d.end, hi))
    gaps["tail"] = gaps.get("tail", 0) + max(0, hi - frontier)
    return gaps


def ceiling(f):
    if f is None or f >= 1:
        return None
    return round(1 / (1 - max(f, 0)), 2)


def gap_scale(plain_gap, traced_gap):
    if plain_gap is None or traced_gap is None:
        return None
    if traced_gap <= 0:
        return 0.0
    return max(plain_gap, 0) / traced_gap


def wall_fields(prefix, roles, role_ns, role_gap_ns, role_calls, gpu_sum, wall, tokens, scale,
                plain_wall_ms_per_token):
    kernel = sum(role_ns.get(r, 0) for r in roles)
    gap = sum(role_gap_ns.get(r, 0) for r in roles)
    calls = sum(role_calls.get(r, 0) for r in roles)
    wall_frac = (kernel + gap) / wall if wall > 0 else None
    plain_frac = None
    if scale is not None and plain_wall_ms_per_token and tokens:
        plain_frac = ((kernel + gap * scale) / 1e6 / tokens) / plain_wall_ms_per_token
    cprefix = "" if prefix == "fallback" else prefix + "_"
    return {
        f"{prefix}_host_gap_ms_per_token": round(gap / 1e6 / tokens, 4) if tokens else None,
        f"{prefix}_host_gap_us_per_dispatch": round(gap / 1e3 / calls, 2) if calls else 0.0,
        f"{prefix}_wall_share_pct": round(100 * wall_frac, 2) if wall_frac is not None else None,
        f"{cprefix}ceiling_gpu_share": ceiling(kernel / gpu_sum) if gpu_sum > 0 else None,
        f"{cprefix}ceiling_wall": ceiling(wall_frac),
        f"{cprefix}plain_ceiling_wall_est": ceiling(plain_frac),
    }


# ---------------------------------------------------------------------------------------
def summarize(args):
    dispatches = read_trace(args.trace)
    prof = parse_log(args.log)
    plain = parse_log(args.plain_log) if args.plain_log else None
    config = read_config(args.model_dir)
    marks = prof["marks"]

    clock = pick_clock(dispatches, marks)
    if clock not in marks.get("decode_start", {}):
        sys.exit(f"the log has no decode_start mark on the {clock} clock")
    lo = marks["decode_start"][clock]
    hi = marks["measured_end"][clock]
    decode = [d for d in dispatches if lo <= d.start <= hi]
    if not decode:
        sys.exit("no dispatch inside the decode window")

    straddling = sum(1 for d in dispatches if d.start < lo < d.end)
    before = [d for d in dispatches if d.end <= lo]
    if before:
        last = before[-1]
        idle_gap_us = round((decode[0].start - last.end) / 1e3, 1)
        last_name = last.name[:120]
    else:
        idle_gap_us = None
        last_name = None

    generated = prof["generated_tokens"]
    tokens = generated or 0
    gpu_sum = sum(d.end - d.start for d in decode)
    busy = busy_ns(decode, lo, hi)
    wall = hi - lo
    if wall == 0:
        sys.exit("the decode window is empty (decode_start == measured_end)")
    if gpu_sum == 0:
        sys.exit("the decode dispatches have zero total duration")

    def per_token(value, digits):
        return round(value / tokens, digits) if tokens else None

    def share(ns):
        return round(100 * ns / gpu_sum, 2)

    classes = [classify(d.name) for d in decode]
    roles = assign_roles(decode, classes)

    kernels = {}  # name -> [calls, ns, {role or "": ns}]
    role_ns = collections.defaultdict(int)
    role_calls = collections.defaultdict(int)
    class_ns = {}
    for d, cls, r in zip(decode, classes, roles):
        dur = d.end - d.start
        k = kernels.setdefault(d.name, [0, 0, {}, cls])
        k[0] += 1
        k[1] += dur
        k[2][r or ""] = k[2].get(r or "", 0) + dur
        key = r if r is not None else "unattributed"
        role_ns[key] += dur
        role_calls[key] += 1
        class_ns[cls] = class_ns.get(cls, 0) + dur

    gaps = attribute_gaps(decode, roles, lo, hi)
    residual = sum(gaps.values()) - (wall - busy)

    prof_tok_s = prof["decode_tok_s"]
    plain_tok_s = plain["decode_tok_s"] if plain else None
    plain_prefill = plain["prefill_tok_s"] if plain else None
    slowdown = None
    if plain_tok_s and prof_tok_s:
        slowdown = round(100 * (plain_tok_s / prof_tok_s - 1), 2)
    plain_wall = round(1000 / plain_tok_s, 4) if plain_tok_s else None
    plain_gap_est = None
    if plain_tok_s and tokens:
        plain_gap_est = round(1000 / plain_tok_s - busy / 1e6 / tokens, 4)
    host_gap = round((wall - busy) / 1e6 / tokens, 4) if tokens else None
    scale = gap_scale(plain_gap_est, host_gap)

    sampled = args.temperature > 0
    port_units = {}
    for unit, fallback in UNIT_ROLES.items():
        default, optin, note = reach(unit, config, sampled)
        fb_ns = sum(role_ns[r] for r in fallback)  # default-dict: inserts missing roles
        fb_calls = sum(role_calls[r] for r in fallback)
        entry = {
            "port": UNIT_PORTS[unit],
            "fallback_share_pct": share(fb_ns),
            "fallback_dispatches_per_token": per_token(fb_calls, 1),
            "reached_default_share_pct": share(sum(role_ns[r] for r in default)),
            "reached_default_dispatches_per_token": per_token(
                sum(role_calls[r] for r in default), 1),
            "reached_optin_share_pct": share(sum(role_ns[r] for r in optin)),
        }
        entry.update(wall_fields("fallback", fallback, role_ns, gaps, role_calls, gpu_sum, wall,
                                 tokens, scale, plain_wall))
        entry.update(wall_fields("reached_default", default, role_ns, gaps, role_calls, gpu_sum,
                                 wall, tokens, scale, plain_wall))
        entry["note"] = note
        port_units[unit] = entry

    def desc(d):
        return sorted(d.items(), key=lambda kv: kv[1], reverse=True)

    rows = sorted(kernels.items(), key=lambda kv: kv[1][1], reverse=True)
    top = [{"kernel": name, "class": k[3], "calls_per_token": per_token(k[0], 2),
            "share_pct": share(k[1])} for name, k in rows[:10]]

    summary = {
        "name": args.name,
        "model_type": config.get("model_type"),
        "temperature": args.temperature,
        "clock": clock,
        "prompt_tokens": prof["prompt_tokens"],
        "generated_tokens": generated,
        "profiled_decode_tok_s": prof_tok_s,
        "profiled_prefill_tok_s": prof["prefill_tok_s"],
        "plain_decode_tok_s": plain_tok_s,
        "plain_prefill_tok_s": plain_prefill,
        "profiler_decode_slowdown_pct": slowdown,
        "decode_dispatches": len(decode),
        "dispatches_per_token": per_token(len(decode), 1),
        "decode_wall_ms": round(wall / 1e6, 3),
        "decode_gpu_sum_ms": round(gpu_sum / 1e6, 3),
        "decode_gpu_busy_ms": round(busy / 1e6, 3),
        "gpu_ms_per_token": round(busy / 1e6 / tokens, 4) if tokens else None,
        "host_gap_ms_per_token": host_gap,
        "host_gap_pct_of_wall": round(100 * (wall - busy) / wall, 2),
        "plain_wall_ms_per_token": plain_wall,
        "plain_host_gap_ms_per_token_est": plain_gap_est,
        "checks": {
            "kernels_straddling_decode_start": straddling,
            "host_gap_attribution_residual_ns": residual,
            "idle_gap_before_first_decode_dispatch_us": idle_gap_us,
            "last_dispatch_before_decode": last_name,
        },
        "top_kernels": top,
        "class_share_pct": {k: share(v) for k, v in desc(class_ns)},
        "role_share_pct": {k: share(v) for k, v in desc(role_ns)},
        "role_dispatches_per_token": {k: per_token(v, 1) for k, v in role_calls.items()},
        "role_host_gap_ms_per_token": {k: round(v / 1e6 / tokens, 4) if tokens else None
                                       for k, v in desc(gaps)},
        "port_units": port_units,
    }

    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, f"{args.name}_decode_kernels.csv"), "w", newline="",
              encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["kernel", "class", "roles", "port_units", "calls", "calls_per_token",
                    "total_ns", "avg_ns", "share_pct"])
        for name, (calls, ns, by_role, cls) in rows:
            kroles = sorted(r for r in by_role if r)
            units = sorted(u for u, fb in UNIT_ROLES.items() if any(r in fb for r in kroles))
            w.writerow([name, cls, ";".join(kroles), ";".join(units), calls,
                        round(calls / tokens, 2) if tokens else "", ns, round(ns / calls),
                        f"{100 * ns / gpu_sum:.3f}"])
    with open(os.path.join(args.out_dir, f"{args.name}_summary.json"), "w",
              encoding="utf-8") as f:
        f.write(json.dumps(summary, indent=2) + "\n")
    print(f"{args.name}: {len(decode)} decode dispatches, {summary['gpu_ms_per_token']} GPU "
          f"ms/token, {host_gap} host gap ms/token")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="seed_summarize.py")
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("summarize")
    s.add_argument("--trace", required=True)
    s.add_argument("--log", required=True)
    s.add_argument("--plain-log")
    s.add_argument("--model-dir")
    s.add_argument("--name", required=True)
    s.add_argument("--out-dir", required=True)
    s.add_argument("--temperature", type=float, default=0.0)
    args = parser.parse_args(argv)
    summarize(args)


if __name__ == "__main__":
    main()
