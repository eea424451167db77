// The built-in pytorch-rocm pack (packs/pytorch-rocm.toml) and its units (rocm-decode):
// every class pattern matched by a realistic kernel name, every role rule by a kernel
// sequence. Each name records where its form comes from:
//   [seen]     in a public ROCm profile of vLLM / SGLang / PyTorch (names as the tracer wrote
//              them, template arguments shortened to "x" where they run long);
//   [source]   the kernel's name in the library's source (the __global__ function, the Triton
//              function, the class template), instantiated as the compiler names it;
//   [pytorch]  PyTorch's own kernel, recorded on CUDA in examples/data or
//              tests/golden/classify: PyTorch keeps its kernel names on ROCm;
//   [inferred] built from the library's naming convention, not seen in a trace.
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/analysis/range_index.h"
#include "src/packs/builtin_packs.h"
#include "src/packs/pack_loader.h"
#include "src/packs/parsers.h"

namespace decodeprof::packs {
namespace {

struct NameCase {
  std::string name;
  std::string cls;
  std::string source;
};

// ---- names used by the class table and the sequences --------------------------------------

// Tensile / hipBLASLt GEMMs of a batch-1 projection and their split-K helpers.
const std::string kRocmHipblaslt =  // [seen] (the solution tail shortened)
    "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT16x16x1024_MI16x16x1_SN_LDSB1_AFC0_AFEM1_"
    "AFEM1_ASEM1_CLR1_CADS0_DTLA0_DTLB0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA4_GRVWB4_WSGRB0_WS64_"
    "WG16_4_4";
const std::string kHipblasltWide =  // [seen]
    "Cijk_Alik_Bljk_S_B_Bias_HA_S_SAV_UserArgs_MT64x16x64_MI16x16x1_SN_LDSB1_AFC0_AFEM1_AFEM1_"
    "ASEM1_CLR1_CADS0_DTLA0_DTLB0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA4_WSGRB0_WS64_WG16_4_4";
const std::string kRocmPostGsu = "Cijk_SS_BiasS_HAS_ScaleAlphaVec_PostGSU16_VW1";  // [seen]
const std::string kPostGsuB = "Cijk_B_PostGSU2";                                   // [seen]
const std::string kRocblasTensile =  // the seed's rocBLAS Tensile name
    "Cijk_Alik_Bljk_HHS_BH_MT64x64x32_MI16x16x16x1_SN_1LDSB0_APM1_ABV0_ACED0";
const std::string kBetaOnly = "Cijk_B_GA";  // [inferred] Tensile KernelWriterBetaOnly's name
const std::string kSgemm =                  // [inferred] an fp32 Tensile GEMM
    "Cijk_Ailk_Bljk_SB_MT64x64x16_SN_1LDSB0_APM1_AF0EM1_AF1EM1_AMAS0_ASE_ASGT_ASLT_ASAE01";
const std::string kGemvt =  // [seen] rocBLAS's GEMV as the lm_head of a batch-1 decode
    "void rocblas_gemvt_kernel<false, 256, _Float16, float, _Float16>(int, int, float, long, "
    "_Float16 const*, long, int, long, _Float16 const*, long, int, long, float, long, _Float16*, "
    "long, int, long)";
const std::string kWvSplitK =  // [seen] vLLM csrc/rocm/skinny_gemms.cu
    "void wvSplitK_hf_sml_<__hip_bfloat16, 64, 2, 16, 8, 2, 1>(int, int, int, int, int, int, "
    "__hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16*, int, "
    "int)";
const std::string kLLGemm =  // [seen] vLLM csrc/rocm/skinny_gemms.cu
    "void LLGemm1_kernel<c10::BFloat16, 4>(c10::BFloat16 const*, c10::BFloat16 const*, "
    "c10::BFloat16*, int)";

// Serving-engine kernels.
const std::string kVllmRmsNorm =  // [source] vLLM csrc/layernorm_kernels.cu
    "void vllm::rms_norm_kernel<c10::BFloat16, 8, 1>(c10::BFloat16*, c10::BFloat16 const*, long, "
    "c10::BFloat16 const*, float, int, int)";
const std::string kVllmAddRmsNorm =  // [source] vLLM csrc/layernorm_kernels.cu
    "void vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, c10::BFloat16*, "
    "c10::BFloat16 const*, float, int, int)";
const std::string kAiterAddRmsQuant =  // [seen] aiter, mangled
    "_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256ELi32ELb0ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_"
    "S4_diiiiiiib";
const std::string kAiterQuant =  // [seen] aiter, mangled
    "_ZN5aiter37dynamic_per_group_scaled_quant_kernelIDF16bDB8_Li32EEEvPT0_PfPKT_PKfiliibPKii";
const std::string kVllmRotary =  // [source] vLLM csrc/pos_encoding_kernels.cu
    "void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, "
    "c10::BFloat16*, c10::BFloat16 const*, int, long, long, long, int, int, int)";
const std::string kVllmCacheFlash =  // [source] vLLM csrc/cache_kernels.cu
    "void vllm::reshape_and_cache_flash_kernel<__hip_bfloat16, __hip_bfloat16, "
    "(vllm::Fp8KVCacheDataType)0>(__hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16*, "
    "__hip_bfloat16*, long const*, long, long, long, long, int, int, int, float const*, float "
    "const*)";
const std::string kPagedQkv =  // [seen] vLLM csrc/rocm/attention.cu
    "void paged_attention_ll4mi_QKV_mfma16_kernel<__hip_bfloat16, __hip_bfloat16, "
    "(vllm::Fp8KVCacheDataType)0, __hip_bfloat16, 16, 128, 256, false, 4>(x)";
const std::string kPagedReduce =  // [seen] vLLM csrc/rocm/attention.cu
    "void paged_attention_ll4mi_reduce_kernel<__hip_bfloat16, __hip_bfloat16, 128, 128, 256, "
    "1>(x)";
const std::string kCustomAllReduce =  // [source] vLLM csrc/custom_all_reduce.cuh
    "void vllm::cross_device_reduce_1stage<__hip_bfloat16, 8>(vllm::RankData*, "
    "vllm::RankSignals, vllm::Signal*, __hip_bfloat16*, int, int)";
const std::string kRccl = "ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)";  // [seen]
const std::string kActAndMul =  // [source] vLLM csrc/activation_kernels.cu
    "void vllm::act_and_mul_kernel<c10::BFloat16, &(c10::BFloat16 "
    "vllm::silu_kernel<c10::BFloat16>(c10::BFloat16 const&)), true>(c10::BFloat16*, "
    "c10::BFloat16 const*, int)";
const std::string kTopkGating =  // [seen] vLLM csrc/moe/topk_softmax_kernels.cu
    "void vllm::moe::topkGatingSoftmax<4, 8, 4, 16, 64, int, float>(float const*, bool const*, "
    "float*, int, int*, int*, int, int, int)";
const std::string kMoeAlign =  // [source] vLLM csrc/moe/moe_align_sum_kernels.cu
    "void vllm::moe::moe_align_block_size_kernel<int>(int const*, int*, int*, int*, int, int, "
    "int, int, unsigned long, int*)";
const std::string kFusedMoe = "fused_moe_kernel";  // [source] vLLM fused_moe.py (Triton)
const std::string kMoeSum =  // [source] vLLM csrc/moe/moe_align_sum_kernels.cu
    "void vllm::moe::moe_sum_kernel<c10::BFloat16, 2>(c10::BFloat16*, c10::BFloat16 const*, int)";
const std::string kArgmax =  // [pytorch] the greedy sampler's argmax
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::BFloat16, "
    "at::native::ArgMaxOps<float>, unsigned int, long, 4, 4> >(x)";

// PyTorch's eager kernels ([pytorch]: recorded on CUDA, the same names on ROCm).
const std::string kToF32 =
    "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
    "const::{lambda(float)#1}, std::array<char*, 2ul>>(x)";
const std::string kPow =
    "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
    "namespace)::pow_tensor_scalar_kernel_impl<float, float>(at::TensorIteratorBase&, "
    "float)::{lambda(float)#1}, std::array<char*, 2ul> >(x)";
const std::string kMean =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, "
    "float, float, float>, unsigned int, float, 4, 4> >(x)";
const std::string kAddEps =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<float>, "
    "std::array<char*, 2ul> >(int, at::native::CUDAFunctorOnSelf_add<float>, std::array<char*, "
    "2ul>)";
const std::string kRsqrt =
    "void at::native::vectorized_elementwise_kernel<4, at::native::rsqrt_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() "
    "const::{lambda(float)#1}, std::array<char*, 2ul> >(x)";
const std::string kMulF32 =
    "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::"
    "BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > >(x)";
const std::string kToBf16 =
    "void at::native::vectorized_elementwise_kernel<8, at::native::bfloat16_copy_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul> >(x)";
const std::string kMulBf16 =
    "void at::native::vectorized_elementwise_kernel<8, at::native::BinaryFunctor<c10::BFloat16, "
    "c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, "
    "std::array<char*, 3ul> >(x)";
const std::string kAddBf16 =
    "void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>,"
    " std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*,"
    " 3ul>)";
const std::string kNeg =
    "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::"
    "neg_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#9}::"
    "operator()() const::{lambda(c10::BFloat16)#1}>(x)";
const std::string kCat =
    "void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous "
    "namespace)::OpaqueType<2u>, unsigned int, 4, 64, 64>(x)";
const std::string kSilu =
    "void at::native::vectorized_elementwise_kernel<8, at::native::(anonymous "
    "namespace)::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()() "
    "const::{lambda()#6}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> "
    ">(x)";
const std::string kCos =
    "void at::native::vectorized_elementwise_kernel<4, at::native::cos_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() "
    "const::{lambda(float)#1}, std::array<char*, 2ul> >(x)";
const std::string kSin =
    "void at::native::vectorized_elementwise_kernel<4, at::native::sin_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() "
    "const::{lambda(float)#1}, std::array<char*, 2ul> >(x)";
const std::string kIndexSelect =
    "void at::native::(anonymous namespace)::indexSelectSmallIndex<c10::BFloat16, long, unsigned "
    "int, 2, 2, -2>(x)";
const std::string kArange =
    "void (anonymous namespace)::elementwise_kernel_with_index<int, "
    "at::native::arange_cuda_out(c10::Scalar const&, c10::Scalar const&, c10::Scalar const&, "
    "at::Tensor&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{lambda("
    "long)#1}>(x)";
const std::string kSoftmax =
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
    "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)";
const std::string kTopk = "void at::native::sbtopk::gatherTopK<float, unsigned int, 1, false>(x)";
const std::string kSortKV =
    "void at::native::bitonicSortKVInPlace<-2, -1, 16, 16, float, long, at::native::GTOp<float, "
    "true>, unsigned int>(x)";
const std::string kHistogram =
    "void at::cuda::kernelHistogram1D<int, int, long, 1, 2, -1, "
    "(at::cuda::CUDAHistogramMemoryType)0, x>(x)";
const std::string kScan =
    "void at::native::tensor_kernel_scan_innermost_dim<float, std::plus<float> >(float*, float "
    "const*, unsigned int, unsigned int, unsigned int, float, std::plus<float>)";
const std::string kGather =
    "void at::native::vectorized_gather_kernel<16, long>(char*, char*, "
    "long*, int, long, long, long, long, bool)";
const std::string kMaskedFill =
    "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
    "namespace)::masked_fill_kernel(at::TensorIterator&, c10::Scalar const&)::{lambda()#1}::"
    "operator()() const::{lambda()#7}::operator()() const::{lambda(float, bool)#1}, "
    "std::array<char*, 3ul> >(x)";
const std::string kDepthwise =
    "void at::native::(anonymous namespace)::conv_depthwise2d_forward_kernel_generic<"
    "c10::BFloat16, int>(x)";
const std::string kCkGroupedGemm =  // [inferred] CK's DeviceGroupedGemmXdlSplitK kernel
    "void ck::kernel_grouped_gemm_xdl_splitk<ck::GridwiseGemm_bk0mk1_bk0nk1_mn_xdlops_v2r4r2<x>, "
    "true>(x)";
const std::string kCkFmha =  // [source] CK include/ck_tile/ops/fmha
    "void ck_tile::kentry<64, 1, ck_tile::FmhaFwdSplitKVKernel<ck_tile::"
    "BlockFmhaFwdSplitKVPipelineNWarpSShuffleQRKSVS<x>, ck_tile::Default2DEpilogue<x> > >(x)";
const std::string kCkFmhaCombine =  // [source] CK include/ck_tile/ops/fmha
    "void ck_tile::kentry<64, 2, ck_tile::FmhaFwdSplitKVCombineKernel<ck_tile::"
    "BlockFmhaFwdSplitKVCombinePipeline<x>, ck_tile::Default2DEpilogue<x> > >(x)";

std::vector<NameCase> ClassCases() {
  return {
      // communication
      {kRccl, "communication", "[seen] RCCL (NCCL's kernel naming)"},
      {"ncclKernel_AllReduce_RING_LL_Sum_bf16(ncclDevComm*, unsigned long, ncclWork*)",
       "communication", "[inferred] older NCCL / RCCL kernel naming"},
      {"mscclKernel_Sum_bf16_LL128(ncclDevComm*, mscclAlgo*, mscclWork*)", "communication",
       "[inferred] RCCL's MSCCL executor (the mscclKernel prefix is seen)"},
      {kCustomAllReduce, "communication", "[source] vLLM custom all-reduce"},
      {"_ZN5aiter26cross_device_reduce_2stageIDF16bLi8ELb0EEEvPNS_8RankDataES2_NS_"
       "11RankSignalsEPNS_6SignalEPT_ii",
       "communication", "[seen] aiter's custom all-reduce, mangled"},
      {"void quickreduce::allreduce_prototype_twoshot<quickreduce::CodecQ8, false>(x)",
       "communication", "[inferred] vLLM csrc/quickreduce (template arguments inferred)"},
      // kv_cache
      {kVllmCacheFlash, "kv_cache", "[source] vLLM"},
      {"void vllm::concat_and_cache_mla_kernel<__hip_bfloat16, __hip_bfloat16, "
       "(vllm::Fp8KVCacheDataType)0>(x)",
       "kv_cache", "[source] vLLM"},
      {"void (anonymous namespace)::store_kvcache<2048l, 4, false, long>((anonymous "
       "namespace)::StoreKVCacheParams)",
       "kv_cache", "[seen] SGLang's KV-cache write (MI300X profile)"},
      // attention
      {kPagedQkv, "attention", "[seen] vLLM ROCm paged attention"},
      {kPagedReduce, "attention", "[seen] vLLM ROCm paged attention"},
      {"kernel_unified_attention_2d", "attention", "[source] vLLM Triton unified attention"},
      {kCkFmha, "attention", "[source] CK FMHA split-KV"},
      {kCkFmhaCombine, "attention", "[source] CK FMHA split-KV combine"},
      {"attn_fwd", "attention", "[source] vLLM's Triton flash attention for ROCm / AOTriton"},
      {"_fwd_kernel", "attention", "[source] vLLM prefix_prefill.py (Triton)"},
      {"_fwd_grouped_kernel_stage1", "attention", "[source] vLLM/SGLang Triton decode attention"},
      {"_fwd_kernel_stage2", "attention", "[source] vLLM/SGLang Triton decode attention"},
      {"_ZN5aiter38mla_dec_stage1_bf16_a16w16_subQ16_mqa16E", "attention",
       "[inferred] aiter's assembly MLA decode (its .co kernel names)"},
      {"_ZN5aiter25mla_a8w8_qh16_m16x4_n16x1E", "attention",
       "[inferred] aiter's FP8 assembly MLA decode"},
      {"void aiter::kn_mla_reduce_v1<x>(x)", "attention", "[inferred] aiter's MLA split-KV reduce"},
      {"void flashinfer::BatchDecodeWithPagedKVCacheKernel<x>(x)", "attention",
       "[source] FlashInfer decode (SGLang, vLLM)"},
      {"void flashinfer::MergeStatesKernel<8u, 16u, 8u, 4u, __half, __half>(x)", "attention",
       "[source] FlashInfer cascade merge"},
      // ssm
      {"_selective_scan_update_kernel", "ssm", "[source] mamba_ssm selective_state_update.py"},
      {"_chunk_scan_fwd_kernel", "ssm", "[source] mamba_ssm ssd_chunk_scan.py"},
      {"_chunk_state_fwd_kernel", "ssm", "[source] mamba_ssm ssd_chunk_state.py"},
      {"_chunk_cumsum_fwd_kernel", "ssm", "[source] mamba_ssm ssd_chunk_state.py"},
      {"_state_passing_fwd_kernel", "ssm", "[source] mamba_ssm ssd_state_passing.py"},
      {"_bmm_chunk_fwd_kernel", "ssm", "[source] mamba_ssm ssd_bmm.py"},
      // conv
      {"_causal_conv1d_update_kernel", "conv", "[source] vLLM causal_conv1d.py (Triton)"},
      {kDepthwise, "conv", "[pytorch]"},
      {"miopenSp3AsmConv3x3F", "conv", "[source] MIOpen Winograd assembly kernel"},
      {"miopenSp3AsmConv_v21_1_3_gfx9_fp32_f2x3_stride1", "conv", "[seen] MIOpen"},
      {"naive_conv_ab_nonpacked_fwd_nchw_float_double_float", "conv", "[seen] MIOpen"},
      {"gridwise_convolution_implicit_gemm_v6r1_dlops_nchw_kcyx_nkhw", "conv", "[source] MIOpen"},
      // triton (TorchInductor)
      {"triton_poi_fused_add_mean_mul_pow_rsqrt_2", "triton", "[seen] TorchInductor"},
      {"triton_red_fused__to_copy_mean_pow_view_0", "triton", "[seen] TorchInductor"},
      {"triton_per_fused_mean_pow_1", "triton", "[seen] TorchInductor"},
      {"triton_tem_fused_mm_0", "triton", "[inferred] TorchInductor's template kernels"},
      // grouped_gemm
      {kFusedMoe, "grouped_gemm", "[source] vLLM fused_moe.py (Triton)"},
      {"void ck::kernel_moe_gemm<ck::GridwiseMoeGemm<x>, true, "
       "(ck::InMemoryDataOperationEnum)0, 1, (ck::TailNumber)0>(x)",
       "grouped_gemm", "[seen] CK MoE GEMM behind aiter (ck::kernel_moe_gemm)"},
      {"void ck::kernel_moe_mxgemm_2lds<ck::GridwiseMoeGemmMX_BPreshuffle<x>, true>(x)",
       "grouped_gemm", "[seen] CK MX MoE GEMM"},
      {kCkGroupedGemm, "grouped_gemm", "[inferred] CK grouped GEMM"},
      {"_matmul_ogs_NNT_bf16xbf16xmxfp4_128x128x128x1_swiglu", "grouped_gemm",
       "[seen] triton_kernels' MoE GEMM, vLLM gpt-oss on MI300 (65 % of its GPU time)"},
      {"_p_matmul_ogs_NNT_bf16xbf16xmxfp4_16x256x128x1", "grouped_gemm",
       "[inferred] triton_kernels' persistent MoE GEMM"},
      {"_finalize_matmul_scatter_bf16", "grouped_gemm", "[seen] triton_kernels' MoE combine"},
      {"_ZN5aiter45fmoe_bf16_blockscaleFp8_g1u1_vs_silu_1tg_32x256E", "grouped_gemm",
       "[inferred] aiter's assembly fused MoE"},
      // gemv
      {kGemvt, "gemv", "[seen] rocBLAS GEMV"},
      {"void rocblas_gemvn_kernel<64, 16, float, float, float>(x)", "gemv",
       "[source] rocBLAS GEMV (template arguments inferred)"},
      {kWvSplitK, "gemv", "[seen] vLLM skinny GEMM"},
      {kLLGemm, "gemv", "[seen] vLLM skinny GEMM"},
      {"wv_splitk_small_fp16_bf16_kernel", "gemv",
       "[inferred] aiter's skinny GEMM as the issue names it (wv_splitk*)"},
      // gemm
      {kRocmHipblaslt, "gemm", "[seen] hipBLASLt (a batch-1 qkv_proj)"},
      {kHipblasltWide, "gemm", "[seen] hipBLASLt"},
      {kRocmPostGsu, "gemm", "[seen] hipBLASLt's split-K reduction"},
      {kPostGsuB, "gemm", "[seen] Tensile's split-K reduction"},
      {kRocblasTensile, "gemm", "the seed's rocBLAS Tensile name"},
      {kBetaOnly, "gemm", "[inferred] Tensile's beta-only kernel"},
      {"void ck::kernel_gemm_xdl_cshuffle_v3_multi_d_blockscale_b_preshuffle<ck::"
       "GridwiseGemmMultiD_blockscale_xdl_cshuffle_v3_b_preshuffle<x>, true>(x)",
       "gemm", "[seen] CK"},
      {"aiter::fp8gemm_bf16_blockscale_BpreShuffle_48x128", "gemm", "[seen] aiter"},
      {"hgemm_bf16_32x64x64_S2TN_AS_SPK16_BS_0", "gemm", "[seen] aiter"},
      {"_gemm_a8w8_blockscale_kernel_GROUP_K_128_GROUP_N_128_BLOCK_SIZE_M_16_BLOCK_SIZE_N_16_"
       "BLOCK_SIZE_K_128_GROUP_SIZE_M_4_NUM_KSPLIT_14",
       "gemm", "[seen] aiter's Triton GEMM"},
      {"_gemm_a8w8_blockscale_reduce_kernel_BLOCK_SIZE_M_32_BLOCK_SIZE_N_32_ACTUAL_KSPLIT_14_"
       "MAX_KSPLIT_16",
       "gemm", "[seen] aiter's Triton GEMM split-K reduce"},
      // rms_norm, layer_norm, rope
      {kVllmRmsNorm, "rms_norm", "[source] vLLM"},
      {kVllmAddRmsNorm, "rms_norm", "[source] vLLM"},
      {kAiterAddRmsQuant, "rms_norm", "[seen] aiter fused add + RMSNorm + quant"},
      {"_rms_normalize_kernel", "rms_norm", "[seen] SGLang (Triton)"},
      {"void ck_tile::kentry<256, 1, ck_tile::Rmsnorm2dFwd<ck_tile::Rmsnorm2dFwdPipelineOnePass<x>,"
       " ck_tile::Default2DEpilogue<x> > >(x)",
       "rms_norm", "[source] CK ck_tile rmsnorm2d (instance inferred)"},
      {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float,"
       " false>(x)",
       "layer_norm", "[pytorch] layer_norm_kernel.cu"},
      {"void ck_tile::kentry<256, 1, ck_tile::Layernorm2dFwd<ck_tile::"
       "Layernorm2dFwdPipelineOnePass<x>, ck_tile::Default2DEpilogue<x> > >(x)",
       "layer_norm", "[source] CK ck_tile layernorm2d (instance inferred)"},
      {kVllmRotary, "rope", "[source] vLLM"},
      {"apply_rotary_emb_triton_kernel", "rope", "[seen] SGLang (Triton)"},
      {"_fused_norm_rope_kernel", "rope", "[seen] SGLang (Triton)"},
      // moe_routing
      {"void ck_tile::kentry<2, ck_tile::MoeSortingKernel<ck_tile::MoeSortingProblemEx<int, "
       "float, 2, true, false, false, true, 0> >, x>(x)",
       "moe_routing", "[seen] CK MoE sorting"},
      {"_ZN5aiter27mxfp4_quant_moe_sort_kernelIDF16bN4opus5fp4_tELi256ELi32EEEvPT0_PhPKT_PKiSA_"
       "iiiiiiiii",
       "moe_routing", "[seen] aiter, mangled"},
      {"void aiter::opus_moe_sorting_entry<x>(x)", "moe_routing",
       "[seen] aiter (template arguments shortened)"},
      {kMoeAlign, "moe_routing", "[source] vLLM"},
      {kMoeSum, "moe_routing", "[source] vLLM"},
      {kTopkGating, "moe_routing", "[seen] vLLM"},
      {"void aiter::grouped_topk_kernel<c10::BFloat16, float __vector(4), 8, true, true, "
       "false>(x)",
       "moe_routing", "[seen] aiter"},
      {kHistogram, "moe_routing", "[pytorch] grouped_mm experts' histogram"},
      {"void aiter::topk_softmax_kernel<__hip_bfloat16, 8>(x)", "moe_routing",
       "[inferred] aiter's top-k softmax"},
      {"_combined_routing_compute", "moe_routing", "[seen] triton_kernels' routing"},
      {"_combined_routing_memset", "moe_routing", "[seen] triton_kernels' routing"},
      {"_routing_compute_indx", "moe_routing", "[inferred] triton_kernels' older routing"},
      {"_sum_bitmatrix_rows", "moe_routing", "[seen] triton_kernels' routing"},
      {"_topk_forward", "moe_routing", "[seen] triton_kernels' top-k"},
      // quant
      {kAiterQuant, "quant", "[seen] aiter, mangled"},
      {"void vllm::dynamic_per_token_scaled_fp8_quant_kernel<c10::BFloat16, "
       "c10::Float8_e4m3fnuz>(x)",
       "quant", "[source] vLLM csrc/quantization/fp8"},
      {"_quant_k_cache_fused_kernel", "quant", "[seen] SGLang (Triton)"},
      // the generic PyTorch families
      {kSoftmax, "softmax", "[pytorch]"},
      {kSortKV, "sort_topk", "[pytorch]"},
      {kTopk, "sort_topk", "[pytorch]"},
      {"void rocprim::ROCPRIM_300000_NS::detail::onesweep_iteration_kernel<x>(x)", "sort_topk",
       "[source] rocPRIM device_radix_sort (namespace version inferred)"},
      {"at::native::(anonymous namespace)::fill_reverse_indices_kernel(long*, int, "
       "at::cuda::detail::IntDivider<unsigned int>)",
       "sort_topk", "[pytorch]"},
      {kScan, "scan", "[pytorch]"},
      {"void rocprim::ROCPRIM_300000_NS::detail::lookback_scan_kernel<x>(x)", "scan",
       "[source] rocPRIM device_scan (namespace version inferred)"},
      {"void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<"
       "float, 4, x>(long, at::PhiloxCudaState, x)",
       "random", "[pytorch]"},
      {"void at::native::(anonymous namespace)::sampleMultinomialOnce<float, float>(long*, long, "
       "int, float const*, float const*, int, int, int, int)",
       "random", "[source] PyTorch MultinomialKernel.cu"},
      {"void flashinfer::sampling::SamplingFromProbKernel<1024u, x>(x)", "random",
       "[source] FlashInfer sampling"},
      {"void at::native::_assert_async_cuda_kernel<bool>(bool const*, at::native::Msg)", "check",
       "[pytorch]"},
      {kMaskedFill, "mask", "[pytorch]"},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
       "namespace)::where_kernel_impl(at::TensorIterator&)::{lambda()#1}::operator()() "
       "const::{lambda()#7}::operator()() const::{lambda(bool, float, float)#1}, "
       "std::array<char*, 4ul> >(x)",
       "mask", "[source] PyTorch TensorCompare.cu"},
      {"__amd_rocclr_copyBuffer", "copy", "[seen] HIP runtime blit"},
      {kToBf16, "copy", "[pytorch]"},
      {kToF32, "copy", "[pytorch]"},
      {kCat, "copy", "[pytorch]"},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
       "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
       "fill", "[seen] PyTorch on ROCm"},
      {"__amd_rocclr_fillBufferAligned", "fill", "[seen] HIP runtime blit"},
      {kArange, "fill", "[pytorch]"},
      {"void at::native::triu_tril_kernel<float, int, false, 4, false>(x)", "fill",
       "[source] PyTorch TriangularOps.cu"},
      {kIndexSelect, "index", "[pytorch]"},
      {kGather, "index", "[seen] PyTorch on ROCm"},
      {"void at::native::_scatter_gather_elementwise_kernel<128, 4, x>(int, x)", "index",
       "[source] PyTorch ScatterGatherKernel.cu"},
      {kMean, "reduce", "[pytorch]"},
      {kArgmax, "reduce", "[pytorch]"},
      {"MIOpenBatchNormFwdInferSpatialEst", "miopen", "[seen] MIOpen batch norm"},
      {kSilu, "elementwise", "[pytorch]"},
      {kAddBf16, "elementwise", "[seen] PyTorch on ROCm"},
      {kMulF32, "elementwise", "[pytorch]"},
      {"void at::native::unrolled_elementwise_kernel<at::native::BinaryFunctor<float, float, "
       "float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul>>(x)",
       "elementwise", "[pytorch]"},
      {kActAndMul, "elementwise", "[source] vLLM"},
      {"_ZN7sgl_hip10activation18act_and_mul_kernelI14__hip_bfloat16TnPFT_RKS3_EXadL_Z4siluIS2_"
       "ES3_S5_EEEEvPS3_PS4_i",
       "elementwise", "[seen] SGLang, mangled"},
      // what no class claims
      {"_set_k_and_s_triton_kernel", "other", "[seen] SGLang (Triton): no function class"},
      {"rocblas_scal_kernel", "other", "[seen] rocBLAS's scal: no GEMM"},
  };
}

class PytorchRocmPackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto pack = LoadPack("pytorch-rocm");
    ASSERT_TRUE(pack.ok()) << pack.status().ToString();
    pack_ = std::move(pack).value();
  }
  std::string ClassOf(const std::string& name) const {
    return pack_->class_names()[pack_->Classify(name)];
  }
  std::unique_ptr<analysis::Pack> pack_;
};

std::string_view PackText(std::string_view name) {
  for (const BuiltinFile& f : BuiltinPackFiles()) {
    if (f.name == name) return f.text;
  }
  return {};
}

TEST_F(PytorchRocmPackTest, ClassesInOrder) {
  const std::vector<std::string> expected = {
      "communication", "kv_cache",    "attention", "ssm",       "conv",       "triton",
      "grouped_gemm",  "gemv",        "gemm",      "rms_norm",  "layer_norm", "rope",
      "moe_routing",   "quant",       "softmax",   "sort_topk", "scan",       "random",
      "check",         "mask",        "copy",      "fill",      "index",      "reduce",
      "miopen",        "elementwise", "memcpy",    "memset",    "other"};
  EXPECT_EQ(pack_->class_names(), expected);
  // The roles are pytorch-cuda's, in its order.
  auto cuda = LoadPack("pytorch-cuda");
  ASSERT_TRUE(cuda.ok());
  EXPECT_EQ(pack_->role_names(), (*cuda)->role_names());
  EXPECT_EQ(DefaultUnitsOf(*pack_), "rocm-decode");
}

