// The built-in ggml pack (packs/ggml.toml) and its units (ggml-decode): ggml-cuda's kernel
// names get their classes, a llama.cpp decode step its roles. Names marked [seen] are those
// CUPTI wrote for llama.cpp decoding Llama-3.2-1B in f16 on an H200
// (benchmarks/h200/finder-2026-12-03, parameter lists shortened); [source] ones are the
// __global__ functions of ggml/src/ggml-cuda, instantiated as the compiler names them.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "src/packs/pack_loader.h"

namespace decodeprof::packs {
namespace {

// [seen] the decode's kernels.
const std::string kGemv =
    "void mul_mat_vec_f<__half, __half, 1, 256, false, false>(__half const*, float const*, int "
    "const*, ggml_cuda_mm_fusion_args_device, float*, int, uint3, int)";
const std::string kGemvAdd =  // the residual add fused in
    "void mul_mat_vec_f<__half, __half, 1, 256, true, false>(__half const*, float const*, int "
    "const*, ggml_cuda_mm_fusion_args_device, float*, int, uint3, int)";
const std::string kGemvGlu =  // gate and up with the SwiGLU fused in
    "void mul_mat_vec_f<__half, float, 1, 256, true, false>(__half const*, float const*, int "
    "const*, ggml_cuda_mm_fusion_args_device, float*, int, uint3, int)";
const std::string kNorm =
    "void rms_norm_f32<1024, true, false>(float const*, float*, int, long, long, long, float, "
    "float const*, long, long, long, uint3, uint3, uint3, uint3, float const*)";
const std::string kRopeQ =
    "void rope_norm<true, false, float, float>(float const*, float*, int, int, int, int, int)";
const std::string kRopeK =  // K's RoPE writes the f16 cache
    "void rope_norm<true, false, float, __half>(float const*, __half*, int, int, int, int, int)";
const std::string kSetRows =
    "void k_set_rows<float, long, __half>(float const*, long const*, __half*, long, long, long)";
const std::string kFattn =
    "void flash_attn_ext_vec<64, 1, (ggml_type)1, (ggml_type)1, false>(char const*, char "
    "const*, char const*, char const*, char const*, int const*, float*, float2*)";
const std::string kCombine =
    "void flash_attn_combine_results<64>(float const*, float2 const*, float*, int)";
const std::string kGetRows =
    "void k_get_rows_float<float, float>(float const*, int const*, float*, long, long, uint3)";
const std::string kAdd =
    "void k_bin_bcast<&_INTERNAL_c82e9619_11_binbcast_cu_6840010b::op_add, float, float, float, "
    "float const*>(float const*, float const*, float*, unsigned int)";

class GgmlPackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = LoadPack("ggml");
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    pack_ = std::move(loaded).value();
  }
  std::string ClassOf(const std::string& name) const {
    return pack_->class_names()[pack_->Classify(name)];
  }
  std::unique_ptr<analysis::Pack> pack_;
};

