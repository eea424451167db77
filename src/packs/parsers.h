// Pack and units files (TOML text) → the analysis's rule objects. The language is in
// docs/packs.md. Every error is kConfig at "file:line"; `file` is only used in messages
// (and, for a pack, to resolve a relative default_units path against its directory).
#pragma once

#include <memory>
#include <string_view>

#include "src/analysis/pack.h"
#include "src/analysis/roles.h"
#include "src/analysis/unit_table.h"
#include "src/base/status.h"

namespace decodeprof::packs {

// `base_dir`: the directory a relative `default_units` path is resolved against ("" for a
// built-in pack, whose default_units must be a built-in units name).
base::StatusOr<std::unique_ptr<analysis::RulePack>> ParsePack(std::string_view text,
                                                              std::string_view file,
                                                              std::string_view base_dir);

base::StatusOr<std::unique_ptr<analysis::DataUnitTable>> ParseUnits(std::string_view text,
                                                                    std::string_view file,
                                                                    const analysis::Pack& pack);

// The rule kinds pack files may use, in documentation order.
inline constexpr std::string_view kRuleKinds[] = {
    "tail_after_widest", "span_around", "clusters", "follow_run", "pair",
    "name_contains",     "pattern",     "op_path"};

}  // namespace decodeprof::packs
