// The built-in mlx-rocm pack: the seed's 24 classes (spec 2.6) with their documented
// consequences, its 13 roles, and the embedding of packs/*.toml into the binary.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "src/base/file_io.h"
#include "src/packs/builtin_packs.h"
#include "src/packs/pack_loader.h"

namespace decodeprof::packs {
namespace {

class MlxRocmClassesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto pack = LoadPack("mlx-rocm");
    ASSERT_TRUE(pack.ok()) << pack.status().ToString();
    pack_ = std::move(pack).value();
  }
  std::string ClassOf(const std::string& name) const {
    return pack_->class_names()[pack_->Classify(name)];
  }
  std::unique_ptr<analysis::Pack> pack_;
};

TEST_F(MlxRocmClassesTest, TwentyFourClassesInSeedOrderThenOther) {
  const std::vector<std::string> expected = {
      "gather_qmv", "gather_mm", "qmv",     "qmm",     "gemm",       "rms_norm",
      "layer_norm", "rope",      "sdpa",    "softmax", "logsumexp",  "arg_reduce",
      "scan",       "sort",      "random",  "conv",    "reduce",     "gather_scatter",
      "copy",       "binary",    "ternary", "unary",   "dequantize", "compiled",
      "memcpy",     "memset",    "other"};  // memory-operation classes: every pack has them
  EXPECT_EQ(pack_->class_names(), expected);
}

TEST_F(MlxRocmClassesTest, ThirteenRolesInSeedOrder) {
  const std::vector<std::string> expected = {"sampler_tail",     "add_rms_join_post_attn",
                                             "add_rms_join",     "rope_append",
                                             "moe_expert_gemv",  "moe_activation",
                                             "moe_weighted_sum", "moe_gather_indices",
                                             "ssm_step",         "ssm_conv",
                                             "ssm_silu",         "ssm_gated_norm",
                                             "paged_attention"};
  EXPECT_EQ(pack_->role_names(), expected);
}

TEST_F(MlxRocmClassesTest, SeedConsequences) {
  EXPECT_EQ(ClassOf("void mlx::core::rocm::arange_kernel<unsigned int>(unsigned int*)"), "copy");
  EXPECT_EQ(ClassOf("void mlx::core::rocm::gather_rows_kernel<unsigned int, int>(x)"),
            "gather_scatter");
  EXPECT_EQ(ClassOf("void mlx::core::rocm::arg_reduce_final<__half, "
                    "mlx::core::rocm::ArgMax<__half>, 256>(x)"),
            "arg_reduce");
  EXPECT_EQ(ClassOf("void mlx::core::rocm::arg_reduce_general<float, "
                    "mlx::core::rocm::ArgMin<float>, 256>(x)"),
            "arg_reduce");
  EXPECT_EQ(ClassOf("void mlx::core::rocm::block_sort_kernel<hip_bfloat16, unsigned int, true, "
                    "32, 8>(x)"),
            "sort");
  EXPECT_EQ(ClassOf("void mlx::core::(anonymous namespace)::depthwise_conv1d_kernel<"
                    "hip_bfloat16>(x)"),
            "conv");
  EXPECT_EQ(ClassOf("void mlx::core::rocm::affine_dequantize_packed_kernel<__half, 64, 4>(x)"),
            "dequantize");
}

