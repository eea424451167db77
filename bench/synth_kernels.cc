#include "bench/synth_kernels.h"

#include <string>
#include <utility>

namespace decodeprof::bench {
namespace {

constexpr std::string_view kNs = "mlx::core::rocm::";

std::string T(Dtype t) { return std::string(DtypeName(t)); }

// Elements per thread of MLX's vectorized elementwise kernels: 16 bytes per load.
std::string Reads(Dtype t) {
  switch (t) {
    case Dtype::kF16:
    case Dtype::kBf16:
      return "8";
    case Dtype::kBool:
      return "16";
    default:
      return "4";
  }
}

// "void mlx::core::rocm::<base><targs>(<args>)": the demangled form of a function template.
std::string Tmpl(std::string_view base, const std::string& targs, const std::string& args) {
  std::string s = "void ";
  s += kNs;
  s += base;
  s += '<';
  s += targs;
  s += ">(";
  s += args;
  s += ')';
  return s;
}

std::string Functor(std::string_view op) { return std::string(kNs) + std::string(op); }

const std::string kArr8Int = "mlx::core::rocm::hip_array<int, 8>";
const std::string kArr8Long = "mlx::core::rocm::hip_array<long, 8>";

KernelDef Def(std::string name, uint32_t vgpr, uint32_t sgpr, uint32_t lds = 0, uint32_t wg_x = 256,
              uint32_t wg_y = 1) {
  KernelDef d;
  d.name = std::move(name);
  d.vgpr = vgpr;
  d.sgpr = sgpr;
  d.lds = lds;
  d.wg_x = wg_x;
  d.wg_y = wg_y;
  return d;
}

}  // namespace

std::string_view DtypeName(Dtype t) {
  switch (t) {
    case Dtype::kF16:
      return "__half";
    case Dtype::kBf16:
      return "hip_bfloat16";
    case Dtype::kF32:
      return "float";
    case Dtype::kU32:
      return "unsigned int";
    case Dtype::kI32:
      return "int";
    case Dtype::kBool:
      return "bool";
  }
  return "float";
}

KernelDef QmvWide(Dtype t) {
  const std::string x = T(t);
  return Def(Tmpl("qmv_wide_kernel", x + ", 64, 4, false",
                  x + " const*, unsigned int const*, " + x + " const*, " + x + " const*, " + x +
                      "*, int, int"),
             64, 40, 0, 32, 8);
}

KernelDef GatherQmvWide(Dtype t) {
  const std::string x = T(t);
  return Def(
      Tmpl("gather_qmv_wide_kernel", x + ", 64, 4",
           x + " const*, unsigned int const*, " + x + " const*, " + x +
               " const*, unsigned int const*, unsigned int const*, " + x + "*, int, int, int"),
      72, 48, 0, 32, 8);
}

KernelDef QmmT(Dtype t) {
  const std::string x = T(t);
  return Def(Tmpl("qmm_t_kernel", x + ", 64, 4, 64, 64, 32",
                  x + " const*, unsigned int const*, " + x + " const*, " + x + " const*, " + x +
                      "*, int, int, int"),
             128, 56, 16384, 128);
}

KernelDef GatherQmmT(Dtype t) {
  const std::string x = T(t);
  return Def(
      Tmpl("gather_qmm_t_kernel", x + ", 64, 4, 64, 64, 32",
           x + " const*, unsigned int const*, " + x + " const*, " + x +
               " const*, unsigned int const*, unsigned int const*, " + x + "*, int, int, int, int"),
      128, 64, 16384, 128);
}

KernelDef GemvBatched(Dtype t) {
  const std::string x = T(t);
  return Def(Tmpl("gemv_batched_inline", x + ", 4, 64",
                  x + " const*, " + x + " const*, " + x + "*, int, int, long, long"),
             48, 32, 0, 64, 4);
}

KernelDef TensileGemm(Dtype t, bool transpose_b) {
  const std::string types = t == Dtype::kF16 ? "HHS" : "BBS";
  std::string name = std::string("Cijk_Alik_") + (transpose_b ? "Bljk_" : "Bjlk_") + types +
                     "_BH_MT64x64x32_MI16x16x16x1_SN_1LDSB0_AFC1_AFEM1_ASEM1_CLR0_CADS0_EPS1_"
                     "GRVW8_GSU1_GSUASB_GLS0_ISA1151_IU1_K1_KLA_LBSPP128_LPA0_LPB8_LDL1_LRVW8_"
                     "MIAV1_MDA2_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA1_NLCB1_ONLL1_PGR2_"
                     "PLR1_PKA1_SIA3_SS1_SU32_SUM0_SUS128_SVW4_SNLL0_TT1_64_TLDS1_VAW2_VSn1_VW1_"
                     "WSGRA0_WSGRB0_WS32_WG64_4_1_WGM8";
  return Def(std::move(name), 128, 96, 8192, 256);
}

KernelDef Binary(std::string_view variant, std::string_view op, Dtype in, Dtype out) {
  const std::string a = T(in);
  const std::string o = T(out);
  const std::string base = "binary_" + std::string(variant);
  if (variant == "g") {
    return Def(Tmpl(base, Functor(op) + ", " + a + ", " + o + ", long, 4",
                    a + " const*, " + a + " const*, " + o + "*, long, " + kArr8Int + ", " +
                        kArr8Long + ", " + kArr8Long + ", int"),
               24, 24);
  }
  return Def(Tmpl(base, Functor(op) + ", " + a + ", " + o + ", unsigned int, " + Reads(in),
                  a + " const*, " + a + " const*, " + o + "*, unsigned int"),
             16, 16);
}

KernelDef Unary(std::string_view op, Dtype in, Dtype out) {
  const std::string a = T(in);
  const std::string o = T(out);
  return Def(Tmpl("unary_v", Functor(op) + ", " + a + ", " + o + ", unsigned int, " + Reads(in),
                  a + " const*, " + o + "*, unsigned int"),
             16, 16);
}

KernelDef Ternary(std::string_view op, Dtype t) {
  const std::string a = T(t);
  return Def(Tmpl("ternary_v", Functor(op) + ", " + a + ", unsigned int, " + Reads(t),
                  "bool const*, " + a + " const*, " + a + " const*, " + a + "*, unsigned int"),
             20, 16);
}

KernelDef CopyV(Dtype in, Dtype out) {
  const std::string a = T(in);
  const std::string o = T(out);
  return Def(Tmpl("copy_v", a + ", " + o + ", unsigned int, " + Reads(in),
                  a + " const*, " + o + "*, unsigned int"),
             12, 16);
}

KernelDef CopyG(Dtype in, Dtype out) {
  const std::string a = T(in);
  const std::string o = T(out);
  return Def(Tmpl("copy_g", a + ", " + o + ", long, 4",
                  a + " const*, " + o + "*, long, " + kArr8Int + ", " + kArr8Long + ", int"),
             20, 24);
}

KernelDef CopyGgByval(Dtype in, Dtype out) {
  const std::string a = T(in);
  const std::string o = T(out);
  return Def(Tmpl("copy_gg_byval", a + ", " + o + ", long, 4",
                  a + " const*, " + o + "*, long, " + kArr8Int + ", " + kArr8Long + ", " +
                      kArr8Long + ", int"),
             24, 32);
}

KernelDef Arange(Dtype t) {
  const std::string a = T(t);
  return Def(Tmpl("arange_kernel", a, a + "*, " + a + ", " + a + ", unsigned int"), 8, 16);
}

KernelDef Compiled(std::string_view ops, uint64_t hash, int inputs, Dtype t) {
  const std::string a = T(t);
  std::string args;
  for (int i = 0; i < inputs; ++i) args += a + " const*, ";
  args += a + "*, unsigned int";
  std::string base = std::string(ops) + "_" + std::to_string(hash) + "_contiguous";
  return Def(Tmpl(base, "unsigned int, 4", args), 24, 24);
}

KernelDef RmsNorm(Dtype t) {
  const std::string a = T(t);
  return Def(Tmpl("rms_norm_kernel", a + ", 256, 4",
                  a + " const*, " + a + " const*, " + a + "*, float, int, long"),
             32, 24, 64);
}

KernelDef RopeSingle(Dtype t, bool freqs) {
  const std::string a = T(t);
  const std::string arr2 = "mlx::core::rocm::hip_array<long, 2>";
  if (freqs) {
    return Def(
        Tmpl("rope_single_freqs_1d", a + ", false",
             a + " const*, " + a + "*, int const*, float, float const*, long, " + arr2 + ", long"),
        24, 24);
  }
  return Def(Tmpl("rope_single_1d", a + ", false, false",
                  a + " const*, " + a + "*, int const*, float, float, long, " + arr2),
             24, 24);
}

KernelDef SdpaVector1Pass(Dtype t) {
  const std::string a = T(t);
  return Def(Tmpl("kernel_sdpav_1pass", a + ", true, 128",
                  a + " const*, " + a + " const*, " + a + " const*, " + a +
                      "*, mlx::core::rocm::AttnParams"),
             96, 48, 4096, 32, 4);
}

KernelDef Softmax(Dtype t) {
  const std::string a = T(t);
  return Def(Tmpl("softmax_kernel", a + ", float, 256, 4", a + " const*, " + a + "*, int"), 32, 24,
             64);
}

KernelDef LogSumExp(Dtype t) {
  const std::string a = T(t);
  return Def(Tmpl("logsumexp_kernel", a + ", float, 256, 4", a + " const*, " + a + "*, int"), 32,
             24, 64);
}

KernelDef RowReduce(std::string_view op, Dtype t) {
  const std::string a = T(t);
  return Def(Tmpl("row_reduce_simple", a + ", " + a + ", " + Functor(op) + ", 4, 256",
                  a + " const*, " + a + "*, unsigned long, int"),
             28, 24, 32);
}

KernelDef ColReduce(std::string_view op, Dtype t) {
  const std::string a = T(t);
  return Def(Tmpl("col_reduce_small", a + ", " + a + ", " + Functor(op) + ", 4, 256",
                  a + " const*, " + a + "*, mlx::core::rocm::ColReduceArgs"),
             28, 32, 32);
}

KernelDef ArgReduceFinal(Dtype t) {
  const std::string a = T(t);
  return Def(Tmpl("arg_reduce_final", a + ", mlx::core::rocm::ArgMax<" + a + ">, 256, 4",
                  a + " const*, unsigned int*, long, " + kArr8Int + ", " + kArr8Long + ", " +
                      kArr8Long + ", int, long, long"),
             32, 32, 64);
}

KernelDef BlockSort(Dtype t) {
  const std::string a = T(t);
  return Def(Tmpl("block_sort_kernel", a + ", unsigned int, true, 256, 4",
                  a + " const*, unsigned int*, int, long, long, long, long"),
             64, 32, 8192);
}

KernelDef MultiBlockSort(std::string_view stage, Dtype t) {
  const std::string a = T(t);
  return Def(Tmpl(std::string(stage) + "_kernel", a + ", unsigned int, true, 256, 8",
                  a + " const*, " + a + "*, unsigned int*, int, long, long"),
             80, 40, 16384);
}

KernelDef Scan(std::string_view op, Dtype t) {
  const std::string a = T(t);
  return Def(Tmpl("contiguous_scan", a + ", " + a + ", " + Functor(op) + ", 4, false, false",
                  a + " const*, " + a + "*, int"),
             32, 24, 128);
}

KernelDef RandomBits() {
  // A plain (non-template) kernel: the demangled name carries no return type.
  return Def(std::string(kNs) +
                 "rbitsc(unsigned int const*, unsigned char*, "
                 "mlx::core::rocm::hip_array<int, 2>, bool, int)",
             24, 24);
}

KernelDef GatherRows(Dtype t) {
  const std::string a = T(t);
  return Def(Tmpl("gather_rows_kernel", a + ", unsigned int",
                  a + " const*, unsigned int const*, " + a + "*, long, long"),
             16, 24);
}

KernelDef GatherAxis(Dtype t) {
  const std::string a = T(t);
  return Def(Tmpl("gather_axis_kernel", a + ", unsigned int, true, true, 2, int",
                  a + " const*, unsigned int const*, " + a + "*, int, " + kArr8Int + ", " +
                      kArr8Long + ", " + kArr8Long + ", int"),
             20, 32);
}

KernelDef ScatterAxis(Dtype t) {
  const std::string a = T(t);
  return Def(Tmpl("scatter_axis_kernel",
                  "mlx::core::rocm::ScatterAssign, " + a + ", unsigned int, true, true, 2, int",
                  a + " const*, unsigned int const*, " + a + "*, int, " + kArr8Int + ", " +
                      kArr8Long + ", " + kArr8Long + ", int"),
             20, 32);
}

KernelDef AffineDequantize(Dtype t) {
  const std::string a = T(t);
  return Def(Tmpl("affine_dequantize_packed_kernel", a + ", 64, 4",
                  "unsigned int const*, " + a + " const*, " + a + " const*, " + a + "*, long"),
             24, 24);
}

KernelDef DepthwiseConv1d(Dtype t) {
  const std::string a = T(t);
  return Def(Tmpl("depthwise_conv1d_kernel", a + ", 4",
                  a + " const*, " + a + " const*, " + a + "*, int, int, int"),
             32, 24);
}

KernelDef RocclrCopyBuffer() { return Def("__amd_rocclr_copyBuffer", 16, 48, 0, 512); }

KernelDef RocclrFillBuffer() { return Def("__amd_rocclr_fillBufferAligned", 12, 40, 0, 256); }

uint32_t KernelTable::Intern(KernelDef def) {
  auto it = index_.find(def.name);
  if (it != index_.end()) return it->second;
  const auto index = static_cast<uint32_t>(defs_.size());
  index_.emplace(def.name, index);
  defs_.push_back(std::move(def));
  return index;
}

}  // namespace decodeprof::bench