TEST_F(PytorchRocmPackTest, EveryNameGetsItsClass) {
  for (const NameCase& c : ClassCases()) {
    EXPECT_EQ(ClassOf(c.name), c.cls) << c.name << "  (" << c.source << ")";
  }
}

// The pack file's classes and their patterns, read from its text (the file keeps one
// `[[class]]` table per class with `name` and a `patterns` list of literal strings).
struct FileClass {
  std::string name;
  std::vector<std::string> patterns;
};
std::vector<FileClass> ClassesOf(std::string_view text) {
  std::vector<FileClass> out;
  bool in_class = false;
  bool in_patterns = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!in_patterns && line.starts_with("[")) {
      in_class = line == "[[class]]";
      if (in_class) out.emplace_back();
      continue;
    }
    if (!in_class) continue;
    if (line.starts_with("name = \"")) {
      out.back().name = std::string(line.substr(8, line.find('"', 8) - 8));
      continue;
    }
    if (line.starts_with("patterns = [")) in_patterns = true;
    if (!in_patterns) continue;
    for (size_t q = line.find('\''); q != std::string_view::npos; q = line.find('\'', q)) {
      const size_t close = line.find('\'', q + 1);
      out.back().patterns.emplace_back(line.substr(q + 1, close - q - 1));
      q = close + 1;
    }
    if (line.find(']') != std::string_view::npos && line.rfind('\'') < line.rfind(']')) {
      in_patterns = false;
    }
  }
  return out;
}

