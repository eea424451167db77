// Synthetic profiled decode run, written exactly as the seed harness would have captured it
// (seed spec 2.1–2.3) with rocprofv3 1.3.5 on gfx1151 (bench/, not part of the library).
//
// Files written into `out_dir` (created if missing):
//   <name>_kernel_trace.csv   rocprofv3 kernel trace, one KERNEL_DISPATCH row per dispatch in
//                             start order, CLOCK_BOOTTIME-like ns timestamps (~1.7e15)
//   <name>_kernel_stats.csv   rocprofv3 --stats kernel table of the whole process
//   <name>_bench.log          profiled bench output: rocprofv3 glog lines, [long-prompt], the
//                             four [phase] marks on both clocks, [Profile Results]
//   <name>_plain_bench.log    the unprofiled run's [Profile Results] (5–20% faster decode)
//   <name>_model/config.json  the checkpoint's config (model_type, rope_scaling)
//
// The run: model load, warmup_start, warmup (prefill + warmup_tokens − 1 decode steps),
// measured_start, measured prefill (ends with the first token's sampling), decode of
// tokens − 1 forward passes, measured_end. decode_start is derived as the bench does:
// measured_end − trunc(decode_time_ms × 1e6), where decode_time_ms starts shortly after the
// prefill's last dispatch. Monotonic stamps = boottime stamps − monotonic_offset_ns.
//
// Deterministic: the same options give byte-identical files (splitmix64 PRNG, no clock, pid
// or environment input, no transcendental math on the per-dispatch path). The trace is
// streamed to `<file>.tmp` and renamed when complete; the other files are written atomically.
#pragma once

#include <cstdint>
#include <string>

#include "bench/synth_models.h"
#include "src/base/status.h"

namespace decodeprof::bench {

struct GenOptions {
  ModelKind model = ModelKind::kLlama;
  int64_t tokens = 128;         // generated tokens (≥ 2); decode passes = tokens − 1
  int64_t warmup_tokens = 20;   // ≥ 1
  int64_t prompt_tokens = 512;  // ≥ 1
  double temperature = 0.0;     // 0 = greedy
  double top_p = 1.0;           // < 1 with temperature > 0 = top-p sampling
  std::string name;             // run name, prefix of every output file
  std::string out_dir;
  uint64_t seed = 1;
  // When non-zero, decode continues past `tokens` until the trace holds at least this many
  // bytes (the generated-token count in the logs follows).
  uint64_t target_bytes = 0;
  uint64_t monotonic_offset_ns = 3741;  // boottime − monotonic (time spent suspended)
};

struct GenSummary {
  int64_t generated_tokens = 0;
  uint64_t dispatches = 0;              // rows in the kernel trace
  uint64_t decode_step_dispatches = 0;  // dispatches per decode forward pass
  uint64_t decode_dispatches = 0;       // inside [decode_start, measured_end]
  uint64_t trace_bytes = 0;
  double decode_tok_s = 0;  // as printed in the profiled log
  std::string trace_path;
};

// Sampler of a run: greedy when temperature == 0, top-p when also 0 < top_p < 1.
Sampler SamplerFor(double temperature, double top_p);

// Writes the run. Errors: kUsage for invalid options, kIo when a file cannot be written.
base::StatusOr<GenSummary> GenerateRun(const GenOptions& options);

}  // namespace decodeprof::bench
