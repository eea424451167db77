// Short names of CUDA kernels (PyTorch, cuBLAS, cuDNN, CUTLASS, CUB, ...) for the Markdown
// report. The seed's rules (short_name.h) were written for MLX's ROCm kernels and turn
// PyTorch's long template names into labels such as `elementwise_kernel<int>`; these rules
// name the functor or the op that a kernel runs instead, with the element type:
//
//   void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<
//       c10::BFloat16>, std::array<char*, 3ul> >(int, ...)
//     → vectorized_elementwise_kernel<CUDAFunctor_add<bf16>>
//
// ShortKernelName applies them only to names that HasCudaKernelMarker accepts, so every
// MLX/ROCm name keeps the seed's short name byte for byte.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace decodeprof::report {

// The longest short name the CUDA rules print, in characters (UTF-8 code points); a longer
// one keeps its first kMaxCudaShortNameChars - 3 characters followed by "...".
inline constexpr size_t kMaxCudaShortNameChars = 80;

// The longest kernel label (CudaKernelLabel, KernelLabel) in characters (UTF-8 code points); a
// longer one keeps its first kMaxKernelLabelChars - 1 characters followed by "…" (U+2026).
inline constexpr size_t kMaxKernelLabelChars = 48;

// True when `name` gets the CUDA rules: it contains `at::native::`, `at::cuda::`, `cutlass`,
// `cublas`, `cudnn`, `nvjet`, `cub::`, `flash` or `triton`, or starts with `_Z` (a mangled
// name), and it contains neither `rocm::` nor `Cijk_` (those keep the seed's rules).
bool HasCudaKernelMarker(std::string_view name);

// The CUDA rules, in order (identifiers are ASCII letters, digits and `_`):
//   1. A mangled name (`_Z...`) is demangled with abi::__cxa_demangle and the rules go on
//      with the result. libstdc++ refuses mangled names longer than 1024 characters (its
//      demangler's stack guard), which CUTLASS 3 kernels exceed; such a name gets a label
//      from its mangled text: rule 3, else the qualified name at its start (`_ZN5flash4fwdI`
//      → `flash::fwd<...>`), else the name itself.
//   2. A name without `(` (nvjet_*, cudnn_generated_*, cutlass_*, triton_*) stays as it is.
//   3. A CUTLASS 3 GEMM (`device_kernel` and `GemmUniversal` in the name) →
//      `cutlass::device_kernel<GemmUniversal<GroupProblemShape>> (sm90 grouped GEMM)`: the
//      `<GroupProblemShape>` part and "grouped " only for grouped GEMMs, the architecture
//      (sm100, sm90, sm80) when the name mentions one.
//   4. Otherwise, after a leading `void `, the kernel is the last `::` component before the
//      first top-level `(` (skipping `(anonymous namespace)`), and its template arguments
//      give the label:
//      * the op: the first argument that is not a number, a cast constant, true/false, an
//        element type, a pointer or reference, or plumbing (std::array, cute::tuple, offset
//        calculators, load/store casts, TensorInfo, CUB policies and tile states, cuBLAS
//        parameter structs, OpaqueType). Its name is the last component of its leading
//        qualified name; for a lambda (`f(...)::{lambda(float)#1}`) the enclosing function
//        `f`, for `S<...>::operator()(...)` the struct `S`. Wrappers (BinaryFunctor,
//        A/BUnaryFunctor, ReduceOp, func_wrapper_t, gpu_kernel_impl[_nocast],
//        gpu_index_kernel, uniform_and_transform, ...) are replaced by the op inside them.
//      * the element type: within the op's argument text, else within all template
//        arguments, the first 8- or 16-bit float type, else the first element type at all:
//        c10::BFloat16 / __nv_bfloat16 / bfloat16_t → bf16, c10::Half / __half / half_t →
//        f16, Float8_e4m3fn → fp8e4m3, Float8_e5m2 → fp8e5m2, float → f32, double → f64,
//        int → i32, long → i64, unsigned int → u32, bool → bool, OpaqueType<N> → NB (N bytes).
//      Result: `kernel<op<dtype>>`, `kernel<op>`, `kernel<dtype>` or `kernel`.
//   5. The result is capped at kMaxCudaShortNameChars.
// Never fails; total on any input (unbalanced brackets included), linear in the name's length.
std::string CudaShortKernelName(std::string_view name);

// A shorter label of a CUDA kernel for the HTML report's plots, from the same reading of the
// name as CudaShortKernelName (rules 1 to 4): what the kernel does first, then the op it runs
// and the element type.
//   * A name kept as it is (rule 2, or a mangled name that does not demangle):
//     `nvjet_<arch>_<kind>_<tile>_...` → `gemm nvjet_sm90_tst_64x8…` (the first four
//     `_`-separated parts, "…" when more follow, then " splitK" when the name has `_splitK`);
//     `cudnn_generated_[fort_native_]<rest>` → `attention cudnn <rest>` when rest mentions
//     sdpa, flash, attn or attention, else `cudnn cudnn <rest>`; a `cutlass*` name mentioning
//     gemm or Gemm → `gemm <name>`; any other name stays.
//   * A CUTLASS 3 GEMM (rule 3) → `gemm cutlass sm90 grouped` (architecture and "grouped" as
//     rule 3 finds them; `gemm cutlass` without either).
//   * A kernel (rule 4) whose name starts with `flash` or contains attention, fmha or sdpa →
//     `attention: <kernel> <dtype>`; one whose op is a `cutlass*` or `cublas*` type
//     mentioning gemm or Gemm → `gemm <op>`; otherwise `<family>: <op> <dtype>`, or
//     `<family> <dtype>` without an op, where the family of PyTorch's kernel templates is
//     elementwise ((vectorized_|unrolled_)elementwise_kernel, elementwise_kernel_with_index),
//     reduce (reduce_kernel), index (index_elementwise_kernel), scatter/gather
//     (_scatter_gather_elementwise_kernel) or random
//     (distribution_elementwise_grid_stride_kernel), and any other kernel's family is its name
//     without a trailing `_kernel` or `Kernel`. The op loses the decoration that names no
//     op: a leading `CUDAFunctor_` or `launch_`, a trailing `_kernel_cuda`, `_kernel_impl`,
//     `_kernel`, `_functor`, `_impl` or `Ops`. The dtype is rule 4's (absent: no " <dtype>").
//     For example `vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, ...>` →
//     `elementwise: AddFunctor f32`; `reduce_kernel<512, 1, ReduceOp<c10::BFloat16,
//     ArgMaxOps<float>, ...>>` → `reduce: ArgMax bf16`.
//   * The result is capped at kMaxKernelLabelChars.
// Never fails; total on any input, linear in the name's length.
std::string CudaKernelLabel(std::string_view name);

// `text` capped at kMaxKernelLabelChars code points: longer text keeps its first
// kMaxKernelLabelChars - 1 followed by "…".
std::string CapKernelLabel(std::string_view text);

}  // namespace decodeprof::report
