#include "src/packs/default_pack.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <initializer_list>
#include <unordered_set>
#include <utility>

#include "src/analysis/classify.h"

namespace decodeprof::packs {
namespace {

// The families of kernel names, in the order they are tried (the first match wins).
enum Family : size_t { kMlx = 0, kRocm = 1, kCuda = 2, kTorch = 3, kFamilies = 4 };

// RE2 patterns, searched and case-insensitive (docs/packs.md lists them). A name of a
// library every engine of a platform calls counts for that platform's PyTorch pack: MLX's
// own names outnumber the Tensile and runtime kernels an MLX trace also holds.
const analysis::KernelClassifier& Signatures() {
  static const analysis::KernelClassifier* const kClassifier = [] {
    auto spec = [](std::string name, std::initializer_list<const char*> patterns) {
      analysis::ClassSpec s;
      s.name = std::move(name);
      for (const char* p : patterns) s.patterns.push_back({p, ""});
      return s;
    };
    std::vector<analysis::ClassSpec> specs;
    specs.push_back(spec("mlx", {R"(mlx::core::)", R"(_ZN3mlx4core)"}));
    specs.push_back(spec("rocm", {R"(Cijk_)", R"(rocblas)", R"(hipblaslt)", R"((^|[^a-z_])ck::)",
                                  R"((^|[^a-z_])ck_tile::)", R"(_ZN2ck)", R"(_ZN7ck_tile)",
                                  R"((^|[^a-z])aiter)", R"(miopen)", R"(rocprim)", R"(hipcub)",
                                  R"(__amd_rocclr_)", R"(wvsplitk)", R"(wv_splitk)", R"(llgemm)",
                                  R"(paged_attention_ll4mi)", R"(sgl_hip)", R"(quickreduce)"}));
    specs.push_back(
        spec("cuda", {R"(nvjet)", R"(cublas)", R"(cudnn)", R"(cutlass)", R"(cute::)",
                      R"((^|[^a-z0-9])sm[0-9]{2,3}a?_)", R"(xmma)", R"((^|[^a-z_])cub::)",
                      R"(ampere_)", R"(hopper_)", R"(volta_)", R"(turing_)"}));
    specs.push_back(
        spec("torch", {R"(at::native::)", R"(at::cuda::)", R"(at_cuda_detail::)", R"(c10::)",
                       R"(triton)", R"(vllm::)", R"(^_fwd_)", R"(fused_moe_kernel)"}));
    auto built = analysis::KernelClassifier::Build(std::move(specs));
    if (!built.ok()) std::abort();  // the patterns above are constants: a test compiles them
    return new analysis::KernelClassifier(std::move(built).value());
  }();
  return *kClassifier;
}

constexpr std::string_view kMlxRocm = "mlx-rocm";
constexpr std::string_view kPytorchRocm = "pytorch-rocm";
constexpr std::string_view kPytorchCuda = "pytorch-cuda";

// The built-in packs the names can choose, in the order that breaks ties.
constexpr std::array<std::string_view, 3> kCandidates = {kMlxRocm, kPytorchRocm, kPytorchCuda};

bool IsRocmPack(std::string_view pack) { return pack == kMlxRocm || pack == kPytorchRocm; }

}  // namespace

PackChoice DefaultPackFor(std::span<const std::string_view> kernel_names, std::string_view format,
                          std::string_view format_default) {
  std::unordered_set<std::string_view> seen;
  std::array<int64_t, kFamilies> count{};
  const analysis::KernelClassifier& signatures = Signatures();
  for (std::string_view name : kernel_names) {
    if (!seen.insert(name).second) continue;
    const analysis::ClassId family = signatures.Classify(name);
    if (family < kFamilies) ++count[family];
  }
  PackChoice choice;
  choice.names = static_cast<int64_t>(seen.size());

  // PyTorch's and Triton's names run on either platform: the library names say which, else
  // the format's default does.
  const bool rocm =
      count[kRocm] != count[kCuda] ? count[kRocm] > count[kCuda] : IsRocmPack(format_default);
  const std::array<int64_t, 3> score = {count[kMlx], count[kRocm] + (rocm ? count[kTorch] : 0),
                                        count[kCuda] + (rocm ? 0 : count[kTorch])};
  const int64_t best = *std::max_element(score.begin(), score.end());
  if (best == 0) {
    choice.pack = std::string(format_default);
    choice.note = "pack " + choice.pack + " (the default for " + std::string(format) +
                  " traces: no kernel name tells the engine; --pack overrides)";
    return choice;
  }
  size_t chosen = kCandidates.size();
  for (size_t i = 0; i < kCandidates.size(); ++i) {
    if (score[i] == best && kCandidates[i] == format_default) chosen = i;
  }
  for (size_t i = 0; i < kCandidates.size() && chosen == kCandidates.size(); ++i) {
    if (score[i] == best) chosen = i;
  }
  choice.pack = std::string(kCandidates[chosen]);
  choice.matched = best;

  std::string what;
  if (chosen == 0) {
    what = "MLX kernels";
  } else {
    const int64_t library = count[chosen == 1 ? kRocm : kCuda];
    if (library > 0) what = chosen == 1 ? "ROCm library" : "CUDA library";
    if (library < best) what += std::string(what.empty() ? "" : " and ") + "PyTorch / Triton";
    what += " kernels";
    if (library == 0) what += " on a " + std::string(format) + " trace";
  }
  choice.note = "pack " + choice.pack + " (chosen from the kernel names: " + std::to_string(best) +
                " of " + std::to_string(choice.names) + " " + what + "; --pack overrides)";
  return choice;
}

std::vector<std::string_view> KernelNamesOf(std::span<const trace::Dispatch> dispatches,
                                            const trace::StringPool& names) {
  std::vector<std::string_view> out;
  std::vector<bool> seen(names.size(), false);
  for (const trace::Dispatch& d : dispatches) {
    if (d.kind != trace::DispatchKind::kKernel || d.name >= seen.size() || seen[d.name]) continue;
    seen[d.name] = true;
    out.push_back(names.Get(d.name));
  }
  return out;
}

}  // namespace decodeprof::packs
