// Kernel catalog of the synthetic decode traces (bench/, not part of the decodeprof library).
//
// Each builder returns one GPU kernel as rocprofv3 1.3.5 reports it for an MLX ROCm build:
// the demangled name (`Kernel_Name`) and the launch attributes that fill the other kernel
// trace columns (workgroup size, LDS, scratch, register counts). The names follow the MLX
// ROCm overlay's templates closely enough that the seed's class patterns (seed spec 2.6) and
// name tests (2.7: `::Add,`, `::Divide,`, `copy_gg`, `gather_rows`, `Sigmoid`,
// `arange_kernel<unsigned int>`) see what they would see in a real trace.
//
// Depends on nothing but the standard library.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace decodeprof::bench {

enum class Dtype { kF16, kBf16, kF32, kU32, kI32, kBool };

// The C++ spelling in a demangled name: "__half", "hip_bfloat16", "float", "unsigned int",
// "int", "bool".
std::string_view DtypeName(Dtype t);

// One distinct kernel: its name plus the constant launch attributes.
struct KernelDef {
  std::string name;
  uint32_t wg_x = 256;
  uint32_t wg_y = 1;
  uint32_t wg_z = 1;
  uint32_t lds = 0;  // LDS_Block_Size, bytes
  uint32_t scratch = 0;
  uint32_t vgpr = 32;
  uint32_t accum_vgpr = 0;  // always 0 on RDNA (no AGPRs)
  uint32_t sgpr = 32;
};

// ---- quantized matrix-vector / matrix-matrix (4-bit, group 64) ----------------------------
KernelDef QmvWide(Dtype t);        // qmv_wide_kernel: decode GEMV (class qmv)
KernelDef GatherQmvWide(Dtype t);  // gather_qmv_wide_kernel: MoE expert GEMV (class gather_qmv)
KernelDef QmmT(Dtype t);           // qmm_t_kernel: prefill GEMM (class qmm)
KernelDef GatherQmmT(Dtype t);     // gather_qmm_t_kernel: prefill expert GEMM (class gather_qmv)
KernelDef GemvBatched(Dtype t);    // unquantized GEMV (class gemm)
KernelDef TensileGemm(Dtype t, bool transpose_b);  // rocBLAS/Tensile `Cijk_*` (class gemm)

// ---- elementwise -----------------------------------------------------------------------------
// variant: "vv" (vector-vector), "vs" (vector-scalar), "g" (general strides); op: an MLX
// functor such as "Add", "Multiply", "Divide", "Maximum".
KernelDef Binary(std::string_view variant, std::string_view op, Dtype in, Dtype out);
KernelDef Unary(std::string_view op, Dtype in, Dtype out);
KernelDef Ternary(std::string_view op, Dtype t);
KernelDef CopyV(Dtype in, Dtype out);
KernelDef CopyG(Dtype in, Dtype out);
KernelDef CopyGgByval(Dtype in, Dtype out);
KernelDef Arange(Dtype t);
// An MLX JIT-fused elementwise kernel: `<ops>_<hash>_contiguous<...>`, e.g. ops
// "CV2ISigmoidMultiplyMultiply" (compiled SwiGLU). `inputs` sets the argument list.
KernelDef Compiled(std::string_view ops, uint64_t hash, int inputs, Dtype t);

// ---- normalization, attention, positional ----------------------------------------------
KernelDef RmsNorm(Dtype t);
KernelDef RopeSingle(Dtype t, bool freqs);  // rope_single_freqs_1d / rope_single_1d
KernelDef SdpaVector1Pass(Dtype t);         // kernel_sdpav_1pass
KernelDef Softmax(Dtype t);
KernelDef LogSumExp(Dtype t);

// ---- reductions, sort, scan, random, indexing ---------------------------------------------
KernelDef RowReduce(std::string_view op, Dtype t);
KernelDef ColReduce(std::string_view op, Dtype t);
KernelDef ArgReduceFinal(Dtype t);
KernelDef BlockSort(Dtype t);  // single-block argsort / argpartition
// Multi-block (full-vocabulary) sort stages: "mb_block_sort", "mb_block_partition",
// "mb_block_merge".
KernelDef MultiBlockSort(std::string_view stage, Dtype t);
KernelDef Scan(std::string_view op, Dtype t);
KernelDef RandomBits();
KernelDef GatherRows(Dtype t);  // embedding row gather (name contains `gather_rows`)
KernelDef GatherAxis(Dtype t);  // take_along_axis
KernelDef ScatterAxis(Dtype t);
KernelDef AffineDequantize(Dtype t);
KernelDef DepthwiseConv1d(Dtype t);

// ---- HIP runtime blit kernels (model load) ------------------------------------------------
KernelDef RocclrCopyBuffer();
KernelDef RocclrFillBuffer();

// Interns kernels by name. Index order = first-use order; the trace's Kernel_Id is derived
// from it.
class KernelTable {
 public:
  // Returns the index of `def.name`, adding `def` when the name is new.
  uint32_t Intern(KernelDef def);
  const KernelDef& at(uint32_t index) const { return defs_[index]; }
  size_t size() const { return defs_.size(); }

 private:
  std::vector<KernelDef> defs_;
  std::unordered_map<std::string, uint32_t> index_;
};

}  // namespace decodeprof::bench
