// A GGUF file's header → ModelBytes: the tensor list with exact ggml types and shapes, and
// the metadata that sizes the KV cache and the recurrent state. Only the header is read, with
// bounded reads: every count and length is checked against what is left of the file.
// Format: ggml docs/gguf.md (v2 and v3: 64-bit counts and lengths, little-endian).
#include <unistd.h>

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/base/file_io.h"
#include "src/model/model_internal.h"

namespace decodeprof::model::internal {
namespace {

// ggml's types: block size in elements and bytes per block (ggml.c type_traits, block layouts
// of ggml-common.h).
struct GgmlType {
  int id;
  const char* name;
  int64_t block;
  int64_t bytes;
};
constexpr std::array<GgmlType, 30> kTypes = {{
    {0, "f32", 1, 4},         {1, "f16", 1, 2},         {2, "q4_0", 32, 18},
    {3, "q4_1", 32, 20},      {6, "q5_0", 32, 22},      {7, "q5_1", 32, 24},
    {8, "q8_0", 32, 34},      {9, "q8_1", 32, 36},      {10, "q2_K", 256, 84},
    {11, "q3_K", 256, 110},   {12, "q4_K", 256, 144},   {13, "q5_K", 256, 176},
    {14, "q6_K", 256, 210},   {15, "q8_K", 256, 292},   {16, "iq2_xxs", 256, 66},
    {17, "iq2_xs", 256, 74},  {18, "iq3_xxs", 256, 98}, {19, "iq1_s", 256, 50},
    {20, "iq4_nl", 32, 18},   {21, "iq3_s", 256, 110},  {22, "iq2_s", 256, 82},
    {23, "iq4_xs", 256, 136}, {24, "i8", 1, 1},         {25, "i16", 1, 2},
    {26, "i32", 1, 4},        {27, "i64", 1, 8},        {28, "f64", 1, 8},
    {29, "iq1_m", 256, 56},   {30, "bf16", 1, 2},       {39, "mxfp4", 32, 17},
}};
// TQ1_0 (34) and TQ2_0 (35): 256-element blocks of 54 and 66 bytes.
constexpr std::array<GgmlType, 2> kTernary = {{{34, "tq1_0", 256, 54}, {35, "tq2_0", 256, 66}}};

const GgmlType* FindType(uint32_t id) {
  for (const GgmlType& t : kTypes) {
    if (static_cast<uint32_t>(t.id) == id) return &t;
  }
  for (const GgmlType& t : kTernary) {
    if (static_cast<uint32_t>(t.id) == id) return &t;
  }
  return nullptr;
}

// llama_ftype names (general.file_type).
const char* FileTypeName(int64_t ftype) {
  static const std::map<int64_t, const char*> kNames = {
      {0, "f32"},      {1, "f16"},      {2, "q4_0"},       {3, "q4_1"},    {7, "q8_0"},
      {8, "q5_0"},     {9, "q5_1"},     {10, "q2_K"},      {11, "q3_K_S"}, {12, "q3_K_M"},
      {13, "q3_K_L"},  {14, "q4_K_S"},  {15, "q4_K_M"},    {16, "q5_K_S"}, {17, "q5_K_M"},
      {18, "q6_K"},    {19, "iq2_xxs"}, {20, "iq2_xs"},    {21, "q2_K_S"}, {22, "iq3_xs"},
      {23, "iq3_xxs"}, {24, "iq1_s"},   {25, "iq4_nl"},    {26, "iq3_s"},  {27, "iq3_m"},
      {28, "iq2_s"},   {29, "iq2_m"},   {30, "iq4_xs"},    {31, "iq1_m"},  {32, "bf16"},
      {36, "tq1_0"},   {37, "tq2_0"},   {38, "mxfp4_moe"},
  };
  auto it = kNames.find(ftype);
  return it == kNames.end() ? nullptr : it->second;
}

enum GgufValueType : uint32_t {
  kU8 = 0,
  kI8 = 1,
  kU16 = 2,
  kI16 = 3,
  kU32 = 4,
  kI32 = 5,
  kF32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kU64 = 10,
  kI64 = 11,
  kF64 = 12,
};

int64_t ScalarSize(uint32_t type) {
  switch (type) {
    case kU8:
    case kI8:
    case kBool:
      return 1;
    case kU16:
    case kI16:
      return 2;
    case kU32:
    case kI32:
    case kF32:
      return 4;
    case kU64:
    case kI64:
    case kF64:
      return 8;
    default:
      return 0;
  }
}

// Sequential, bounded reads of the header.
class Reader {
 public:
  Reader(int fd, int64_t size, std::string path) : fd_(fd), size_(size), path_(std::move(path)) {}

