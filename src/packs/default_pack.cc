#include "src/packs/default_pack.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <unordered_map>
#include <utility>

#include "src/analysis/classify.h"
#include "src/base/parallel.h"
#include "src/base/py_format.h"
#include "src/base/spill.h"

namespace decodeprof::packs {
namespace {

// The families of kernel names, in the order they are tried (the first match wins).
enum Family : size_t { kMlx = 0, kGgml = 1, kRocm = 2, kCuda = 3, kTorch = 4, kFamilies = 5 };

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
    // ggml-cuda's kernels (the same names on HIP) and its argument types.
    specs.push_back(spec("ggml", {R"(ggml)",
                                  R"(mul_mat_vec_[fq])",
                                  R"(mul_mat_[qf](_ids)?<)",
                                  R"(flash_attn_ext_)",
                                  R"(flash_attn_combine_results)",
                                  R"(flash_attn_tile<)",
                                  R"(k_set_rows)",
                                  R"(k_get_rows)",
                                  R"(rms_norm_f32<)",
                                  R"(rope_(norm|neox|multi|vision)<)",
                                  R"(soft_max_f32)",
                                  R"(quantize_(mmq_)?q8_1)",
                                  R"(k_bin_bcast)",
                                  R"(unary_(gated_)?op_kernel)",
                                  R"(convert_unary<)",
                                  R"(cpy_scalar)",
                                  R"(scale_f32<?)",
                                  R"(k_argsort_f32)",
                                  R"(topk_moe_cuda)",
                                  R"(dequantize_block)"}));
    specs.push_back(spec("rocm", {R"(Cijk_)", R"(rocblas)", R"(hipblaslt)", R"((^|[^a-z_])ck::)",
                                  R"((^|[^a-z_])ck_tile::)", R"(_ZN2ck)", R"(_ZN7ck_tile)",
                                  R"((^|[^a-z])aiter)", R"(miopen)", R"(rocprim)", R"(hipcub)",
                                  R"(__amd_rocclr_)", R"(wvsplitk)", R"(wv_splitk)", R"(llgemm)",
                                  R"(paged_attention_ll4mi)", R"(sgl_hip)", R"(quickreduce)"}));
    specs.push_back(
        spec("cuda", {R"(nvjet)", R"(cublas)", R"(cudnn)", R"(cutlass)", R"(cute::)",
                      R"((^|[^a-z0-9])sm[0-9]{2,3}a?_)", R"(xmma)", R"((^|[^a-z_])cub::)",
                      R"(ampere_)", R"(hopper_)", R"(volta_)", R"(turing_)"}));
    specs.push_back(spec("torch", {R"(at::native::)", R"(at::cuda::)", R"(at_cuda_detail::)",
                                   R"(c10::)", R"(triton)", R"(vllm::)", R"(^_fwd_)",
                                   R"(fused_moe_kernel)", R"(_matmul_ogs_)", R"(flashinfer)"}));
    auto built = analysis::KernelClassifier::Build(std::move(specs));
    if (!built.ok()) std::abort();  // the patterns above are constants: a test compiles them
    return new analysis::KernelClassifier(std::move(built).value());
  }();
  return *kClassifier;
}

constexpr std::string_view kMlxRocm = "mlx-rocm";
constexpr std::string_view kGgmlPack = "ggml";
constexpr std::string_view kPytorchRocm = "pytorch-rocm";
constexpr std::string_view kPytorchCuda = "pytorch-cuda";

// The built-in packs the names can choose, in the order that breaks ties.
constexpr std::array<std::string_view, 4> kCandidates = {kMlxRocm, kGgmlPack, kPytorchRocm,
                                                         kPytorchCuda};
// The family that counts for each candidate alone (the PyTorch family is shared).
constexpr std::array<Family, 4> kOwnFamily = {kMlx, kGgml, kRocm, kCuda};

bool IsRocmPack(std::string_view pack) { return pack == kMlxRocm || pack == kPytorchRocm; }

