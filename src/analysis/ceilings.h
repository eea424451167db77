// Speedup ceilings of a set of roles (seed spec 2.9): the kernel-time-only bound, the bound
// over the profiled wall including the roles' launch gaps, and that bound re-scaled to the
// unprofiled (plain) run.
#pragma once

#include <cstdint>
#include <optional>

namespace decodeprof::analysis {

// 1 / (1 − max(f, 0)) rounded to 2 decimals; nullopt when f is absent or f >= 1.
std::optional<double> Ceiling(std::optional<double> f);

// Plain gap over traced gap, from the ROUNDED summary values plain_host_gap_ms_per_token_est
// and host_gap_ms_per_token: nullopt if either is absent, 0.0 if traced <= 0, else
// max(plain, 0) / traced.
std::optional<double> GapScale(std::optional<double> plain_gap, std::optional<double> traced_gap);

struct WallFieldInputs {
  int64_t kernel_ns = 0;  // Σ kernel time of the role set
  int64_t gap_ns = 0;     // Σ idle time the role set owns
  int64_t calls = 0;      // Σ dispatches of the role set
  int64_t gpu_sum_ns = 0;
  int64_t wall_ns = 0;
  double tokens = 0;            // the tokens the window stands for (SummaryInputs::window_tokens)
  std::optional<double> scale;  // GapScale(...)
  std::optional<double> plain_wall_ms_per_token;  // rounded summary value
};

struct WallFields {
  std::optional<double> host_gap_ms_per_token;
  double host_gap_us_per_dispatch = 0.0;  // 0.0 when calls == 0
  std::optional<double> wall_share_pct;
  std::optional<double> ceiling_gpu_share;
  std::optional<double> ceiling_wall;
  std::optional<double> plain_ceiling_wall_est;
};

// Worked example: kernel 3 ms, gap 2 ms, 4 calls, gpu_sum 10 ms, wall 20 ms, 1 token,
// scale 0.5, plain wall 12 ms → 2.0 ms/token, 500.0 us/dispatch, 25.0 %, 1.43, 1.33, 1.5.
WallFields ComputeWallFields(const WallFieldInputs& in);

}  // namespace decodeprof::analysis
