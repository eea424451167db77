#include "src/analysis/ceilings.h"

#include <algorithm>

#include "src/base/py_format.h"

namespace decodeprof::analysis {

using base::PyRound;

std::optional<double> Ceiling(std::optional<double> f) {
  if (!f || *f >= 1) return std::nullopt;
  return PyRound(1 / (1 - std::max(*f, 0.0)), 2);
}

std::optional<double> GapScale(std::optional<double> plain_gap, std::optional<double> traced_gap) {
  if (!plain_gap || !traced_gap) return std::nullopt;
  if (*traced_gap <= 0) return 0.0;
  return std::max(*plain_gap, 0.0) / *traced_gap;
}

WallFields ComputeWallFields(const WallFieldInputs& in) {
  const auto kernel = static_cast<double>(in.kernel_ns);
  const auto gap = static_cast<double>(in.gap_ns);
  std::optional<double> wall_frac;
  if (in.wall_ns > 0) {
    // Python: (kernel + gap) / wall with integer operands, then true division.
    wall_frac = static_cast<double>(in.kernel_ns + in.gap_ns) / static_cast<double>(in.wall_ns);
  }
  std::optional<double> plain_frac;
  if (in.scale && in.plain_wall_ms_per_token && *in.plain_wall_ms_per_token != 0 &&
      in.tokens != 0) {
    plain_frac = ((kernel + gap * *in.scale) / 1e6 / in.tokens) / *in.plain_wall_ms_per_token;
  }
  WallFields out;
  if (in.tokens != 0) {
    out.host_gap_ms_per_token = PyRound(gap / 1e6 / in.tokens, 4);
  }
  if (in.calls != 0) {
    out.host_gap_us_per_dispatch = PyRound(gap / 1e3 / static_cast<double>(in.calls), 2);
  }
  if (wall_frac) out.wall_share_pct = PyRound(100 * *wall_frac, 2);
  if (in.gpu_sum_ns > 0) {
    out.ceiling_gpu_share = Ceiling(kernel / static_cast<double>(in.gpu_sum_ns));
  }
  out.ceiling_wall = Ceiling(wall_frac);
  out.plain_ceiling_wall_est = Ceiling(plain_frac);
  return out;
}

}  // namespace decodeprof::analysis