TEST_F(MlxRocmClassesTest, OneRepresentativeNamePerClass) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"void mlx::core::rocm::gather_qmv_wide_kernel<hip_bfloat16, hip_bfloat16, 64>(x)",
       "gather_qmv"},
      {"void mlx::core::rocm::qmm_gather_kernel<__half, 64, 4>(x)", "gather_qmv"},
      {"void mlx::core::rocm::gather_mm_kernel<float, 32, 32>(x)", "gather_mm"},
      {"void mlx::core::rocm::segmented_mm_kernel<__half>(x)", "gather_mm"},
      {"void mlx::core::rocm::qmv_wide_kernel<__half, 64, 4>(__half const*)", "qmv"},
      {"void mlx::core::rocm::affine_qvm_kernel<__half, 64, 4>(x)", "qmv"},
      {"void mlx::core::rocm::qmm_t_kernel<__half, 64, 4, true>(x)", "qmm"},
      {"Cijk_Alik_Bljk_HHS_BH_MT64x64x32_MI16x16x16x1_SN_1LDSB0_APM1_ABV0_ACED0", "gemm"},
      {"void rocblas_gemvt_kernel<256, float>(x)", "gemm"},
      {"void mlx::core::rocm::rms_norm_kernel<__half, 256, 4>(__half const*)", "rms_norm"},
      {"void mlx::core::rocm::RMSNorm_vjp<float>(x)", "rms_norm"},
      {"void mlx::core::rocm::layer_norm_kernel<float, 256, 4>(x)", "layer_norm"},
      {"void mlx::core::rocm::rope_single_1d<__half, false, true>(x)", "rope"},
      {"void mlx::core::rocm::kernel_sdpav_1pass<__half, false, 128>(x)", "sdpa"},
      {"void mlx::core::rocm::flash_attention_kernel<__half, 128>(x)", "sdpa"},
      {"void mlx::core::rocm::softmax_kernel<__half, float, 256>(x)", "softmax"},
      {"void mlx::core::rocm::logsumexp_kernel<float, float, 256>(x)", "logsumexp"},
      {"void mlx::core::rocm::contiguous_scan<float, float, mlx::core::rocm::Sum, 4, true, "
       "false>(x)",
       "scan"},
      {"void mlx::core::rocm::argpartition_kernel<float, 32>(x)", "sort"},
      {"void mlx::core::rocm::rbits_kernel<unsigned int>(x)", "random"},
      {"void mlx::core::rocm::conv2d_implicit_gemm<float>(x)", "gemm"},  // gemm comes first
      {"void mlx::core::rocm::col_reduce_small<float, float, mlx::core::rocm::Sum, 4>(x)",
       "reduce"},
      {"void mlx::core::rocm::row_reduce_simple<float, float, mlx::core::rocm::Max, 4>(x)",
       "reduce"},
      {"void mlx::core::rocm::scatter_kernel<float, unsigned int, 2>(x)", "gather_scatter"},
      {"void mlx::core::rocm::slice_update_kernel<__half>(x)", "gather_scatter"},
      {"void mlx::core::rocm::copy_v<__half, float, unsigned int, 4>(x)", "copy"},
      {"void mlx::core::rocm::copy_gg_byval<__half, __half, long>(x)", "copy"},
      {"void mlx::core::rocm::fill_kernel<float>(x)", "copy"},
      {"void mlx::core::rocm::binary_vv<mlx::core::rocm::Add, float, float, unsigned int, 4>(x)",
       "binary"},
      {"void mlx::core::rocm::ternary_v<mlx::core::rocm::Select, bool, float, unsigned int>(x)",
       "ternary"},
      {"void mlx::core::rocm::unary_v<mlx::core::rocm::Exp, float, float, unsigned int, 4>(x)",
       "unary"},
      {"void mlx::core::rocm::affine_dequantize_packed_kernel<__half, 64, 4>(x)", "dequantize"},
      {"void mlx::core::rocm::CV2ISigmoidADV2IMultiplyGH_VV_V2V2_614_contiguous<unsigned int, "
       "8>(x)",
       "compiled"},
      {"void mlx::core::rocm::BV2ISigmoidACV2OMultiplyCD_V_V2_614_strided<long, 2>(x)", "compiled"},
      {"void mlx::core::rocm::hadamard_n<__half, 16>(x)", "other"},
      {"__amd_rocclr_copyBuffer", "copy"},
  };
  for (const auto& [name, expected] : cases) EXPECT_EQ(ClassOf(name), expected) << name;
}

TEST_F(MlxRocmClassesTest, CompiledIsCaseSensitiveAndTheOthersAreNot) {
  EXPECT_EQ(ClassOf("void mlx::core::rocm::cv2isigmoid_vv_614_contiguous<unsigned int, 8>(x)"),
            "other");
  EXPECT_EQ(ClassOf("void mlx::core::ROCM::CV2ISigmoid_VV_614_contiguous<unsigned int, 8>(x)"),
            "other");
  EXPECT_EQ(ClassOf("void mlx::core::rocm::CV2ISigmoid_VV_614_Contiguous<unsigned int, 8>(x)"),
            "other");
  EXPECT_EQ(ClassOf("VOID MLX::CORE::ROCM::BINARY_VV<ADD>"), "binary");
  EXPECT_EQ(ClassOf("Paged_QMV_Kernel"), "qmv");
}