  int64_t pos() const { return pos_; }
  int64_t left() const { return size_ - pos_; }
  base::Status Cut(std::string_view what) const {
    return base::DataError(path_ + ":byte " + std::to_string(pos_),
                           "GGUF header cut short in " + std::string(what));
  }
  base::Status Bad(std::string message) const {
    return base::DataError(path_ + ":byte " + std::to_string(pos_), std::move(message));
  }

  base::Status Read(void* out, int64_t n, std::string_view what) {
    if (n > left()) return Cut(what);
    auto* dst = static_cast<char*>(out);
    while (n > 0) {
      if (pos_ < buf_start_ || pos_ >= buf_start_ + static_cast<int64_t>(buf_.size())) {
        DP_RETURN_IF_ERROR(Fill());
      }
      const int64_t offset = pos_ - buf_start_;
      const int64_t take = std::min<int64_t>(n, static_cast<int64_t>(buf_.size()) - offset);
      std::memcpy(dst, buf_.data() + offset, static_cast<size_t>(take));
      dst += take;
      pos_ += take;
      n -= take;
    }
    return base::OkStatus();
  }
  base::Status Skip(int64_t n, std::string_view what) {
    if (n < 0 || n > left()) return Cut(what);
    pos_ += n;
    return base::OkStatus();
  }
  template <typename T>
  base::Status Get(T& v, std::string_view what) {
    return Read(&v, sizeof v, what);
  }
  // A GGUF string: u64 length, bytes. `max` caps what is kept (names, short values).
  base::Status String(std::string& s, std::string_view what, int64_t max = 1 << 20) {
    uint64_t n = 0;
    DP_RETURN_IF_ERROR(Get(n, what));
    if (n > static_cast<uint64_t>(left())) {
      return Bad("string length " + std::to_string(n) + " in " + std::string(what) +
                 " is beyond the file's end");
    }
    if (static_cast<int64_t>(n) > max) {
      return Bad("string of " + std::to_string(n) + " bytes in " + std::string(what) +
                 " is longer than " + std::to_string(max));
    }
    s.resize(n);
    return Read(s.data(), static_cast<int64_t>(n), what);
  }

 private:
  base::Status Fill() {
    constexpr int64_t kBuf = 1 << 20;
    buf_.resize(static_cast<size_t>(std::min(kBuf, size_ - pos_)));
    buf_start_ = pos_;
    size_t done = 0;
    while (done < buf_.size()) {
      const ssize_t got = ::pread(fd_, buf_.data() + done, buf_.size() - done,
                                  static_cast<off_t>(buf_start_) + static_cast<off_t>(done));
      if (got < 0) return base::IoError(path_, std::string("cannot read: ") + std::strerror(errno));
      if (got == 0) return Cut("a read past the file's end");
      done += static_cast<size_t>(got);
    }
    return base::OkStatus();
  }

