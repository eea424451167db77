#!/usr/bin/env python3
"""Grounds seed_summarize.py in the seed's own unit tests as the spec lists them (section 3:
RoleTests, WindowTests, GapTests) and in the worked examples of sections 2.5 and 2.9.

Run: python3 tests/reference/seed_summarize_test.py
"""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seed_summarize as ss  # noqa: E402

P = "void mlx::core::rocm::"
NAMES = {
    "embed": P + "gather_rows_kernel<__half, unsigned int>(__half const*)",
    "rms": P + "rms_norm_kernel<__half, 256, 4>(__half const*)",
    "qmv": P + "qmv_wide_kernel<__half, 64, 4, false>(__half const*)",
    "rope": P + "rope_single_freqs_1d<__half, false>(__half const*)",
    "kv": P + "copy_gg_byval<__half, __half, long, 4>(__half const*)",
    "sdpa": P + "kernel_sdpav_1pass<__half, true, 128>(__half const*)",
    "add": P + "binary_vv<mlx::core::rocm::Add, __half, __half, unsigned int, 8>(__half const*)",
    "mul": P + "binary_g<mlx::core::rocm::Multiply, float, float, long, 4>(float const*)",
    "div": P + "binary_vs<mlx::core::rocm::Divide, float, float, unsigned int, 4>(float const*)",
    "swiglu": P + "CV2ISigmoidMultiplyMultiply_73118_contiguous<unsigned int, 4>(__half const*)",
    "silu": P + "BV2ISigmoidMultiply_99128_contiguous<unsigned int, 4>(float const*)",
    "cast": P + "copy_v<__half, float, unsigned int, 8>(__half const*)",
    "argmax": P + "arg_reduce_final<float, mlx::core::rocm::ArgMax<float>, 256, 4>(float*)",
    "softmax": P + "softmax_kernel<__half, float, 256, 4>(__half const*)",
    "sort": P + "block_sort_kernel<float, unsigned int, 256, 8>(float const*)",
    "arange": P + "arange_kernel<unsigned int>(unsigned int*)",
    "gqmv": P + "gather_qmv_wide_kernel<__half, 64, 4>(__half const*)",
    "colsum": P + "col_reduce_looped<float, mlx::core::rocm::Sum, 256>(float const*)",
    "conv": P + "depthwise_conv1d_kernel<__half, 4>(__half const*)",
    "exp": P + "unary_v<mlx::core::rocm::Exp, float, float, unsigned int, 4>(float const*)",
    "scan": P + "contiguous_scan<float, mlx::core::rocm::Sum, true, false, 4>(float const*)",
}


def roles_of(seq):
    """seq: list of (key, grid); each dispatch 10 ns long, 20 ns apart (as in the seed)."""
    decode = [ss.Dispatch(NAMES[key], 20 * i, 20 * i + 10, grid)
              for i, (key, grid) in enumerate(seq)]
    return ss.assign_roles(decode, [ss.classify(d.name) for d in decode])


class RoleTests(unittest.TestCase):
    def test_dense_layer_and_sampler_tail(self):
        seq = [("embed", 1), ("rms", 1), ("qmv", 4096), ("rope", 1), ("kv", 1), ("kv", 1),
               ("rope", 1), ("sdpa", 1), ("qmv", 4096), ("add", 1), ("rms", 1),
               ("qmv", 14336), ("qmv", 14336), ("swiglu", 1), ("qmv", 4096), ("add", 1),
               ("rms", 1), ("qmv", 128256), ("cast", 1), ("argmax", 1), ("embed", 1)]
        r = roles_of(seq)
        self.assertEqual(r[3:7], ["rope_append"] * 4)
        self.assertEqual(r[9:11], ["add_rms_join_post_attn"] * 2)
        self.assertEqual(r[15:17], ["add_rms_join"] * 2)
        self.assertEqual(r[18:20], ["sampler_tail"] * 2)
        self.assertIsNone(r[17])
        self.assertIsNone(r[20])

    def test_moe_block(self):
        seq = [("add", 1), ("rms", 1), ("softmax", 1), ("sort", 1), ("div", 1), ("arange", 1),
               ("arange", 1), ("gqmv", 1), ("gqmv", 1), ("swiglu", 1), ("gqmv", 1), ("mul", 1),
               ("cast", 1), ("colsum", 1), ("add", 1), ("rms", 1)]
        r = roles_of(seq)
        self.assertEqual(r[0:2], ["add_rms_join"] * 2)
        self.assertEqual([r[7], r[8], r[10]], ["moe_expert_gemv"] * 3)
        self.assertEqual(r[9], "moe_activation")
        self.assertEqual(r[11:14], ["moe_weighted_sum"] * 3)
        self.assertEqual(r[5:7], ["moe_gather_indices"] * 2)
        self.assertIsNone(r[3])
        self.assertIsNone(r[4])
        self.assertEqual(r[14:16], ["add_rms_join"] * 2)

    def test_mamba_mixer(self):
        seq = [("rms", 1), ("qmv", 8192), ("cast", 1), ("kv", 1), ("conv", 1), ("exp", 1),
               ("mul", 1), ("silu", 1), ("scan", 1), ("mul", 1), ("silu", 1), ("rms", 1),
               ("mul", 1), ("qmv", 4096), ("qmv", 128256), ("argmax", 1)]
        r = roles_of(seq)
        self.assertEqual(r[2], "ssm_step")
        self.assertEqual(r[3:5], ["ssm_conv"] * 2)
        self.assertEqual([r[5], r[6], r[8], r[9]], ["ssm_step"] * 4)
        self.assertEqual([r[7], r[10]], ["ssm_silu"] * 2)
        self.assertEqual(r[11:13], ["ssm_gated_norm"] * 2)
        self.assertEqual([r[1], r[13], r[14]], [None] * 3)
        self.assertEqual(r[15], "sampler_tail")


