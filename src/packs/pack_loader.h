// Loading rule packs and units files (TOML) into the analysis's rule objects. The language
// is documented in docs/packs.md. Errors name the file and line (kConfig, exit 2).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/analysis/pack.h"
#include "src/analysis/units.h"
#include "src/base/status.h"

namespace decodeprof::packs {

// `name_or_path` is a built-in pack name ("mlx-rocm"; the packs/ files are embedded in the
// binary) or a path to a .toml file (anything containing '/' or ending in ".toml").
// An unknown name → kConfig listing the built-in names.
base::StatusOr<std::unique_ptr<analysis::Pack>> LoadPack(std::string_view name_or_path);

// A units file by built-in name ("mlx-rocm-ports" = packs/units/mlx-rocm-ports.toml) or path.
// Role names in it are resolved against `pack` (an unknown role → kConfig with file:line).
// An empty name (a pack without default_units and no choice by the user) → kConfig.
base::StatusOr<std::unique_ptr<analysis::UnitTable>> LoadUnits(std::string_view name_or_path,
                                                               const analysis::Pack& pack);

// The units file a pack names as its default (`default_units` in the pack), or "" if none.
std::string DefaultUnitsOf(const analysis::Pack& pack);

// Names of the built-in packs / units files (file stems), sorted.
std::vector<std::string> BuiltinPackNames();
std::vector<std::string> BuiltinUnitsNames();

}  // namespace decodeprof::packs
