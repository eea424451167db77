// Finding the decode loop of a trace that carries no phase marks (ARCHITECTURE.md "Finding the
// decode loop", issue 12): the decode is the longest stretch of the dispatch sequence made of
// one unit repeated, the unit being a decode step.
//
// The sequence the finder reads is the dispatches in start order, each one a token (its name),
// except that all dispatches of one CUDA-graph launch — the dispatches that share the
// correlation id of a cudaGraphLaunch / cuGraphLaunch / hipGraphLaunch call, or an nsys
// graph-level "[CUDA graph N]" row — are one token, the graph's (its kernel sequence). So a
// CUDA-graph engine's step is "graph launch + the few eager dispatches around it" and an eager
// engine's step is the unit of its kernel sequence; piecewise-graphed engines (several graphs
// per step) are both at once.
//
// The unit. Every token that recurs gives a candidate period: the most common distance
// between its occurrences. A candidate is checked by cutting the sequence at its anchor's
// occurrences: a run is a series of consecutive segments of about the period's length whose
// token counts agree with the previous segment's (up to a few tokens: sampling or cache
// growth that vary per step; such a segment counts as a deviated step). Of the periods with a
// run of at least kMinSteps segments, a decode step is the smallest whose segments nearly all
// hold a step marker — a device-to-host copy (the token or logits read back) or a sampling
// kernel (argmax, top-k, multinomial, ...): that is what tells a step from a layer (a smaller
// unit, without the read-back) and from a whole generate call repeated (a larger one). Without
// markers, the largest valid period that is not a multiple of another valid one is taken.
// Of that period's runs the longest is the decode (ties: the last one, as a rerun's marks
// win); warm-up decodes and the prefill lie outside it because the prefill's kernels (names,
// counts) break the run. The anchor is the token of the period with the longest GPU idle time
// before it (a step starts after the host's per-token synchronization).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "src/base/status.h"
#include "src/trace/api_call.h"
#include "src/trace/dispatch.h"
#include "src/trace/string_pool.h"

namespace decodeprof::analysis {

// Fewest decode steps a found loop has. Three steps give two step-to-step comparisons, the
// least that tells a repeated unit from a coincidence; a loop of fewer than
// kConfidentSteps is answered with low confidence.
inline constexpr int64_t kMinSteps = 3;
// Steps of a loop found with high confidence: 8 steps are 7 comparisons of a step with the
// one before it, and any real decode worth profiling generates more tokens than that.
inline constexpr int64_t kConfidentSteps = 8;
// Fewest kernels a step holds (graph nodes included): a forward pass runs at least an
// embedding, a layer's GEMMs and attention and the lm_head. One copy or one memset repeated
// is not a step (a serving engine's input copies, a prefill's per-request copies).
inline constexpr int64_t kMinKernelsPerStep = 4;

struct FoundLoop {
  // "graph-launches" when the steps hold CUDA-graph launches, else "periodic".
  std::string source;
  trace::TimestampNs lo = 0;  // the first step's first dispatch's start
  trace::TimestampNs hi = 0;  // the last step's last end
  int64_t steps = 0;
  int64_t dispatches_per_step = 0;      // in the run's first step
  int64_t kernels_per_step = 0;         // kernels (graph nodes included) in the first step
  int64_t graph_launches_per_step = 0;  // in the first step
  int64_t deviated_steps = 0;           // steps whose dispatches differ from the previous one's
  int64_t runs = 0;                     // runs of the same unit (warm-up decodes, reruns)
  int64_t dispatches_before = 0;        // dispatches that started before the loop
  std::string anchor;                   // the name of the token each step starts with
  int64_t run = 0;                      // which of the runs is the loop (1-based, in time order)
  // What ends a token: "sampling kernel", "token read-back" (a device-to-host copy),
  // "host synchronization" (the GPU idles before every step) or "graph replay".
  std::string boundary;
  // "high", or "low" with the reasons (short phrases a user reads after "because").
  std::string confidence = "high";
  std::vector<std::string> reasons;
};

// `dispatches` in start order (file order on ties), of one device; `launches` the trace's
// launch calls. A step must be a forward pass: at least kMinKernelsPerStep kernels, and a
// token boundary in every step (a sampling kernel, a token read-back, a host synchronization
// or a graph replay). Errors (kData, where = `trace_path`), each saying what was seen:
// training iterations (backward and optimizer kernels); no unit that is a step repeats
// kMinSteps times (with the trace's largest repeat, e.g. "one step of 534 dispatches whose
// layer pattern repeats 36 times: not a decode loop").
base::StatusOr<FoundLoop> FindDecodeLoop(std::span<const trace::Dispatch> dispatches,
                                         std::span<const trace::ApiCall> launches,
                                         const trace::StringPool& names,
                                         const std::string& trace_path);

}  // namespace decodeprof::analysis