  int fd_;
  int64_t size_;
  std::string path_;
  int64_t pos_ = 0;
  std::vector<char> buf_;
  int64_t buf_start_ = 0;
};

// A metadata value kept: integers (scalars and integer arrays), strings; the rest skipped.
struct Value {
  std::optional<int64_t> integer;
  std::optional<std::string> string;
  std::vector<int64_t> integers;  // an integer array
  bool is_array = false;
};

base::Status ReadScalar(Reader& r, uint32_t type, Value& v, std::string_view what) {
  switch (type) {
    case kU8: {
      uint8_t x = 0;
      DP_RETURN_IF_ERROR(r.Get(x, what));
      v.integer = x;
      break;
    }
    case kI8: {
      int8_t x = 0;
      DP_RETURN_IF_ERROR(r.Get(x, what));
      v.integer = x;
      break;
    }
    case kBool: {
      uint8_t x = 0;
      DP_RETURN_IF_ERROR(r.Get(x, what));
      v.integer = x != 0;
      break;
    }
    case kU16: {
      uint16_t x = 0;
      DP_RETURN_IF_ERROR(r.Get(x, what));
      v.integer = x;
      break;
    }
    case kI16: {
      int16_t x = 0;
      DP_RETURN_IF_ERROR(r.Get(x, what));
      v.integer = x;
      break;
    }
    case kU32: {
      uint32_t x = 0;
      DP_RETURN_IF_ERROR(r.Get(x, what));
      v.integer = x;
      break;
    }
    case kI32: {
      int32_t x = 0;
      DP_RETURN_IF_ERROR(r.Get(x, what));
      v.integer = x;
      break;
    }
    case kU64: {
      uint64_t x = 0;
      DP_RETURN_IF_ERROR(r.Get(x, what));
      if (x <= static_cast<uint64_t>(INT64_MAX)) v.integer = static_cast<int64_t>(x);
      break;
    }
    case kI64: {
      int64_t x = 0;
      DP_RETURN_IF_ERROR(r.Get(x, what));
      v.integer = x;
      break;
    }
    case kF32:
      DP_RETURN_IF_ERROR(r.Skip(4, what));
      break;
    case kF64:
      DP_RETURN_IF_ERROR(r.Skip(8, what));
      break;
    case kString: {
      std::string s;
      DP_RETURN_IF_ERROR(r.String(s, what));
      v.string = std::move(s);
      break;
    }
    default:
      return r.Bad("unknown metadata value type " + std::to_string(type) + " in " +
                   std::string(what));
  }
  return base::OkStatus();
}

base::Status ReadValue(Reader& r, uint32_t type, Value& v, const std::string& key, int depth) {
  if (type != kArray) return ReadScalar(r, type, v, key);
  if (depth > 4) return r.Bad("arrays nested deeper than 4 levels in " + key);
  uint32_t elem = 0;
  uint64_t n = 0;
  DP_RETURN_IF_ERROR(r.Get(elem, key));
  DP_RETURN_IF_ERROR(r.Get(n, key));
  v.is_array = true;
  const int64_t size = ScalarSize(elem);
  // every element takes at least one byte (a string at least its 8-byte length)
  const uint64_t min_each = size > 0 ? static_cast<uint64_t>(size) : 8;
  if (n > static_cast<uint64_t>(r.left()) / min_each) {
    return r.Bad("array count " + std::to_string(n) + " of " + key + " is beyond the file's end");
  }
  if (size > 0 && elem != kF32 && elem != kF64 && n <= 1 << 20) {
    for (uint64_t i = 0; i < n; ++i) {
      Value e;
      DP_RETURN_IF_ERROR(ReadScalar(r, elem, e, key));
      v.integers.push_back(e.integer.value_or(0));
    }
    return base::OkStatus();
  }
  if (size > 0) return r.Skip(static_cast<int64_t>(n) * size, key);
  for (uint64_t i = 0; i < n; ++i) {
    if (elem == kString) {
      uint64_t len = 0;
      DP_RETURN_IF_ERROR(r.Get(len, key));
      if (len > static_cast<uint64_t>(r.left())) {
        return r.Bad("string length " + std::to_string(len) + " in " + key +
                     " is beyond the file's end");
      }
      DP_RETURN_IF_ERROR(r.Skip(static_cast<int64_t>(len), key));
    } else {
      Value e;
      DP_RETURN_IF_ERROR(ReadValue(r, elem, e, key, depth + 1));
    }
  }
  return base::OkStatus();
}

struct Tensor {
  std::string name;
  std::vector<int64_t> ne;
  const GgmlType* type = nullptr;
  int64_t offset = 0;
  int64_t bytes = 0;
};

// The layer of "blk.N.xxx", or -1.
int64_t LayerOf(const std::string& name) {
  if (name.rfind("blk.", 0) != 0) return -1;
  int64_t n = 0;
  size_t i = 4;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && n < 1000000; ++i) {
    n = n * 10 + (name[i] - '0');
  }
  return i > 4 && i < name.size() && name[i] == '.' ? n : -1;
}

// Bytes per element of a KV cache type, as a fraction (bytes per block, block).
bool KvTypeOf(const std::string& name, int64_t& bytes, int64_t& block) {
  const std::string s = DtypeShortName(name);
  if (s == "fp16" || s == "bf16") {
    bytes = 2;
    block = 1;
    return true;
  }
  if (s == "f32") {
    bytes = 4;
    block = 1;
    return true;
  }
  if (s == "fp8") {
    bytes = 1;
    block = 1;
    return true;
  }
  if (name == "q8_0") {
    bytes = 34;
    block = 32;
    return true;
  }
  if (name == "q4_0") {
    bytes = 18;
    block = 32;
    return true;
  }
  if (name == "q4_1") {
    bytes = 20;
    block = 32;
    return true;
  }
  if (name == "q5_0") {
    bytes = 22;
    block = 32;
    return true;
  }
  if (name == "q5_1") {
    bytes = 24;
    block = 32;
    return true;
  }
  if (name == "iq4_nl") {
    bytes = 18;
    block = 32;
    return true;
  }
  return false;
}

}  // namespace

