// Internal to src/model: the two readers behind ReadModelBytes and the helpers they share.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "src/base/status.h"
#include "src/model/model_bytes.h"

namespace decodeprof::model::internal {

// From a Hugging Face config.json (the file itself), with packs/models.toml's descriptions.
base::StatusOr<ModelBytes> ReadHfConfig(const std::string& config_path,
                                        const ModelOptions& options);

// From a GGUF file's header.
base::StatusOr<ModelBytes> ReadGguf(const std::string& path, const ModelOptions& options);

// Bytes per element of a plain dtype name ("bfloat16", "bf16", "float16", "fp16", "f16",
// "float32", "fp32", "f32", "fp8", "float8_e4m3fn", "f8_e4m3", "float64"); 0 when unknown.
int DtypeBytes(std::string_view name);
// The short name of a known dtype ("bf16", "fp16", "f32", "fp8", "f64"), "" when unknown.
std::string DtypeShortName(std::string_view name);

// a·b and a+b that refuse to overflow int64 (false when they would).
bool MulOk(int64_t a, int64_t b, int64_t& out);
bool AddOk(int64_t a, int64_t b, int64_t& out);

}  // namespace decodeprof::model::internal
