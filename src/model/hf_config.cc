// config.json → ModelBytes, with the architectures of packs/models.toml: the layer types from
// the config, every tensor's shape as muparser expressions over the config's keys, and the
// weight format (torch_dtype, MLX's `quantization`, HF's fp8 `quantization_config`).
#include <muParser.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/base/file_io.h"
#include "src/model/model_internal.h"
#include "src/model/models_toml.h"
#include "src/packs/toml_fields.h"

namespace decodeprof::model::internal {
namespace {

using packs::StringAt;
using packs::TomlFields;

// ---- packs/models.toml ----------------------------------------------------------------------

struct TensorSpec {
  std::vector<std::string> layers;  // layer types, "all" or "model"
  std::string name;
  std::string module;  // checkpoint module name ("" = none: never quantized, never excluded)
  ByteKind kind = ByteKind::kDenseWeights;
  std::vector<std::string> shape;
  std::string count = "1";
  std::string used;  // "" = count
  std::string when, tied, window, dtype, dtype_key;
  bool quantize = true;
  std::string where;
};

struct LayerSpec {
  std::string count;
  std::string uniform, list, pattern;
  std::map<std::string, std::string> names;
  std::string when_absent;
  std::string where;
};

struct CheckSpec {
  std::string expr, message, where;
};

using Defaults = std::vector<std::pair<std::string, std::string>>;  // key, expression

struct Architecture {
  std::vector<std::string> model_types;
  std::string layer_prefix;
  Defaults defaults;
  std::map<std::string, Defaults> type_defaults;
  LayerSpec layers;
  std::vector<TensorSpec> tensors;
  std::vector<CheckSpec> checks;
  std::string where;
};

// A table of expressions (strings, or integers written as numbers).
base::StatusOr<Defaults> ReadExpressionTable(const toml::node* node, std::string_view file,
                                             const std::string& what) {
  Defaults out;
  if (node == nullptr) return out;
  const toml::table* table = node->as_table();
  if (table == nullptr) {
    return base::ConfigError(packs::WhereOf(file, *node), what + " must be a table");
  }
  for (const auto& [key, value] : *table) {
    if (const auto* s = value.as_string()) {
      out.emplace_back(std::string(key.str()), s->get());
    } else if (const auto* i = value.as_integer()) {
      out.emplace_back(std::string(key.str()), std::to_string(i->get()));
    } else {
      return base::ConfigError(packs::WhereOf(file, value),
                               what + "." + std::string(key.str()) +
                                   " must be an expression string, not " +
                                   std::string(packs::TomlTypeName(value)));
    }
  }
  return out;
}

base::StatusOr<TensorSpec> ParseTensor(const toml::table& table, std::string_view file,
                                       int64_t index) {
  TomlFields f(table, file, "[[architecture.tensor]] " + std::to_string(index + 1));
  DP_RETURN_IF_ERROR(f.CheckKeys({"layer", "name", "module", "kind", "shape", "count", "used",
                                  "when", "tied", "window", "dtype", "dtype_key", "quantize"}));
  TensorSpec t;
  t.where = f.where();
  DP_ASSIGN_OR_RETURN(const std::vector<StringAt> layers, f.StringList("layer", true));
  for (const StringAt& l : layers) t.layers.push_back(l.value);
  DP_ASSIGN_OR_RETURN(t.name, f.RequiredString("name"));
  DP_ASSIGN_OR_RETURN(t.module, f.OptionalString("module"));
  DP_ASSIGN_OR_RETURN(const std::string kind, f.RequiredString("kind"));
  if (!ParseByteKind(kind, t.kind)) {
    return base::ConfigError(f.where("kind"),
                             "unknown kind '" + kind +
                                 "' (dense_weights, expert_weights, head_weights, embedding, "
                                 "norm_weights, kv_cache, state)");
  }
  DP_ASSIGN_OR_RETURN(const std::vector<StringAt> shape, f.StringList("shape", true));
  if (shape.empty() || shape.size() > 2) {
    return base::ConfigError(f.where("shape"), "shape must have 1 or 2 dimensions");
  }
  for (const StringAt& d : shape) t.shape.push_back(d.value);
  DP_ASSIGN_OR_RETURN(t.count, f.OptionalString("count", "1"));
  DP_ASSIGN_OR_RETURN(t.used, f.OptionalString("used"));
  DP_ASSIGN_OR_RETURN(t.when, f.OptionalString("when"));
  DP_ASSIGN_OR_RETURN(t.tied, f.OptionalString("tied"));
  DP_ASSIGN_OR_RETURN(t.window, f.OptionalString("window"));
  DP_ASSIGN_OR_RETURN(t.dtype, f.OptionalString("dtype"));
  DP_ASSIGN_OR_RETURN(t.dtype_key, f.OptionalString("dtype_key"));
  DP_ASSIGN_OR_RETURN(const std::optional<bool> quantize, f.OptionalBool("quantize"));
  t.quantize = quantize.value_or(true);
  if (!t.dtype.empty() && DtypeBytes(t.dtype) == 0) {
    return base::ConfigError(f.where("dtype"), "unknown dtype '" + t.dtype + "'");
  }
  return t;
}

base::StatusOr<Architecture> ParseArchitecture(const toml::table& table, std::string_view file) {
  TomlFields f(table, file, "[[architecture]]");
  DP_RETURN_IF_ERROR(f.CheckKeys({"model_types", "layer_prefix", "defaults", "model_type_defaults",
                                  "layers", "tensor", "check"}));
  Architecture a;
  a.where = f.where();
  DP_ASSIGN_OR_RETURN(const std::vector<StringAt> types, f.StringList("model_types", true));
  for (const StringAt& t : types) a.model_types.push_back(t.value);
  DP_ASSIGN_OR_RETURN(a.layer_prefix, f.OptionalString("layer_prefix"));
  DP_ASSIGN_OR_RETURN(a.defaults,
                      ReadExpressionTable(f.Get("defaults"), file, "[architecture.defaults]"));
  if (const toml::node* per_type = f.Get("model_type_defaults")) {
    const toml::table* t = per_type->as_table();
    if (t == nullptr) {
      return base::ConfigError(f.where("model_type_defaults"),
                               "model_type_defaults must be a table of tables");
    }
    for (const auto& [key, value] : *t) {
      DP_ASSIGN_OR_RETURN(a.type_defaults[std::string(key.str())],
                          ReadExpressionTable(&value, file, "model_type_defaults"));
    }
  }
  const toml::node* layers_node = f.Get("layers");
  if (layers_node == nullptr || !layers_node->is_table()) {
    return base::ConfigError(f.where("layers"), "[architecture.layers] is required (a table)");
  }
  {
    TomlFields l(*layers_node->as_table(), file, "[architecture.layers]");
    DP_RETURN_IF_ERROR(
        l.CheckKeys({"count", "uniform", "list", "pattern", "names", "when_absent"}));
    a.layers.where = l.where();
    DP_ASSIGN_OR_RETURN(a.layers.count, l.RequiredString("count"));
    DP_ASSIGN_OR_RETURN(a.layers.uniform, l.OptionalString("uniform"));
    DP_ASSIGN_OR_RETURN(a.layers.list, l.OptionalString("list"));
    DP_ASSIGN_OR_RETURN(a.layers.pattern, l.OptionalString("pattern"));
    DP_ASSIGN_OR_RETURN(a.layers.when_absent, l.OptionalString("when_absent"));
    const int ways = !a.layers.uniform.empty() + !a.layers.list.empty() + !a.layers.pattern.empty();
    if (ways != 1) {
      return base::ConfigError(l.where(),
                               "[architecture.layers] needs exactly one of uniform, "
                               "list and pattern");
    }
    DP_ASSIGN_OR_RETURN(const Defaults names,
                        ReadExpressionTable(l.Get("names"), file, "[architecture.layers] names"));
    for (const auto& [k, v] : names) a.layers.names[k] = v;
    if (a.layers.uniform.empty() && a.layers.names.empty()) {
      return base::ConfigError(l.where(), "a list or pattern needs `names` (entry → layer type)");
    }
  }
  DP_ASSIGN_OR_RETURN(const std::vector<const toml::table*> tensors, f.TableList("tensor"));
  for (size_t i = 0; i < tensors.size(); ++i) {
    DP_ASSIGN_OR_RETURN(TensorSpec t, ParseTensor(*tensors[i], file, static_cast<int64_t>(i)));
    a.tensors.push_back(std::move(t));
  }
  DP_ASSIGN_OR_RETURN(const std::vector<const toml::table*> checks, f.TableList("check"));
  for (const toml::table* c : checks) {
    TomlFields cf(*c, file, "[[architecture.check]]");
    DP_RETURN_IF_ERROR(cf.CheckKeys({"expr", "message"}));
    CheckSpec spec;
    spec.where = cf.where();
    DP_ASSIGN_OR_RETURN(spec.expr, cf.RequiredString("expr"));
    DP_ASSIGN_OR_RETURN(spec.message, cf.RequiredString("message"));
    a.checks.push_back(std::move(spec));
  }
  return a;
}

base::StatusOr<std::vector<Architecture>> ParseModelsToml(std::string_view text,
                                                          std::string_view file) {
  DP_ASSIGN_OR_RETURN(const toml::table doc, packs::ParseToml(text, file));
  TomlFields top(doc, file, "models file");
  DP_RETURN_IF_ERROR(top.CheckKeys({"architecture"}));
  DP_ASSIGN_OR_RETURN(const std::vector<const toml::table*> tables, top.TableList("architecture"));
  std::vector<Architecture> out;
  for (const toml::table* t : tables) {
    DP_ASSIGN_OR_RETURN(Architecture a, ParseArchitecture(*t, file));
    out.push_back(std::move(a));
  }
  return out;
}

// ---- expressions ----------------------------------------------------------------------------

double Ceil(double x) { return std::ceil(x); }
double Floor(double x) { return std::floor(x); }

// The config's numbers (and the defaults) as muparser variables.
class Evaluator {
 public:
  explicit Evaluator(std::string config_path) : config_path_(std::move(config_path)) {
    parser_.DefineFun("ceil", Ceil);
    parser_.DefineFun("floor", Floor);
  }