TEST_F(PytorchRocmPackTest, EveryPatternIsExercisedByANameOfItsClass) {
  const std::vector<FileClass> classes = ClassesOf(PackText("pytorch-rocm"));
  ASSERT_EQ(classes.size() + 3, pack_->class_names().size());  // + memcpy, memset, other
  const std::vector<NameCase> cases = ClassCases();
  for (const FileClass& c : classes) {
    ASSERT_FALSE(c.patterns.empty()) << c.name;
    for (const std::string& pattern : c.patterns) {
      const re2::RE2 re("(?i)" + pattern);
      ASSERT_TRUE(re.ok()) << pattern;
      bool exercised = false;
      for (const NameCase& n : cases) {
        exercised = exercised || (n.cls == c.name && re2::RE2::PartialMatch(n.name, re));
      }
      EXPECT_TRUE(exercised) << "class " << c.name << ": no test name matches '" << pattern << "'";
    }
  }
}

// ---- roles ----------------------------------------------------------------------------

// The op_path tables, as text, in file order.
std::vector<std::string> OpPathTables(std::string_view text) {
  std::vector<std::string> tables;
  const std::string_view header = "[[role_rule]]\n";
  for (size_t at = text.find(header); at != std::string_view::npos;) {
    const size_t next = text.find(header, at + header.size());
    std::string table(text.substr(at, next == std::string_view::npos ? text.npos : next - at));
    table = table.substr(0, table.find("\n\n"));  // up to the blank line that ends it
    if (table.find("kind = \"op_path\"") != std::string::npos) tables.push_back(table);
    at = next;
  }
  return tables;
}

