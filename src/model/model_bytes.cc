#include "src/model/model_bytes.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "src/base/file_io.h"
#include "src/model/model_internal.h"

namespace decodeprof::model {
namespace {

constexpr std::array<std::pair<ByteKind, const char*>, 7> kKindNames = {{
    {ByteKind::kDenseWeights, "dense_weights"},
    {ByteKind::kExpertWeights, "expert_weights"},
    {ByteKind::kHeadWeights, "head_weights"},
    {ByteKind::kEmbedding, "embedding"},
    {ByteKind::kNormWeights, "norm_weights"},
    {ByteKind::kKvCache, "kv_cache"},
    {ByteKind::kState, "state"},
}};

// a + b, saturating at the int64 maximum (byte sums stay far below it for real models).
int64_t SatAdd(int64_t a, int64_t b) {
  int64_t out = 0;
  return internal::AddOk(a, b, out) ? out : INT64_MAX;
}

int64_t TermBytesAt(const ByteTerm& term, int64_t context_tokens) {
  if (term.kind != ByteKind::kKvCache) return term.bytes;
  int64_t tokens = std::max<int64_t>(context_tokens, 0);
  if (term.window_tokens > 0) tokens = std::min(tokens, term.window_tokens);
  int64_t out = 0;
  return internal::MulOk(term.bytes, tokens, out) ? out : INT64_MAX;
}

bool IsWeight(ByteKind kind) { return kind != ByteKind::kKvCache && kind != ByteKind::kState; }

}  // namespace

const char* ByteKindName(ByteKind kind) {
  for (const auto& [k, name] : kKindNames) {
    if (k == kind) return name;
  }
  return "?";
}

bool ParseByteKind(std::string_view name, ByteKind& kind) {
  for (const auto& [k, n] : kKindNames) {
    if (name == n) {
      kind = k;
      return true;
    }
  }
  return false;
}

int64_t ModelBytes::WeightBytes() const {
  int64_t sum = 0;
  for (const ByteTerm& t : terms) {
    if (IsWeight(t.kind)) sum = SatAdd(sum, t.bytes);
  }
  return sum;
}

int64_t ModelBytes::KvBytes(int64_t context_tokens) const {
  return BytesOf(ByteKind::kKvCache, context_tokens);
}

int64_t ModelBytes::StateBytes() const { return BytesOf(ByteKind::kState, 0); }

int64_t ModelBytes::BytesPerToken(int64_t context_tokens) const {
  return SatAdd(SatAdd(WeightBytes(), KvBytes(context_tokens)), StateBytes());
}

int64_t ModelBytes::BytesOf(ByteKind kind, int64_t context_tokens) const {
  int64_t sum = 0;
  for (const ByteTerm& t : terms) {
    if (t.kind == kind) sum = SatAdd(sum, TermBytesAt(t, context_tokens));
  }
  return sum;
}

base::StatusOr<ModelBytes> ReadModelBytes(const std::string& model_dir_or_gguf,
                                          const ModelOptions& options) {
  const std::string& path = model_dir_or_gguf;
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) {
    return base::IoError(path, "no such model directory or GGUF file");
  }
  if (S_ISDIR(st.st_mode)) {
    std::string config = path;
    if (config.back() != '/') config += '/';
    config += "config.json";
    if (::access(config.c_str(), F_OK) != 0) {
      return base::IoError(path, "the model directory has no config.json");
    }
    return internal::ReadHfConfig(config, options);
  }
  DP_ASSIGN_OR_RETURN(const std::string magic, base::ReadFilePrefix(path, 4));
  if (magic == "GGUF") return internal::ReadGguf(path, options);
  if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0) {
    return internal::ReadHfConfig(path, options);
  }
  return base::DataError(path,
                         "neither a model directory (config.json) nor a GGUF file (no GGUF magic)");
}

namespace internal {

int DtypeBytes(std::string_view name) {
  const std::string s = DtypeShortName(name);
  if (s == "bf16" || s == "fp16") return 2;
  if (s == "f32") return 4;
  if (s == "fp8") return 1;
  if (s == "f64") return 8;
  return 0;
}

std::string DtypeShortName(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 17> kNames = {{
      {"bfloat16", "bf16"},
      {"bf16", "bf16"},
      {"float16", "fp16"},
      {"fp16", "fp16"},
      {"f16", "fp16"},
      {"half", "fp16"},
      {"float32", "f32"},
      {"fp32", "f32"},
      {"f32", "f32"},
      {"float", "f32"},
      {"fp8", "fp8"},
      {"float8_e4m3fn", "fp8"},
      {"f8_e4m3", "fp8"},
      {"fp8_e4m3", "fp8"},
      {"float8_e5m2", "fp8"},
      {"float64", "f64"},
      {"f64", "f64"},
  }};
  for (const auto& [n, s] : kNames) {
    if (name == n) return std::string(s);
  }
  return {};
}

bool MulOk(int64_t a, int64_t b, int64_t& out) { return !__builtin_mul_overflow(a, b, &out); }
bool AddOk(int64_t a, int64_t b, int64_t& out) { return !__builtin_add_overflow(a, b, &out); }

}  // namespace internal
}  // namespace decodeprof::model