  bool Has(const std::string& name) const { return vars_.count(name) != 0; }
  void Set(const std::string& name, double value) {
    auto [it, inserted] = vars_.emplace(name, value);
    if (!inserted) {
      it->second = value;
      return;
    }
    try {
      parser_.DefineVar(name, &it->second);
    } catch (const mu::Parser::exception_type&) {
      vars_.erase(it);  // a config key muparser cannot name (odd characters): never usable
    }
  }

  // The variables `expr` names that are not defined; an error for a malformed expression.
  base::StatusOr<std::vector<std::string>> Missing(const std::string& expr,
                                                   const std::string& where) {
    std::vector<std::string> missing;
    try {
      parser_.SetExpr(expr);
      for (const auto& [name, ptr] : parser_.GetUsedVar()) {
        if (!Has(name)) missing.push_back(name);
      }
    } catch (const mu::Parser::exception_type& e) {
      return base::ConfigError(where, "bad expression '" + expr + "': " + e.GetMsg());
    }
    return missing;
  }

  // `expr` evaluated; `where` is the models.toml line, `what` names the tensor.
  base::StatusOr<double> Eval(const std::string& expr, const std::string& where,
                              const std::string& what) {
    DP_ASSIGN_OR_RETURN(const std::vector<std::string> missing, Missing(expr, where));
    if (!missing.empty()) {
      return base::ConfigError(config_path_, "has no `" + missing.front() + "`, which " + what +
                                                 " needs (" + where + ": " + expr + ")");
    }
    try {
      parser_.SetExpr(expr);
      return parser_.Eval();
    } catch (const mu::Parser::exception_type& e) {
      return base::ConfigError(where, "bad expression '" + expr + "': " + e.GetMsg());
    }
  }

