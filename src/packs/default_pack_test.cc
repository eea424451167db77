// packs::DefaultPackFor: the built-in pack a trace gets from its kernel names.
#include "src/packs/default_pack.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/base/parallel.h"
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

// ggml-cuda's names as CUPTI wrote them on the H200 (llama.cpp decoding Llama-3.2-1B in f16,
// benchmarks/h200/finder-2026-12-03; parameter lists shortened), and one of cuBLAS's that
// llama.cpp calls for its prefill.
constexpr std::string_view kGgmlGemv =
    "void mul_mat_vec_f<__half, __half, 1, 256, false, false>(__half const*, float const*, int "
    "const*, ggml_cuda_mm_fusion_args_device, float*, int, uint3, int)";
constexpr std::string_view kGgmlGemvFused =
    "void mul_mat_vec_f<__half, float, 1, 256, true, false>(__half const*, float const*, int "
    "const*, ggml_cuda_mm_fusion_args_device, float*, int, uint3, int)";
constexpr std::string_view kGgmlNorm =
    "void rms_norm_f32<1024, true, false>(float const*, float*, int, long, long, long, float)";
constexpr std::string_view kGgmlFattn =
    "void flash_attn_ext_vec<64, 1, (ggml_type)1, (ggml_type)1, false>(char const*, char const*)";
constexpr std::string_view kGgmlCombine =
    "void flash_attn_combine_results<64>(float const*, float2 const*, float*, int)";
constexpr std::string_view kGgmlSetRows =
    "void k_set_rows<float, long, __half>(float const*, long const*, __half*, long, long)";
constexpr std::string_view kGgmlRope =
    "void rope_norm<true, false, float, float>(float const*, float*, int, int, int, int)";
constexpr std::string_view kGgmlGetRows =
    "void k_get_rows_float<float, float>(float const*, int const*, float*, long, long, uint3)";
constexpr std::string_view kCutlassHgemm =
    "void cutlass::Kernel2<cutlass_80_tensorop_h16816gemm_128x64_64x6_tn_align8>(cutlass_80_"
    "tensorop_h16816gemm_128x64_64x6_tn_align8::Params)";

TEST(DefaultPackForTest, GgmlNamesChooseGgmlWithTheirEvidence) {
  // The recorded decode window's names and GPU times (ns over the window, rounded); the
  // prefill's cuBLAS GEMM counts for pytorch-cuda and loses to ggml's names.
  const std::vector<KernelTime> kernels = {
      {kGgmlGemv, 156'630'000},   {kGgmlGemvFused, 156'210'000}, {kGgmlNorm, 44'850'000},
      {kGgmlCombine, 25'310'000}, {kGgmlFattn, 22'540'000},      {kGgmlSetRows, 9'900'000},
      {kGgmlRope, 9'520'000},     {kGgmlGetRows, 1'590'000},     {kCutlassHgemm, 2'170'000},
      {kGgmlGemv, 1'000'000},  // a name seen twice counts once, its times add
  };
  const PackChoice c = DefaultPackFor(kernels, "native", "pytorch-cuda");
  EXPECT_EQ(c.pack, "ggml");
  EXPECT_EQ(c.matched, 8);
  EXPECT_EQ(c.names, 9);
  EXPECT_EQ(c.evidence,
            (std::vector<std::string>{"mul_mat_vec_f", "rms_norm_f32", "flash_attn_combine_results",
                                      "flash_attn_ext_vec"}));
  ASSERT_TRUE(c.share_pct.has_value());
  EXPECT_NEAR(*c.share_pct, 100.0 * (429.55 - 2.17) / 429.55, 0.01);
  EXPECT_EQ(c.weak, "");
  EXPECT_EQ(c.note,
            "pack ggml (chosen from the kernel names: 8 of 9 ggml kernels, 99.5 % of the GPU "
            "time: mul_mat_vec_f, rms_norm_f32, flash_attn_combine_results, flash_attn_ext_vec, "
            "...; --pack overrides)");
  // Whatever the format's default (ggml on HIP: a rocprofv3 trace).
  EXPECT_EQ(Choose({kGgmlGemv, kGgmlNorm, kGgmlFattn, kTensile}, "rocprofv3-csv", "mlx-rocm").pack,
            "ggml");
  EXPECT_TRUE(LoadPack("ggml").ok());
}

