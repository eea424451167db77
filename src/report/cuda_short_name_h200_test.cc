// The CUDA short-name rules on the real kernel names of the first H200 recordings
// (docs/results/h200-first-recordings/*_decode_kernels.csv, copied here verbatim).
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/report/cuda_short_name.h"
#include "src/report/short_name.h"

namespace decodeprof::report {
namespace {

// A CUTLASS 3 grouped GEMM of the qwen3-moe run, as CUPTI recorded it: mangled, 1270
// characters. abi::__cxa_demangle (libstdc++) refuses mangled names longer than 1024
// characters, so the recorder and the native importer both kept it mangled.
constexpr std::string_view kCutlassMangled =
    "_ZN7cutlass13device_kernelIN2at4cuda6detail25enable_3x_kernel_for_sm9xINS_4gemm6kernel13"
    "GemmUniversalINS5_17GroupProblemShapeIN4cute5tupleIJiiiEEEEENS5_10collective13Collective"
    "MmaINS5_39MainloopSm90ArrayTmaGmmaWarpSpecializedILi4ENSA_IJNS9_1CILi2EEENSG_ILi1EEESI_E"
    "EENS5_40KernelPtrArrayTmaWarpSpecializedPingpongEEENSA_IJNSG_ILi64EEENSG_ILi128EEESN_EEE"
    "NS_10bfloat16_tEPNSA_IJlSI_NSG_ILi0EEEEEESP_SS_NS9_8TiledMMAINS9_8MMA_AtomIJNS9_4SM904GM"
    "MA28MMA_64x128x16_F32BF16BF16_SSILNSW_5MajorE0ELSY_0ELNSW_7ScaleInE1ELSZ_1EEEEEENS9_6Lay"
    "outINSA_IJSI_SI_SI_EEENSA_IJSQ_SQ_SQ_EEEEENSA_IJNS9_10UnderscoreES16_S16_EEEEENS9_13SM90"
    "_TMA_LOADENS9_14ComposedLayoutINS9_7SwizzleILi3ELi4ELi3EEENS9_18smem_ptr_flag_bitsILi16E"
    "EENS12_INSA_IJNSG_ILi8EEESM_EEENSA_IJSM_SI_EEEEEEEvNS9_8identityENS9_23SM90_TMA_LOAD_MUL"
    "TICASTES1J_vS1K_EENS_8epilogue10collective18CollectiveEpilogueINS1N_30Sm90PtrArrayTmaWar"
    "pSpecializedILi4ELi2ELi16ELb0ELb0ELi2EEEJSO_NSA_IJSM_NSG_ILi32EEEEEEvSS_SP_SS_NS1N_6fusi"
    "on15FusionCallbacksIS1R_NS1U_17LinearCombinationISP_fSP_fLNS_15FloatRoundStyleE2EEESO_S1"
    "T_JEEES19_NS1A_INS1B_ILi2ELi4ELi3EEES1E_NS12_INSA_IJS1F_S1S_EEENSA_IJS1S_SI_EEEEEEENS9_1"
    "7SM75_U32x4_LDSM_NENS9_14SM90_TMA_STOREES24_NS9_17SM90_U32x4_STSM_NENS9_9Copy_AtomIJS27_"
    "NS_6half_tEEEEvEEEvvEEEEEEvNT_6ParamsE";

// The same name demangled by LLVM's demangler (llvm-cxxfilt), which has no length limit.
constexpr std::string_view kCutlassDemangled =
    "void cutlass::device_kernel<at::cuda::detail::enable_3x_kernel_for_sm9x<cutlass::gemm::k"
    "ernel::GemmUniversal<cutlass::gemm::GroupProblemShape<cute::tuple<int, int, int> >, cutl"
    "ass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90ArrayTmaGmmaWarpSpeciali"
    "zed<4, cute::tuple<cute::C<2>, cute::C<1>, cute::C<1> >, cutlass::gemm::KernelPtrArrayTm"
    "aWarpSpecializedPingpong>, cute::tuple<cute::C<64>, cute::C<128>, cute::C<128> >, cutlas"
    "s::bfloat16_t, cute::tuple<long, cute::C<1>, cute::C<0> >*, cutlass::bfloat16_t, cute::t"
    "uple<long, cute::C<1>, cute::C<0> >*, cute::TiledMMA<cute::MMA_Atom<cute::SM90::GMMA::MM"
    "A_64x128x16_F32BF16BF16_SS<(cute::SM90::GMMA::Major)0, (cute::SM90::GMMA::Major)0, (cute"
    "::SM90::GMMA::ScaleIn)1, (cute::SM90::GMMA::ScaleIn)1> >, cute::Layout<cute::tuple<cute:"
    ":C<1>, cute::C<1>, cute::C<1> >, cute::tuple<cute::C<0>, cute::C<0>, cute::C<0> > >, cut"
    "e::tuple<cute::Underscore, cute::Underscore, cute::Underscore> >, cute::SM90_TMA_LOAD, c"
    "ute::ComposedLayout<cute::Swizzle<3, 4, 3>, cute::smem_ptr_flag_bits<16>, cute::Layout<c"
    "ute::tuple<cute::C<8>, cute::C<64> >, cute::tuple<cute::C<64>, cute::C<1> > > >, void, c"
    "ute::identity, cute::SM90_TMA_LOAD_MULTICAST, cute::ComposedLayout<cute::Swizzle<3, 4, 3"
    ">, cute::smem_ptr_flag_bits<16>, cute::Layout<cute::tuple<cute::C<8>, cute::C<64> >, cut"
    "e::tuple<cute::C<64>, cute::C<1> > > >, void, cute::identity>, cutlass::epilogue::collec"
    "tive::CollectiveEpilogue<cutlass::epilogue::Sm90PtrArrayTmaWarpSpecialized<4, 2, 16, fal"
    "se, false, 2>, cute::tuple<cute::C<64>, cute::C<128>, cute::C<128> >, cute::tuple<cute::"
    "C<64>, cute::C<32> >, void, cute::tuple<long, cute::C<1>, cute::C<0> >*, cutlass::bfloat"
    "16_t, cute::tuple<long, cute::C<1>, cute::C<0> >*, cutlass::epilogue::fusion::FusionCall"
    "backs<cutlass::epilogue::Sm90PtrArrayTmaWarpSpecialized<4, 2, 16, false, false, 2>, cutl"
    "ass::epilogue::fusion::LinearCombination<cutlass::bfloat16_t, float, cutlass::bfloat16_t"
    ", float, (cutlass::FloatRoundStyle)2>, cute::tuple<cute::C<64>, cute::C<128>, cute::C<12"
    "8> >, cute::tuple<cute::C<64>, cute::C<32> > >, cute::SM90_TMA_LOAD, cute::ComposedLayou"
    "t<cute::Swizzle<2, 4, 3>, cute::smem_ptr_flag_bits<16>, cute::Layout<cute::tuple<cute::C"
    "<8>, cute::C<32> >, cute::tuple<cute::C<32>, cute::C<1> > > >, cute::SM75_U32x4_LDSM_N, "
    "cute::SM90_TMA_STORE, cute::ComposedLayout<cute::Swizzle<2, 4, 3>, cute::smem_ptr_flag_b"
    "its<16>, cute::Layout<cute::tuple<cute::C<8>, cute::C<32> >, cute::tuple<cute::C<32>, cu"
    "te::C<1> > > >, cute::SM90_U32x4_STSM_N, cute::Copy_Atom<cute::SM90_U32x4_STSM_N, cutlas"
    "s::half_t>, void>, void, void> > >(at::cuda::detail::enable_3x_kernel_for_sm9x<cutlass::"
    "gemm::kernel::GemmUniversal<cutlass::gemm::GroupProblemShape<cute::tuple<int, int, int> "
    ">, cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90ArrayTmaGmmaWarpS"
    "pecialized<4, cute::tuple<cute::C<2>, cute::C<1>, cute::C<1> >, cutlass::gemm::KernelPtr"
    "ArrayTmaWarpSpecializedPingpong>, cute::tuple<cute::C<64>, cute::C<128>, cute::C<128> >,"
    " cutlass::bfloat16_t, cute::tuple<long, cute::C<1>, cute::C<0> >*, cutlass::bfloat16_t, "
    "cute::tuple<long, cute::C<1>, cute::C<0> >*, cute::TiledMMA<cute::MMA_Atom<cute::SM90::G"
    "MMA::MMA_64x128x16_F32BF16BF16_SS<(cute::SM90::GMMA::Major)0, (cute::SM90::GMMA::Major)0"
    ", (cute::SM90::GMMA::ScaleIn)1, (cute::SM90::GMMA::ScaleIn)1> >, cute::Layout<cute::tupl"
    "e<cute::C<1>, cute::C<1>, cute::C<1> >, cute::tuple<cute::C<0>, cute::C<0>, cute::C<0> >"
    " >, cute::tuple<cute::Underscore, cute::Underscore, cute::Underscore> >, cute::SM90_TMA_"
    "LOAD, cute::ComposedLayout<cute::Swizzle<3, 4, 3>, cute::smem_ptr_flag_bits<16>, cute::L"
    "ayout<cute::tuple<cute::C<8>, cute::C<64> >, cute::tuple<cute::C<64>, cute::C<1> > > >, "
    "void, cute::identity, cute::SM90_TMA_LOAD_MULTICAST, cute::ComposedLayout<cute::Swizzle<"
    "3, 4, 3>, cute::smem_ptr_flag_bits<16>, cute::Layout<cute::tuple<cute::C<8>, cute::C<64>"
    " >, cute::tuple<cute::C<64>, cute::C<1> > > >, void, cute::identity>, cutlass::epilogue:"
    ":collective::CollectiveEpilogue<cutlass::epilogue::Sm90PtrArrayTmaWarpSpecialized<4, 2, "
    "16, false, false, 2>, cute::tuple<cute::C<64>, cute::C<128>, cute::C<128> >, cute::tuple"
    "<cute::C<64>, cute::C<32> >, void, cute::tuple<long, cute::C<1>, cute::C<0> >*, cutlass:"
    ":bfloat16_t, cute::tuple<long, cute::C<1>, cute::C<0> >*, cutlass::epilogue::fusion::Fus"
    "ionCallbacks<cutlass::epilogue::Sm90PtrArrayTmaWarpSpecialized<4, 2, 16, false, false, 2"
    ">, cutlass::epilogue::fusion::LinearCombination<cutlass::bfloat16_t, float, cutlass::bfl"
    "oat16_t, float, (cutlass::FloatRoundStyle)2>, cute::tuple<cute::C<64>, cute::C<128>, cut"
    "e::C<128> >, cute::tuple<cute::C<64>, cute::C<32> > >, cute::SM90_TMA_LOAD, cute::Compos"
    "edLayout<cute::Swizzle<2, 4, 3>, cute::smem_ptr_flag_bits<16>, cute::Layout<cute::tuple<"
    "cute::C<8>, cute::C<32> >, cute::tuple<cute::C<32>, cute::C<1> > > >, cute::SM75_U32x4_L"
    "DSM_N, cute::SM90_TMA_STORE, cute::ComposedLayout<cute::Swizzle<2, 4, 3>, cute::smem_ptr"
    "_flag_bits<16>, cute::Layout<cute::tuple<cute::C<8>, cute::C<32> >, cute::tuple<cute::C<"
    "32>, cute::C<1> > > >, cute::SM90_U32x4_STSM_N, cute::Copy_Atom<cute::SM90_U32x4_STSM_N,"
    " cutlass::half_t>, void>, void, void> >::Params)";

// Real H200 kernel names (docs/results/h200-first-recordings/*_decode_kernels.csv).
// Each name with its short name (ShortKernelName, CudaShortKernelName) and its plot label
// (KernelLabel, CudaKernelLabel).
struct H200Case {
  std::string_view name;
  std::string_view short_name;
  std::string_view label;
};

const std::vector<H200Case> kPyTorchCases = {
    {"at::native::(anonymous namespace)::fill_reverse_indices_kernel(long*, int, at::cuda::det"
     "ail::IntDivider<unsigned int>)",
     "fill_reverse_indices_kernel", "fill_reverse_indices"},
    {"void (anonymous namespace)::elementwise_kernel_with_index<int, at::native::arange_cuda_o"
     "ut(c10::Scalar const&, c10::Scalar const&, c10::Scalar const&, at::Tensor&)::{lambda()#1"
     "}::operator()() const::{lambda()#4}::operator()() const::{lambda(long)#1}>(int, at::nati"
     "ve::arange_cuda_out(c10::Scalar const&, c10::Scalar const&, c10::Scalar const&, at::Tens"
     "or&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{lambda(long)#"
     "1}, function_traits<at::native::arange_cuda_out(c10::Scalar const&, c10::Scalar const&, "
     "c10::Scalar const&, at::Tensor&)::{lambda()#1}::operator()() const::{lambda()#4}::operat"
     "or()() const::{lambda(long)#1}>::result_type*)",
     "elementwise_kernel_with_index<arange_cuda_out<i64>>", "elementwise: arange_cuda_out i64"},
    {"void at::cuda::detail::prepare_grouped_gemm_data<cutlass::bfloat16_t, cutlass::bfloat16_"
     "t, cutlass::bfloat16_t, float, cute::tuple<int, int, int>, cute::tuple<long, cute::C<1>,"
     " cute::C<0> >, cute::tuple<long, cute::C<1>, cute::C<0> >, cute::tuple<long, cute::C<1>,"
     " cute::C<0> > >(cutlass::bfloat16_t*, cutlass::bfloat16_t*, cutlass::bfloat16_t*, float*"
     ", float*, cutlass::bfloat16_t**, cutlass::bfloat16_t**, cutlass::bfloat16_t**, float**, "
     "float**, cute::tuple<int, int, int>*, cute::tuple<long, cute::C<1>, cute::C<0> >*, cute:"
     ":tuple<long, cute::C<1>, cute::C<0> >*, cute::tuple<long, cute::C<1>, cute::C<0> >*, int"
     " const*, int, int, int, std::array<long, 3ul>, std::array<long, 3ul>, std::array<long, 3"
     "ul>, std::array<long, 3ul>, std::array<long, 3ul>, long, long, bool, bool)",
     "prepare_grouped_gemm_data<bf16>", "prepare_grouped_gemm_data bf16"},
    {"void at::cuda::kernelHistogram1D<int, int, long, 1, 2, -1, (at::cuda::CUDAHistogramMemor"
     "yType)0, at::cuda::CUDA_tensor_histogram<int, int, false>(at::Tensor, at::Tensor, at::Te"
     "nsor, long, at::AccumulateType<int, true>::type, at::AccumulateType<int, true>::type, at"
     "::cuda::TensorArgType, at::cuda::TensorArgType, at::cuda::TensorArgType)::{lambda(long)#"
     "2}>(at::cuda::detail::TensorInfo<int, long>, at::cuda::detail::TensorInfo<int, long>, at"
     "::cuda::detail::TensorInfo<int const, long>, long, at::AccumulateType<int, true>::type, "
     "at::AccumulateType<int, true>::type, long, at::cuda::CUDA_tensor_histogram<int, int, fal"
     "se>(at::Tensor, at::Tensor, at::Tensor, long, at::AccumulateType<int, true>::type, at::A"
     "ccumulateType<int, true>::type, at::cuda::TensorArgType, at::cuda::TensorArgType, at::cu"
     "da::TensorArgType)::{lambda(long)#2})",
     "kernelHistogram1D<CUDA_tensor_histogram<i32>>",
     "kernelHistogram1D: CUDA_tensor_histogram i32"},
    {"void at::native::(anonymous namespace)::CatArrayBatchedCopy_vectorized<at::native::(anon"
     "ymous namespace)::OpaqueType<4u>, unsigned int, 3, 128, 1, 16, 4>(char*, at::native::(an"
     "onymous namespace)::CatArrInputTensorMetadata<at::native::(anonymous namespace)::OpaqueT"
     "ype<4u>, unsigned int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride<unsi"
     "gned int, 4u>, int, unsigned int)",
     "CatArrayBatchedCopy_vectorized<4B>", "CatArrayBatchedCopy_vectorized 4B"},
    {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::"
     "native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
     "cunn_SoftMaxForward<SoftMaxForwardEpilogue<f32>>",
     "cunn_SoftMaxForward: SoftMaxForwardEpilogue f32"},
    {"void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<floa"
     "t, 4, at::native::templates::cuda::uniform_and_transform<float, float, at::CUDAGenerator"
     "Impl*, at::native::templates::cuda::exponential_kernel<at::CUDAGeneratorImpl*>(at::Tenso"
     "rIteratorBase&, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lamb"
     "da()#2}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::CUDAGenerat"
     "orImpl*, at::native::templates::cuda::exponential_kernel<at::CUDAGeneratorImpl*>(at::Ten"
     "sorIteratorBase&, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{la"
     "mbda()#2}::operator()() const::{lambda(float)#1})::{lambda(curandStatePhilox4_32_10*)#2}"
     ", at::native::(anonymous namespace)::distribution_nullary_kernel<float, float, float4, a"
     "t::CUDAGeneratorImpl*, at::native::templates::cuda::uniform_and_transform<float, float, "
     "at::CUDAGeneratorImpl*, at::native::templates::cuda::exponential_kernel<at::CUDAGenerato"
     "rImpl*>(at::TensorIteratorBase&, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator"
     "()() const::{lambda()#2}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&"
     ", at::CUDAGeneratorImpl*, at::native::templates::cuda::exponential_kernel<at::CUDAGenera"
     "torImpl*>(at::TensorIteratorBase&, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operat"
     "or()() const::{lambda()#2}::operator()() const::{lambda(float)#1})::{lambda(curandStateP"
     "hilox4_32_10*)#2}, at::native::templates::cuda::exponential_kernel<at::CUDAGeneratorImpl"
     "*>(at::TensorIteratorBase&, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() "
     "const::{lambda()#2}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at:"
     ":CUDAGeneratorImpl*, at::native::templates::cuda::uniform_and_transform<float, float, at"
     "::CUDAGeneratorImpl*, at::native::templates::cuda::exponential_kernel<at::CUDAGeneratorI"
     "mpl*>(at::TensorIteratorBase&, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()"
     "() const::{lambda()#2}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, "
     "at::CUDAGeneratorImpl*, at::native::templates::cuda::exponential_kernel<at::CUDAGenerato"
     "rImpl*>(at::TensorIteratorBase&, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator"
     "()() const::{lambda()#2}::operator()() const::{lambda(float)#1})::{lambda(curandStatePhi"
     "lox4_32_10*)#2} const&, at::native::templates::cuda::exponential_kernel<at::CUDAGenerato"
     "rImpl*>(at::TensorIteratorBase&, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator"
     "()() const::{lambda()#2}::operator()() const::{lambda(float)#1})::{lambda(int, float)#1}"
     ">(long, at::PhiloxCudaState, at::native::templates::cuda::uniform_and_transform<float, f"
     "loat, at::CUDAGeneratorImpl*, at::native::templates::cuda::exponential_kernel<at::CUDAGe"
     "neratorImpl*>(at::TensorIteratorBase&, double, at::CUDAGeneratorImpl*)::{lambda()#1}::op"
     "erator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}>(at::TensorIterato"
     "rBase&, at::CUDAGeneratorImpl*, at::native::templates::cuda::exponential_kernel<at::CUDA"
     "GeneratorImpl*>(at::TensorIteratorBase&, double, at::CUDAGeneratorImpl*)::{lambda()#1}::"
     "operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1})::{lambda(curand"
     "StatePhilox4_32_10*)#2}, at::native::(anonymous namespace)::distribution_nullary_kernel<"
     "float, float, float4, at::CUDAGeneratorImpl*, at::native::templates::cuda::uniform_and_t"
     "ransform<float, float, at::CUDAGeneratorImpl*, at::native::templates::cuda::exponential_"
     "kernel<at::CUDAGeneratorImpl*>(at::TensorIteratorBase&, double, at::CUDAGeneratorImpl*):"
     ":{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}>("
     "at::TensorIteratorBase&, at::CUDAGeneratorImpl*, at::native::templates::cuda::exponentia"
     "l_kernel<at::CUDAGeneratorImpl*>(at::TensorIteratorBase&, double, at::CUDAGeneratorImpl*"
     ")::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}"
     ")::{lambda(curandStatePhilox4_32_10*)#2}, at::native::templates::cuda::exponential_kerne"
     "l<at::CUDAGeneratorImpl*>(at::TensorIteratorBase&, double, at::CUDAGeneratorImpl*)::{lam"
     "bda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}>(at::T"
     "ensorIteratorBase&, at::CUDAGeneratorImpl*, at::native::templates::cuda::uniform_and_tra"
     "nsform<float, float, at::CUDAGeneratorImpl*, at::native::templates::cuda::exponential_ke"
     "rnel<at::CUDAGeneratorImpl*>(at::TensorIteratorBase&, double, at::CUDAGeneratorImpl*)::{"
     "lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}>(at"
     "::TensorIteratorBase&, at::CUDAGeneratorImpl*, at::native::templates::cuda::exponential_"
     "kernel<at::CUDAGeneratorImpl*>(at::TensorIteratorBase&, double, at::CUDAGeneratorImpl*):"
     ":{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}):"
     ":{lambda(curandStatePhilox4_32_10*)#2} const&, at::native::templates::cuda::exponential_"
     "kernel<at::CUDAGeneratorImpl*>(at::TensorIteratorBase&, double, at::CUDAGeneratorImpl*):"
     ":{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}):"
     ":{lambda(int, float)#1})",
     "distribution_elementwise_grid_stride_kernel<exponential_kernel<f32>>",
     "random: exponential f32"},
    {"void at::native::(anonymous namespace)::indexSelectSmallIndex<c10::BFloat16, long, unsig"
     "ned int, 2, 2, -2>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::"
     "detail::TensorInfo<c10::BFloat16 const, unsigned int>, at::cuda::detail::TensorInfo<long"
     " const, unsigned int>, int, int, unsigned int, long)",
     "indexSelectSmallIndex<bf16>", "indexSelectSmallIndex bf16"},
    {"void at::native::_assert_async_cuda_kernel<bool>(bool const*, at::native::Msg)",
     "_assert_async_cuda_kernel<bool>", "_assert_async_cuda bool"},
    {"void at::native::_scatter_gather_elementwise_kernel<128, 8, at::native::_cuda_scatter_fi"
     "ll_internal_kernel<at::native::OpaqueType<4>, long>::operator()<at::native::TensorAssign"
     ">(at::TensorIterator&, at::native::OpaqueType<4>, long, long, long, at::native::TensorAs"
     "sign const&)::{lambda(int)#1}>(int, at::native::_cuda_scatter_fill_internal_kernel<at::n"
     "ative::OpaqueType<4>, long>::operator()<at::native::TensorAssign>(at::TensorIterator&, a"
     "t::native::OpaqueType<4>, long, long, long, at::native::TensorAssign const&)::{lambda(in"
     "t)#1})",
     "_scatter_gather_elementwise_kernel<_cuda_scatter_fill_internal_kernel<4B>>",
     "scatter/gather: _cuda_scatter_fill_internal 4B"},
    {"void at::native::bitonicSortKVInPlace<-2, -1, 16, 16, float, long, at::native::GTOp<floa"
     "t, true>, unsigned int>(at::cuda::detail::TensorInfo<float, unsigned int>, unsigned int,"
     " unsigned int, unsigned int, at::cuda::detail::TensorInfo<long, unsigned int>, unsigned "
     "int, at::native::GTOp<float, true>)",
     "bitonicSortKVInPlace<GTOp<f32>>", "bitonicSortKVInPlace: GTOp f32"},
    {"void at::native::bitonicSortKVInPlace<-2, -1, 16, 16, long, long, at::native::LTOp<long,"
     " true>, unsigned int>(at::cuda::detail::TensorInfo<long, unsigned int>, unsigned int, un"
     "signed int, unsigned int, at::cuda::detail::TensorInfo<long, unsigned int>, unsigned int"
     ", at::native::LTOp<long, true>)",
     "bitonicSortKVInPlace<LTOp<i64>>", "bitonicSortKVInPlace: LTOp i64"},
    {"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::nativ"
     "e::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_interna"
     "l::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat1"
     "6, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > const&"
     ")::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<c1"
     "0::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float"
     "> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c"
     "10::BFloat16, at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1})",
     "elementwise_kernel<MulFunctor<bf16>>", "elementwise: MulFunctor bf16"},
    {"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::nativ"
     "e::(anonymous namespace)::masked_fill_kernel(at::TensorIterator&, c10::Scalar const&)::{"
     "lambda()#1}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat1"
     "6, bool)#1}>(at::TensorIteratorBase&, at::native::(anonymous namespace)::masked_fill_ker"
     "nel(at::TensorIterator&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda("
     ")#12}::operator()() const::{lambda(c10::BFloat16, bool)#1} const&)::{lambda(int)#1}>(int"
     ", at::native::gpu_kernel_impl_nocast<at::native::(anonymous namespace)::masked_fill_kern"
     "el(at::TensorIterator&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()"
     "#12}::operator()() const::{lambda(c10::BFloat16, bool)#1}>(at::TensorIteratorBase&, at::"
     "native::(anonymous namespace)::masked_fill_kernel(at::TensorIterator&, c10::Scalar const"
     "&)::{lambda()#1}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BF"
     "loat16, bool)#1} const&)::{lambda(int)#1})",
     "elementwise_kernel<masked_fill_kernel<bf16>>", "elementwise: masked_fill bf16"},
    {"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::nativ"
     "e::CUDAFunctor_add<c10::BFloat16> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add"
     "<c10::BFloat16> const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::na"
     "tive::CUDAFunctor_add<c10::BFloat16> >(at::TensorIteratorBase&, at::native::CUDAFunctor_"
     "add<c10::BFloat16> const&)::{lambda(int)#1})",
     "elementwise_kernel<CUDAFunctor_add<bf16>>", "elementwise: add bf16"},
    {"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<at::native::dire"
     "ct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda("
     ")#11}::operator()() const::{lambda(bool)#1}>(at::TensorIteratorBase&, at::native::direct"
     "_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#"
     "11}::operator()() const::{lambda(bool)#1} const&)::{lambda(int)#1}>(int, at::native::gpu"
     "_kernel_impl<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}:"
     ":operator()() const::{lambda()#11}::operator()() const::{lambda(bool)#1}>(at::TensorIter"
     "atorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::o"
     "perator()() const::{lambda()#11}::operator()() const::{lambda(bool)#1} const&)::{lambda("
     "int)#1})",
     "elementwise_kernel<direct_copy_kernel_cuda<bool>>", "elementwise: direct_copy bool"},
    {"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::nativ"
     "e::(anonymous namespace)::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()"
     "() const::{lambda()#6}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIterato"
     "rBase&, at::native::(anonymous namespace)::silu_kernel(at::TensorIteratorBase&)::{lambda"
     "()#1}::operator()() const::{lambda()#6}::operator()() const::{lambda(c10::BFloat16)#1} c"
     "onst&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::(anonymous "
     "namespace)::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lam"
     "bda()#6}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, at::na"
     "tive::(anonymous namespace)::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}::operato"
     "r()() const::{lambda()#6}::operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambd"
     "a(int)#1})",
     "elementwise_kernel<silu_kernel<bf16>>", "elementwise: silu bf16"},
    {"void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<at::nativ"
     "e::index_kernel_impl<at::native::OpaqueType<2> >(at::TensorIteratorBase&, c10::ArrayRef<"
     "long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>(at::TensorIteratorBas"
     "e&, c10::ArrayRef<long>, c10::ArrayRef<long>, at::native::index_kernel_impl<at::native::"
     "OpaqueType<2> >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lam"
     "bda(char*, char const*, long)#1} const&, bool)::{lambda(int)#1}>(long, at::native::gpu_i"
     "ndex_kernel<at::native::index_kernel_impl<at::native::OpaqueType<2> >(at::TensorIterator"
     "Base&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>("
     "at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>, at::native::index_ker"
     "nel_impl<at::native::OpaqueType<2> >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::"
     "ArrayRef<long>)::{lambda(char*, char const*, long)#1} const&, bool)::{lambda(int)#1})",
     "index_elementwise_kernel<index_kernel_impl<2B>>", "index: index 2B"},
    {"void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<at::nativ"
     "e::index_put_kernel_impl<at::native::OpaqueType<8> >(at::TensorIterator&, c10::ArrayRef<"
     "long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>(at::TensorIteratorBas"
     "e&, c10::ArrayRef<long>, c10::ArrayRef<long>, at::native::index_put_kernel_impl<at::nati"
     "ve::OpaqueType<8> >(at::TensorIterator&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lam"
     "bda(char*, char const*, long)#1} const&, bool)::{lambda(int)#1}>(long, at::native::gpu_i"
     "ndex_kernel<at::native::index_put_kernel_impl<at::native::OpaqueType<8> >(at::TensorIter"
     "ator&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}>("
     "at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>, at::native::index_put"
     "_kernel_impl<at::native::OpaqueType<8> >(at::TensorIterator&, c10::ArrayRef<long>, c10::"
     "ArrayRef<long>)::{lambda(char*, char const*, long)#1} const&, bool)::{lambda(int)#1})",
     "index_elementwise_kernel<index_put_kernel_impl<8B>>", "index: index_put 8B"},
    {"void at::native::index_elementwise_kernel<128, 4, at::native::index_fill_kernel_impl<at:"
     ":native::OpaqueType<4> >(at::TensorIterator&, long, long, long, at::native::OpaqueType<4"
     ">)::{lambda(int)#1}>(long, at::native::index_fill_kernel_impl<at::native::OpaqueType<4> "
     ">(at::TensorIterator&, long, long, long, at::native::OpaqueType<4>)::{lambda(int)#1})",
     "index_elementwise_kernel<index_fill_kernel_impl<4B>>", "index: index_fill 4B"},
    {"void at::native::reduce_kernel<128, 4, at::native::ReduceOp<c10::BFloat16, at::native::f"
     "unc_wrapper_t<c10::BFloat16, at::native::sum_functor<c10::BFloat16, float, c10::BFloat16"
     ">::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::BFloat"
     "16, 4, 8> >(at::native::ReduceOp<c10::BFloat16, at::native::func_wrapper_t<c10::BFloat16"
     ", at::native::sum_functor<c10::BFloat16, float, c10::BFloat16>::operator()(at::TensorIte"
     "rator&)::{lambda(float, float)#1}>, unsigned int, c10::BFloat16, 4, 8>)",
     "reduce_kernel<sum_functor<bf16>>", "reduce: sum bf16"},
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::BFloat16, at::native::A"
     "rgMaxOps<float>, unsigned int, long, 4, 4> >(at::native::ReduceOp<c10::BFloat16, at::nat"
     "ive::ArgMaxOps<float>, unsigned int, long, 4, 4>)",
     "reduce_kernel<ArgMaxOps<bf16>>", "reduce: ArgMax bf16"},
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<f"
     "loat, float, float, float>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at:"
     ":native::MeanOps<float, float, float, float>, unsigned int, float, 4, 4>)",
     "reduce_kernel<MeanOps<f32>>", "reduce: Mean f32"},
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrap"
     "per_t<float, at::native::MaxNanFunctor<float> >, unsigned int, float, 4, 4> >(at::native"
     "::ReduceOp<float, at::native::func_wrapper_t<float, at::native::MaxNanFunctor<float> >, "
     "unsigned int, float, 4, 4>)",
     "reduce_kernel<MaxNanFunctor<f32>>", "reduce: MaxNanFunctor f32"},
    {"void at::native::sbtopk::gatherTopK<float, unsigned int, 1, false>(at::cuda::detail::Ten"
     "sorInfo<float const, unsigned int>, unsigned int, unsigned int, bool, unsigned int, unsi"
     "gned int, at::cuda::detail::TensorInfo<float, unsigned int>, unsigned int, at::cuda::det"
     "ail::TensorInfo<long, unsigned int>, unsigned int, float*)",
     "gatherTopK<f32>", "gatherTopK f32"},
    {"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::Ten"
     "sorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{"
     "lambda(float)#1}, std::array<char*, 2ul>, 4, TrivialOffsetCalculator<1, unsigned int>, T"
     "rivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, at::native"
     "::memory::StoreWithCast<1> >(int, at::native::direct_copy_kernel_cuda(at::TensorIterator"
     "Base&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(floa"
     "t)#1}, std::array<char*, 2ul>, TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCa"
     "lculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, at::native::memory::Stor"
     "eWithCast<1>)",
     "unrolled_elementwise_kernel<direct_copy_kernel_cuda<f32>>", "elementwise: direct_copy f32"},
    {"void at::native::unrolled_elementwise_kernel<at::native::CUDAFunctor_add<float>, std::ar"
     "ray<char*, 3ul>, 4, TrivialOffsetCalculator<2, unsigned int>, TrivialOffsetCalculator<1,"
     " unsigned int>, at::native::memory::LoadWithCast<2>, at::native::memory::StoreWithCast<1"
     "> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>, TrivialOffsetCalcul"
     "ator<2, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::Loa"
     "dWithCast<2>, at::native::memory::StoreWithCast<1>)",
     "unrolled_elementwise_kernel<CUDAFunctor_add<f32>>", "elementwise: add f32"},
    {"void at::native::vectorized_elementwise_kernel<2, at::native::(anonymous namespace)::lau"
     "nch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::"
     "ClampLimits)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{lambd"
     "a(long)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::launch_clam"
     "p_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLim"
     "its)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{lambda(long)#"
     "1}, std::array<char*, 2ul>)",
     "vectorized_elementwise_kernel<launch_clamp_scalar<i64>>", "elementwise: clamp_scalar i64"},
    {"void at::native::vectorized_elementwise_kernel<2, at::native::BUnaryFunctor<long, long, "
     "long, at::native::binary_internal::div_floor_kernel_cuda(at::TensorIteratorBase&)::{lamb"
     "da()#1}::operator()() const::{lambda()#4}::operator()() const::{lambda(long, long)#1}>, "
     "std::array<char*, 2ul> >(int, at::native::BUnaryFunctor<long, long, long, at::native::bi"
     "nary_internal::div_floor_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}::operator()("
     ") const::{lambda()#4}::operator()() const::{lambda(long, long)#1}>, std::array<char*, 2u"
     "l>)",
     "vectorized_elementwise_kernel<div_floor_kernel_cuda<i64>>", "elementwise: div_floor i64"},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::mas"
     "ked_fill_kernel(at::TensorIterator&, c10::Scalar const&)::{lambda()#1}::operator()() con"
     "st::{lambda()#7}::operator()() const::{lambda(float, bool)#1}, std::array<char*, 3ul> >("
     "int, at::native::(anonymous namespace)::masked_fill_kernel(at::TensorIterator&, c10::Sca"
     "lar const&)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda"
     "(float, bool)#1}, std::array<char*, 3ul>)",
     "vectorized_elementwise_kernel<masked_fill_kernel<f32>>", "elementwise: masked_fill f32"},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float"
     ", bool, at::native::(anonymous namespace)::CompareEqFunctor<float> >, std::array<char*, "
     "2ul> >(int, at::native::AUnaryFunctor<float, float, bool, at::native::(anonymous namespa"
     "ce)::CompareEqFunctor<float> >, std::array<char*, 2ul>)",
     "vectorized_elementwise_kernel<CompareEqFunctor<f32>>", "elementwise: CompareEqFunctor f32"},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<bool, bool, "
     "bool, at::native::BitwiseAndFunctor<bool> >, std::array<char*, 3ul> >(int, at::native::B"
     "inaryFunctor<bool, bool, bool, at::native::BitwiseAndFunctor<bool> >, std::array<char*, "
     "3ul>)",
     "vectorized_elementwise_kernel<BitwiseAndFunctor<bool>>",
     "elementwise: BitwiseAndFunctor bool"},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, std::arr"
     "ay<char*, 1ul> >(int, at::native::FillFunctor<int>, std::array<char*, 1ul>)",
     "vectorized_elementwise_kernel<FillFunctor<i32>>", "elementwise: FillFunctor i32"},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::compare_scalar_kernel<long"
     ">(at::TensorIteratorBase&, at::native::(anonymous namespace)::OpType, long)::{lambda(lon"
     "g)#1}, std::array<char*, 2ul> >(int, at::native::compare_scalar_kernel<long>(at::TensorI"
     "teratorBase&, at::native::(anonymous namespace)::OpType, long)::{lambda(long)#1}, std::a"
     "rray<char*, 2ul>)",
     "vectorized_elementwise_kernel<compare_scalar_kernel<i64>>",
     "elementwise: compare_scalar i64"},
    {"void at::native::vectorized_elementwise_kernel<8, at::native::(anonymous namespace)::pow"
     "_tensor_scalar_kernel_impl<c10::BFloat16, c10::BFloat16>(at::TensorIteratorBase&, c10::B"
     "Float16)::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::(anonymou"
     "s namespace)::pow_tensor_scalar_kernel_impl<c10::BFloat16, c10::BFloat16>(at::TensorIter"
     "atorBase&, c10::BFloat16)::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)",
     "vectorized_elementwise_kernel<pow_tensor_scalar_kernel_impl<bf16>>",
     "elementwise: pow_tensor_scalar bf16"},
    {"void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloa"
     "t16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::arr"
     "ay<char*, 3ul>)",
     "vectorized_elementwise_kernel<CUDAFunctor_add<bf16>>", "elementwise: add bf16"},
    {"void at::native::vectorized_elementwise_kernel<8, at::native::bfloat16_copy_kernel_cuda("
     "at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::b"
     "float16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, "
     "2ul>)",
     "vectorized_elementwise_kernel<bfloat16_copy_kernel_cuda<f32>>",
     "elementwise: bfloat16_copy f32"},
    {"void at::native::vectorized_gather_kernel<16, long>(char*, char*, long*, int, long, long"
     ", long, long, bool)",
     "vectorized_gather_kernel<i64>", "vectorized_gather i64"},
    {"void at_cuda_detail::cub::detail::radix_sort::DeviceRadixSortOnesweepKernel<at_cuda_deta"
     "il::cub::detail::radix::policy_hub<float, at::cuda::cub::detail::OpaqueType<8>, unsigned"
     " long long>::Policy1000, (at_cuda_detail::cub::SortOrder)1, float, at::cuda::cub::detail"
     "::OpaqueType<8>, unsigned long long, int, int, at_cuda_detail::cub::detail::identity_dec"
     "omposer_t>(int*, int*, unsigned long long*, unsigned long long const*, float*, float con"
     "st*, at::cuda::cub::detail::OpaqueType<8>*, at::cuda::cub::detail::OpaqueType<8> const*,"
     " int, int, int, at_cuda_detail::cub::detail::identity_decomposer_t)",
     "DeviceRadixSortOnesweepKernel<f32>", "DeviceRadixSortOnesweep f32"},
    {"void at_cuda_detail::cub::detail::scan::DeviceScanKernel<at_cuda_detail::cub::detail::sc"
     "an::policy_hub<int, int, int, unsigned int, std::plus<int> >::Policy1000, int const*, in"
     "t*, at_cuda_detail::cub::ScanTileState<int, true>, std::plus<int>, at_cuda_detail::cub::"
     "NullType, unsigned int, int, false, at_cuda_detail::cub::NullType>(int const*, int*, at_"
     "cuda_detail::cub::ScanTileState<int, true>, int, std::plus<int>, at_cuda_detail::cub::Nu"
     "llType, unsigned int)",
     "DeviceScanKernel<plus<i32>>", "DeviceScan: plus i32"},
    {"void at_cuda_detail::cub::detail::scan::DeviceScanInitKernel<at_cuda_detail::cub::ScanTi"
     "leState<float, true> >(at_cuda_detail::cub::ScanTileState<float, true>, int)",
     "DeviceScanInitKernel<f32>", "DeviceScanInit f32"},
    {"void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, __nv_bfloat"
     "16, false, float, __nv_bfloat16, __nv_bfloat16, true, false, false, false>(cublasLt::cub"
     "lasSplitKParams<float>, float const*, __nv_bfloat16 const*, float*, __nv_bfloat16*, floa"
     "t const*, float const*, __nv_bfloat16 const*, float const*, __nv_bfloat16*, void*, long,"
     " float*, int*, float*, float*, float const*, float const*, float const*, float const*, f"
     "loat const*)",
     "splitKreduce_kernel<bf16>", "splitKreduce bf16"},
    {"void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_tn_align1>(cutlass_80_simt_sgemm_"
     "128x32_8x5_tn_align1::Params)",
     "Kernel2<cutlass_80_simt_sgemm_128x32_8x5_tn_align1>",
     "gemm cutlass_80_simt_sgemm_128x32_8x5_tn_align1"},
    {"void dot_kernel<float, 128, 0, cublasDotParams<cublasGemvTensorStridedBatched<float cons"
     "t>, cublasGemvTensorStridedBatched<float> > >(cublasDotParams<cublasGemvTensorStridedBat"
     "ched<float const>, cublasGemvTensorStridedBatched<float> >)",
     "dot_kernel<f32>", "dot f32"},
    {"void reduce_1Block_kernel<float, 128, 7, cublasGemvTensorStridedBatched<float>, cublasGe"
     "mvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float> >(float const"
     "*, float, cublasGemvTensorStridedBatched<float>, int, float const*, float, cublasGemvTen"
     "sorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, cublasPointerMode"
     "_t, cublasLtEpilogue_t, cublasGemvTensorStridedBatched<biasType<cublasGemvTensorStridedB"
     "atched<float>::value_type, float>::type const>)",
     "reduce_1Block_kernel<f32>", "reduce_1Block f32"},
};