  // A whole, non-negative count.
  base::StatusOr<int64_t> Count(const std::string& expr, const std::string& where,
                                const std::string& what) {
    DP_ASSIGN_OR_RETURN(const double v, Eval(expr, where, what));
    if (!std::isfinite(v) || v < 0 || v > 9007199254740992.0 || std::floor(v) != v) {
      return base::DataError(config_path_, what + ": " + expr + " = " + FormatDouble(v) +
                                               ", not a whole count (" + where + ")");
    }
    return static_cast<int64_t>(v);
  }

  base::StatusOr<bool> Truth(const std::string& expr, const std::string& where,
                             const std::string& what) {
    DP_ASSIGN_OR_RETURN(const double v, Eval(expr, where, what));
    return v != 0;
  }

  static std::string FormatDouble(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
  }

 private:
  std::string config_path_;
  std::map<std::string, double> vars_;  // node-stable: muparser keeps pointers to the values
  mu::Parser parser_;
};

// ---- the weight format ----------------------------------------------------------------------

enum class QuantMethod { kPlain, kMlx, kFp8 };

struct MlxScheme {
  int64_t bits = 4;
  int64_t group = 64;
  int64_t scale_bytes = 2;  // per group: the scale, and the bias (affine)
  int64_t bias_bytes = 2;
};

struct Format {
  QuantMethod method = QuantMethod::kPlain;
  int plain_bytes = 2;                                            // the unquantized weights' dtype
  std::string plain_name;                                         // "bf16"
  MlxScheme mlx;                                                  // kMlx
  std::map<std::string, std::optional<MlxScheme>> mlx_overrides;  // module → scheme (none: plain)
  int64_t block_rows = 0, block_cols = 0;                         // kFp8; 0 = one scale per tensor
  std::vector<std::string> not_converted;                         // kFp8
};

// modules_to_not_convert matching: the name itself, a name ending in "." + entry, or a module
// under the entry ("entry." + ...).
bool Excluded(const std::string& module, const std::vector<std::string>& entries) {
  for (const std::string& e : entries) {
    if (e.empty()) continue;
    if (module == e) return true;
    if (module.size() > e.size() && module.compare(module.size() - e.size(), e.size(), e) == 0 &&
        module[module.size() - e.size() - 1] == '.') {
      return true;
    }
    if (module.size() > e.size() && module.compare(0, e.size(), e) == 0 &&
        module[e.size()] == '.') {
      return true;
    }
  }
  return false;
}

// Bytes of one [rows, cols] weight in the format chosen for it.
struct Choice {
  enum { kPlain, kMlx, kFp8 } how = kPlain;
  int plain_bytes = 2;
  MlxScheme mlx;
};

bool TensorBytes(int64_t rows, int64_t cols, const Choice& c, const Format& f, int64_t& out) {
  switch (c.how) {
    case Choice::kPlain: {
      int64_t elements = 0;
      return MulOk(rows, cols, elements) && MulOk(elements, c.plain_bytes, out);
    }
    case Choice::kMlx: {
      // each group of `group` weights: bits·group/8 bytes, a scale and (affine) a bias
      const int64_t groups = cols / c.mlx.group;
      int64_t row = 0, packed = 0, extra = 0;
      if (!MulOk(cols, c.mlx.bits, packed) ||
          !MulOk(groups, c.mlx.scale_bytes + c.mlx.bias_bytes, extra)) {
        return false;
      }
      return AddOk(packed / 8, extra, row) && MulOk(rows, row, out);
    }
    case Choice::kFp8: {
      int64_t elements = 0;
      if (!MulOk(rows, cols, elements)) return false;
      int64_t scales = 1;
      if (f.block_rows > 0 && f.block_cols > 0) {
        const int64_t br = (rows + f.block_rows - 1) / f.block_rows;
        const int64_t bc = (cols + f.block_cols - 1) / f.block_cols;
        if (!MulOk(br, bc, scales)) return false;
      }
      int64_t scale_bytes = 0;
      return MulOk(scales, 4, scale_bytes) && AddOk(elements, scale_bytes, out);
    }
  }
  return false;
}

bool IsWeightKind(ByteKind k) {
  return k == ByteKind::kDenseWeights || k == ByteKind::kExpertWeights ||
         k == ByteKind::kHeadWeights || k == ByteKind::kEmbedding || k == ByteKind::kNormWeights;
}

// The format one tensor (full module name `module`) is stored in.
// `matched` collects the MLX per-module entries that named a tensor.
Choice ChooseFormat(const TensorSpec& t, const std::string& module, int64_t cols, const Format& f,
                    int fixed_bytes, std::set<std::string>& matched) {
  Choice c;
  c.plain_bytes = fixed_bytes > 0 ? fixed_bytes : f.plain_bytes;
  if (fixed_bytes > 0 || !t.quantize || t.shape.size() < 2 || t.module.empty() ||
      t.kind == ByteKind::kNormWeights) {
    return c;
  }
  if (f.method == QuantMethod::kMlx) {
    MlxScheme s = f.mlx;
    if (auto it = f.mlx_overrides.find(module); it != f.mlx_overrides.end()) {
      matched.insert(module);
      if (!it->second) return c;
      s = *it->second;
    }
    if (s.group <= 0 || cols % s.group != 0) return c;  // MLX leaves such a layer unquantized
    c.how = Choice::kMlx;
    c.mlx = s;
    return c;
  }
  if (f.method == QuantMethod::kFp8) {
    // HF's fp8 converts the linear layers (never the embedding; lm_head is kept)
    if (t.kind != ByteKind::kDenseWeights && t.kind != ByteKind::kExpertWeights) return c;
    if (Excluded(module, f.not_converted)) return c;
    c.how = Choice::kFp8;
  }
  return c;
}

base::StatusOr<MlxScheme> ParseMlxScheme(const nlohmann::json& q, const std::string& path,
                                         int plain_bytes, const std::string& what) {
  MlxScheme s;
  s.scale_bytes = plain_bytes;
  s.bias_bytes = plain_bytes;
  std::string mode = "affine";
  if (auto it = q.find("mode"); it != q.end() && it->is_string()) mode = it->get<std::string>();
  if (mode == "mxfp4") {
    s = {4, 32, 1, 0};
  } else if (mode == "mxfp8") {
    s = {8, 32, 1, 0};
  } else if (mode == "nvfp4") {
    s = {4, 16, 1, 0};
  } else if (mode != "affine") {
    return base::ConfigError(
        path, what + " mode '" + mode + "' is not known (affine, mxfp4, mxfp8, nvfp4)");
  }
  if (auto it = q.find("bits"); it != q.end()) {
    if (!it->is_number_integer() || it->get<int64_t>() < 1 || it->get<int64_t>() > 16) {
      return base::DataError(path, what + ".bits must be a whole number of bits (1-16)");
    }
    s.bits = it->get<int64_t>();
  }
  if (auto it = q.find("group_size"); it != q.end()) {
    if (!it->is_number_integer() || it->get<int64_t>() < 8 || it->get<int64_t>() > (1 << 20) ||
        it->get<int64_t>() % 8 != 0) {
      return base::DataError(path, what + ".group_size must be a multiple of 8");
    }
    s.group = it->get<int64_t>();
  }
  return s;
}

std::string MlxName(const MlxScheme& s, const nlohmann::json& q) {
  std::string mode = "affine";
  if (auto it = q.find("mode"); it != q.end() && it->is_string()) mode = it->get<std::string>();
  if (mode != "affine") return "mlx " + mode;
  return "mlx " + std::to_string(s.bits) + "-bit group " + std::to_string(s.group);
}

base::Status ReadFormat(const nlohmann::json& doc, const std::string& path,
                        const ModelOptions& options, Format& f, ModelBytes& out) {
  std::string dtype;
  if (!options.weight_dtype.empty()) {
    dtype = options.weight_dtype;
    if (DtypeBytes(dtype) == 0) {
      return base::UsageError("unknown weight dtype '" + dtype + "' (bf16, fp16, f32)");
    }
  } else {
    for (const char* key : {"torch_dtype", "dtype"}) {
      if (auto it = doc.find(key); it != doc.end() && it->is_string()) {
        dtype = it->get<std::string>();
        if (DtypeBytes(dtype) == 0) {
          return base::ConfigError(path, std::string(key) + " '" + dtype +
                                             "' is not a known dtype (bfloat16, float16, float32)");
        }
        break;
      }
    }
    if (dtype.empty()) {
      dtype = "bfloat16";
      out.notes.push_back("config.json has no torch_dtype: weights assumed bf16");
    }
  }
  f.plain_bytes = DtypeBytes(dtype);
  f.plain_name = DtypeShortName(dtype);
  out.weight_format = f.plain_name;

  const auto mlx = doc.find("quantization");
  const auto hf = doc.find("quantization_config");
  const bool hf_method = hf != doc.end() && hf->is_object() && hf->contains("quant_method");
  if (mlx != doc.end() && mlx->is_object() && !hf_method) {
    DP_ASSIGN_OR_RETURN(f.mlx, ParseMlxScheme(*mlx, path, f.plain_bytes, "quantization"));
    f.method = QuantMethod::kMlx;
    out.weight_format = MlxName(f.mlx, *mlx);
    for (const auto& [key, value] : mlx->items()) {
      if (value.is_boolean() && !value.get<bool>()) {
        f.mlx_overrides[key] = std::nullopt;
      } else if (value.is_object()) {
        DP_ASSIGN_OR_RETURN(MlxScheme s,
                            ParseMlxScheme(value, path, f.plain_bytes, "quantization." + key));
        f.mlx_overrides[key] = s;
      }
    }
    return base::OkStatus();
  }
  if (hf == doc.end() || hf->is_null()) return base::OkStatus();
  if (!hf->is_object()) return base::DataError(path, "quantization_config is not an object");
  std::string method;
  if (auto it = hf->find("quant_method"); it != hf->end() && it->is_string()) {
    method = it->get<std::string>();
  }
  if (method != "fp8") {
    return base::ConfigError(
        path,
        "quantization_config quant_method '" + method +
            "' is not described (known: fp8, and MLX's `quantization`)",
        "its bytes per weight are unknown to decodeprof; a number would be wrong");
  }
  f.method = QuantMethod::kFp8;
  std::string fmt = "e4m3";
  if (auto it = hf->find("fmt"); it != hf->end() && it->is_string()) fmt = it->get<std::string>();
  if (auto it = hf->find("weight_block_size"); it != hf->end() && !it->is_null()) {
    if (!it->is_array() || it->size() != 2 || !(*it)[0].is_number_integer() ||
        !(*it)[1].is_number_integer() || (*it)[0].get<int64_t>() <= 0 ||
        (*it)[1].get<int64_t>() <= 0) {
      return base::DataError(path, "quantization_config.weight_block_size must be [rows, cols]");
    }
    f.block_rows = (*it)[0].get<int64_t>();
    f.block_cols = (*it)[1].get<int64_t>();
  }
  for (const char* key : {"modules_to_not_convert", "ignored_layers"}) {
    if (auto it = hf->find(key); it != hf->end() && it->is_array()) {
      for (const auto& e : *it) {
        if (e.is_string()) f.not_converted.push_back(e.get<std::string>());
      }
    }
  }
  out.weight_format = "fp8 " + fmt +
                      (f.block_rows > 0 ? " block " + std::to_string(f.block_rows) + "x" +
                                              std::to_string(f.block_cols)
                                        : std::string(" per-tensor scale"));
  out.notes.push_back(
      "fp8: linear layers 1 byte per weight + one f32 scale per block; the "
      "embedding, lm_head, norms and " +
      std::to_string(f.not_converted.size()) + " modules_to_not_convert entries stay " +
      f.plain_name);
  return base::OkStatus();
}

// ---- the config -----------------------------------------------------------------------------

// Layer types, one per layer.
base::StatusOr<std::vector<std::string>> LayerTypes(const Architecture& a,
                                                    const nlohmann::json& doc,
                                                    const std::string& path, Evaluator& ev) {
  constexpr int64_t kMaxLayers = 100000;
  std::optional<int64_t> count;
  {
    DP_ASSIGN_OR_RETURN(const std::vector<std::string> missing,
                        ev.Missing(a.layers.count, a.layers.where));
    if (missing.empty()) {
      DP_ASSIGN_OR_RETURN(count, ev.Count(a.layers.count, a.layers.where, "the layer count"));
    }
  }
  std::vector<std::string> types;
  auto map_name = [&](const std::string& entry,
                      const std::string& where_in_config) -> base::StatusOr<std::string> {
    auto it = a.layers.names.find(entry);
    if (it == a.layers.names.end()) {
      std::string known;
      for (const auto& [k, v] : a.layers.names) known += (known.empty() ? "" : ", ") + k;
      return base::DataError(path, where_in_config + " '" + std::string(base::InputPrefix(entry)) +
                                       "' is not a layer type this architecture knows (" + known +
                                       ")");
    }
    return it->second;
  };
  if (!a.layers.uniform.empty()) {
    if (!count) {
      return base::ConfigError(path, "has no `" + a.layers.count + "`: the number of layers");
    }
    if (*count > kMaxLayers) return base::DataError(path, "more than 100000 layers");
    types.assign(static_cast<size_t>(*count), a.layers.uniform);
    return types;
  }
  const std::string& key = a.layers.list.empty() ? a.layers.pattern : a.layers.list;
  const auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) {
    if (a.layers.when_absent.empty() || !count) {
      return base::ConfigError(path, "has no `" + key + "`: the layer types");
    }
    if (*count > kMaxLayers) return base::DataError(path, "more than 100000 layers");
    types.assign(static_cast<size_t>(*count), a.layers.when_absent);
    return types;
  }
  const size_t entries = it->is_array()    ? it->size()
                         : it->is_string() ? it->get_ref<const std::string&>().size()
                                           : 0;
  if (entries > static_cast<size_t>(kMaxLayers)) {
    return base::DataError(path, "`" + key + "` gives more than 100000 layers");
  }
  if (!a.layers.list.empty()) {
    if (!it->is_array()) return base::DataError(path, "`" + key + "` is not a list");
    for (size_t i = 0; i < it->size(); ++i) {
      const auto& e = (*it)[i];
      if (!e.is_string()) {
        return base::DataError(path, key + "[" + std::to_string(i) + "] is not a string");
      }
      DP_ASSIGN_OR_RETURN(std::string t,
                          map_name(e.get<std::string>(), key + "[" + std::to_string(i) + "]"));
      types.push_back(std::move(t));
    }
  } else {
    if (!it->is_string()) return base::DataError(path, "`" + key + "` is not a string");
    const std::string pattern = it->get<std::string>();
    for (size_t i = 0; i < pattern.size(); ++i) {
      DP_ASSIGN_OR_RETURN(std::string t, map_name(std::string(1, pattern[i]),
                                                  key + " character " + std::to_string(i)));
      types.push_back(std::move(t));
    }
  }
  if (static_cast<int64_t>(types.size()) > kMaxLayers) {
    return base::DataError(path, "more than 100000 layers");
  }
  if (count && *count != static_cast<int64_t>(types.size())) {
    return base::DataError(path, "`" + key + "` gives " + std::to_string(types.size()) +
                                     " layers, " + a.layers.count + " is " +
                                     std::to_string(*count));
  }
  return types;
}

std::string Replace(std::string s, std::string_view from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

}  // namespace

base::StatusOr<ModelBytes> ReadHfConfig(const std::string& path, const ModelOptions& options) {
  DP_ASSIGN_OR_RETURN(const nlohmann::json doc, ReadConfigJson(path));
  return ModelBytesFromConfig(doc, path, options);
}

}  // namespace decodeprof::model::internal

