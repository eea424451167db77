// The speed-of-light ledger of a decode window (docs/speed-of-light.md): batch-1 decode is
// bound by memory bandwidth, so a step can take no less than the bytes it must move (the
// weights once, the KV cache at its context length, the recurrent state read and written)
// divided by the GPU's peak bandwidth. The ledger says how far the window is from that floor
// (MBU: model bandwidth utilization), which kernel classes move which bytes at what speed,
// and one additive decomposition of the wall per token:
//
//   floor + Σ units' excess over their own floor + other kernels' excess + overlap
//         + host gap = wall.
//
// Figures are per decode step (one forward pass, one token of the decode loop): the window's
// totals divided by the steps it holds. The model's bytes and the peak come from src/model
// and src/device; this file only does the arithmetic, so it knows neither.
#pragma once

#include <string>

#include "src/analysis/speed_of_light_types.h"
#include "src/analysis/summary.h"

namespace decodeprof::analysis {

// The ledger of the window `in` summarized with `attribution`. kData when the figures cannot
// be right (a floor above the wall: the bytes or the peak are wrong; no steps; no time).
base::StatusOr<SpeedOfLight> ComputeSpeedOfLight(const SpeedOfLightInputs& inputs,
                                                 const SummaryInputs& in,
                                                 const Attribution& attribution);

}  // namespace decodeprof::analysis