// A kernel's function name for the evidence: "void mul_mat_vec_f<__half, ...>(...)" →
// "mul_mat_vec_f"; "std::enable_if<...>::type ns::f<...>(...)" → "ns::f"; namespaces are kept,
// "(anonymous namespace)::" dropped.
std::string FunctionName(std::string_view name) {
  std::string text(name);
  for (size_t at; (at = text.find("(anonymous namespace)::")) != std::string::npos;) {
    text.erase(at, 23);
  }
  // The declarator: up to the parameter list, outside template arguments.
  // (Parentheses inside template arguments hold expressions such as "(8)>(0)": their '<' and
  // '>' are no brackets.)
  int depth = 0;
  int parens = 0;
  size_t end = text.size();
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (depth > 0 && c == '(') ++parens;
    if (depth > 0 && c == ')' && parens > 0) --parens;
    if (parens == 0 && c == '<') ++depth;
    if (parens == 0 && c == '>' && depth > 0) --depth;
    if (depth == 0 && c == '(' && i > 0) {
      end = i;
      break;
    }
    if (depth == 0 && c == ' ') start = i + 1;  // past a return type
  }
  std::string fn = text.substr(start, end - start);
  if (const size_t lt = fn.find('<'); lt != std::string::npos && lt > 0) fn.resize(lt);
  constexpr size_t kMax = 48;
  if (fn.empty()) fn = text;
  if (fn.size() > kMax) return fn.substr(0, kMax) + "...";
  return fn;
}

std::string FormatPct(double pct) { return base::FormatFixed(pct, 1); }

}  // namespace