TEST_F(PytorchRocmPackTest, OpPathRulesAreThoseOfPytorchCuda) {
  const std::vector<std::string> rocm = OpPathTables(PackText("pytorch-rocm"));
  EXPECT_EQ(rocm.size(), 20u);
  EXPECT_EQ(rocm, OpPathTables(PackText("pytorch-cuda")));
}

// One dispatch per case, launched on thread 1 inside the case's nested module ranges
// (outermost first), as transformers' modules name them (examples/hf_decode
// --module-ranges: "<ModuleClass>:<qualified name>"), and the role it should get.
std::vector<std::pair<std::vector<std::string>, std::string>> OpPathCases() {
  const std::string layer = "LlamaDecoderLayer:model.layers.0";
  const std::string attn = "LlamaAttention:model.layers.0.self_attn";
  return {
      {{layer, attn, "Linear:model.layers.0.self_attn.q_proj"}, "q_proj"},
      {{layer, attn, "QKVParallelLinear:model.layers.0.self_attn.qkv_proj"}, "q_proj"},
      {{layer, attn, "Linear:model.layers.0.self_attn.k_proj"}, "k_proj"},
      {{layer, attn, "Linear:model.layers.0.self_attn.v_proj"}, "v_proj"},
      {{layer, attn, "RowParallelLinear:model.layers.0.self_attn.o_proj"}, "o_proj"},
      {{layer, attn, "Qwen3RMSNorm:model.layers.0.self_attn.q_norm"}, "qk_norm"},
      {{"LlamaRotaryEmbedding:model.rotary_emb"}, "rotary_embedding"},
      {{layer, "Qwen3MoeSparseMoeBlock:model.layers.0.mlp", "Linear:model.layers.0.mlp.gate"},
       "moe_router"},
      {{layer, "Qwen2MoeSparseMoeBlock:model.layers.0.mlp",
        "Qwen2MoeMLP:model.layers.0.mlp.shared_expert"},
       "moe_shared_expert"},
      {{layer, "Qwen3MoeSparseMoeBlock:model.layers.0.mlp",
        "Qwen3MoeExperts:model.layers.0.mlp.experts"},
       "moe_experts"},
      {{layer, "Qwen3MoeSparseMoeBlock:model.layers.0.mlp"}, "moe_block"},
      {{"NemotronHBlock:backbone.layers.0", "NemotronHMamba2Mixer:backbone.layers.0.mixer",
        "Linear:backbone.layers.0.mixer.in_proj"},
       "mamba_mixer"},
      {{layer, "LlamaMLP:model.layers.0.mlp", "Linear:model.layers.0.mlp.down_proj"}, "mlp"},
      {{layer, "LlamaRMSNorm:model.layers.0.input_layernorm"}, "input_norm"},
      {{layer, "LlamaRMSNorm:model.layers.0.post_attention_layernorm"}, "post_attn_norm"},
      {{"LlamaRMSNorm:model.norm"}, "final_norm"},
      {{layer, attn}, "attention"},
      {{layer}, "residual"},
      {{"Embedding:model.embed_tokens"}, "embedding"},
      {{"Linear:lm_head"}, "lm_head"},
      {{}, "model_other"},
  };
}