TEST_F(GgmlPackTest, KernelNamesGetTheirClasses) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      // [seen]
      {kGemv, "gemv"},
      {kGemvAdd, "gemv"},
      {kGemvGlu, "gemv"},
      {kNorm, "rms_norm"},
      {kRopeQ, "rope"},
      {kRopeK, "rope"},
      {kSetRows, "kv_cache"},
      {kFattn, "attention"},
      {kCombine, "attention"},
      {"void flash_attn_ext_f16<64, 64, 16, 4, false, false>(char const*)", "attention"},
      {"void flash_attn_stream_k_fixup_uniform<64, 16, 4>(float*, float2 const*, int)",
       "attention"},
      {kGetRows, "index"},
      {kAdd, "elementwise"},
      {"void unary_gated_op_kernel<&_INTERNAL_f04de777_8_unary_cu_eb6d5366::op_silu, float>"
       "(float const*, float const*, float*, long, long, long, long)",
       "elementwise"},
      {"void convert_unary<float, __half>(void const*, __half*, long, long, long, uint3)", "copy"},
      {"void cutlass::Kernel2<cutlass_80_tensorop_h16816gemm_128x64_64x6_tn_align8>(x)", "gemm"},
      {"void cublasLt::splitKreduce_kernel<32, 16, int, __half, __half>(x)", "gemm"},
      // [source]
      {"void mul_mat_vec_q<(ggml_type)8, 1, false>(void const*, void const*, int const*, float*)",
       "gemv"},
      {"void mul_mat_vec_q_moe<(ggml_type)12, 1>(void const*, void const*, int const*)",
       "grouped_gemm"},
      {"void mul_mat_q<(ggml_type)8, 64, false>(char const*, int const*, int const*, float*)",
       "gemm"},
      {"void mul_mat_f<__half2, 64, 2, 8, false>(__half2 const*, float const*, int const*)",
       "gemm"},
      {"void quantize_q8_1(float const*, void*, long, long, long, long, long, long)", "quant"},
      {"void quantize_mmq_q8_1<(mmq_q8_1_ds_layout)1>(float const*, int const*, void*)", "quant"},
      {"void dequantize_block<32, 2, &dequantize_q4_0, __half>(void const*, __half*, long)",
       "quant"},
      {"void topk_moe_cuda<8>(float const*, float*, int*, int, int)", "moe_routing"},
      {"void soft_max_f32<true, 0, 0, __half>(float const*, __half const*, float*)", "softmax"},
      {"void norm_f32<1024>(float const*, float*, int, long, long, long, float)", "layer_norm"},
      {"void rope_neox<true, false, float, float>(float const*, float*, int)", "rope"},
      {"void cpy_scalar<&cpy_1_f32_f16>(char const*, char*, int, int, int, int, int)", "copy"},
      {"void scale_f32(float const*, float*, float, float, long)", "elementwise"},
      {"void unary_op_kernel<&op_gelu, float>(float const*, float*, long)", "elementwise"},
      {"void k_argsort_f32_i32<(ggml_sort_order)1>(float const*, int*, int, int, int)",
       "sort_topk"},
      {"void argmax_f32(float const*, int*, long)", "reduce"},
      {"void ssm_scan_f32<128, 16>(float const*, float const*, float const*)", "ssm"},
      {"void ssm_conv_f32<128, 4>(float const*, float const*, int, int)", "conv"},
      {"void ggml_cuda_ar_kernel<float>(float*, float const*, int)", "communication"},
  };
  for (const auto& [name, cls] : cases) EXPECT_EQ(ClassOf(name), cls) << name;
  EXPECT_EQ(DefaultUnitsOf(*pack_), "ggml-decode");
  EXPECT_TRUE(LoadUnits("ggml-decode", *pack_).ok());
}

// One decode step of the recorded graph: the embedding lookup, two layers as ggml-cuda fuses
// them (the last gathering the output rows), the final norm and the lm_head.
TEST_F(GgmlPackTest, ADecodeStepGetsItsRoles) {
  std::vector<std::pair<std::string, std::string>> seq = {{kGetRows, "embedding"}};
  for (int layer = 0; layer < 2; ++layer) {
    const bool last = layer == 1;
    const std::vector<std::pair<std::string, std::string>> attn = {
        {kNorm, "input_norm"},       {kGemv, "q_proj"},
        {kRopeQ, "rope_kv_write"},   {kGemv, "k_proj"},
        {kGemv, "v_proj"},           {kRopeK, "rope_kv_write"},
        {kSetRows, "rope_kv_write"}, {kFattn, "attention"},
        {kCombine, "attention"},     {last ? kGemv : kGemvAdd, "o_proj"}};
    seq.insert(seq.end(), attn.begin(), attn.end());
    if (last) {
      seq.push_back({kGetRows, "model_other"});
      seq.push_back({kGetRows, "model_other"});
      seq.push_back({kAdd, "residual"});
    }
    seq.push_back({kNorm, "post_attn_norm"});
    seq.push_back({kGemvGlu, "mlp"});
    seq.push_back({kGemvAdd, "mlp"});
  }
  seq.push_back({kNorm, "final_norm"});
  seq.push_back({kGemv, "lm_head"});

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
  for (const trace::Dispatch& d : dispatches) {
    classes.push_back(pack_->ClassOf(d, pool.Get(d.name)));
  }
  const analysis::SequenceView view{dispatches, &pool, classes, true};
  const std::vector<analysis::RoleId> roles = pack_->AssignRoles(view);
  ASSERT_EQ(roles.size(), seq.size());
  for (size_t i = 0; i < seq.size(); ++i) {
    const std::string got =
        roles[i] == analysis::kNoRole ? "" : pack_->role_names()[static_cast<size_t>(roles[i])];
    EXPECT_EQ(got, seq[i].second) << "dispatch " << i << ": " << seq[i].first;
  }
}

}  // namespace
}  // namespace decodeprof::packs
