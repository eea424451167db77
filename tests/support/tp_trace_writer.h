// A tensor-parallel decode as the CUPTI recorder would write it for one rank of a
// `torchrun --nproc-per-node 2` job (docs/multi-gpu.md): the fixture of the multi-rank
// tests, and of `decodeprof_gen_tp_trace` (gen_tp_trace.cc).
//
// Each rank's trace: meta rank, world_size, local_rank, run_id and devices_used; a
// decodeprof:warmup range with one kernel; a decodeprof:decode range of `steps` steps
// (decodeprof:step ranges, so generated tokens = steps + 1), each step 100 us long
// from 1 ms + step · 100 us, holding `blocks` blocks 40 us apart. A block is a GEMM
// (nvjet, 10 us), an NCCL all-reduce (ncclDevKernel_AllReduce_Sum_bf16_RING_LL) and an
// elementwise add (2 us). The all-reduce starts 11 us into the block on a rank that is on
// time, `lag` later on a rank that is late, and ends on every rank 5 us after the last rank
// arrived. Lags (TpLagNs): rank 1 is 3 us late in block 0 of steps 1 and 3, rank 0 is 1 us
// late in block 1 of step 2. So, with the defaults (4 steps, 2 blocks, 5 tokens):
//   rank 0: 8 collectives, 46 us (wait 6 us, transfer 40 us)
//   rank 1: 8 collectives, 41 us (wait 1 us, transfer 40 us); the slowest rank is 1.
#pragma once

#include <cstdint>
#include <string>

#include "src/base/status.h"

namespace decodeprof::testing {

struct TpTraceOptions {
  int32_t rank = 0;
  int32_t world_size = 2;  // < 1: no world_size key
  std::string run_id = "4242:/fixtures/tp.sqlite";
  int steps = 4;
  int blocks = 2;
  bool drop_last_collective = false;  // this rank's last all-reduce is missing
  bool write_rank = true;             // false: no rank keys at all (a one-GPU recording)
  std::string rank_text;              // when set: meta rank as written, e.g. "one"
};

// How late `rank` arrives at the all-reduce of `block` in `step` (0 when on time).
int64_t TpLagNs(int32_t rank, int step, int block);

// Writes one rank's trace to `path` (replacing it).
base::Status WriteTpRankTrace(const std::string& path, const TpTraceOptions& options);

}  // namespace decodeprof::testing
