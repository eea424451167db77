// Which built-in pack a trace gets when the user names none (docs/packs.md, "Which pack a
// trace gets"): the one its kernel names point to, counted over the distinct names, else the
// default of the trace's format.
//
//   MLX kernels (mlx::core::...)                                     → mlx-rocm
//   llama.cpp's ggml-cuda kernels (mul_mat_vec_f, flash_attn_ext_vec,
//     k_set_rows, rms_norm_f32, rope_norm, ..., on CUDA or HIP)        → ggml
//   ROCm libraries and runtime (Tensile Cijk_, rocBLAS, hipBLASLt, CK,
//     aiter, MIOpen, rocPRIM, vLLM's ROCm kernels, __amd_rocclr_ blits) → pytorch-rocm
//   CUDA libraries (nvjet, cuBLAS, cuDNN, CUTLASS, CUB, sm90_ kernels)  → pytorch-cuda
//   PyTorch's and Triton's own kernels (at::native, triton_, vllm::, _matmul_ogs_):
//     the same on both platforms; they count for the PyTorch pack of the platform the
//     library names show, or, when those do not tell, of the format's default pack.
//
// The family with the most distinct names wins; a tie goes to the format's default when it
// is among the best, else in the order above. A trace with no recognizable name keeps the
// format's default. The choice carries its evidence: the names that chose it, and with their
// GPU times their share of the kernels' time; evidence that is thin (no name recognized, or
// names that hold less than kSmallSharePct of the GPU time) is `weak`, which summarize
// reports as the warning pack_choice_weak. The name signatures are the only
// engine knowledge in C++: they choose among the built-in packs, whose own rules stay in
// packs/.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/trace/dispatch.h"
#include "src/trace/string_pool.h"

namespace decodeprof::packs {

// Names that point to the pack but hold less of the GPU time than this are weak evidence
// (PackChoice::weak).
inline constexpr double kSmallSharePct = 20.0;

struct PackChoice {
  std::string pack;     // a built-in pack name
  std::string note;     // the line a job prints, e.g. "pack mlx-rocm (chosen from the kernel
                        // names: 812 of 830 MLX kernels; --pack overrides)", with times
                        // "... 812 of 830 MLX kernels, 97.5 % of the GPU time: qmv_fast,
                        // rms_norm, ...; --pack overrides)"
  int64_t matched = 0;  // distinct names that chose it; 0 when the format's default was kept
  int64_t names = 0;    // distinct kernel names seen
  // The names that chose it (function names, without template arguments or parameters),
  // the longest-running first (in the order seen without times), at most 4.
  std::vector<std::string> evidence;
  // Their share of the kernels' GPU time, in percent; nullopt when no times were given.
  std::optional<double> share_pct;
  // Why the evidence is weak, "" when it is not: e.g. "no kernel name tells the engine".
  std::string weak;
};

// A distinct kernel name and the GPU time of its dispatches (0 when unknown).
struct KernelTime {
  std::string_view name;
  int64_t ns = 0;
};

// `kernels`: the trace's kernel names (each distinct name counts once; leave memory
// operations out) with their GPU times, or all times 0 where they are not known.
// `format`: the importer's name, for the note; `format_default`: its default pack.
PackChoice DefaultPackFor(std::span<const KernelTime> kernels, std::string_view format,
                          std::string_view format_default);
// The same without times.
PackChoice DefaultPackFor(std::span<const std::string_view> kernel_names, std::string_view format,
                          std::string_view format_default);

// The default pack of a trace's format, for a trace whose runtime is known: a HIP trace of a
// format whose default is a CUDA pack (a Kineto trace of PyTorch on ROCm) gets pytorch-rocm.
std::string_view FormatDefaultFor(std::string_view format_default,
                                  std::optional<trace::Runtime> runtime);

// The distinct names of the kernel dispatches among `dispatches` (memory operations left out),
// in the order they first occur.
std::vector<std::string_view> KernelNamesOf(std::span<const trace::Dispatch> dispatches,
                                            const trace::StringPool& names);
// The same with each name's summed dispatch durations.
std::vector<KernelTime> KernelTimesOf(std::span<const trace::Dispatch> dispatches,
                                      const trace::StringPool& names);

}  // namespace decodeprof::packs