base::StatusOr<ModelBytes> ReadGguf(const std::string& path, const ModelOptions& options) {
  DP_ASSIGN_OR_RETURN(const int fd, base::OpenInputFile(path));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return base::IoError(path, "cannot stat");
  const auto file_size = static_cast<int64_t>(st.st_size);
  Reader r(fd, file_size, path);

  char magic[4];
  DP_RETURN_IF_ERROR(r.Read(magic, 4, "the magic"));
  if (std::memcmp(magic, "GGUF", 4) != 0) return r.Bad("not a GGUF file (no GGUF magic)");
  uint32_t version = 0;
  DP_RETURN_IF_ERROR(r.Get(version, "the version"));
  if (version != 2 && version != 3) {
    return r.Bad("GGUF version " + std::to_string(version) + " (decodeprof reads 2 and 3)");
  }
  uint64_t tensor_count = 0, kv_count = 0;
  DP_RETURN_IF_ERROR(r.Get(tensor_count, "the tensor count"));
  DP_RETURN_IF_ERROR(r.Get(kv_count, "the metadata count"));
  // each tensor info takes at least 8+4+4+8 bytes, each key/value at least 8+4+1
  if (tensor_count > static_cast<uint64_t>(file_size) / 24) {
    return base::DataError(path + ":byte 8", "tensor count " + std::to_string(tensor_count) +
                                                 " is beyond the file's size");
  }
  if (kv_count > static_cast<uint64_t>(file_size) / 13) {
    return base::DataError(path + ":byte 16", "metadata count " + std::to_string(kv_count) +
                                                  " is beyond the file's size");
  }

  std::map<std::string, Value> meta;
  for (uint64_t i = 0; i < kv_count; ++i) {
    std::string key;
    DP_RETURN_IF_ERROR(r.String(key, "a metadata key", 65536));
    uint32_t type = 0;
    DP_RETURN_IF_ERROR(r.Get(type, key));
    Value v;
    DP_RETURN_IF_ERROR(ReadValue(r, type, v, key, 0));
    meta[key] = std::move(v);
  }

  auto str = [&](const std::string& key) -> std::string {
    auto it = meta.find(key);
    return it != meta.end() && it->second.string ? *it->second.string : std::string();
  };
  auto integer = [&](const std::string& key) -> std::optional<int64_t> {
    auto it = meta.find(key);
    if (it == meta.end() || !it->second.integer) return std::nullopt;
    return it->second.integer;
  };

  std::vector<Tensor> tensors;
  tensors.reserve(static_cast<size_t>(std::min<uint64_t>(tensor_count, 1 << 16)));
  for (uint64_t i = 0; i < tensor_count; ++i) {
    Tensor t;
    DP_RETURN_IF_ERROR(r.String(t.name, "a tensor name", 65536));
    uint32_t n_dims = 0;
    DP_RETURN_IF_ERROR(r.Get(n_dims, t.name));
    if (n_dims == 0 || n_dims > 4) {
      return r.Bad("tensor " + t.name + " has " + std::to_string(n_dims) + " dimensions");
    }
    int64_t elements = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      uint64_t ne = 0;
      DP_RETURN_IF_ERROR(r.Get(ne, t.name));
      if (ne > static_cast<uint64_t>(INT64_MAX) ||
          !MulOk(elements, static_cast<int64_t>(ne), elements)) {
        return r.Bad("tensor " + t.name + " has too many elements");
      }
      t.ne.push_back(static_cast<int64_t>(ne));
    }
    uint32_t type = 0;
    DP_RETURN_IF_ERROR(r.Get(type, t.name));
    t.type = FindType(type);
    if (t.type == nullptr) {
      return r.Bad("tensor " + t.name + " has ggml type " + std::to_string(type) +
                   ", which decodeprof does not know the size of");
    }
    uint64_t offset = 0;
    DP_RETURN_IF_ERROR(r.Get(offset, t.name));
    if (offset > static_cast<uint64_t>(file_size)) {
      return r.Bad("tensor " + t.name + " starts beyond the file's end");
    }
    t.offset = static_cast<int64_t>(offset);
    if (t.ne[0] % t.type->block != 0) {
      return r.Bad("tensor " + t.name + ": row of " + std::to_string(t.ne[0]) +
                   " elements is not whole blocks of " + t.type->name);
    }
    if (!MulOk(elements / t.type->block, t.type->bytes, t.bytes)) {
      return r.Bad("tensor " + t.name + " has too many bytes");
    }
    tensors.push_back(std::move(t));
  }

  // The data region: aligned after the header; every tensor must lie inside the file.
  int64_t alignment = integer("general.alignment").value_or(32);
  if (alignment <= 0 || alignment > (1 << 20)) return r.Bad("general.alignment out of range");
  const int64_t data_start = (r.pos() + alignment - 1) / alignment * alignment;
  int64_t data_end = data_start;
  for (const Tensor& t : tensors) {
    int64_t end = 0;
    if (!AddOk(data_start, t.offset, end) || !AddOk(end, t.bytes, end)) {
      return r.Bad("tensor " + t.name + " ends beyond any file");
    }
    data_end = std::max(data_end, end);
  }
  if (data_end > file_size) {
    return base::DataError(path, "cut short: its tensors end at byte " + std::to_string(data_end) +
                                     ", the file has " + std::to_string(file_size));
  }

  ModelBytes out;
  out.source = path;
  out.architecture = str("general.architecture");
  if (out.architecture.empty()) return base::DataError(path, "GGUF has no general.architecture");
  const std::string& arch = out.architecture;

  // Weights.
  const int64_t expert_count = integer(arch + ".expert_count").value_or(0);
  const int64_t expert_used = integer(arch + ".expert_used_count").value_or(0);
  const Tensor* embd = nullptr;
  bool has_output = false;
  std::map<std::string, int64_t> type_bytes;  // stored bytes per ggml type
  std::vector<bool> ssm_layer, attn_layer;
  const int64_t blocks = integer(arch + ".block_count").value_or(0);
  if (blocks < 0 || blocks > 100000)
    return base::DataError(path, arch + ".block_count out of range");
  ssm_layer.assign(static_cast<size_t>(blocks), false);
  attn_layer.assign(static_cast<size_t>(blocks), false);
  bool any_attn_tensor = false;
  for (const Tensor& t : tensors) {
    DP_RETURN_IF_ERROR(AddOk(out.stored_weight_bytes, t.bytes, out.stored_weight_bytes)
                           ? base::OkStatus()
                           : base::DataError(path, "weight bytes overflow"));
    type_bytes[t.type->name] += t.bytes;
    const int64_t layer = LayerOf(t.name);
    if (layer >= 0 && layer < blocks) {
      const std::string rest = t.name.substr(t.name.find('.', 4) + 1);
      if (rest.rfind("ssm_", 0) == 0) ssm_layer[static_cast<size_t>(layer)] = true;
      if (rest.rfind("attn_k.", 0) == 0 || rest.rfind("attn_qkv.", 0) == 0 ||
          rest.rfind("attn_k_b.", 0) == 0 || rest.rfind("attn_kv_a_mqa.", 0) == 0) {
        attn_layer[static_cast<size_t>(layer)] = true;
        any_attn_tensor = true;
      }
    }
    int64_t ne_big = 0;  // dimensions above 1
    for (int64_t ne : t.ne) ne_big += ne > 1;
    ByteTerm term{ByteKind::kDenseWeights, t.name, t.bytes, 0};
    if (t.name == "token_embd.weight") {
      embd = &t;
      term.kind = ByteKind::kEmbedding;
      term.bytes = t.ne[0] / t.type->block * t.type->bytes;  // one row
    } else if (t.name == "output.weight") {
      has_output = true;
      term.kind = ByteKind::kHeadWeights;
    } else if (t.name.find("norm") != std::string::npos || ne_big <= 1) {
      term.kind = ByteKind::kNormWeights;
    } else if (t.name.find("_exps.") != std::string::npos) {
      if (expert_count <= 0 || expert_used <= 0 || expert_used > expert_count) {
        return base::DataError(path, "tensor " + t.name + " holds experts but " + arch +
                                         ".expert_count / expert_used_count are missing or bad");
      }
      term.kind = ByteKind::kExpertWeights;
      term.bytes = t.bytes / expert_count * expert_used;
    }
    out.terms.push_back(std::move(term));
  }
  if (!has_output && embd != nullptr) {
    out.terms.push_back(
        {ByteKind::kHeadWeights, "token_embd.weight (tied output)", embd->bytes, 0});
    out.notes.push_back("no output.weight: the head reads token_embd.weight whole (tied)");
  }
  if (expert_count > 0) {
    out.notes.push_back("routed experts: " + std::to_string(expert_used) + " of " +
                        std::to_string(expert_count) + " read per token");
  }
  if (auto ft = integer("general.file_type"); ft && FileTypeName(*ft) != nullptr) {
    out.weight_format = FileTypeName(*ft);
  } else {
    int64_t best = -1;
    for (const auto& [name, bytes] : type_bytes) {
      if (bytes > best) {
        best = bytes;
        out.weight_format = name;
      }
    }
  }

  // KV cache: per attention layer, head_count_kv × (key_length + value_length) per token.
  const std::string kv_name = options.kv_dtype.empty() ? "f16" : options.kv_dtype;
  int64_t kv_bytes = 0, kv_block = 1;
  if (!KvTypeOf(kv_name, kv_bytes, kv_block)) {
    return base::UsageError("unknown KV cache type '" + kv_name +
                            "' (f16, bf16, f32, fp8, q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl)");
  }
  const std::optional<int64_t> heads = integer(arch + ".attention.head_count");
  const std::optional<int64_t> embedding = integer(arch + ".embedding_length");
  std::vector<int64_t> kv_heads(static_cast<size_t>(blocks), 0);
  if (auto it = meta.find(arch + ".attention.head_count_kv"); it != meta.end()) {
    if (it->second.is_array) {
      if (static_cast<int64_t>(it->second.integers.size()) != blocks) {
        return base::DataError(path, arch + ".attention.head_count_kv has " +
                                         std::to_string(it->second.integers.size()) +
                                         " entries for " + std::to_string(blocks) + " blocks");
      }
      kv_heads = it->second.integers;
    } else if (it->second.integer) {
      kv_heads.assign(static_cast<size_t>(blocks), *it->second.integer);
    }
  } else if (heads) {
    kv_heads.assign(static_cast<size_t>(blocks), *heads);
  }
  int64_t head_dim = 0;
  if (heads && embedding && *heads > 0) head_dim = *embedding / *heads;
  const int64_t key_length = integer(arch + ".attention.key_length").value_or(head_dim);
  const int64_t value_length = integer(arch + ".attention.value_length").value_or(head_dim);
  int64_t kv_elements = 0, kv_layers = 0;
  for (int64_t i = 0; i < blocks; ++i) {
    const int64_t h = kv_heads[static_cast<size_t>(i)];
    if (h <= 0 || h > (1 << 20)) continue;
    if (any_attn_tensor && !attn_layer[static_cast<size_t>(i)]) continue;
    if (key_length <= 0 || value_length <= 0 || key_length > (1 << 20) ||
        value_length > (1 << 20)) {
      return base::DataError(path, arch + ": the attention key/value length is missing or bad");
    }
    kv_elements += h * (key_length + value_length);
    ++kv_layers;
  }
  if (kv_layers > 0) {
    if (kv_elements % kv_block != 0) {
      return base::UsageError("KV cache type " + kv_name + ": rows are not whole blocks");
    }
    out.terms.push_back({ByteKind::kKvCache, "kv:" + std::to_string(kv_layers) + " layers",
                         kv_elements / kv_block * kv_bytes, 0});
    out.notes.push_back("KV cache " + kv_name +
                        (options.kv_dtype.empty() ? " (llama.cpp's default cache type)" : "") +
                        " on " + std::to_string(kv_layers) + " layers");
    if (integer(arch + ".attention.kv_lora_rank")) {
      out.notes.push_back(arch + ": a latent (MLA) KV cache is counted as plain K and V of " +
                          std::to_string(key_length) + "+" + std::to_string(value_length) +
                          " a head, which overstates it");
    }
    if (integer(arch + ".attention.sliding_window")) {
      out.notes.push_back(arch +
                          ".attention.sliding_window is not applied: every KV layer is "
                          "counted at the full context");
    }
  }

  // Recurrent state (Mamba): per SSM layer, inner_size × state_size SSM elements and
  // (inner_size + 2 × group_count × state_size) × (conv_kernel − 1) conv elements, f32 as
  // llama.cpp keeps them; read and written.
  const std::optional<int64_t> inner = integer(arch + ".ssm.inner_size");
  const std::optional<int64_t> state = integer(arch + ".ssm.state_size");
  const std::optional<int64_t> conv = integer(arch + ".ssm.conv_kernel");
  const int64_t groups = integer(arch + ".ssm.group_count").value_or(0);
  const int64_t ssm_layers = std::count(ssm_layer.begin(), ssm_layer.end(), true);
  if (ssm_layers > 0) {
    if (!inner || !state || !conv || *inner <= 0 || *state <= 0 || *conv <= 0 ||
        *inner > (1 << 24) || *state > (1 << 16) || *conv > 1024 || groups < 0 || groups > 4096) {
      return base::DataError(path, arch +
                                       ": SSM tensors but ssm.inner_size / state_size / "
                                       "conv_kernel missing or bad");
    }
    const std::string state_name = options.state_dtype.empty() ? "f32" : options.state_dtype;
    const int64_t sb = DtypeBytes(state_name);
    if (sb == 0) return base::UsageError("unknown state dtype '" + state_name + "'");
    const int64_t ssm = *inner * *state * sb;
    const int64_t conv_state = (*inner + 2 * groups * *state) * (*conv - 1) * sb;
    out.terms.push_back({ByteKind::kState, "state:ssm", 2 * ssm * ssm_layers, 0});
    out.terms.push_back({ByteKind::kState, "state:conv", 2 * conv_state * ssm_layers, 0});
    out.notes.push_back("recurrent state " + DtypeShortName(state_name) + " on " +
                        std::to_string(ssm_layers) + " layers, read and written each token");
  }
  return out;
}

}  // namespace decodeprof::model::internal