PackChoice DefaultPackFor(std::span<const KernelTime> kernels, std::string_view format,
                          std::string_view format_default) {
  struct Seen {
    std::string_view name;
    int64_t ns = 0;
    size_t family = kFamilies;  // kFamilies: no family
  };
  std::vector<Seen> seen;
  std::unordered_map<std::string_view, size_t> index;
  const analysis::KernelClassifier& signatures = Signatures();
  for (const KernelTime& k : kernels) {
    auto [it, fresh] = index.try_emplace(k.name, seen.size());
    if (fresh) {
      const analysis::ClassId family = signatures.Classify(k.name);
      seen.push_back({k.name, 0, family < kFamilies ? static_cast<size_t>(family) : kFamilies});
    }
    seen[it->second].ns += std::max<int64_t>(0, k.ns);
  }
  std::array<int64_t, kFamilies> count{};
  int64_t total_ns = 0;
  for (const Seen& k : seen) {
    if (k.family < kFamilies) ++count[k.family];
    total_ns += k.ns;
  }
  PackChoice choice;
  choice.names = static_cast<int64_t>(seen.size());

  // PyTorch's and Triton's names run on either platform: the library names say which, else
  // the format's default does.
  const bool rocm =
      count[kRocm] != count[kCuda] ? count[kRocm] > count[kCuda] : IsRocmPack(format_default);
  const std::array<int64_t, 4> score = {count[kMlx], count[kGgml],
                                        count[kRocm] + (rocm ? count[kTorch] : 0),
                                        count[kCuda] + (rocm ? 0 : count[kTorch])};
  const int64_t best = *std::max_element(score.begin(), score.end());
  if (best == 0) {
    choice.pack = std::string(format_default);
    choice.weak = "no kernel name tells the engine";
    choice.note = "pack " + choice.pack + " (the default for " + std::string(format) +
                  " traces: " + choice.weak + "; --pack overrides)";
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

  // The names that counted for it, the longest-running first (stable: first seen first).
  const Family own = kOwnFamily[chosen];
  const bool with_torch = (chosen == 2 && rocm) || (chosen == 3 && !rocm);
  std::vector<const Seen*> chose;
  int64_t chose_ns = 0;
  for (const Seen& k : seen) {
    if (k.family == own || (with_torch && k.family == kTorch)) {
      chose.push_back(&k);
      chose_ns += k.ns;
    }
  }
  std::stable_sort(chose.begin(), chose.end(),
                   [](const Seen* a, const Seen* b) { return a->ns > b->ns; });
  for (const Seen* k : chose) {
    if (choice.evidence.size() == 4) break;
    std::string fn = FunctionName(k->name);
    if (std::find(choice.evidence.begin(), choice.evidence.end(), fn) == choice.evidence.end()) {
      choice.evidence.push_back(std::move(fn));
    }
  }
  if (total_ns > 0) {
    choice.share_pct = 100.0 * static_cast<double>(chose_ns) / static_cast<double>(total_ns);
  }

  std::string what;
  if (chosen == 0) {
    what = "MLX kernels";
  } else if (chosen == 1) {
    what = "ggml kernels";
  } else {
    const int64_t library = count[own];
    if (library > 0) what = chosen == 2 ? "ROCm library" : "CUDA library";
    if (library < best) what += std::string(what.empty() ? "" : " and ") + "PyTorch / Triton";
    what += " kernels";
    if (library == 0) what += " on a " + std::string(format) + " trace";
  }
  if (choice.share_pct && *choice.share_pct < kSmallSharePct) {
    choice.weak =
        "the names that point to it are " + FormatPct(*choice.share_pct) + " % of the GPU time";
  }
  // With times (summarize), the note gives the share and the names; without (kernels,
  // export), the count alone, as before there were times.
  std::string evidence;
  if (choice.share_pct) {
    evidence += ", " + FormatPct(*choice.share_pct) + " % of the GPU time";
    for (size_t i = 0; i < choice.evidence.size(); ++i) {
      evidence += (i == 0 ? ": " : ", ") + choice.evidence[i];
    }
    if (static_cast<int64_t>(choice.evidence.size()) < best) evidence += ", ...";
  }
  choice.note = "pack " + choice.pack + " (chosen from the kernel names: " + std::to_string(best) +
                " of " + std::to_string(choice.names) + " " + what + evidence +
                "; --pack overrides)";
  return choice;
}

std::string_view FormatDefaultFor(std::string_view format_default,
                                  std::optional<trace::Runtime> runtime) {
  if (runtime == trace::Runtime::kHip && !IsRocmPack(format_default)) return kPytorchRocm;
  return format_default;
}

PackChoice DefaultPackFor(std::span<const std::string_view> kernel_names, std::string_view format,
                          std::string_view format_default) {
  std::vector<KernelTime> kernels;
  kernels.reserve(kernel_names.size());
  for (std::string_view name : kernel_names) kernels.push_back({name, 0});
  return DefaultPackFor(kernels, format, format_default);
}

std::vector<KernelTime> KernelTimesOf(std::span<const trace::Dispatch> dispatches,
                                      const trace::StringPool& names) {
  // In parts on several threads, each with its kernels in first-seen order; merged in part
  // order, which keeps the first-seen order of one pass (and its integer sums). Each part keeps
  // an entry for every name it meets, so a part gets at least a few dispatches a name of the
  // trace (base::MinPartForNames: with 200 000 names, 15 parts held 51 MiB of entries).
  struct Part {
    std::vector<std::pair<trace::StringId, int64_t>> kernels;
  };
  std::array<Part, base::kMaxPassParts> parts;
  const size_t part_count = base::ForParts(
      dispatches.size(), base::MinPartForNames(names.size()), [&](size_t k, size_t b, size_t e) {
        std::vector<int32_t> slot(names.size(), -1);
        auto& kernels = parts[k].kernels;
        base::spill::ReleaseBehind<trace::Dispatch> behind(dispatches.data(), b);
        for (size_t i = b; i < e; ++i) {
          behind.Passed(i);
          const trace::Dispatch& d = dispatches[i];
          if (d.kind != trace::DispatchKind::kKernel || d.name >= slot.size()) continue;
          if (slot[d.name] < 0) {
            slot[d.name] = static_cast<int32_t>(kernels.size());
            kernels.emplace_back(d.name, 0);
          }
          kernels[static_cast<size_t>(slot[d.name])].second += std::max<int64_t>(0, d.duration());
        }
      });
  std::vector<KernelTime> out;
  std::vector<int32_t> slot(names.size(), -1);
  for (size_t k = 0; k < part_count; ++k) {
    for (const auto& [name, ns] : parts[k].kernels) {
      if (slot[name] < 0) {
        slot[name] = static_cast<int32_t>(out.size());
        out.push_back({names.Get(name), 0});
      }
      out[static_cast<size_t>(slot[name])].ns += ns;
    }
  }
  return out;
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