TEST(CudaShortKernelNameTest, PyTorchAndLibraryKernelsOfTheH200Runs) {
  for (const auto& [name, short_name, label] : kPyTorchCases) {
    EXPECT_EQ(ShortKernelName(name), short_name) << name;
    EXPECT_EQ(CudaShortKernelName(name), short_name) << name;
  }
}

TEST(CudaKernelLabelTest, PyTorchAndLibraryKernelsOfTheH200Runs) {
  for (const auto& [name, short_name, label] : kPyTorchCases) {
    EXPECT_EQ(KernelLabel(name), label) << name;
    EXPECT_EQ(CudaKernelLabel(name), label) << name;
  }
}

TEST(CudaKernelLabelTest, LibraryKernelsOfTheH200Runs) {
  EXPECT_EQ(KernelLabel(kCutlassMangled), "gemm cutlass sm90 grouped");
  EXPECT_EQ(KernelLabel(kCutlassDemangled), "gemm cutlass sm90 grouped");
  EXPECT_EQ(KernelLabel("nvjet_sm90_tst_64x8_64x16_2x1_v_bz_TNT"),
            "gemm nvjet_sm90_tst_64x8\u2026");
  EXPECT_EQ(KernelLabel("nvjet_sm90_tst_128x8_64x12_2x1_v_bz_splitK_TNT"),
            "gemm nvjet_sm90_tst_128x8\u2026 splitK");
  EXPECT_EQ(KernelLabel("nvjet_sm90_tst_256x8_64x6_2x1_v_bz_TNT"),
            "gemm nvjet_sm90_tst_256x8\u2026");
  EXPECT_EQ(
      KernelLabel("cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_3_64x64x128_"
                  "4x1x1_cga1x1x1_kernel0_0"),
      "attention cudnn sdpa_sm80_flash_fprop_wmma_f16_\u2026");
  EXPECT_EQ(
      KernelLabel("void pytorch_flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, "
                  "64, 128, 4, false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 64, "
                  "128, 4, cutlass::bfloat16_t> >, false, false, false, false, true>(int)"),
      "attention: flash_fwd_splitkv bf16");
  EXPECT_EQ(KernelLabel("triton_red_fused__unsafe_view_argmax_select_16"),
            "triton_red_fused__unsafe_view_argmax_select_16");
}

TEST(CudaShortKernelNameTest, CutlassGroupedGemmMangledOrNot) {
  const std::string label =
      "cutlass::device_kernel<GemmUniversal<GroupProblemShape>> (sm90 grouped GEMM)";
  EXPECT_EQ(ShortKernelName(kCutlassMangled), label);
  EXPECT_EQ(ShortKernelName(kCutlassDemangled), label);
  EXPECT_LE(label.size(), kMaxCudaShortNameChars);
  // Not grouped, no architecture named.
  EXPECT_EQ(CudaShortKernelName("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<"
                                "cute::tuple<int, int, int, int>, X> >(X::Params)"),
            "cutlass::device_kernel<GemmUniversal> (GEMM)");
}

}  // namespace
}  // namespace decodeprof::report
