// Engine step annotations: the names serving engines give each engine step in their traces
// (torch.profiler record_function ranges, NVTX ranges), read for the kind of step they say it
// is (decode, prefill, mixed) and its batch. One table, EngineStepRules(), holds every engine's
// names: a new engine is one parser and one row there (docs/engine-steps.md lists them).
//
// The table of steps per kind (EngineSteps) is computed by the window stage, which owns the
// trace's launch calls (pipeline/window_stage.h); here are only the names and the arithmetic.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace decodeprof::analysis {

enum class StepKind {
  kDecode,   // every sequence of the batch makes one token
  kPrefill,  // prompts only (SGLang EXTEND, vLLM context requests only)
  kMixed,    // prompts and decodes in one step (chunked prefill)
  kCapture,  // a CUDA/HIP graph capture of the engine's forward pass, not a served step
  kIdle,     // an engine step with no request (vLLM execute_context_0(0)_generation_0(0))
  kUnknown,  // the name says nothing of the kind (torch.profiler's ProfilerStep#N)
};
inline constexpr StepKind kAllStepKinds[] = {StepKind::kDecode, StepKind::kPrefill,
                                             StepKind::kMixed,  StepKind::kCapture,
                                             StepKind::kIdle,   StepKind::kUnknown};

// "decode", "prefill", "mixed", "capture", "idle", "unknown": the summary's words.
std::string_view StepKindName(StepKind kind);

// What a step's name says.
struct StepLabel {
  StepKind kind = StepKind::kUnknown;
  std::optional<int64_t> batch;   // requests in the step (a capture: the captured batch size)
  std::optional<int64_t> tokens;  // tokens the step runs, where the name writes them
};

// One engine's step names. `parse` reads a name, or returns nullopt when it is not one of
// this rule's names.
struct EngineStepRule {
  std::string_view id;       // "sglang", "vllm", ... (the summary's engine_steps.rule)
  std::string_view engine;   // who writes the names
  std::string_view example;  // one name as the engine writes it
  std::optional<StepLabel> (*parse)(std::string_view name);
};

// Every rule, in the order they are tried (a name is the first rule's that reads it; of
// several rules found in one trace, the first in this order is chosen when they agree).
std::span<const EngineStepRule> EngineStepRules();

// The rule that reads `name` and what it says; nullptr when no rule reads it.
const EngineStepRule* ReadStepName(std::string_view name, StepLabel* label);

// One engine step of a trace.
struct StepRecord {
  StepLabel label;
  int64_t start_ns = 0;  // the step range's host time
  int64_t end_ns = 0;
  int64_t dispatches = 0;   // GPU work launched inside the range (by correlation id)
  int64_t gpu_busy_ns = 0;  // the union of those dispatches' intervals
  bool in_window = false;
};

// Per kind: how many steps, their batch sizes and token counts, and milliseconds per step
// (mean, and the nearest-rank p50 and p99) of GPU busy time and of the range's wall time.
struct StepKindStats {
  StepKind kind = StepKind::kUnknown;
  int64_t steps = 0;
  int64_t in_window = 0;
  std::vector<int64_t> batch_sizes;  // distinct, ascending
  std::vector<int64_t> tokens;       // distinct, ascending (where the names write them)
  int64_t dispatches = 0;
  double gpu_ms_mean = 0, gpu_ms_p50 = 0, gpu_ms_p99 = 0;
  double wall_ms_mean = 0, wall_ms_p50 = 0, wall_ms_p99 = 0;
};

// The engine's steps, as the summary gives them (engine_steps).
struct EngineSteps {
  std::string rule;                          // EngineStepRule::id of the chosen rule
  std::string engine;                        // EngineStepRule::engine
  std::vector<std::string> also_found;       // other rules whose names the trace holds (agreeing)
  StepKind window_kind = StepKind::kDecode;  // the kind of the window's steps
  int64_t window_steps = 0;
  int64_t decode_runs = 0;           // runs of consecutive decode steps (the window is the longest)
  std::vector<StepRecord> steps;     // by start
  std::vector<StepKindStats> kinds;  // kAllStepKinds order, kinds with steps only
};

// The per-kind table of `steps` (StepKindStats, 3 decimals).
std::vector<StepKindStats> StepKindTable(std::span<const StepRecord> steps);

// The nearest-rank percentile `p` (0 < p <= 100) of `values` (sorted ascending, non-empty).
int64_t NearestRank(std::span<const int64_t> sorted, double p);

// "12 decode, 1 prefill": the counts of `kinds`, in their order.
std::string KindCounts(std::span<const StepKindStats> kinds);

}  // namespace decodeprof::analysis