TEST(DefaultPackForTest, TheEvidenceNamesFunctions) {
  // A return type with expressions in its template arguments, an anonymous namespace, and a
  // name without parameters (B200 vLLM profile).
  const std::vector<KernelTime> kernels = {
      {"std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type "
       "vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, int)",
       30},
      {"void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 4>(x)", 20},
      {kNvjet, 10},
  };
  EXPECT_EQ(DefaultPackFor(kernels, "kineto-json", "pytorch-cuda").evidence,
            (std::vector<std::string>{"vllm::fused_add_rms_norm_kernel",
                                      "multimem_all_reduce_kernel", std::string(kNvjet)}));
}

TEST(DefaultPackForTest, ThinEvidenceIsWeak) {
  // Nothing recognized: the format's default, weak.
  EXPECT_EQ(Choose({"my_kernel"}, "native", "pytorch-cuda").weak,
            "no kernel name tells the engine");
  // Names that point to a pack, but little of the GPU time: the unknown kernel holds 90 % of
  // it.
  const std::vector<KernelTime> kernels = {
      {kGgmlGemv, 40}, {kGgmlNorm, 30}, {kGgmlFattn, 30}, {"my_big_kernel", 900}};
  const PackChoice small = DefaultPackFor(kernels, "native", "pytorch-cuda");
  EXPECT_EQ(small.pack, "ggml");
  ASSERT_TRUE(small.share_pct.has_value());
  EXPECT_DOUBLE_EQ(*small.share_pct, 10.0);
  EXPECT_EQ(small.weak, "the names that point to it are 10.0 % of the GPU time");
  // Without times there is no share, and one recognized name is enough.
  const PackChoice names = Choose({kGgmlGemv, "my_kernel"}, "native", "pytorch-cuda");
  EXPECT_FALSE(names.share_pct.has_value());
  EXPECT_EQ(names.weak, "");
}

TEST(DefaultPackForTest, AHipTraceOfACudaDefaultFormatDefaultsToPytorchRocm) {
  EXPECT_EQ(FormatDefaultFor("pytorch-cuda", trace::Runtime::kHip), "pytorch-rocm");
  EXPECT_EQ(FormatDefaultFor("pytorch-cuda", trace::Runtime::kCuda), "pytorch-cuda");
  EXPECT_EQ(FormatDefaultFor("pytorch-cuda", std::nullopt), "pytorch-cuda");
  EXPECT_EQ(FormatDefaultFor("mlx-rocm", trace::Runtime::kHip), "mlx-rocm");
  // PyTorch's own names alone then count for ROCm (a vLLM decode on ROCm whose window holds
  // only at::native kernels).
  EXPECT_EQ(Choose({kAtAdd, kAtMean}, "kineto-json (HIP)",
                   FormatDefaultFor("pytorch-cuda", trace::Runtime::kHip))
                .pack,
            "pytorch-rocm");
  // The Triton MoE of triton_kernels counts with PyTorch's and Triton's names.
  EXPECT_EQ(Choose({"_matmul_ogs_NNT_bf16xbf16xmxfp4_128x128x128x1_swiglu", kTensile, kAtAdd},
                   "kineto-json", "pytorch-cuda")
                .matched,
            3);
}

TEST(KernelTimesOfTest, DistinctKernelNamesWithTheirSummedDurations) {
  trace::StringPool pool;
  trace::DispatchVector dispatches;
  auto add = [&](std::string_view name, trace::DispatchKind kind, int64_t start, int64_t end) {
    trace::Dispatch d;
    d.name = pool.Intern(name);
    d.kind = kind;
    d.start = start;
    d.end = end;
    dispatches.push_back(d);
  };
  add("b_kernel", trace::DispatchKind::kKernel, 0, 10);
  add("[CUDA memcpy Host-to-Device]", trace::DispatchKind::kMemcpy, 10, 50);
  add("a_kernel", trace::DispatchKind::kKernel, 50, 55);
  add("b_kernel", trace::DispatchKind::kKernel, 60, 63);
  const std::vector<KernelTime> times = KernelTimesOf(dispatches, pool);
  ASSERT_EQ(times.size(), 2u);
  EXPECT_EQ(times[0].name, "b_kernel");
  EXPECT_EQ(times[0].ns, 13);
  EXPECT_EQ(times[1].name, "a_kernel");
  EXPECT_EQ(times[1].ns, 5);
}