namespace decodeprof::model {

base::StatusOr<nlohmann::json> ReadConfigJson(const std::string& path) {
  DP_ASSIGN_OR_RETURN(const std::string text,
                      base::ReadFile(path, base::kMaxConfigBytes, "a model config.json"));
  // Nesting is bounded (a Hugging Face config nests a few levels): deeper values are dropped
  // as they are parsed, and the file refused.
  constexpr int kMaxConfigNesting = 64;
  bool too_deep = false;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(
        text, [&](int depth, nlohmann::json::parse_event_t, const nlohmann::json&) {
          if (depth > kMaxConfigNesting) too_deep = true;
          return !too_deep;
        });
  } catch (const nlohmann::json::parse_error& e) {
    return base::DataError(path, "malformed JSON at byte " + std::to_string(e.byte));
  } catch (const nlohmann::json::exception& e) {  // a number beyond a double's range
    return base::DataError(path, std::string("malformed JSON: ") + e.what());
  }
  if (too_deep) {
    return base::DataError(path, "JSON nests deeper than " + std::to_string(kMaxConfigNesting) +
                                     " levels: not a model config.json");
  }
  return doc;
}

base::StatusOr<ModelBytes> ModelBytesFromConfig(const nlohmann::json& doc, const std::string& path,
                                                const ModelOptions& options) {
  using namespace internal;  // NOLINT: the readers' helpers
  std::string toml_text;
  std::string toml_path;
  if (options.models_file.empty()) {
    toml_text = std::string(BuiltinModelsToml());
    toml_path = std::string(BuiltinModelsTomlPath());
  } else {
    toml_path = options.models_file;
    DP_ASSIGN_OR_RETURN(toml_text,
                        base::ReadFile(toml_path, base::kMaxConfigBytes, "a models file"));
  }
  DP_ASSIGN_OR_RETURN(const std::vector<Architecture> archs, ParseModelsToml(toml_text, toml_path));
  if (!doc.is_object()) return base::DataError(path, "not a JSON object: not a model config.json");

  ModelBytes out;
  out.source = path;
  std::string model_type;
  if (auto it = doc.find("model_type"); it != doc.end() && it->is_string()) {
    model_type = it->get<std::string>();
  }
  const Architecture* arch = nullptr;
  std::string known;
  for (const Architecture& a : archs) {
    for (const std::string& t : a.model_types) {
      known += (known.empty() ? "" : ", ") + t;
      if (t == model_type && arch == nullptr) arch = &a;
    }
  }
  if (arch == nullptr) {
    return base::ConfigError(
        path,
        model_type.empty() ? "has no model_type (" + toml_path + " describes: " + known + ")"
                           : "model_type '" + std::string(base::InputPrefix(model_type)) +
                                 "' is not described in " + toml_path + " (known: " + known + ")",
        "add the architecture to " + toml_path + " (docs/packs.md \"Bytes per token\")");
  }
  out.architecture = model_type;

  Format format;
  DP_RETURN_IF_ERROR(ReadFormat(doc, path, options, format, out));

  // Variables: the config's numbers and booleans, list lengths, then the defaults.
  Evaluator ev(path);
  for (const auto& [key, value] : doc.items()) {
    if (value.is_boolean()) {
      ev.Set(key, value.get<bool>() ? 1 : 0);
    } else if (value.is_number()) {
      ev.Set(key, value.get<double>());
    } else if (value.is_array()) {
      ev.Set("len_" + key, static_cast<double>(value.size()));
    }
  }
  Defaults defaults = arch->defaults;
  if (auto it = arch->type_defaults.find(model_type); it != arch->type_defaults.end()) {
    for (const auto& [k, v] : it->second) {
      const auto& name = k;  // clang 14 cannot capture a structured binding
      defaults.erase(std::remove_if(defaults.begin(), defaults.end(),
                                    [&](const auto& d) { return d.first == name; }),
                     defaults.end());
      defaults.emplace_back(k, v);
    }
  }
  for (bool progress = true; progress;) {
    progress = false;
    for (const auto& [key, expr] : defaults) {
      if (ev.Has(key)) continue;
      DP_ASSIGN_OR_RETURN(const std::vector<std::string> missing, ev.Missing(expr, arch->where));
      if (!missing.empty()) continue;
      DP_ASSIGN_OR_RETURN(const double v, ev.Eval(expr, arch->where, "the default of " + key));
      ev.Set(key, v);
      progress = true;
    }
  }
  for (const CheckSpec& c : arch->checks) {
    DP_ASSIGN_OR_RETURN(const bool holds, ev.Truth(c.expr, c.where, "a check"));
    if (!holds) {
      return base::ConfigError(
          path, model_type + ": " + c.message + " (" + c.where + ": " + c.expr + ")");
    }
  }
  DP_ASSIGN_OR_RETURN(const std::vector<std::string> types, LayerTypes(*arch, doc, path, ev));

  // Dtypes of the KV cache and the state.
  std::string kv_dtype = options.kv_dtype.empty() ? format.plain_name : options.kv_dtype;
  const int kv_bytes = DtypeBytes(kv_dtype);
  if (kv_bytes == 0) {
    return base::UsageError("unknown KV cache dtype '" + kv_dtype + "' (bf16, fp16, fp8, f32)");
  }
  if (!options.state_dtype.empty() && DtypeBytes(options.state_dtype) == 0) {
    return base::UsageError("unknown state dtype '" + options.state_dtype + "' (bf16, fp16, f32)");
  }
  bool has_kv = false;
  std::vector<std::string> state_notes;
  std::set<std::string> matched;  // MLX per-module entries applied

  for (const TensorSpec& t : arch->tensors) {
    const std::string what = model_type + " tensor " + t.name;
    if (!t.when.empty()) {
      DP_ASSIGN_OR_RETURN(const bool present, ev.Truth(t.when, t.where, what));
      if (!present) continue;
    }
    // The layers holding it.
    const bool once = std::find(t.layers.begin(), t.layers.end(), "model") != t.layers.end();
    const bool all = std::find(t.layers.begin(), t.layers.end(), "all") != t.layers.end();
    std::vector<int64_t> layers;
    if (once) {
      layers.push_back(-1);
    } else {
      for (size_t i = 0; i < types.size(); ++i) {
        if (all || std::find(t.layers.begin(), t.layers.end(), types[i]) != t.layers.end()) {
          layers.push_back(static_cast<int64_t>(i));
        }
      }
    }
    if (layers.empty()) continue;
    std::vector<int64_t> dims;
    for (const std::string& d : t.shape) {
      DP_ASSIGN_OR_RETURN(const int64_t v, ev.Count(d, t.where, what));
      dims.push_back(v);
    }
    const int64_t rows = dims.size() == 2 ? dims[0] : 1;
    const int64_t cols = dims.back();
    DP_ASSIGN_OR_RETURN(const int64_t count, ev.Count(t.count, t.where, what));
    int64_t used = count;
    if (!t.used.empty()) {
      DP_ASSIGN_OR_RETURN(used, ev.Count(t.used, t.where, what));
      if (used > count) {
        return base::DataError(
            path, what + ": uses " + std::to_string(used) + " of " + std::to_string(count));
      }
    }
    bool tied = false;
    if (!t.tied.empty()) {
      DP_ASSIGN_OR_RETURN(tied, ev.Truth(t.tied, t.where, what));
    }
    const std::string label =
        once ? t.name
             : (all || t.layers.size() != 1 ? "layers." + t.name
                                            : "layers." + t.layers.front() + "." + t.name);
    const std::string overflow = what + ": byte count overflows";
    const auto layer_count = static_cast<int64_t>(layers.size());

    if (t.kind == ByteKind::kKvCache || t.kind == ByteKind::kState) {
      int elem_bytes = kv_bytes;
      std::string dtype_name = DtypeShortName(kv_dtype);
      if (t.kind == ByteKind::kState) {
        dtype_name = format.plain_name;
        if (!options.state_dtype.empty()) {
          dtype_name = DtypeShortName(options.state_dtype);
        } else if (auto it = t.dtype_key.empty() ? doc.end() : doc.find(t.dtype_key);
                   it != doc.end() && it->is_string()) {
          dtype_name = DtypeShortName(it->get<std::string>());
          if (dtype_name.empty()) {
            return base::ConfigError(
                path, t.dtype_key + " '" + it->get<std::string>() + "' is not a known dtype");
          }
        } else if (!t.dtype.empty()) {
          dtype_name = DtypeShortName(t.dtype);
        }
        elem_bytes = DtypeBytes(dtype_name);
        state_notes.push_back(t.name + " " + dtype_name);
      }
      int64_t per_layer = 0, all_layers = 0, total = 0;
      if (!MulOk(rows, cols, per_layer) || !MulOk(per_layer, count, per_layer) ||
          !MulOk(per_layer, elem_bytes, per_layer) || !MulOk(per_layer, layer_count, all_layers) ||
          !MulOk(all_layers, t.kind == ByteKind::kState ? 2 : 1, total)) {
        return base::DataError(path, overflow);
      }
      ByteTerm term{
          t.kind,
          (t.kind == ByteKind::kKvCache ? "kv:" : "state:") + (once ? t.name : label.substr(7)),
          total, 0};
      if (t.kind == ByteKind::kKvCache) {
        has_kv = true;
        if (!t.window.empty()) {
          DP_ASSIGN_OR_RETURN(term.window_tokens, ev.Count(t.window, t.where, what));
          if (term.window_tokens > 0) {
            out.notes.push_back(term.what + ": sliding window of " +
                                std::to_string(term.window_tokens) + " tokens");
          }
        }
      }
      out.terms.push_back(std::move(term));
      continue;
    }
    if (!IsWeightKind(t.kind)) continue;
    const int fixed_bytes = t.dtype.empty() ? 0 : DtypeBytes(t.dtype);
    if (fixed_bytes > 0 && fixed_bytes != format.plain_bytes) {
      out.notes.push_back(label + " read as " + DtypeShortName(t.dtype) + " (" + t.where + ")");
    }
    int64_t read = 0, stored = 0;
    for (const int64_t layer : layers) {
      const std::string module =
          once ? t.module : Replace(arch->layer_prefix, "{i}", std::to_string(layer)) + t.module;
      const Choice choice = ChooseFormat(t, module, cols, format, fixed_bytes, matched);
      int64_t one = 0, layer_stored = 0, layer_read = 0;
      if (!TensorBytes(rows, cols, choice, format, one) || !MulOk(one, count, layer_stored)) {
        return base::DataError(path, overflow);
      }
      if (t.kind == ByteKind::kEmbedding) {
        if (!TensorBytes(1, cols, choice, format, layer_read)) {
          return base::DataError(path, overflow);
        }
      } else if (!MulOk(one, used, layer_read)) {
        return base::DataError(path, overflow);
      }
      if (!AddOk(read, layer_read, read) || !AddOk(stored, layer_stored, stored)) {
        return base::DataError(path, overflow);
      }
    }
    if (!tied && !AddOk(out.stored_weight_bytes, stored, out.stored_weight_bytes)) {
      return base::DataError(path, overflow);
    }
    if (tied) out.notes.push_back(label + " is tied to the embedding: read whole, stored once");
    out.terms.push_back({t.kind, label, read, 0});
  }
  if (has_kv) {
    out.notes.push_back("KV cache " + DtypeShortName(kv_dtype) +
                        (options.kv_dtype.empty() ? " (the model dtype)" : " (option)"));
  }
  if (!state_notes.empty()) {
    std::string s = "recurrent state read and written each token:";
    for (const std::string& n : state_notes) s += " " + n;
    out.notes.push_back(s);
  }
  if (format.method == QuantMethod::kMlx && !format.mlx_overrides.empty()) {
    std::string unmatched;
    size_t unmatched_count = 0;
    for (const auto& [name, scheme] : format.mlx_overrides) {
      if (matched.count(name) != 0) continue;
      if (unmatched_count++ == 0) unmatched = name;
    }
    out.notes.push_back(std::to_string(matched.size()) +
                        " per-module quantization entries applied");
    if (unmatched_count > 0) {
      out.notes.push_back(std::to_string(unmatched_count) +
                          " per-module quantization entries name no tensor of " + toml_path +
                          " (e.g. " + std::string(base::InputPrefix(unmatched)) +
                          "): those modules are counted at the default bits");
    }
  }
  return out;
}

}  // namespace decodeprof::model