TEST(BuiltinFilesTest, EmbeddedTextEqualsTheSourceFiles) {
  ASSERT_FALSE(BuiltinPackFiles().empty());
  ASSERT_FALSE(BuiltinUnitsFiles().empty());
  for (auto files : {BuiltinPackFiles(), BuiltinUnitsFiles()}) {
    for (const BuiltinFile& file : files) {
      auto text = base::ReadFile(std::string(DECODEPROF_SOURCE_DIR) + "/" + std::string(file.path));
      ASSERT_TRUE(text.ok()) << text.status().ToString();
      EXPECT_EQ(*text, file.text) << file.path;
    }
  }
  EXPECT_EQ(BuiltinPackFiles()[0].path, "packs/ggml.toml");
  EXPECT_EQ(BuiltinPackFiles()[1].path, "packs/mlx-rocm.toml");
  EXPECT_EQ(BuiltinUnitsFiles()[0].path, "packs/units/ggml-decode.toml");
  EXPECT_EQ(BuiltinUnitsFiles()[1].path, "packs/units/h200-decode.toml");
}

// packs/units/h200-decode.toml on pytorch-cuda: nine units, the CUDA-graph unit owning the
// whole host gap with no kernels, the kernel units keyed on classes that never overlap, the
// last one tensor parallelism's collectives.
TEST(BuiltinFilesTest, H200DecodeUnitsLoadOnThePytorchCudaPack) {
  auto pack = LoadPack("pytorch-cuda");
  ASSERT_TRUE(pack.ok()) << pack.status().ToString();
  auto units = LoadUnits("h200-decode", **pack);
  ASSERT_TRUE(units.ok()) << units.status().ToString();
  const auto& list = (*units)->units();
  ASSERT_EQ(list.size(), 9u);
  EXPECT_EQ(list[0].id, "cuda_graph");
  EXPECT_EQ(list[8].id, "tp_communication");
  ASSERT_EQ(list[8].classes.size(), 1u);
  EXPECT_EQ((*pack)->class_names()[list[8].classes[0]], "communication");
  EXPECT_EQ(list[0].port, "capture the decode step in a CUDA graph");
  EXPECT_EQ(list[0].host_gap, analysis::HostGapOwnership::kAll);
  EXPECT_TRUE(list[0].classes.empty());
  EXPECT_TRUE(list[0].fallback_roles.empty());
  std::vector<int> owner((*pack)->class_names().size(), -1);
  for (size_t u = 0; u < list.size(); ++u) {
    if (u > 0) {
      EXPECT_EQ(list[u].host_gap, analysis::HostGapOwnership::kRoles) << list[u].id;
      EXPECT_FALSE(list[u].classes.empty()) << list[u].id;
    }
    for (analysis::ClassId c : list[u].classes) {
      EXPECT_EQ(owner[c], -1) << (*pack)->class_names()[c] << " in two units";
      owner[c] = static_cast<int>(u);
    }
    // Every unit is reached whole on a greedy and a sampled run, except the sampler,
    // which a greedy run does not reach.
    const bool sampler = list[u].id == "sampler";
    EXPECT_EQ((*units)->Reach(u, {"llama", ""}, false).default_whole, !sampler) << list[u].id;
    EXPECT_TRUE((*units)->Reach(u, {"llama", ""}, true).default_whole) << list[u].id;
  }
  EXPECT_EQ(owner[(*pack)->other_class()], -1);
}

// The serving engines' kernels on CUDA, as the public profiles name them (vLLM serving gpt-oss
// on a B200 with FlashInfer's TRT-LLM MoE, ../shared/real-traces), and those of their
// libraries' sources (FlashInfer, triton_kernels, vLLM).
TEST(BuiltinFilesTest, PytorchCudaClassesTheServingEnginesKernels) {
  auto pack = LoadPack("pytorch-cuda");
  ASSERT_TRUE(pack.ok()) << pack.status().ToString();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_"
       "TN_transOut_schedP2x1x2x3_biasM_bN_tma_tmaOpt_clmp_swiGlu_dynBatch_sm100f",
       "grouped_gemm"},
      {"void moe::dev::finalize::finalizeKernelVecLoad<moe::dev::finalize::KernelParams<cutlass::"
       "bfloat16_t, cutlass::bfloat16_t, 4, true> >(x)",
       "grouped_gemm"},
      {"void moe::dev::routing::routingIndicesOffsetsKernel<moe::dev::routing::"
       "routingRenormalize::KernelParams<__nv_bfloat16, __nv_bfloat16, 128, false, true> >(x)",
       "moe_routing"},
      {"_matmul_ogs_NNT_bf16xbf16xmxfp4_128x128x128x1_swiglu", "grouped_gemm"},
      {"_finalize_matmul_scatter_bf16", "grouped_gemm"},
      {"_topk_forward", "moe_routing"},
      {"_sum_bitmatrix_rows", "moe_routing"},
      {"void vllm::moe::topkGatingSoftmax<4, 128, 4, 16, 32, int, float>(x)", "moe_routing"},
      {"void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16>, true>(x)",
       "elementwise"},
      {"void flashinfer::BatchDecodeWithPagedKVCacheKernel<x>(x)", "attention"},
      {"void flashinfer::MergeStatesKernel<8u, 16u, 8u, 4u, __half, __half>(x)", "attention"},
      {"void flashinfer::sampling::SamplingFromProbKernel<1024u, x>(x)", "random"},
      {"void flashinfer::norm::FusedAddRMSNormKernel<8u, __nv_bfloat16>(x)", "rms_norm"},
      {"void flashinfer::BatchPrefillWithRaggedKVCacheKernel<x>(x)", "attention"},
      {"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<x>>(x)", "attention"},
      {"void flash_fwd_splitkv_kernel<x>(x)", "attention"},
  };
  for (const auto& [name, cls] : cases) {
    EXPECT_EQ((*pack)->class_names()[(*pack)->Classify(name)], cls) << name;
  }
}

