#include "src/report/cuda_short_name.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/report/short_name.h"

namespace decodeprof::report {
namespace {

TEST(CudaShortKernelNameTest, ShortMangledNamesAreDemangledFirst) {
  // g++'s mangling of vectorized_elementwise_kernel<4, CUDAFunctor_add<c10::BFloat16>,
  // std::array<char*, 3>>(int, ...): demangled, then the PyTorch rules apply.
  EXPECT_EQ(ShortKernelName("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_"
                            "addIN3c108BFloat16EEESt5arrayIPcLm3EEEEviT0_T1_"),
            "vectorized_elementwise_kernel<CUDAFunctor_add<bf16>>");
  EXPECT_EQ(ShortKernelName("_ZN5flash16flash_fwd_kernelINS_6TraitsIfEEEEvi"),
            "flash_fwd_kernel<Traits<f32>>");
}

TEST(CudaShortKernelNameTest, MangledNamesThatDoNotDemangleGetTheirQualifiedName) {
  EXPECT_EQ(ShortKernelName("_ZN5flash16flash_fwd_kernelI@@@"), "flash::flash_fwd_kernel<...>");
  EXPECT_EQ(ShortKernelName("_ZN12_GLOBAL__N_16kernelEv@"), "(anonymous namespace)::kernel");
  EXPECT_EQ(ShortKernelName("_Z6triton@"), "triton");
  EXPECT_EQ(ShortKernelName("_ZNSt6vectorI@"), "std::vector<...>");
  EXPECT_EQ(ShortKernelName("_Z"), "_Z");
  EXPECT_EQ(ShortKernelName("_ZN"), "_ZN");
  EXPECT_EQ(ShortKernelName("_ZN99999999999999999999999abc"), "_ZN99999999999999999999999abc");
  EXPECT_EQ(ShortKernelName("_ZN0x"), "_ZN0x");
  const std::string long_mangled = "_Z" + std::string(200, 'Q');
  EXPECT_EQ(ShortKernelName(long_mangled), long_mangled.substr(0, 77) + "...");
}

TEST(CudaShortKernelNameTest, NamesWithoutParenthesesStayAsTheyAreUpToEightyCharacters) {
  EXPECT_EQ(ShortKernelName("nvjet_sm90_tst_64x8_64x16_2x1_v_bz_TNT"),
            "nvjet_sm90_tst_64x8_64x16_2x1_v_bz_TNT");
  EXPECT_EQ(ShortKernelName("triton_poi_fused_add_mul_0"), "triton_poi_fused_add_mul_0");
  // 100 characters: the first 77 and "...".
  const std::string cudnn =
      "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_3_64x64x128_4x1x1_cga1x1x1_"
      "kernel0_0";
  EXPECT_EQ(ShortKernelName(cudnn),
            "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_3_64x64x128_4...");
  EXPECT_EQ(ShortKernelName(cudnn).size(), kMaxCudaShortNameChars);
  const std::string eighty = "cutlass_" + std::string(72, 'x');
  EXPECT_EQ(ShortKernelName(eighty), eighty);
  // Characters, not bytes: 79 ASCII + one two-byte "é" is 80 characters and stays.
  const std::string accented = "nvjet_" + std::string(73, 'x') + "\xc3\xa9";
  EXPECT_EQ(ShortKernelName(accented), accented);
  EXPECT_EQ(ShortKernelName(accented + "y"), accented.substr(0, 77) + "...");
}

TEST(CudaShortKernelNameTest, MarkersDecideWhichRulesApply) {
  EXPECT_TRUE(HasCudaKernelMarker("void at::native::foo<float>(float)"));
  EXPECT_TRUE(HasCudaKernelMarker("void at::cuda::foo()"));
  EXPECT_TRUE(HasCudaKernelMarker("nvjet_x"));
  EXPECT_TRUE(HasCudaKernelMarker("cudnn_x"));
  EXPECT_TRUE(HasCudaKernelMarker("cublasLt::x"));
  EXPECT_TRUE(HasCudaKernelMarker("cutlass_x"));
  EXPECT_TRUE(HasCudaKernelMarker("void x::cub::y()"));
  EXPECT_TRUE(HasCudaKernelMarker("void flash::fwd()"));
  EXPECT_TRUE(HasCudaKernelMarker("triton_poi_0"));
  EXPECT_TRUE(HasCudaKernelMarker("_Zfoo"));
  // ROCm and MLX names keep the seed's rules, even with a CUDA-looking part.
  EXPECT_FALSE(
      HasCudaKernelMarker("void mlx::core::rocm::binary_vv<mlx::core::rocm::Add, float, "
                          "float>(float const*)"));
  EXPECT_FALSE(HasCudaKernelMarker("void mlx::core::rocm::flash_attn<float>(float)"));
  EXPECT_FALSE(HasCudaKernelMarker("Cijk_Ailk_Bljk_cutlass"));
  EXPECT_FALSE(HasCudaKernelMarker("xCijk_nvjet"));
  EXPECT_FALSE(
      HasCudaKernelMarker("void (anonymous namespace)::softmax_warp_forward<float>(float*)"));
  EXPECT_FALSE(HasCudaKernelMarker("_zfoo"));
  EXPECT_FALSE(HasCudaKernelMarker(""));
  // Without a marker the seed's rule applies (and already reads well).
  EXPECT_EQ(ShortKernelName("void (anonymous namespace)::softmax_warp_forward<float, float, float, "
                            "3, false, false>(float*, float const*, int, int, int, bool const*, "
                            "int, bool)"),
            "softmax_warp_forward<f32>");
  EXPECT_EQ(ShortKernelName("void mlx::core::rocm::flash_attn<__half>(int)"), "flash_attn<f16>");
}

TEST(CudaShortKernelNameTest, ElementTypes) {
  const std::vector<std::pair<std::string_view, std::string_view>> cases = {
      {"void at::native::k<c10::Half>(int)", "k<f16>"},
      {"void at::native::k<__half>(int)", "k<f16>"},
      {"void at::native::k<cutlass::half_t>(int)", "k<f16>"},
      {"void at::native::k<c10::Float8_e4m3fn>(int)", "k<fp8e4m3>"},
      {"void at::native::k<c10::Float8_e5m2>(int)", "k<fp8e5m2>"},
      {"void at::native::k<double>(int)", "k<f64>"},
      {"void at::native::k<unsigned int>(int)", "k<u32>"},
      {"void at::native::k<unsigned long>(int)", "k<u64>"},
      {"void at::native::k<unsigned long long>(int)", "k<u64>"},
      {"void at::native::k<long long>(int)", "k<i64>"},
      {"void at::native::k<unsigned char>(int)", "k<u8>"},
      {"void at::native::k<signed char>(int)", "k<i8>"},
      {"void at::native::k<short>(int)", "k<i16>"},
      {"void at::native::k<int64_t>(int)", "k<i64>"},
      {"void at::native::k<uint8_t>(int)", "k<u8>"},
      {"void at::native::k<char>(int)", "k"},
      {"void at::native::k<at::native::OpaqueType<16> >(int)", "k<16B>"},
      {"void at::native::k<at::native::OpaqueType<12345> >(int)", "k"},
      // A 16-bit float anywhere wins over a float met first (the accumulate type).
      {"void at::native::k<int, float, c10::BFloat16>(int)", "k<bf16>"},
      // Whole words only: uint32x, Int, floater are no element types.
      {"void at::native::k<uint32x, Int, floater>(int)", "k<uint32x>"},
  };
  for (const auto& [name, expected] : cases) EXPECT_EQ(CudaShortKernelName(name), expected) << name;
}

TEST(CudaShortKernelNameTest, OpsAndWrappers) {
  const std::vector<std::pair<std::string_view, std::string_view>> cases = {
      // The seed's rule gave `vectorized_elementwise_kernel` here.
      {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::BFloat16>, "
       "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<c10::BFloat16>, "
       "at::detail::Array<char*, 1>)",
       "vectorized_elementwise_kernel<FillFunctor<bf16>>"},
      {"void at::native::k<at::native::BinaryFunctor<float, float, float, float> >(int)",
       "k<BinaryFunctor<f32>>"},
      {"void at::native::k<at::native::S<float>::operator()(int)::{lambda(float)#1}>(int)",
       "k<S<f32>>"},
      {"void at::native::k<(anonymous namespace)::f(int)::{lambda()#1}>(int)", "k<f<i32>>"},
      {"void at::native::k<4, true, (at::native::Mode)2, std::array<char*, 2ul> >(int)", "k"},
      {"void at::native::k(float*)", "k"},
      {"at::native::k(float*)", "k"},
      {"void at::native::k<4>(int)", "k"},
  };
  for (const auto& [name, expected] : cases) EXPECT_EQ(CudaShortKernelName(name), expected) << name;
}

// Bad or odd input: never a crash, always some text.
TEST(CudaShortKernelNameTest, MalformedNames) {
  const std::vector<std::pair<std::string_view, std::string_view>> cases = {
      {"at::native::", "at::native::"},
      {"(at::native::x", "(at::native::x"},
      {"void at::native::k<<<(", "k"},
      {"void at::native::k<float(", "k"},
      {"void at::native::k<float>>>)(", "k<f32>"},
      {"void at::native::{lambda(int)#1}(", "native"},
      {"void at::native::(anonymous namespace)(x)", "native"},
      {"void at::native::k<a<b<c<d<e<f<g<h<i<j<k>>>>>>>>>>>(int)", "k<a>"},
      {"void at::native::k<at::native::BinaryFunctor<at::native::BinaryFunctor<at::native::"
       "BinaryFunctor<at::native::BinaryFunctor<at::native::BinaryFunctor<at::native::"
       "BinaryFunctor<at::native::BinaryFunctor<at::native::BinaryFunctor<at::native::"
       "BinaryFunctor<at::native::BinaryFunctor<X> > > > > > > > > > >(int)",
       "k<BinaryFunctor>"},
  };
  for (const auto& [name, expected] : cases) EXPECT_EQ(CudaShortKernelName(name), expected) << name;
  // A long run of brackets stays linear and capped.
  const std::string deep = "void at::native::k<" + std::string(100000, '<') + "(x)";
  EXPECT_LE(CudaShortKernelName(deep).size(), kMaxCudaShortNameChars);
}

TEST(CudaKernelLabelTest, WhatTheKernelDoesThenTheOp) {
  const std::vector<std::pair<std::string_view, std::string_view>> cases = {
      // The examples of issue 13: the functor or op inside the template arguments.
      {"void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, "
       "std::array<char*, 3ul> >(int, at::native::AddFunctor<float>, std::array<char*, 3ul>)",
       "elementwise: AddFunctor f32"},
      {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::BFloat16, "
       "at::native::ArgMaxOps<float>, unsigned int, long, 4, 4> >(at::native::ReduceOp<"
       "c10::BFloat16, at::native::ArgMaxOps<float>, unsigned int, long, 4, 4>)",
       "reduce: ArgMax bf16"},
      {"nvjet_sm90_tst_256x8_64x6_2x1_v_bz_TNT", "gemm nvjet_sm90_tst_256x8\u2026"},
      // No op: the family and the element type.
      {"void at::native::reduce_kernel<512, 1, float>(float)", "reduce f32"},
      {"void at::native::elementwise_kernel<128, 4>(int)", "elementwise"},
      // Other kernels: their name without `_kernel` as the family.
      {"void at::native::foo_kernel<at::native::BarFunctor<c10::Half> >(int)",
       "foo: BarFunctor f16"},
      {"void at::native::k<at::native::CUDAFunctor_mul<float> >(int)", "k: mul f32"},
      {"void at::native::k<at::native::launch_clamp_scalar(int)::{lambda()#1}>(int)",
       "k: clamp_scalar i32"},
      {"void at::native::k<at::native::sum_functor<float, float, float> >(int)", "k: sum f32"},
      // A name that is only decoration keeps it.
      {"void at::native::k<at::native::Ops<float> >(int)", "k: Ops f32"},
      {"void at::native::flash_fwd_kernel<Traits<c10::Half> >(int)", "attention: flash_fwd f16"},
      {"void cutlass::Kernel2<cutlass_80_tensorop_s16816gemm_bf16_64x64_64x4_tn_align8>(int)",
       "gemm cutlass_80_tensorop_s16816gemm_bf16_64x64_\u2026"},
      {"cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_tn_align8",
       "gemm cutlass_80_tensorop_bf16_s16816gemm_relu_b\u2026"},
      {"cutlass_80_tensorop_s1688gemm_64x64", "gemm cutlass_80_tensorop_s1688gemm_64x64"},
      {"cudnn_generated_fort_native_convolution_x", "cudnn cudnn convolution_x"},
      {"nvjet_sm90", "gemm nvjet_sm90"},
      {"nvjet_a_b_c", "gemm nvjet_a_b_c"},
      {"nvjet_a_b_c_d", "gemm nvjet_a_b_c\u2026"},
      {"nvjet_a_b_c_d_splitK_e", "gemm nvjet_a_b_c\u2026 splitK"},
      {"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, "
       "int, int>, X> >(X::Params)",
       "gemm cutlass"},
  };
  for (const auto& [name, expected] : cases) EXPECT_EQ(CudaKernelLabel(name), expected) << name;
}

TEST(CudaKernelLabelTest, CappedAtFortyEightCharacters) {
  const std::string triton = "triton_poi_fused_" + std::string(60, 'x');
  const std::string label = KernelLabel(triton);
  EXPECT_EQ(label, triton.substr(0, 47) + "\u2026");
  EXPECT_EQ(label.size(), 47u + 3u);  // "…" is 3 bytes of UTF-8
  const std::string fits = "triton_" + std::string(41, 'y');
  EXPECT_EQ(KernelLabel(fits), fits);
}

TEST(CudaKernelLabelTest, OtherNamesKeepTheSeedsShortName) {
  EXPECT_EQ(KernelLabel("void mlx::core::rocm::binary_vv<mlx::core::rocm::Add, float, float>("
                        "float const*, float const*, float*, unsigned int)"),
            "binary_vv<Add, f32>");
  EXPECT_EQ(KernelLabel("Cijk_Ailk_Bljk_HHS_BH_MT64x64x32"), "Cijk_* (Tensile GEMM)");
  // The seed's 52-character `compiled ...` names are capped too.
  EXPECT_EQ(KernelLabel("void mlx::core::rocm::CV2ISigmoidMultiplyMultiply_contiguous_float16_"
                        "float16<unsigned int, 4>(__half const*)"),
            "compiled CV2ISigmoidMultiplyMultiply_contiguous\u2026");
  EXPECT_EQ(KernelLabel("plain_kernel_without_parens"), "plain_kernel_without_parens");
}

TEST(CudaKernelLabelTest, MalformedNames) {
  for (const std::string_view name :
       {"at::native::", "(at::native::x", "void at::native::k<<<(", "void at::native::k<float(",
        "void at::native::{lambda(int)#1}(", "_ZN5flash16flash_fwd_kernelI@@@", "_Z", "nvjet_",
        "nvjet____", "cudnn_generated_"}) {
    const std::string label = CudaKernelLabel(name);
    EXPECT_FALSE(label.empty()) << name;
  }
  const std::string deep = "void at::native::k<" + std::string(100000, '<') + "(x)";
  EXPECT_LE(CudaKernelLabel(deep).size(), kMaxKernelLabelChars + 2);
}

}  // namespace
}  // namespace decodeprof::report
