#include "src/report/short_name.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace decodeprof::report {
namespace {

TEST(ShortKernelNameTest, BriefExamples) {
  EXPECT_EQ(ShortKernelName("void mlx::core::rocm::binary_vv<mlx::core::rocm::Add, float, float>"
                            "(float const*, float const*, float*, unsigned int)"),
            "binary_vv<Add, f32>");
  EXPECT_EQ(ShortKernelName("void mlx::core::rocm::qmv_wide_kernel<__half, 64, 4, false>"
                            "(__half const*, unsigned int const*, __half*, int, int)"),
            "qmv_wide_kernel<f16>");
}

TEST(ShortKernelNameTest, TensileGemm) {
  EXPECT_EQ(ShortKernelName("Cijk_Ailk_Bljk_HHS_BH_MT64x64x32"), "Cijk_* (Tensile GEMM)");
  EXPECT_EQ(ShortKernelName("Cijk_"), "Cijk_* (Tensile GEMM)");
  EXPECT_EQ(ShortKernelName("Cijk"), "Cijk");             // the prefix needs its underscore
  EXPECT_EQ(ShortKernelName(" Cijk_x(int)"), " Cijk_x");  // a prefix only at the start
}

TEST(ShortKernelNameTest, CompiledKernelsKeepFortyCharacters) {
  EXPECT_EQ(ShortKernelName("void mlx::core::rocm::CV2ISigmoidMultiplyMultiply_contiguous_"
                            "bfloat16_xyz<unsigned int, 4>(hip_bfloat16 const*)"),
            "compiled CV2ISigmoidMultiplyMultiply_contiguous_b...");
  // Shorter than 40 characters: still "...".
  EXPECT_EQ(ShortKernelName("void mlx::core::rocm::BV2ISigmoid_strided<long>(float const*)"),
            "compiled BV2ISigmoid_strided...");
  // Lower-case start: not a compiled kernel.
  EXPECT_EQ(ShortKernelName("void mlx::core::rocm::bv2_contiguous<float>(float*)"),
            "bv2_contiguous<f32>");
  // 40 characters, not 40 bytes: "É" is two bytes in UTF-8.
  EXPECT_EQ(ShortKernelName("A_contiguous_\xc3\x89\xc3\x89\xc3\x89\xc3\x89\xc3\x89\xc3\x89"
                            "123456789012345678901234567890"),
            "compiled A_contiguous_\xc3\x89\xc3\x89\xc3\x89\xc3\x89\xc3\x89\xc3\x89"
            "123456789012345678901...");
}

// Expected values computed with the reconstructed Python regexes documented in
// short_name.cc (CPython 3, `\w` restricted to ASCII).
TEST(ShortKernelNameTest, MatchesTheReconstructedRegexes) {
  const std::vector<std::pair<std::string_view, std::string_view>> cases = {
      {"void mlx::core::rocm::binary_vv<mlx::core::rocm::Add, float, float>(float const*, float "
       "const*, float*, unsigned int)",
       "binary_vv<Add, f32>"},
      {"void mlx::core::rocm::qmv_wide_kernel<__half, 64, 4, false>(__half const*, unsigned int "
       "const*, __half const*, __half const*, __half*, int, int)",
       "qmv_wide_kernel<f16>"},
      {"void mlx::core::rocm::binary_g<mlx::core::rocm::Multiply, float, float, long>(float "
       "const*, float const*, float*, long, mlx::core::rocm::Shape, mlx::core::rocm::Strides, "
       "mlx::core::rocm::Strides, int)",
       "binary_g<Multiply, f32>"},
      {"void mlx::core::rocm::arange_kernel<unsigned int>(unsigned int*, unsigned int, unsigned "
       "int, unsigned long)",
       "arange_kernel<u32>"},
      {"void mlx::core::rocm::copy_gg_byval<hip_bfloat16, hip_bfloat16, long, 3>(hip_bfloat16 "
       "const*, hip_bfloat16*, long)",
       "copy_gg_byval<bf16>"},
      {"void mlx::core::rocm::copy_v<float, hip_bfloat16, unsigned int>(float const*, "
       "hip_bfloat16*, unsigned int)",
       "copy_v<f32>"},
      {"void mlx::core::rocm::rms_norm_kernel<hip_bfloat16, 1024, 4>(hip_bfloat16 const*, "
       "hip_bfloat16 const*, hip_bfloat16*, float, int, long)",
       "rms_norm_kernel<bf16>"},
      {"void mlx::core::rocm::kernel_sdpav_1pass<__half, false, 128>(__half const*, __half const*, "
       "__half const*, __half*, mlx::core::rocm::AttnParams)",
       "kernel_sdpav_1pass<f16>"},
      {"void mlx::core::rocm::rope_single_freqs_1d<__half, false>(__half const*, __half*, int, "
       "float, float const*, long)",
       "rope_single_freqs_1d<f16>"},
      {"void mlx::core::rocm::gemv_batched_inline<float, 4, 128>(float const*, float const*, "
       "float*, int, int)",
       "gemv_batched_inline<f32>"},
      {"void mlx::core::rocm::block_sort_kernel<unsigned int, 256, 4, "
       "mlx::core::rocm::LessThan<unsigned int> >(unsigned int const*, unsigned int*, int)",
       "block_sort_kernel<u32>"},
      {"void "
       "mlx::core::rocm::CV2ISigmoidMultiplyMultiply_contiguous_bfloat16_xyz_abcdefghijklmnop<"
       "unsigned int, 4>(hip_bfloat16 const*, hip_bfloat16*, unsigned int)",
       "compiled CV2ISigmoidMultiplyMultiply_contiguous_b..."},
      {"void mlx::core::rocm::BV2ISigmoid_strided<long>(float const*, float*, long)",
       "compiled BV2ISigmoid_strided..."},
      {"Cijk_Ailk_Bljk_HHS_BH_MT64x64x32_MI16x16x16x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_"
       "AMAS3",
       "Cijk_* (Tensile GEMM)"},
      {"Cijk", "Cijk"},
      {"plain_kernel_name", "plain_kernel_name"},
      {"plain_kernel(int, float)", "plain_kernel"},
      {"void foo<float>(float*)", "void foo<float>"},
      {"void ns::foo<(anonymous namespace)::Bar>(int)", "void ns::foo<"},
      {"void ns::foo<int>", "void ns::foo<int>"},
      {"void ns::foo", "void ns::foo"},
      {"::(x)", "::"},
      {"a:::b<bool>(c)", "b<bool>"},
      {"void mlx::core::rocm::unary_v<mlx::core::rocm::Sigmoid, float, float>(float const*, "
       "float*, unsigned int)",
       "unary_v<Sigmoid, f32>"},
      {"void mlx::core::rocm::binary_vv<mlx::core::rocm::Divide<float>, float, float>(float "
       "const*)",
       "binary_vv<Divide, f32>"},
      {"void mlx::core::rocm::binary_vv<mlx::core::rocm::Foo<Bar<int>>, bool>(bool)",
       "binary_vv<int>"},
      {"void mlx::core::rocm::gather<uint32_t, 2>(int)", "gather<int>"},
      {"void mlx::core::rocm::reduce<mlx::core::rocm::Sum>(int)", "reduce"},
      {"void mlx::core::rocm::reduce<mlx::core::rocm::Sum, __half>(int)", "reduce<Sum, f16>"},
      {"void mlx::core::rocm::ternary_v<bool, float>(bool const*)", "ternary_v<bool>"},
      {"void a::b<c>::d<e>(f)", "b"},
      {"void a::k<>(int)", "k"},
      {"void a::k<x>y>(int)", "k"},
      {"void a::k<x>(int)<y>(z)", "k"},
      {"void lower_contiguous_thing::x(int)", "x"},
      {"Upper_strided_name_without_colons_and_very_long_indeed_yes",
       "compiled Upper_strided_name_without_colons_and_ve..."},
      {"", ""},
      {"(", ""},
      {"::", "::"},
      {"::a", "::a"},
      {"::a(", "a"},
      {"::a<", "::a<"},
      {"::a<>(", "a"},
      {"void rocm::X,int>(y)", "void rocm::X,int>"},
  };
  for (const auto& [name, expected] : cases) {
    EXPECT_EQ(ShortKernelName(name), expected) << name;
  }
}

}  // namespace
}  // namespace decodeprof::report
