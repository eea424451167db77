// packs/models.toml, embedded in the binary at build time (embed_models.cmake).
#pragma once

#include <string_view>

namespace decodeprof::model {

std::string_view BuiltinModelsToml();      // the file's text
std::string_view BuiltinModelsTomlPath();  // "packs/models.toml", for error locations

}  // namespace decodeprof::model