std::string RoleName(const analysis::Pack& pack, analysis::RoleId role) {
  return role == analysis::kNoRole ? "" : pack.role_names()[static_cast<size_t>(role)];
}

// The roles `pack` gives the dispatches of OpPathCases(), in order.
std::vector<std::string> OpPathRoles(const analysis::Pack& pack) {
  const auto cases = OpPathCases();
  trace::StringPool pool;
  std::vector<trace::Range> ranges;
  trace::DispatchVector dispatches;
  std::vector<uint64_t> threads;
  std::vector<trace::TimestampNs> times;
  for (size_t i = 0; i < cases.size(); ++i) {
    const int64_t t0 = static_cast<int64_t>(i) * 1000;
    // The model's module encloses everything but the lm_head (it runs in ForCausalLM).
    std::vector<std::string> chain = {"LlamaForCausalLM"};
    if (cases[i].second != "lm_head") chain.push_back("LlamaModel:model");
    chain.insert(chain.end(), cases[i].first.begin(), cases[i].first.end());
    for (size_t depth = 0; depth < chain.size(); ++depth) {
      ranges.push_back(
          trace::Range{pool.Intern(chain[depth]), t0, t0 + 1000, 1, static_cast<int32_t>(depth)});
    }
    trace::Dispatch d;
    d.name = pool.Intern(kRocmHipblaslt);
    d.start = 1'000'000 + t0;
    d.end = d.start + 10;
    dispatches.push_back(d);
    threads.push_back(1);
    times.push_back(t0 + 500);
  }
  std::vector<analysis::ClassId> classes;
  for (const trace::Dispatch& d : dispatches) classes.push_back(pack.ClassOf(d, pool.Get(d.name)));
  const analysis::RangeIndex index(ranges);
  analysis::SequenceView seq{dispatches, &pool, classes, true};
  seq.launch_thread = threads;
  seq.launch_time = times;
  seq.ranges = &index;
  std::vector<std::string> out;
  for (const analysis::RoleId r : pack.AssignRoles(seq)) out.push_back(RoleName(pack, r));
  return out;
}

// Both PyTorch packs label the modules alike.
TEST(PytorchPacksOpPathTest, EveryOpPathRuleLabelsItsModule) {
  const auto cases = OpPathCases();
  for (const std::string pack_name : {"pytorch-rocm", "pytorch-cuda"}) {
    auto loaded = LoadPack(pack_name);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    const std::vector<std::string> roles = OpPathRoles(**loaded);
    ASSERT_EQ(roles.size(), cases.size());
    for (size_t i = 0; i < cases.size(); ++i) {
      EXPECT_EQ(roles[i], cases[i].second)
          << pack_name << ": " << (cases[i].first.empty() ? "" : cases[i].first.back());
    }
  }
}

// A decode sequence without module ranges: (kernel name, expected role or "").
using Seq = std::vector<std::pair<std::string, std::string>>;

void Append(Seq& seq, const Seq& more) { seq.insert(seq.end(), more.begin(), more.end()); }

// PyTorch's eager LlamaRMSNorm: eight kernels.
Seq EagerNorm(const std::string& role) {
  return {{kToF32, role}, {kPow, role},    {kMean, role},   {kAddEps, role},
          {kRsqrt, role}, {kMulF32, role}, {kToBf16, role}, {kMulBf16, role}};
}
// The residual add after a block.
Seq Residual() { return {{kAddBf16, "residual"}}; }

// The roles `pack` gives the dispatches of `seq` (no launch records, no ranges).
std::vector<std::string> SequenceRoles(const analysis::Pack& pack, const Seq& seq) {
  trace::StringPool pool;
  trace::DispatchVector dispatches;
  for (size_t i = 0; i < seq.size(); ++i) {
    trace::Dispatch d;
    d.name = pool.Intern(seq[i].first);
    d.start = static_cast<int64_t>(i) * 100;
    d.end = d.start + 50;
    dispatches.push_back(d);
  }
  std::vector<analysis::ClassId> classes;
  for (const trace::Dispatch& d : dispatches) classes.push_back(pack.ClassOf(d, pool.Get(d.name)));
  const analysis::SequenceView view{dispatches, &pool, classes, true};
  std::vector<std::string> out;
  for (const analysis::RoleId r : pack.AssignRoles(view)) out.push_back(RoleName(pack, r));
  return out;
}

// vLLM on ROCm, Llama at TP=2: every block of a decode step, the serving-engine rules.
Seq VllmLlamaStep() {
  Seq seq = {{kIndexSelect, "embedding"}};  // the embedding lookup (eager rule, no bookkeeping)
  for (int layer = 0; layer < 2; ++layer) {
    Append(seq, {
                    {layer == 0 ? kVllmRmsNorm : kVllmAddRmsNorm, "input_norm"},
                    {kRocmHipblaslt, "q_proj"},  // the fused qkv_proj, split over K
                    {kRocmPostGsu, "q_proj"},
                    {kVllmRotary, "attention"},
                    {kVllmCacheFlash, "attention"},
                    {kPagedQkv, "attention"},
                    {kPagedReduce, "attention"},
                    {kHipblasltWide, "o_proj"},
                    {kCustomAllReduce, "o_proj"},
                    {kVllmAddRmsNorm, "post_attn_norm"},
                    {kWvSplitK, "mlp"},  // gate_up_proj on vLLM's skinny GEMM
                    {kActAndMul, "mlp"},
                    {kBetaOnly, "mlp"},  // down_proj: Tensile's beta-only kernel, the GEMM
                    {kRocblasTensile, "mlp"},
                    {kRccl, "mlp"},  // RCCL for the second all-reduce
                });
  }
  Append(seq, {
                  {kVllmAddRmsNorm, "final_norm"},
                  {kLLGemm, "lm_head"},
                  {kRccl, "lm_head"},  // the gather of the vocabulary shards
                  {kArgmax, ""},       // the sampler runs outside the model
              });
  return seq;
}