class ReachTests(unittest.TestCase):
    def test_fused_norm_and_rope_ship_on_and_rope_tables_never_reach(self):
        llama3 = {"model_type": "llama", "rope_scaling": {"rope_type": "llama3"}}
        default, optin, _ = ss.reach("2063", llama3, False)
        self.assertEqual((default, optin), (("add_rms_join_post_attn",),) * 2)
        default, optin, _ = ss.reach("2063", {"model_type": "llama"}, False)
        self.assertEqual(default, ("add_rms_join_post_attn", "rope_append"))
        self.assertEqual(optin, default)

    def test_moe_reach_follows_the_caller(self):
        self.assertEqual(len(ss.reach("2065", {"model_type": "qwen3_moe"}, False)[0]), 4)
        for mt in ("granitemoehybrid", "nemotron_h"):
            self.assertEqual(ss.reach("2065", {"model_type": mt}, False)[:2], ((), ()))

    def test_samplers_only_in_sampled_runs(self):
        self.assertEqual(ss.reach("2064", {}, True)[0], ("sampler_tail",))
        self.assertEqual(ss.reach("2064", {}, False)[0], ())

    def test_missing_config_notes_begin_with_a_space(self):
        self.assertTrue(ss.reach("2063", {}, False)[2].startswith(" never calls"))


class WindowTests(unittest.TestCase):
    def test_busy_is_the_union_of_overlapping_dispatches(self):
        ds = [ss.Dispatch("k", 0, 10, 0), ss.Dispatch("k", 5, 15, 0), ss.Dispatch("k", 20, 30, 0)]
        self.assertEqual(ss.busy_ns(ds, 0, 100), 25)
        self.assertEqual(ss.busy_ns(ds, 8, 25), 12)

    def test_dispatch_is_slotted(self):
        d = ss.Dispatch("k", 3, 10, 0)
        self.assertFalse(hasattr(d, "__dict__"))
        self.assertEqual(d.end - d.start, 7)

    def test_summarize_cuts_the_decode_window_by_the_phase_marks(self):
        with tempfile.TemporaryDirectory() as tmp:
            def path(name):
                return os.path.join(tmp, name)
            with open(path("t.csv"), "w") as f:
                f.write("Kernel_Name,Start_Timestamp,End_Timestamp\nwarm,100000,120000\n"
                        "prefill,450000,500000\ndecode_a,610000,635000\n"
                        "decode_b,735000,760000\nafter,900000,950000\n")
            with open(path("b.log"), "w") as f:
                for label, mono, boot in (("warmup_start", 1, 90000),
                                          ("measured_start", 2, 400000),
                                          ("decode_start", 3, 600000),
                                          ("measured_end", 4, 800000)):
                    f.write(f"[phase] {label} monotonic_ns={mono} boottime_ns={boot}\n")
                f.write("  Generated tokens: 2\n")
            with open(path("p.log"), "w") as f:
                f.write("  Decode:           0.25 ms (8000.00 tok/s)\n")
            with contextlib.redirect_stdout(io.StringIO()):
                ss.main(["summarize", "--trace", path("t.csv"), "--log", path("b.log"),
                         "--plain-log", path("p.log"), "--name", "t", "--out-dir",
                         path("out")])
            with open(path("out/t_summary.json")) as f:
                s = json.load(f)
            self.assertTrue(os.path.exists(path("out/t_decode_kernels.csv")))
        self.assertEqual(s["clock"], "boottime")
        self.assertEqual(s["decode_dispatches"], 2)
        self.assertEqual(s["decode_gpu_busy_ms"], 0.05)
        self.assertEqual(s["checks"]["kernels_straddling_decode_start"], 0)
        self.assertEqual(s["checks"]["idle_gap_before_first_decode_dispatch_us"], 110.0)
        self.assertEqual(s["checks"]["host_gap_attribution_residual_ns"], 0)
        self.assertEqual(s["role_host_gap_ms_per_token"], {"unattributed": 0.055, "tail": 0.02})
        self.assertEqual(s["plain_wall_ms_per_token"], 0.125)
        self.assertEqual(s["plain_host_gap_ms_per_token_est"], 0.1)
        for unit in s["port_units"].values():
            for key, value in unit.items():
                if "host_gap" in key or "wall_share" in key:
                    self.assertEqual(value, 0.0, key)
                if "ceiling" in key:
                    self.assertEqual(value, 1.0, key)


