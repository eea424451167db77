#include "src/report/short_name.h"
#include "src/report/text_scan.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "src/report/cuda_short_name.h"

namespace decodeprof::report {
namespace {

// The seed's Python (seed spec 2.11), reconstructed as three regular expressions:
//
//   base:   re.search(r"::(\w+)(?:<([^(]*)>)?\(", name)
//           group 1 = base, group 2 = template args; no match → name.split("(")[0]
//   op:     re.search(r"rocm::(\w+)(?:<[^>]*>)?,", args)          group 1 = functor
//   dtype:  re.search(r"hip_bfloat16|__half|float|int|unsigned int|bool", args[op.end():])
//
// They are evaluated here by hand with the same semantics:
//   * `\w+` must be followed by `<`, `(` or `,`, none of which is a word character, so only
//     the longest identifier run can match (backtracking into it never helps).
//   * `<([^(]*)>\(`: `[^(]*` cannot cross a `(`, so the match exists iff the first `(` after
//     the `<` is preceded by a `>` that is not the `<` itself; the greedy group then spans
//     everything between the `<` and that `>`.
//   * re.search takes the leftmost start; the dtype alternation is leftmost-first, so at
//     one position `hip_bfloat16` beats the `float` inside it, and `unsigned int` is found
//     at its `u` before the `int` inside it is reached. There are no word boundaries: `int`
//     also matches inside `uint32_t`, as in the seed.

using text::IsWordChar;
using text::WordEnd;

struct BaseMatch {
  std::string_view base;
  std::optional<std::string_view> template_args;
};

std::optional<BaseMatch> FindBase(std::string_view name) {
  for (size_t colon = name.find("::"); colon != std::string_view::npos;
       colon = name.find("::", colon + 1)) {
    const size_t ident = colon + 2;
    const size_t ident_end = WordEnd(name, ident);
    if (ident_end == ident || ident_end >= name.size()) continue;
    const std::string_view base = name.substr(ident, ident_end - ident);
    if (name[ident_end] == '(') return BaseMatch{base, std::nullopt};
    if (name[ident_end] != '<') continue;
    const size_t paren = name.find('(', ident_end + 1);
    if (paren == std::string_view::npos || paren - 1 <= ident_end || name[paren - 1] != '>') {
      continue;
    }
    return BaseMatch{base, name.substr(ident_end + 1, paren - 1 - (ident_end + 1))};
  }
  return std::nullopt;
}

// rocm::(\w+)(?:<[^>]*>)?,  → the functor and the offset just past the comma.
std::optional<std::pair<std::string_view, size_t>> FindOpFunctor(std::string_view args) {
  constexpr std::string_view kPrefix = "rocm::";
  for (size_t at = args.find(kPrefix); at != std::string_view::npos;
       at = args.find(kPrefix, at + 1)) {
    const size_t word = at + kPrefix.size();
    const size_t word_end = WordEnd(args, word);
    if (word_end == word || word_end >= args.size()) continue;
    size_t next = word_end;
    if (args[next] == '<') {
      const size_t close = args.find('>', next + 1);
      // `[^>]*>` stops at the first `>`; the optional group falls away if no `,` follows.
      if (close != std::string_view::npos && close + 1 < args.size() && args[close + 1] == ',') {
        return std::pair{args.substr(word, word_end - word), close + 2};
      }
      continue;
    }
    if (args[next] == ',') return std::pair{args.substr(word, word_end - word), next + 1};
  }
  return std::nullopt;
}

// The first `count` characters of UTF-8 text (Python slices code points, not bytes).
std::string_view Utf8Prefix(std::string_view text, size_t count) {
  size_t pos = 0;
  for (size_t seen = 0; pos < text.size(); ++pos) {
    const bool continuation = (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80;
    if (!continuation && seen++ == count) break;
  }
  return text.substr(0, pos);
}

struct DtypeSpelling {
  std::string_view spelling;
  std::string_view short_name;
};

// In the seed's alternation order (it decides ties at one position).
constexpr std::array<DtypeSpelling, 6> kDtypes = {{
    {"hip_bfloat16", "bf16"},
    {"__half", "f16"},
    {"float", "f32"},
    {"int", "int"},
    {"unsigned int", "u32"},
    {"bool", "bool"},
}};

std::optional<std::string_view> FindDtype(std::string_view args) {
  for (size_t pos = 0; pos < args.size(); ++pos) {
    for (const DtypeSpelling& dtype : kDtypes) {
      if (args.substr(pos, dtype.spelling.size()) == dtype.spelling) return dtype.short_name;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string ShortKernelName(std::string_view name) {
  if (HasCudaKernelMarker(name)) return CudaShortKernelName(name);
  if (name.starts_with("Cijk_")) return "Cijk_* (Tensile GEMM)";
  const std::optional<BaseMatch> match = FindBase(name);
  const std::string_view base = match ? match->base : name.substr(0, name.find('('));
  const bool upper = !base.empty() && base.front() >= 'A' && base.front() <= 'Z';
  if (upper && (base.find("_contiguous") != std::string_view::npos ||
                base.find("_strided") != std::string_view::npos)) {
    return "compiled " + std::string(Utf8Prefix(base, 40)) + "...";
  }
  std::string parts;
  if (match && match->template_args) {
    std::string_view args = *match->template_args;
    if (const auto op = FindOpFunctor(args)) {
      parts = op->first;
      args.remove_prefix(op->second);
    }
    if (const auto dtype = FindDtype(args)) {
      if (!parts.empty()) parts += ", ";
      parts += *dtype;
    }
  }
  if (parts.empty()) return std::string(base);
  return std::string(base) + "<" + parts + ">";
}

std::string KernelLabel(std::string_view name) {
  return HasCudaKernelMarker(name) ? CudaKernelLabel(name) : CapKernelLabel(ShortKernelName(name));
}

}  // namespace decodeprof::report
