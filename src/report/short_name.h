// Short kernel names for the Markdown report (seed spec 2.11): a demangled GPU kernel name
// such as
//   void mlx::core::rocm::binary_vv<mlx::core::rocm::Add, float, float>(float const*, ...)
// is shortened to `binary_vv<Add, f32>` so that a top-kernel line fits on one row.
#pragma once

#include <string>
#include <string_view>

namespace decodeprof::report {

// The short name of a kernel in the Markdown report. A CUDA kernel name (HasCudaKernelMarker)
// gets the CUDA rules of cuda_short_name.h (CudaShortKernelName). Every other name — all
// MLX/ROCm names — gets the seed report's short name, byte for byte:
//   * a name starting with `Cijk_` (a Tensile GEMM) → `Cijk_* (Tensile GEMM)`;
//   * otherwise base = the identifier of the first `::<identifier>` that is followed by an
//     optional template list `<...>` (holding no `(`) and then `(`; without such a match,
//     base = the text before the first `(` (the whole name when there is none);
//   * a base that starts with an ASCII uppercase letter and contains `_contiguous` or
//     `_strided` (an MLX JIT-fused kernel) → `compiled ` + the first 40 characters (UTF-8
//     code points) of base + `...`;
//   * otherwise up to two parts are taken from that template list: the op functor (the first
//     `rocm::<Word>`, optionally with its own `<...>`, followed by a comma) and, after it, the
//     first dtype among hip_bfloat16, __half, float, int, unsigned int, bool, printed as
//     bf16, f16, f32, int, u32, bool. Result `base<part, part>`, or bare base without parts.
// Identifier characters are ASCII letters, digits and `_`. Never fails; total function.
std::string ShortKernelName(std::string_view name);

// The label of a kernel in the HTML report's plots: CudaKernelLabel (cuda_short_name.h) for a
// CUDA kernel name (HasCudaKernelMarker), else ShortKernelName; either capped at
// kMaxKernelLabelChars (cuda_short_name.h) with "…".
std::string KernelLabel(std::string_view name);

}  // namespace decodeprof::report
