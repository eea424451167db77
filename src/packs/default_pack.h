// Which built-in pack a trace gets when the user names none (docs/packs.md, "Which pack a
// trace gets"): the one its kernel names point to, counted over the distinct names, else the
// default of the trace's format.
//
//   MLX kernels (mlx::core::...)                                     → mlx-rocm
//   ROCm libraries and runtime (Tensile Cijk_, rocBLAS, hipBLASLt, CK,
//     aiter, MIOpen, rocPRIM, vLLM's ROCm kernels, __amd_rocclr_ blits) → pytorch-rocm
//   CUDA libraries (nvjet, cuBLAS, cuDNN, CUTLASS, CUB, sm90_ kernels)  → pytorch-cuda
//   PyTorch's and Triton's own kernels (at::native, triton_, vllm::):
//     the same on both platforms; they count for the PyTorch pack of the platform the
//     library names show, or, when those do not tell, of the format's default pack.
//
// The family with the most distinct names wins; a tie goes to the format's default when it
// is among the best, else in the order above. A trace with no recognizable name keeps the
// format's default. The name signatures are the only engine knowledge in C++: they choose
// among the built-in packs, whose own rules stay in packs/.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/trace/dispatch.h"
#include "src/trace/string_pool.h"

namespace decodeprof::packs {

struct PackChoice {
  std::string pack;     // a built-in pack name
  std::string note;     // the line a job prints, e.g. "pack mlx-rocm (chosen from the kernel
                        // names: 812 of 830 MLX kernels; --pack overrides)"
  int64_t matched = 0;  // distinct names that chose it; 0 when the format's default was kept
  int64_t names = 0;    // distinct kernel names seen
};

// `kernel_names`: the trace's kernel names (each distinct name counts once; leave memory
// operations out). `format`: the importer's name, for the note; `format_default`: its
// default pack.
PackChoice DefaultPackFor(std::span<const std::string_view> kernel_names, std::string_view format,
                          std::string_view format_default);

// The distinct names of the kernel dispatches among `dispatches` (memory operations left out),
// in the order they first occur.
std::vector<std::string_view> KernelNamesOf(std::span<const trace::Dispatch> dispatches,
                                            const trace::StringPool& names);

}  // namespace decodeprof::packs