class GapTests(unittest.TestCase):
    def test_attribute_gaps(self):
        ds = [ss.Dispatch("k", s, e, 0) for s, e in ((10, 20), (15, 30), (40, 50), (45, 48),
                                                      (60, 70))]
        roles = ["ssm_step", "rope_append", None, "ssm_step", "rope_append"]
        self.assertEqual(ss.attribute_gaps(ds, roles, 0, 100),
                         {"ssm_step": 10, "rope_append": 10, "unattributed": 10, "tail": 30})
        ds = [ss.Dispatch("k", 5, 10, 0), ss.Dispatch("k", 95, 130, 0)]
        self.assertEqual(ss.attribute_gaps(ds, ["sampler_tail", "ssm_step"], 0, 100),
                         {"sampler_tail": 5, "ssm_step": 85, "tail": 0})
        with self.assertRaisesRegex(ValueError, "2 dispatches but 1 roles"):
            ss.attribute_gaps(ds, ["x"], 0, 100)

    def test_wall_fields_worked_example(self):
        f = ss.wall_fields("fallback", ["r"], {"r": 3_000_000}, {"r": 2_000_000}, {"r": 4},
                           10_000_000, 20_000_000, 1, 0.5, 12.0)
        self.assertEqual(f, {"fallback_host_gap_ms_per_token": 2.0,
                             "fallback_host_gap_us_per_dispatch": 500.0,
                             "fallback_wall_share_pct": 25.0, "ceiling_gpu_share": 1.43,
                             "ceiling_wall": 1.33, "plain_ceiling_wall_est": 1.5})

    def test_full_share_and_zero_tokens(self):
        f = ss.wall_fields("reached_default", ["r"], {"r": 10}, {"r": 10}, {"r": 1}, 10, 20, 0,
                           None, None)
        self.assertIsNone(f["reached_default_ceiling_gpu_share"])
        self.assertIsNone(f["reached_default_ceiling_wall"])
        self.assertIsNone(f["reached_default_host_gap_ms_per_token"])
        self.assertIsNone(f["reached_default_plain_ceiling_wall_est"])
        self.assertIsNone(ss.ceiling(None))

    def test_gap_scale(self):
        self.assertIsNone(ss.gap_scale(None, 1.0))
        self.assertEqual(ss.gap_scale(1.0, 2.0), 0.5)
        self.assertEqual(ss.gap_scale(-1.0, 2.0), 0.0)
        self.assertEqual(ss.gap_scale(1.0, 0.0), 0.0)


class ClassTests(unittest.TestCase):
    def test_consequences_listed_in_the_spec(self):
        for name, cls in (("arange_kernel<unsigned int>", "copy"),
                          ("gather_rows_kernel", "gather_scatter"),
                          ("arg_reduce_final", "arg_reduce"), ("block_sort_kernel", "sort"),
                          ("depthwise_conv1d_kernel", "conv"),
                          ("affine_dequantize_packed_kernel", "dequantize"),
                          (NAMES["swiglu"], "compiled"), ("gather_qmv_wide", "gather_qmv"),
                          ("qmv_wide_kernel", "qmv"), ("no_match_here", "other")):
            self.assertEqual(ss.classify(name), cls, name)


if __name__ == "__main__":
    unittest.main()
