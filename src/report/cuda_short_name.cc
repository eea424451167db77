#include "src/report/cuda_short_name.h"
#include "src/report/text_scan.h"

#include <array>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/base/demangle.h"

namespace decodeprof::report {
namespace {

constexpr std::array<std::string_view, 9> kCudaMarkers = {"at::native::", "at::cuda::", "cutlass",
                                                          "cublas",       "cudnn",      "nvjet",
                                                          "cub::",        "flash",      "triton"};

constexpr std::string_view kAnonymousNamespace = "(anonymous namespace)";

// How deep wrappers may nest before the wrapper itself is taken as the op.
constexpr int kMaxWrapperDepth = 8;

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

using text::IsDigit;
using text::IsWordChar;
using text::WordEnd;

std::string_view Trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

// Keeps the first kMaxCudaShortNameChars - 3 code points and adds "..." when `text` is longer
// than kMaxCudaShortNameChars code points.
std::string Cap(std::string_view text) {
  size_t chars = 0;
  size_t cut = text.size();
  for (size_t pos = 0; pos < text.size(); ++pos) {
    if ((static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) continue;
    if (chars == kMaxCudaShortNameChars - 3) cut = pos;
    ++chars;
  }
  if (chars <= kMaxCudaShortNameChars) return std::string(text);
  return std::string(text.substr(0, cut)) + "...";
}

// The position of the bracket that closes the one at `open` (`<`, `(` or `{`), all three
// kinds counted together; npos when it is never closed.
size_t MatchingClose(std::string_view text, size_t open) {
  int depth = 0;
  for (size_t pos = open; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (c == '<' || c == '(' || c == '{') {
      ++depth;
    } else if (c == '>' || c == ')' || c == '}') {
      if (--depth == 0) return pos;
    }
  }
  return std::string_view::npos;
}

// The comma-separated arguments of a template argument list, split at depth 0.
std::vector<std::string_view> SplitArguments(std::string_view text) {
  std::vector<std::string_view> args;
  int depth = 0;
  size_t start = 0;
  for (size_t pos = 0; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (c == '<' || c == '(' || c == '{') {
      ++depth;
    } else if ((c == '>' || c == ')' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      args.push_back(Trim(text.substr(start, pos - start)));
      start = pos + 1;
    }
  }
  args.push_back(Trim(text.substr(start)));
  return args;
}

// One `::` component of a qualified name: `name` or `name<targs>`.
struct Component {
  std::string_view name;
  std::optional<std::string_view> targs;
};

// The component that names the leading qualified name of `text` (a type, or a function
// when a `(` follows it): its last component, or the one before when that is `operator()`,
// a lambda or `(anonymous namespace)`.
Component LeadingName(std::string_view text) {
  Component last;
  Component before_last;
  size_t pos = 0;
  while (pos < text.size()) {
    Component component;
    if (text.substr(pos).starts_with(kAnonymousNamespace)) {
      component.name = text.substr(pos, kAnonymousNamespace.size());
      pos += kAnonymousNamespace.size();
    } else if (text[pos] == '{') {
      const size_t close = MatchingClose(text, pos);
      if (close == std::string_view::npos) break;
      component.name = text.substr(pos, close + 1 - pos);
      pos = close + 1;
    } else {
      const size_t end = WordEnd(text, pos);
      if (end == pos) break;
      component.name = text.substr(pos, end - pos);
      pos = end;
      if (component.name == "operator" && text.substr(pos).starts_with("()")) {
        component.name = text.substr(pos - 8, 10);
        pos += 2;
      }
      if (pos < text.size() && text[pos] == '<') {
        const size_t close = MatchingClose(text, pos);
        if (close == std::string_view::npos) {
          // Never closed: the name counts, its arguments do not.
          before_last = last;
          last = component;
          break;
        }
        component.targs = text.substr(pos + 1, close - pos - 1);
        pos = close + 1;
      }
    }
    before_last = last;
    last = component;
    if (!text.substr(pos).starts_with("::")) break;
    pos += 2;
  }
  const bool unnamed =
      last.name == "operator()" || last.name.starts_with('{') || last.name == kAnonymousNamespace;
  return unnamed && !before_last.name.empty() ? before_last : last;
}

// The element type spelled by the word(s) at `pos`, and where it ends.
struct Dtype {
  std::string short_name;
  size_t end = 0;
};

struct DtypeWord {
  std::string_view word;
  std::string_view short_name;
};

constexpr std::array<DtypeWord, 31> kDtypeWords = {{
    {"BFloat16", "bf16"},
    {"__nv_bfloat16", "bf16"},
    {"bfloat16_t", "bf16"},
    {"__bf16", "bf16"},
    {"Half", "f16"},
    {"__half", "f16"},
    {"half_t", "f16"},
    {"Float8_e4m3fn", "fp8e4m3"},
    {"Float8_e4m3fnuz", "fp8e4m3"},
    {"__nv_fp8_e4m3", "fp8e4m3"},
    {"float_e4m3_t", "fp8e4m3"},
    {"Float8_e5m2", "fp8e5m2"},
    {"Float8_e5m2fnuz", "fp8e5m2"},
    {"__nv_fp8_e5m2", "fp8e5m2"},
    {"float_e5m2_t", "fp8e5m2"},
    {"float", "f32"},
    {"double", "f64"},
    {"bool", "bool"},
    {"int", "i32"},
    {"short", "i16"},
    {"int8_t", "i8"},
    {"uint8_t", "u8"},
    {"int16_t", "i16"},
    {"uint16_t", "u16"},
    {"int32_t", "i32"},
    {"uint32_t", "u32"},
    {"int64_t", "i64"},
    {"uint64_t", "u64"},
    {"long", "i64"},
    {"unsigned", "u32"},
    {"signed", "i32"},
}};

// The word after `pos` (spaces skipped) and its end.
std::pair<std::string_view, size_t> NextWord(std::string_view text, size_t pos) {
  while (pos < text.size() && text[pos] == ' ') ++pos;
  const size_t end = WordEnd(text, pos);
  return {text.substr(pos, end - pos), end};
}

std::optional<Dtype> DtypeAt(std::string_view text, size_t pos) {
  const size_t end = WordEnd(text, pos);
  const std::string_view word = text.substr(pos, end - pos);
  if (word == "OpaqueType" && end < text.size() && text[end] == '<') {
    size_t digits_end = end + 1;
    while (digits_end < text.size() && IsDigit(text[digits_end])) ++digits_end;
    size_t close = digits_end;
    if (close < text.size() && text[close] == 'u') ++close;
    if (digits_end > end + 1 && digits_end - end <= 4 && close < text.size() &&
        text[close] == '>') {
      return Dtype{std::string(text.substr(end + 1, digits_end - end - 1)) + "B", close + 1};
    }
    return std::nullopt;
  }
  const auto [next, next_end] = NextWord(text, end);
  if (word == "unsigned") {
    if (next == "char") return Dtype{"u8", next_end};
    if (next == "short") return Dtype{"u16", next_end};
    if (next == "long") {
      const auto [third, third_end] = NextWord(text, next_end);
      return Dtype{"u64", third == "long" ? third_end : next_end};
    }
    if (next == "int") return Dtype{"u32", next_end};
  }
  if (word == "signed" && next == "char") return Dtype{"i8", next_end};
  if (word == "long" && next == "long") return Dtype{"i64", next_end};
  for (const DtypeWord& dtype : kDtypeWords) {
    if (word == dtype.word) return Dtype{std::string(dtype.short_name), end};
  }
  return std::nullopt;
}

bool IsNarrowFloat(std::string_view short_name) {
  return short_name == "bf16" || short_name == "f16" || short_name.starts_with("fp8");
}

// The element type of `text`: the first 8- or 16-bit float type, else the first type at all.
std::optional<std::string> PickDtype(std::string_view text) {
  std::optional<std::string> first;
  for (size_t pos = 0; pos < text.size();) {
    if (!IsWordChar(text[pos]) || (pos > 0 && IsWordChar(text[pos - 1]))) {
      ++pos;
      continue;
    }
    if (const std::optional<Dtype> dtype = DtypeAt(text, pos)) {
      if (IsNarrowFloat(dtype->short_name)) return dtype->short_name;
      if (!first) first = dtype->short_name;
      pos = dtype->end;
    } else {
      pos = WordEnd(text, pos);
    }
  }
  return first;
}

// True when the whole of `arg` (without const/volatile) spells one element type.
bool IsDtypeOnly(std::string_view arg) {
  if (arg.starts_with("const ")) arg.remove_prefix(6);
  if (arg.ends_with(" const")) arg.remove_suffix(6);
  // A qualified spelling (c10::BFloat16, cutlass::half_t): its last component.
  if (const size_t colon = arg.rfind("::");
      colon != std::string_view::npos && arg.find('<') == std::string_view::npos) {
    arg.remove_prefix(colon + 2);
  }
  const std::optional<Dtype> dtype = arg.empty() ? std::nullopt : DtypeAt(arg, 0);
  return dtype && dtype->end == arg.size();
}

bool IsPlumbing(std::string_view name) {
  constexpr std::array<std::string_view, 14> kPlumbing = {"array",
                                                          "Array",
                                                          "tuple",
                                                          "TrivialOffsetCalculator",
                                                          "OffsetCalculator",
                                                          "LoadWithCast",
                                                          "StoreWithCast",
                                                          "TensorInfo",
                                                          "IntDivider",
                                                          "ScanTileState",
                                                          "NullType",
                                                          "identity_decomposer_t",
                                                          "OpaqueType",
                                                          "C"};
  for (const std::string_view plumbing : kPlumbing) {
    if (name == plumbing) return true;
  }
  return name.starts_with("Policy") || name.starts_with("policy") || name.ends_with("Params") ||
         name.starts_with("cublas");
}

bool IsWrapper(std::string_view name) {
  constexpr std::array<std::string_view, 14> kWrappers = {"BinaryFunctor",
                                                          "AUnaryFunctor",
                                                          "BUnaryFunctor",
                                                          "UnaryFunctor",
                                                          "ReduceOp",
                                                          "func_wrapper_t",
                                                          "gpu_kernel_impl",
                                                          "gpu_kernel_impl_nocast",
                                                          "gpu_kernel",
                                                          "gpu_index_kernel",
                                                          "uniform_and_transform",
                                                          "normal_and_transform",
                                                          "enable_3x_kernel_for_sm9x",
                                                          "enable_sm90_or_later"};
  for (const std::string_view wrapper : kWrappers) {
    if (name == wrapper) return true;
  }
  return false;
}

// Arguments that name no op: numbers, cast constants, true/false, element types, pointers,
// references and plumbing types.
bool IsTrivialArgument(std::string_view arg) {
  const bool cast = arg.starts_with('(') && !arg.starts_with(kAnonymousNamespace);
  if (arg.empty() || cast || arg.front() == '-' || IsDigit(arg.front())) return true;
  if (arg == "true" || arg == "false" || arg == "char" || arg.ends_with('*') ||
      arg.ends_with('&')) {
    return true;
  }
  if (IsDtypeOnly(arg)) return true;
  const Component head = LeadingName(arg);
  return head.name.empty() || IsPlumbing(head.name);
}

// The op an argument names, looking through wrappers.
std::string_view OpName(std::string_view arg, int depth) {
  const Component head = LeadingName(arg);
  if (depth < kMaxWrapperDepth && head.targs && IsWrapper(head.name)) {
    for (const std::string_view inner : SplitArguments(*head.targs)) {
      if (!IsTrivialArgument(inner)) {
        const std::string_view op = OpName(inner, depth + 1);
        if (!op.empty()) return op;
      }
    }
  }
  return head.name;
}

bool IsCutlassGemm(std::string_view text) {
  return Contains(text, "device_kernel") && Contains(text, "GemmUniversal");
}

std::string CutlassGemmLabel(std::string_view text) {
  const bool grouped = Contains(text, "GroupProblemShape");
  std::string arch;
  for (const std::string_view candidate : {"100", "90", "80"}) {
    const std::string spellings[] = {"Sm" + std::string(candidate), "SM" + std::string(candidate),
                                     "sm" + std::string(candidate)};
    for (const std::string& spelling : spellings) {
      if (arch.empty() && Contains(text, spelling)) arch = "sm" + std::string(candidate);
    }
  }
  std::string label = "cutlass::device_kernel<GemmUniversal";
  label += grouped ? "<GroupProblemShape>>" : ">";
  label +=
      " (" + (arch.empty() ? std::string() : arch + " ") + (grouped ? "grouped " : "") + "GEMM)";
  return label;
}

// `_Z[L][N][K|V|r]<len><id>...` → "id::id" (+ "<...>" when template arguments follow).
std::string MangledLabel(std::string_view mangled) {
  size_t pos = 2;
  if (pos < mangled.size() && mangled[pos] == 'L') ++pos;
  const bool nested = pos < mangled.size() && mangled[pos] == 'N';
  if (nested) ++pos;
  while (pos < mangled.size() &&
         (mangled[pos] == 'K' || mangled[pos] == 'V' || mangled[pos] == 'r')) {
    ++pos;
  }
  std::string label;
  if (nested && mangled.substr(pos).starts_with("St")) {
    label = "std";
    pos += 2;
  }
  while (pos < mangled.size() && IsDigit(mangled[pos])) {
    size_t length = 0;
    while (pos < mangled.size() && IsDigit(mangled[pos]) && length <= mangled.size()) {
      length = length * 10 + static_cast<size_t>(mangled[pos] - '0');
      ++pos;
    }
    if (length == 0 || length > mangled.size() - pos) break;
    const std::string_view id = mangled.substr(pos, length);
    if (!label.empty()) label += "::";
    label += id.starts_with("_GLOBAL__N") ? std::string(kAnonymousNamespace) : std::string(id);
    pos += length;
    if (!nested) break;
  }
  if (label.empty()) return Cap(mangled);
  if (pos < mangled.size() && mangled[pos] == 'I') label += "<...>";
  return Cap(label);
}

std::string WithPart(std::string_view base, const std::optional<std::string>& part) {
  return part ? std::string(base) + "<" + *part + ">" : std::string(base);
}

}  // namespace

bool HasCudaKernelMarker(std::string_view name) {
  if (Contains(name, "rocm::") || Contains(name, "Cijk_")) return false;
  if (name.starts_with("_Z")) return true;
  for (const std::string_view marker : kCudaMarkers) {
    if (Contains(name, marker)) return true;
  }
  return false;
}

namespace {

// What the CUDA rules read from a name: the shared first half of CudaShortKernelName and
// CudaKernelLabel.
struct ParsedCudaName {
  enum class Kind {
    kText,         // `text` is the label as it is: a name without `(`, or an unreadable one
    kCutlassGemm,  // a CUTLASS 3 GEMM; `text` holds the name it was found in
    kKernel,       // `kernel`, optionally `op`, optionally `dtype`
  };
  Kind kind = Kind::kText;
  std::string text;
  std::string kernel;
  std::optional<std::string> op;
  std::optional<std::string> dtype;
};

ParsedCudaName ParseCudaName(std::string_view name) {
  ParsedCudaName parsed;
  std::string demangled;
  if (name.starts_with("_Z")) {
    std::optional<std::string> text = base::Demangle(name);
    if (!text) {
      if (IsCutlassGemm(name)) {
        parsed.kind = ParsedCudaName::Kind::kCutlassGemm;
        parsed.text = std::string(name);
      } else {
        parsed.text = MangledLabel(name);
      }
      return parsed;
    }
    demangled = std::move(*text);
    name = demangled;
  }
  if (name.find('(') == std::string_view::npos) {
    parsed.text = std::string(name);
    return parsed;
  }
  if (IsCutlassGemm(name)) {
    parsed.kind = ParsedCudaName::Kind::kCutlassGemm;
    parsed.text = std::string(name);
    return parsed;
  }

  std::string_view signature = name;
  if (signature.starts_with("void ")) signature.remove_prefix(5);
  const Component kernel = LeadingName(signature);
  if (kernel.name.empty() || kernel.name.starts_with('(') || kernel.name.starts_with('{')) {
    const std::string_view before_paren = name.substr(0, name.find('('));
    parsed.text = std::string(before_paren.empty() ? name : before_paren);
    return parsed;
  }
  parsed.kind = ParsedCudaName::Kind::kKernel;
  parsed.kernel = std::string(kernel.name);
  if (!kernel.targs) return parsed;
  for (const std::string_view arg : SplitArguments(*kernel.targs)) {
    if (IsTrivialArgument(arg)) continue;
    const std::string_view op = OpName(arg, 0);
    if (op.empty() || op.starts_with('(') || op.starts_with('{')) continue;
    parsed.op = std::string(op);
    parsed.dtype = PickDtype(arg);
    if (!parsed.dtype) parsed.dtype = PickDtype(*kernel.targs);
    return parsed;
  }
  parsed.dtype = PickDtype(*kernel.targs);
  return parsed;
}

std::string CapLabel(std::string_view text) { return CapKernelLabel(text); }

std::string_view StripPrefix(std::string_view text, std::string_view prefix) {
  if (text.size() > prefix.size() && text.starts_with(prefix)) text.remove_prefix(prefix.size());
  return text;
}

std::string_view StripSuffix(std::string_view text, std::string_view suffix) {
  if (text.size() > suffix.size() && text.ends_with(suffix)) text.remove_suffix(suffix.size());
  return text;
}

// `nvjet_sm90_tst_128x8_64x12_2x1_v_bz_splitK_TNT` → `nvjet_sm90_tst_128x8… splitK`: the
// library, architecture, kind and tile, then "…" when more follows, and "splitK" when the name
// has it.
std::string NvjetLabel(std::string_view name) {
  size_t cut = std::string_view::npos;
  for (int underscores = 0; underscores < 4; ++underscores) {
    cut = name.find('_', cut == std::string_view::npos ? 0 : cut + 1);
    if (cut == std::string_view::npos) return std::string(name);
  }
  std::string label = std::string(name.substr(0, cut)) + "\u2026";
  if (Contains(name.substr(cut), "_splitK")) label += " splitK";
  return label;
}

// The label of a name that the rules keep as it is (no argument list, or unreadable).
std::string TextLabel(std::string_view text) {
  if (text.starts_with("nvjet_")) return "gemm " + NvjetLabel(text);
  if (text.starts_with("cudnn_generated_")) {
    std::string_view rest = StripPrefix(text, "cudnn_generated_");
    rest = StripPrefix(rest, "fort_native_");
    const bool attention = Contains(rest, "sdpa") || Contains(rest, "flash") ||
                           Contains(rest, "attn") || Contains(rest, "attention");
    return std::string(attention ? "attention" : "cudnn") + " cudnn " + std::string(rest);
  }
  if (text.starts_with("cutlass") && (Contains(text, "gemm") || Contains(text, "Gemm"))) {
    return "gemm " + std::string(text);
  }
  return std::string(text);
}

// The work a kernel of PyTorch's kernel templates does, named by its template: "elementwise"
// for the elementwise loops, "reduce" for reduce_kernel, ...; empty for other kernels.
std::string_view KernelFamily(std::string_view kernel) {
  struct Family {
    std::string_view kernel;
    std::string_view family;
  };
  constexpr std::array<Family, 8> kFamilies = {{
      {"vectorized_elementwise_kernel", "elementwise"},
      {"unrolled_elementwise_kernel", "elementwise"},
      {"elementwise_kernel", "elementwise"},
      {"elementwise_kernel_with_index", "elementwise"},
      {"reduce_kernel", "reduce"},
      {"index_elementwise_kernel", "index"},
      {"_scatter_gather_elementwise_kernel", "scatter/gather"},
      {"distribution_elementwise_grid_stride_kernel", "random"},
  }};
  for (const Family& f : kFamilies) {
    if (kernel == f.kernel) return f.family;
  }
  return {};
}

// An op's name without the decoration that says nothing about the op: `CUDAFunctor_add` →
// `add`, `ArgMaxOps` → `ArgMax`, `masked_fill_kernel` → `masked_fill`,
// `direct_copy_kernel_cuda` → `direct_copy`, `sum_functor` → `sum`.
std::string_view PlainOp(std::string_view op) {
  for (const std::string_view prefix : {"CUDAFunctor_", "launch_"}) op = StripPrefix(op, prefix);
  for (const std::string_view suffix :
       {"_kernel_cuda", "_kernel_impl", "_kernel", "_functor", "_impl", "Ops"}) {
    op = StripSuffix(op, suffix);
  }
  return op;
}

std::string_view PlainKernel(std::string_view kernel) {
  kernel = StripSuffix(kernel, "_kernel");
  return StripSuffix(kernel, "Kernel");
}

}  // namespace

std::string CapKernelLabel(std::string_view text) {
  size_t chars = 0;
  size_t cut = text.size();
  for (size_t pos = 0; pos < text.size(); ++pos) {
    if ((static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) continue;
    if (chars == kMaxKernelLabelChars - 1) cut = pos;
    ++chars;
  }
  if (chars <= kMaxKernelLabelChars) return std::string(text);
  return std::string(text.substr(0, cut)) + "\u2026";
}

std::string CudaShortKernelName(std::string_view name) {
  const ParsedCudaName parsed = ParseCudaName(name);
  switch (parsed.kind) {
    case ParsedCudaName::Kind::kText:
      return Cap(parsed.text);
    case ParsedCudaName::Kind::kCutlassGemm:
      return CutlassGemmLabel(parsed.text);
    case ParsedCudaName::Kind::kKernel:
      break;
  }
  if (parsed.op) return Cap(parsed.kernel + "<" + WithPart(*parsed.op, parsed.dtype) + ">");
  return Cap(WithPart(parsed.kernel, parsed.dtype));
}

std::string CudaKernelLabel(std::string_view name) {
  const ParsedCudaName parsed = ParseCudaName(name);
  switch (parsed.kind) {
    case ParsedCudaName::Kind::kText:
      return CapLabel(TextLabel(parsed.text));
    case ParsedCudaName::Kind::kCutlassGemm: {
      const std::string full = CutlassGemmLabel(parsed.text);  // "... (sm90 grouped GEMM)"
      const size_t open = full.rfind(" (");
      std::string detail = full.substr(open + 2, full.size() - open - 3);
      detail = detail.substr(0, detail.size() - std::string_view(" GEMM").size());
      if (detail == "GEMM") detail.clear();
      return CapLabel("gemm cutlass" + (detail.empty() ? std::string() : " " + detail));
    }
    case ParsedCudaName::Kind::kKernel:
      break;
  }
  const std::string dtype = parsed.dtype ? " " + *parsed.dtype : std::string();
  const std::string_view kernel = parsed.kernel;
  if (kernel.starts_with("flash") || Contains(kernel, "attention") || Contains(kernel, "fmha") ||
      Contains(kernel, "sdpa")) {
    return CapLabel("attention: " + std::string(PlainKernel(kernel)) + dtype);
  }
  if (parsed.op && (Contains(*parsed.op, "gemm") || Contains(*parsed.op, "Gemm")) &&
      (parsed.op->starts_with("cutlass") || parsed.op->starts_with("cublas"))) {
    return CapLabel("gemm " + *parsed.op);
  }
  std::string_view family = KernelFamily(kernel);
  if (family.empty()) family = PlainKernel(kernel);
  if (parsed.op)
    return CapLabel(std::string(family) + ": " + std::string(PlainOp(*parsed.op)) + dtype);
  return CapLabel(std::string(family) + dtype);
}

}  // namespace decodeprof::report
