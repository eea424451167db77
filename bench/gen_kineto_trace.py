#!/usr/bin/env python3
"""Writes a synthetic torch.profiler (libkineto) trace of a decode, for bench/kineto_throughput.sh.

usage: gen_kineto_trace.py OUT.json STEPS KERNELS_PER_STEP [DECODE_STEPS]

The layout is libkineto's chrome-trace JSON (schemaVersion, deviceProperties,
baseTimeNanoseconds, traceEvents; microsecond timestamps with three decimals): one
user_annotation `decodeprof:decode` range (over the last DECODE_STEPS steps; default all), one `decodeprof:step` range per step, and per
kernel a `cuda_runtime` cudaLaunchKernel event, the `kernel` event with libkineto's args, and
the `ac2g` flow pair. 200 steps x 1400 kernels make about 250 MB.
"""
import sys

out, steps, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
decode_steps = min(steps, int(sys.argv[4])) if len(sys.argv) > 4 else steps
names = ["void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
         "nvjet_sm90_tst_64x8_64x16_2x1_v_bz_TNT", "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4, 4>)",
         "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_3_64x64x128_4x1x1_cga1x1x1_kernel0_0"]
with open(out, "w") as f:
    f.write('{\n  "schemaVersion": 1,\n  "deviceProperties": [],\n  "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": 1775078550000000000,\n  "traceEvents": [\n')
    t = 1000.0; corr = 1; first = True
    def w(s):
        global first
        f.write(("" if first else ",\n") + s); first = False
    decode_ts = t + (steps - decode_steps) * per * 20.0
    w('{"ph": "X", "cat": "user_annotation", "name": "decodeprof:decode", "pid": 1, "tid": 1, "ts": %.3f, "dur": %.3f, "args": {}}' % (decode_ts - 1, decode_steps * per * 20.0 + 10))
    for s in range(steps):
        w('{"ph": "X", "cat": "user_annotation", "name": "decodeprof:step", "pid": 1, "tid": 1, "ts": %.3f, "dur": %.3f, "args": {}}' % (t, per * 20.0 - 1))
        for k in range(per):
            n = names[k % 4]
            w('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %.3f, "dur": 3.100, "args": {"External id": %d, "cbid": 211, "correlation": %d}}' % (t, corr, corr))
            w('{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7, "ts": %.3f, "dur": 4.250, "args": {"External id": %d, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": %d, "registers per thread": 32, "shared memory": 0, "blocks per SM": 0.5, "warps per SM": 2.0, "grid": [66, 1, 1], "block": [128, 1, 1], "est. achieved occupancy %%": 3}}' % (n, t + 8, corr, corr))
            w('{"ph": "s", "id": %d, "pid": 1, "tid": 1, "ts": %.3f, "cat": "ac2g", "name": "ac2g"}' % (corr, t))
            w('{"ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %.3f, "cat": "ac2g", "name": "ac2g", "bp": "e"}' % (corr, t + 8))
            t += 20.0; corr += 1
    f.write('\n  ],\n  "traceName": "bench"\n}\n')
