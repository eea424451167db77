// packs::DefaultPackFor: the built-in pack a trace gets from its kernel names.
#include "src/packs/default_pack.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "src/packs/pack_loader.h"

namespace decodeprof::packs {
namespace {

// Names as the tracers write them (rocprofv3 demangles; the MLX names are the seed's, the
// others those of src/packs/pytorch_rocm_pack_test.cc and tests/golden/classify).
constexpr std::string_view kMlxQmv = "void mlx::core::rocm::qmv_wide_kernel<__half, 64, 4>(x)";
constexpr std::string_view kMlxNorm = "void mlx::core::rocm::rms_norm_kernel<__half, 256, 4>(x)";
constexpr std::string_view kMlxCopy =
    "void mlx::core::rocm::copy_gg_byval<__half, __half, long>(x)";
constexpr std::string_view kTensile =
    "Cijk_Alik_Bljk_HHS_BH_MT64x64x32_MI16x16x16x1_SN_1LDSB0_APM1_ABV0_ACED0";
constexpr std::string_view kRocclr = "__amd_rocclr_copyBuffer";
constexpr std::string_view kHipblaslt =
    "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT16x16x1024_MI16x16x1_SN_LDSB1_AFC0";
constexpr std::string_view kPostGsu = "Cijk_SS_BiasS_HAS_ScaleAlphaVec_PostGSU16_VW1";
constexpr std::string_view kCk =
    "void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<x>, true>(x)";
constexpr std::string_view kAiter =
    "_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256ELi32ELb0ELb0ELb1ELi1EEEvPT0_PT_PfS4_"
    "S4_S4_diiiiiiib";
constexpr std::string_view kAtAdd =
    "void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>,"
    " std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*,"
    " 3ul>)";
constexpr std::string_view kAtMean =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float,"
    " float, float, float>, unsigned int, float, 4, 4> >(x)";
constexpr std::string_view kTritonPoi = "triton_poi_fused_add_mean_mul_pow_rsqrt_2";
constexpr std::string_view kTritonRed = "triton_red_fused__to_copy_mean_pow_view_0";
constexpr std::string_view kNvjet = "nvjet_sm90_tst_64x8_64x16_2x1_v_bz_TNT";
constexpr std::string_view kCudnn =
    "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_3_64x64x128_4x1x1_cga1x1x1_"
    "kernel0_0";
constexpr std::string_view kCub =
    "void at_cuda_detail::cub::detail::scan::DeviceScanKernel<x>(float const*, float*)";
constexpr std::string_view kCutlass =
    "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_tn_align1>(x)";
constexpr std::string_view kHipcub = "void hipcub::detail::something_kernel<float>(x)";

PackChoice Choose(const std::vector<std::string_view>& names, std::string_view format,
                  std::string_view format_default) {
  return DefaultPackFor(names, format, format_default);
}

TEST(DefaultPackForTest, MlxNamesChooseMlxRocmOverTheRocmLibrariesMlxCalls) {
  // An MLX trace also holds Tensile GEMMs and the HIP runtime's blits: MLX's own names win.
  const PackChoice c = Choose({kMlxQmv, kMlxNorm, kMlxCopy, kTensile, kRocclr, kMlxQmv},
                              "rocprofv3-csv", "mlx-rocm");
  EXPECT_EQ(c.pack, "mlx-rocm");
  EXPECT_EQ(c.matched, 3);
  EXPECT_EQ(c.names, 5);  // the repeated name counts once
  EXPECT_EQ(c.note,
            "pack mlx-rocm (chosen from the kernel names: 3 of 5 MLX kernels; --pack overrides)");
  // The format does not matter: MLX names in a native trace get mlx-rocm too.
  EXPECT_EQ(Choose({kMlxQmv, kMlxNorm}, "native", "pytorch-cuda").pack, "mlx-rocm");
}

TEST(DefaultPackForTest, RocmLibraryAndPytorchNamesChooseThePytorchRocmPack) {
  const PackChoice c = Choose({kHipblaslt, kPostGsu, kCk, kAiter, kAtAdd, kAtMean, kTritonPoi},
                              "rocprofv3-csv", "mlx-rocm");
  EXPECT_EQ(c.pack, "pytorch-rocm");
  EXPECT_EQ(c.matched, 7);
  EXPECT_EQ(c.note,
            "pack pytorch-rocm (chosen from the kernel names: 7 of 7 ROCm library and PyTorch / "
            "Triton kernels; --pack overrides)");
  // In a format whose default is pytorch-cuda (native, Kineto), the ROCm names still decide,
  // and PyTorch's names count with them.
  const PackChoice native = Choose({kHipblaslt, kAtAdd, kAtMean}, "native", "pytorch-cuda");
  EXPECT_EQ(native.pack, "pytorch-rocm");
  EXPECT_EQ(native.matched, 3);
  // Library names alone.
  EXPECT_EQ(Choose({kTensile, kRocclr}, "kineto-json", "pytorch-cuda").note,
            "pack pytorch-rocm (chosen from the kernel names: 2 of 2 ROCm library kernels; "
            "--pack overrides)");
}

TEST(DefaultPackForTest, CudaNamesChooseThePytorchCudaPack) {
  const PackChoice c = Choose({kNvjet, kCudnn, kCub, kCutlass, kAtAdd, kAtMean, kTritonRed},
                              "kineto-json", "pytorch-cuda");
  EXPECT_EQ(c.pack, "pytorch-cuda");
  EXPECT_EQ(c.matched, 7);
  EXPECT_EQ(c.note,
            "pack pytorch-cuda (chosen from the kernel names: 7 of 7 CUDA library and PyTorch / "
            "Triton kernels; --pack overrides)");
  // CUDA names in a rocprofv3 CSV (an odd file, but the names are what counts).
  EXPECT_EQ(Choose({kNvjet, kAtAdd}, "rocprofv3-csv", "mlx-rocm").pack, "pytorch-cuda");
  // hipCUB is ROCm's, not CUB.
  EXPECT_EQ(Choose({kHipcub}, "native", "pytorch-cuda").pack, "pytorch-rocm");
}

TEST(DefaultPackForTest, PytorchAndTritonNamesAloneFollowTheFormatsPlatform) {
  // Triton and at::native kernels run on both platforms: a ROCm format (rocprofv3, whose
  // default is mlx-rocm) makes them PyTorch on ROCm; a CUDA one PyTorch on CUDA.
  const PackChoice rocm = Choose({kTritonPoi, kTritonRed, kAtAdd}, "rocprofv3-csv", "mlx-rocm");
  EXPECT_EQ(rocm.pack, "pytorch-rocm");
  EXPECT_EQ(rocm.note,
            "pack pytorch-rocm (chosen from the kernel names: 3 of 3 PyTorch / Triton kernels on "
            "a rocprofv3-csv trace; --pack overrides)");
  const PackChoice cuda = Choose({kTritonPoi, kAtMean}, "nsys-sqlite", "pytorch-cuda");
  EXPECT_EQ(cuda.pack, "pytorch-cuda");
  EXPECT_EQ(cuda.note,
            "pack pytorch-cuda (chosen from the kernel names: 2 of 2 PyTorch / Triton kernels on "
            "a nsys-sqlite trace; --pack overrides)");
  // One ROCm library name settles the platform for the rest.
  EXPECT_EQ(Choose({kTritonPoi, kAtMean, kRocclr}, "native", "pytorch-cuda").pack, "pytorch-rocm");
}

TEST(DefaultPackForTest, UnrecognizableNamesKeepTheFormatsDefault) {
  const PackChoice c = Choose({"my_kernel", "other_kernel"}, "rocprofv3-csv", "mlx-rocm");
  EXPECT_EQ(c.pack, "mlx-rocm");
  EXPECT_EQ(c.matched, 0);
  EXPECT_EQ(c.names, 2);
  EXPECT_EQ(c.note,
            "pack mlx-rocm (the default for rocprofv3-csv traces: no kernel name tells the "
            "engine; --pack overrides)");
  const PackChoice none = Choose({}, "native", "pytorch-cuda");
  EXPECT_EQ(none.pack, "pytorch-cuda");
  EXPECT_EQ(none.names, 0);
}

TEST(DefaultPackForTest, TiesGoToTheFormatsDefaultThenInOrder) {
  // One MLX name, one ROCm library name: the format's default wins when it is among them...
  EXPECT_EQ(Choose({kMlxQmv, kTensile}, "rocprofv3-csv", "mlx-rocm").pack, "mlx-rocm");
  EXPECT_EQ(Choose({kMlxQmv, kTensile}, "x", "pytorch-rocm").pack, "pytorch-rocm");
  // ...else the first of mlx-rocm, pytorch-rocm, pytorch-cuda.
  EXPECT_EQ(Choose({kMlxQmv, kTensile}, "native", "pytorch-cuda").pack, "mlx-rocm");
  EXPECT_EQ(Choose({kTensile, kNvjet}, "rocprofv3-csv", "mlx-rocm").pack, "pytorch-rocm");
  EXPECT_EQ(Choose({kTensile, kNvjet}, "native", "pytorch-cuda").pack, "pytorch-cuda");
}

TEST(DefaultPackForTest, EveryChoiceIsABuiltinPack) {
  for (const auto& names : std::vector<std::vector<std::string_view>>{
           {kMlxQmv}, {kTensile}, {kNvjet}, {kTritonPoi}, {"x"}}) {
    for (const std::string_view format_default : {"mlx-rocm", "pytorch-cuda"}) {
      const PackChoice c = Choose(names, "f", format_default);
      EXPECT_TRUE(LoadPack(c.pack).ok()) << c.pack;
    }
  }
}

TEST(KernelNamesOfTest, DistinctKernelNamesInFirstOrderWithoutMemoryOperations) {
  trace::StringPool pool;
  std::vector<trace::Dispatch> dispatches;
  auto add = [&](std::string_view name, trace::DispatchKind kind) {
    trace::Dispatch d;
    d.name = pool.Intern(name);
    d.kind = kind;
    dispatches.push_back(d);
  };
  pool.Intern("hipLaunchKernel");  // a string of the pool that no dispatch names
  add("b_kernel", trace::DispatchKind::kKernel);
  add("[CUDA memcpy HtoD]", trace::DispatchKind::kMemcpy);
  add("a_kernel", trace::DispatchKind::kKernel);
  add("b_kernel", trace::DispatchKind::kKernel);
  add("[CUDA memset]", trace::DispatchKind::kMemset);
  EXPECT_EQ(KernelNamesOf(dispatches, pool),
            (std::vector<std::string_view>{"b_kernel", "a_kernel"}));
  EXPECT_TRUE(KernelNamesOf({}, pool).empty());
}

}  // namespace
}  // namespace decodeprof::packs