// The fused_moe units count their gathers, fills and sorts only beside MoE kernels
// (`requires`), so that a dense model's embedding lookup is no MoE work.
TEST(BuiltinFilesTest, FusedMoeUnitsRequireMoeClasses) {
  for (const auto& [pack_name, units_name] :
       std::vector<std::pair<std::string, std::string>>{{"pytorch-cuda", "h200-decode"},
                                                        {"pytorch-rocm", "rocm-decode"},
                                                        {"ggml", "ggml-decode"}}) {
    auto pack = LoadPack(pack_name);
    ASSERT_TRUE(pack.ok()) << pack.status().ToString();
    auto units = LoadUnits(units_name, **pack);
    ASSERT_TRUE(units.ok()) << units.status().ToString();
    bool found = false;
    for (const analysis::Unit& u : (*units)->units()) {
      if (u.id != "fused_moe") continue;
      found = true;
      std::vector<std::string> required;
      for (analysis::ClassId c : u.requires_classes) {
        required.push_back((*pack)->class_names()[c]);
      }
      EXPECT_EQ(required, (std::vector<std::string>{"grouped_gemm", "moe_routing"})) << units_name;
    }
    EXPECT_TRUE(found) << units_name;
  }
}

// packs/units/ggml-decode.toml on ggml: the graph unit owns the host gap and is never the
// advice for a graph-replaying decode; the kernel units never share a class.
TEST(BuiltinFilesTest, GgmlDecodeUnitsLoadOnTheGgmlPack) {
  auto pack = LoadPack("ggml");
  ASSERT_TRUE(pack.ok()) << pack.status().ToString();
  auto units = LoadUnits("ggml-decode", **pack);
  ASSERT_TRUE(units.ok()) << units.status().ToString();
  const auto& list = (*units)->units();
  ASSERT_EQ(list.size(), 8u);
  EXPECT_EQ(list[0].id, "cuda_graph");
  EXPECT_TRUE(list[0].unless_graph_replay);
  EXPECT_EQ(list[0].host_gap, analysis::HostGapOwnership::kAll);
  EXPECT_EQ(list[1].id, "gemv");
  std::vector<int> owner((*pack)->class_names().size(), -1);
  for (size_t u = 0; u < list.size(); ++u) {
    for (analysis::ClassId c : list[u].classes) {
      EXPECT_EQ(owner[c], -1) << (*pack)->class_names()[c] << " in two units";
      owner[c] = static_cast<int>(u);
    }
  }
  EXPECT_EQ(owner[(*pack)->other_class()], -1);
}

TEST(BuiltinFilesTest, ThePackFileOnDiskLoadsLikeTheBuiltin) {
  auto from_file = LoadPack(std::string(DECODEPROF_SOURCE_DIR) + "/packs/mlx-rocm.toml");
  ASSERT_TRUE(from_file.ok()) << from_file.status().ToString();
  EXPECT_EQ((*from_file)->class_names().size(), 27u);
  // A built-in pack's default_units stays a built-in name; so does the file's.
  EXPECT_EQ(DefaultUnitsOf(**from_file), "mlx-rocm-ports");
}

}  // namespace
}  // namespace decodeprof::packs