// Qwen3 on vLLM with FP8 weights (aiter): the fused add + RMSNorm + quant, its q/k norms.
Seq VllmQwen3AttentionWithQkNormsAndQuantization() {
  return {
      {kAiterAddRmsQuant, "input_norm"},
      {kAiterQuant, "input_norm"},
      {"aiter::fp8gemm_bf16_blockscale_BpreShuffle_48x128", "q_proj"},
      {kVllmRmsNorm, "qk_norm"},
      {kVllmRmsNorm, "qk_norm"},
      {kVllmRotary, "attention"},
      {kVllmCacheFlash, "attention"},
      {"kernel_unified_attention_2d", "attention"},
      {kAiterQuant, "attention"},
      {"aiter::fp8gemm_bf16_blockscale_BpreShuffle_48x128", "o_proj"},
      {kVllmAddRmsNorm, "post_attn_norm"},
      {kRocmHipblaslt, "mlp"},
      {kActAndMul, "mlp"},
      {kRocmHipblaslt, "mlp"},
  };
}

// A MoE block on vLLM (Mixtral / Qwen3-MoE): the router, vLLM's Triton fused MoE.
Seq VllmMoeBlock() {
  return {
      {kVllmAddRmsNorm, "post_attn_norm"},
      {kRocmHipblaslt, "moe_router"},  // the gate
      {kTopkGating, "moe_router"},
      {kMoeAlign, "moe_experts"},
      {kFusedMoe, "moe_experts"},
      {kActAndMul, "moe_experts"},
      {kFusedMoe, "moe_experts"},
      {kMoeSum, "moe_experts"},
      {kCustomAllReduce, "moe_experts"},
      {kVllmAddRmsNorm, "final_norm"},
      {kGemvt, "lm_head"},
  };
}

// Eager transformers Llama on PyTorch ROCm: the rotary tables, the embedding, attention with
// q/k/v projections (split-K Tensile GEMMs), the gated MLP, the final norm and lm_head.
Seq EagerLlamaStep() {
  Seq seq = {
      {kIndexSelect, "embedding"},   {kArange, "model_other"},      {kAddBf16, "model_other"},
      {kToF32, "rotary_embedding"},  {kSgemm, "rotary_embedding"},  {kCat, "rotary_embedding"},
      {kCos, "rotary_embedding"},    {kMulF32, "rotary_embedding"}, {kSin, "rotary_embedding"},
      {kMulF32, "rotary_embedding"}, {kToBf16, "rotary_embedding"}, {kToBf16, "rotary_embedding"},
  };
  Append(seq, EagerNorm("input_norm"));
  Append(seq, {
                  {kRocmHipblaslt, "q_proj"},
                  {kRocmPostGsu, "q_proj"},
                  {kBetaOnly, "k_proj"},
                  {kRocblasTensile, "k_proj"},
                  {kRocmHipblaslt, "v_proj"},
                  {kMulBf16, "attention"},  // RoPE: x * cos, rotate_half, + (x * sin)
                  {kNeg, "attention"},
                  {kCat, "attention"},
                  {kMulBf16, "attention"},
                  {kAddBf16, "attention"},
                  {kCat, "attention"},  // the KV cache grows by torch.cat
                  {kCat, "attention"},
                  {kCkFmha, "attention"},
                  {kCkFmhaCombine, "attention"},
                  {kRocmHipblaslt, "o_proj"},
                  {kPostGsuB, "o_proj"},
              });
  Append(seq, Residual());
  Append(seq, EagerNorm("post_attn_norm"));
  Append(seq, {
                  {kRocmHipblaslt, "mlp"},  // gate
                  {kSilu, "mlp"},
                  {kRocmHipblaslt, "mlp"},  // up
                  {kMulBf16, "mlp"},
                  {kHipblasltWide, "mlp"},  // down
                  {kRocmPostGsu, "mlp"},
              });
  Append(seq, Residual());
  Append(seq, EagerNorm("final_norm"));
  Append(seq, {{kGemvt, "lm_head"}, {kToF32, ""}, {kArgmax, ""}});
  return seq;
}

// Eager Qwen3 attention: RMSNorms of q and k between the projections; AOTriton's kernel.
Seq EagerQwen3AttentionWithQkNorms() {
  Seq seq = EagerNorm("input_norm");
  Append(seq, {{kRocmHipblaslt, "q_proj"}});
  Append(seq, EagerNorm("qk_norm"));
  Append(seq, {{kRocmHipblaslt, "k_proj"}, {kRocmPostGsu, "k_proj"}});
  Append(seq, EagerNorm("qk_norm"));
  Append(seq, {{kRocmHipblaslt, "v_proj"},
               {kMulBf16, "attention"},
               {kCat, "attention"},
               {"attn_fwd", "attention"},
               {kRocmHipblaslt, "o_proj"}});
  Append(seq, Residual());
  return seq;
}

// Eager Mamba2 mixer (Nemotron-H / Granite 4.0-H): in_proj, MIOpen's convolution, the state
// update, the gated norm, out_proj; then the two-GEMM MLP (Nemotron-H's ReLU²).
Seq EagerMamba2MixerAndTwoGemmMlp() {
  Seq seq = EagerNorm("input_norm");
  Append(seq, {
                  {kRocmHipblaslt, "mamba_mixer"},  // in_proj
                  {kToBf16, "mamba_mixer"},
                  {"miopenSp3AsmConv3x3F", "mamba_mixer"},
                  {kSilu, "mamba_mixer"},
                  {"_selective_scan_update_kernel", "mamba_mixer"},
                  {kMulBf16, "mamba_mixer"},
                  {kVllmRmsNorm, "mamba_mixer"},    // the gated norm (a fused kernel here)
                  {kRocmHipblaslt, "mamba_mixer"},  // out_proj
                  {kRocmPostGsu, "mamba_mixer"},
              });
  Append(seq, Residual());
  Append(seq, EagerNorm("post_attn_norm"));
  Append(seq,
         {{kRocmHipblaslt, "mlp"}, {kSilu, "mlp"}, {kMulBf16, "mlp"}, {kRocmHipblaslt, "mlp"}});
  Append(seq, Residual());
  return seq;
}