// Over a window of several parts (base::ForParts): the names in the order one pass first
// meets them, wherever in the window that is, and the sums of one pass.
TEST(KernelTimesOfTest, ManyDispatchesGiveWhatOnePassGives) {
  trace::StringPool pool;
  trace::DispatchVector dispatches;
  const size_t n = 6 * (size_t{1} << 16) + 5;
  for (size_t i = 0; i < n; ++i) {
    trace::Dispatch d;
    // A name first met late in the window, one met only in the last dispatch, the rest cycling.
    const std::string name = i == n - 1   ? "last_kernel"
                             : i > n / 2  ? "k" + std::to_string(i % 7)
                             : i % 3 == 0 ? "early_kernel"
                                          : "k" + std::to_string(i % 5);
    d.name = pool.Intern(name);
    d.kind = i % 11 == 0 ? trace::DispatchKind::kMemcpy : trace::DispatchKind::kKernel;
    d.start = static_cast<int64_t>(i) * 10;
    d.end = d.start + static_cast<int64_t>(i % 13);
    dispatches.push_back(d);
  }
  std::vector<std::pair<std::string_view, int64_t>> one_pass;
  for (const trace::Dispatch& d : dispatches) {
    if (d.kind != trace::DispatchKind::kKernel) continue;
    auto it = std::find_if(one_pass.begin(), one_pass.end(),
                           [&](const auto& e) { return e.first == pool.Get(d.name); });
    if (it == one_pass.end()) it = one_pass.insert(one_pass.end(), {pool.Get(d.name), 0});
    it->second += d.duration();
  }
  const std::vector<KernelTime> times = KernelTimesOf(dispatches, pool);
  ASSERT_EQ(times.size(), one_pass.size());
  for (size_t k = 0; k < times.size(); ++k) {
    EXPECT_EQ(times[k].name, one_pass[k].first) << k;
    EXPECT_EQ(times[k].ns, one_pass[k].second) << k;
  }
  EXPECT_EQ(times.back().name, "last_kernel");
}

TEST(KernelTimesOfTest, ManyNamesGiveWhatOnePassGives) {
  // More names than a part of the pass takes a few dispatches each of: the pass runs in fewer
  // parts (base::MinPartForNames), each still summing the names it meets in first-seen order.
  trace::StringPool pool;
  trace::DispatchVector dispatches;
  const size_t names = 40000;
  const size_t n = 4 * base::MinPartForNames(names) + 3;
  for (size_t i = 0; i < n; ++i) {
    trace::Dispatch d;
    // Names in an order that differs from their ids, and each first met in a different part.
    d.name = pool.Intern("k" + std::to_string((i * 7919) % names));
    d.kind = trace::DispatchKind::kKernel;
    d.start = static_cast<int64_t>(i) * 10;
    d.end = d.start + static_cast<int64_t>(i % 17);
    dispatches.push_back(d);
  }
  std::vector<int64_t> sums(pool.size(), 0);
  std::vector<bool> seen(pool.size(), false);
  std::vector<trace::StringId> order;
  for (const trace::Dispatch& d : dispatches) {
    if (!seen[d.name]) order.push_back(d.name);
    seen[d.name] = true;
    sums[d.name] += d.duration();
  }
  const std::vector<KernelTime> times = KernelTimesOf(dispatches, pool);
  ASSERT_EQ(times.size(), order.size());
  for (size_t k = 0; k < times.size(); ++k) {
    EXPECT_EQ(times[k].name, pool.Get(order[k])) << k;
    EXPECT_EQ(times[k].ns, sums[order[k]]) << k;
  }
}

TEST(KernelNamesOfTest, DistinctKernelNamesInFirstOrderWithoutMemoryOperations) {
  trace::StringPool pool;
  trace::DispatchVector dispatches;
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