// Eager MoE blocks with and without a shared expert (transformers' grouped_mm experts): the
// router GEMM and top-k, the token sort and histogram, the grouped GEMMs, the weighted sum.
Seq EagerMoeBlocks() {
  const Seq experts = {
      {kArange, "moe_experts"},  {kSortKV, "moe_experts"},  {kHistogram, "moe_experts"},
      {kScan, "moe_experts"},    {kGather, "moe_experts"},  {kCkGroupedGemm, "moe_experts"},
      {kSilu, "moe_experts"},    {kMulBf16, "moe_experts"}, {kCkGroupedGemm, "moe_experts"},
      {kMulBf16, "moe_experts"}, {kMean, "moe_experts"},
  };
  Seq seq = EagerNorm("post_attn_norm");
  Append(seq, {{kToF32, "moe_router"},
               {kGemvt, "moe_router"},
               {kSoftmax, "moe_router"},
               {kTopk, "moe_router"},
               {kAddBf16, "moe_router"}});
  Append(seq, experts);
  Append(seq, {{kRocmHipblaslt, "moe_shared_expert"},
               {kSilu, "moe_shared_expert"},
               {kRocmHipblaslt, "moe_shared_expert"},
               {kRocmPostGsu, "moe_shared_expert"}});
  Append(seq, Residual());
  Append(seq, EagerNorm("post_attn_norm"));
  Append(seq, {{kRocmHipblaslt, "moe_router"}, {kSoftmax, "moe_router"}, {kTopk, "moe_router"}});
  Append(seq, experts);
  Append(seq, Residual());
  return seq;
}

// The class catch-alls: kernels of a class only one role dispatches, outside any block.
Seq ClassCatchAlls() {
  return {
      {kPagedQkv, "attention"},
      {kArgmax, ""},
      {kVllmCacheFlash, "attention"},
      {kArgmax, ""},
      {kFusedMoe, "moe_experts"},
      {kTopkGating, "moe_experts"},
      {kArgmax, ""},
      {"_causal_conv1d_update_kernel", "mamba_mixer"},
      {"_selective_scan_update_kernel", "mamba_mixer"},
      {kRccl, ""},  // a collective alone has no role of its own
  };
}

const std::vector<std::pair<std::string, Seq (*)()>>& SequenceCases() {
  static const std::vector<std::pair<std::string, Seq (*)()>> kCases = {
      {"VllmLlamaStep", VllmLlamaStep},
      {"VllmQwen3AttentionWithQkNormsAndQuantization",
       VllmQwen3AttentionWithQkNormsAndQuantization},
      {"VllmMoeBlock", VllmMoeBlock},
      {"EagerLlamaStep", EagerLlamaStep},
      {"EagerQwen3AttentionWithQkNorms", EagerQwen3AttentionWithQkNorms},
      {"EagerMamba2MixerAndTwoGemmMlp", EagerMamba2MixerAndTwoGemmMlp},
      {"EagerMoeBlocks", EagerMoeBlocks},
      {"ClassCatchAlls", ClassCatchAlls},
  };
  return kCases;
}

TEST_F(PytorchRocmPackTest, EverySequenceGetsItsRoles) {
  for (const auto& [name, make] : SequenceCases()) {
    const Seq seq = make();
    const std::vector<std::string> roles = SequenceRoles(*pack_, seq);
    ASSERT_EQ(roles.size(), seq.size()) << name;
    for (size_t i = 0; i < seq.size(); ++i) {
      EXPECT_EQ(roles[i], seq[i].second)
          << name << ", dispatch " << i << " (" << ClassOf(seq[i].first)
          << "): " << seq[i].first.substr(0, 80);
    }
  }
}

// Each [[role_rule]] matters: without it, some dispatch of the sequences above or of the
// op_path cases gets another role (so every rule is exercised, and none is shadowed by the
// others).
TEST(PytorchRocmRulesTest, EveryRoleRuleIsNeeded) {
  const std::string text(PackText("pytorch-rocm"));
  const std::string header = "[[role_rule]]\n";
  std::vector<size_t> starts;
  for (size_t at = text.find(header); at != std::string::npos; at = text.find(header, at + 1)) {
    starts.push_back(at);
  }
  ASSERT_EQ(starts.size(), 20u + 17u);  // 20 op_path rules, 17 sequence rules
  const auto op_cases = OpPathCases();
  for (size_t r = 0; r < starts.size(); ++r) {
    const size_t end = r + 1 < starts.size() ? starts[r + 1] : text.size();
    std::string without = text.substr(0, starts[r]) + text.substr(end);
    // The table's comment (the lines above the next header) stays: it is only a comment.
    auto pack = ParsePack(without, "pytorch-rocm-without-a-rule.toml", "");
    ASSERT_TRUE(pack.ok()) << pack.status().ToString();
    int64_t changed = 0;
    const std::vector<std::string> op_roles = OpPathRoles(**pack);
    for (size_t i = 0; i < op_cases.size(); ++i) changed += op_roles[i] != op_cases[i].second;
    for (const auto& [name, make] : SequenceCases()) {
      const Seq seq = make();
      const std::vector<std::string> roles = SequenceRoles(**pack, seq);
      for (size_t i = 0; i < seq.size(); ++i) changed += roles[i] != seq[i].second;
    }
    const std::string rule = text.substr(starts[r], std::min<size_t>(end - starts[r], 160));
    EXPECT_GT(changed, 0) << "rule #" << r + 1 << " changes nothing:\n" << rule;
  }
}

// ---- units ------------------------------------------------------------------------------

TEST(RocmDecodeUnitsTest, LoadOnThePytorchRocmPackWithDisjointClasses) {
  auto pack = LoadPack("pytorch-rocm");
  ASSERT_TRUE(pack.ok()) << pack.status().ToString();
  auto units = LoadUnits("rocm-decode", **pack);
  ASSERT_TRUE(units.ok()) << units.status().ToString();
  const auto& list = (*units)->units();
  ASSERT_EQ(list.size(), 9u);
  EXPECT_EQ(list[0].id, "hip_graph");
  EXPECT_EQ(list[0].host_gap, analysis::HostGapOwnership::kAll);
  EXPECT_TRUE(list[0].classes.empty());
  std::vector<int> owner((*pack)->class_names().size(), -1);
  std::set<std::string> ids;
  for (size_t u = 0; u < list.size(); ++u) {
    ids.insert(list[u].id);
    if (u > 0) {
      EXPECT_EQ(list[u].host_gap, analysis::HostGapOwnership::kRoles) << list[u].id;
      EXPECT_FALSE(list[u].classes.empty()) << list[u].id;
    }
    for (analysis::ClassId c : list[u].classes) {
      EXPECT_EQ(owner[c], -1) << (*pack)->class_names()[c] << " in two units";
      owner[c] = static_cast<int>(u);
    }
    const bool sampler = list[u].id == "sampler";
    EXPECT_EQ((*units)->Reach(u, {"llama", ""}, false).default_whole, !sampler) << list[u].id;
    EXPECT_TRUE((*units)->Reach(u, {"llama", ""}, true).default_whole) << list[u].id;
  }
  // Every class but these has a unit.
  const std::set<std::string> unowned = {"triton", "miopen", "memcpy", "memset", "other"};
  for (size_t c = 0; c < owner.size(); ++c) {
    const std::string& name = (*pack)->class_names()[c];
    EXPECT_EQ(owner[c] == -1, unowned.count(name) == 1) << name;
  }
  // The units h200-decode also has keep its ids.
  auto cuda = LoadPack("pytorch-cuda");
  ASSERT_TRUE(cuda.ok());
  auto h200 = LoadUnits("h200-decode", **cuda);
  ASSERT_TRUE(h200.ok());
  for (const analysis::Unit& u : (*h200)->units()) {
    if (u.id != "cuda_graph") {
      EXPECT_EQ(ids.count(u.id), 1u) << u.id;
    }
  }
}

}  // namespace
}  // namespace decodeprof::packs
