#include "src/packs/pack_loader.h"

#include <filesystem>
#include <utility>

#include "src/base/file_io.h"
#include "src/packs/builtin_packs.h"
#include "src/packs/parsers.h"

namespace decodeprof::packs {
namespace {

bool IsPath(std::string_view name_or_path) {
  return name_or_path.find('/') != std::string_view::npos || name_or_path.ends_with(".toml");
}

const BuiltinFile* FindBuiltin(std::span<const BuiltinFile> files, std::string_view name) {
  for (const BuiltinFile& file : files) {
    if (file.name == name) return &file;
  }
  return nullptr;
}

std::string Names(std::span<const BuiltinFile> files) {
  std::string out;
  for (const BuiltinFile& file : files) {
    if (!out.empty()) out += ", ";
    out += file.name;
  }
  return out.empty() ? "none" : out;
}

}  // namespace

base::StatusOr<std::unique_ptr<analysis::Pack>> LoadPack(std::string_view name_or_path) {
  if (IsPath(name_or_path)) {
    const std::string path(name_or_path);
    DP_ASSIGN_OR_RETURN(std::string text,
                        base::ReadFile(path, base::kMaxConfigBytes, "a pack file"));
    const std::string dir = std::filesystem::path(path).parent_path().string();
    DP_ASSIGN_OR_RETURN(std::unique_ptr<analysis::RulePack> pack, ParsePack(text, path, dir));
    return std::unique_ptr<analysis::Pack>(std::move(pack));
  }
  const BuiltinFile* builtin = FindBuiltin(BuiltinPackFiles(), name_or_path);
  if (builtin == nullptr) {
    return base::ConfigError(
        "",
        "unknown pack '" + std::string(name_or_path) +
            "' (built-in packs: " + Names(BuiltinPackFiles()) + ")",
        "give a built-in pack name or the path of a pack file (containing '/' or ending in "
        ".toml)");
  }
  DP_ASSIGN_OR_RETURN(std::unique_ptr<analysis::RulePack> pack,
                      ParsePack(builtin->text, builtin->path, ""));
  return std::unique_ptr<analysis::Pack>(std::move(pack));
}

base::StatusOr<std::unique_ptr<analysis::UnitTable>> LoadUnits(std::string_view name_or_path,
                                                               const analysis::Pack& pack) {
  if (name_or_path.empty()) {
    return base::ConfigError(
        "", "no units file: pack " + pack.name() + " names no default_units and none was given");
  }
  if (IsPath(name_or_path)) {
    const std::string path(name_or_path);
    DP_ASSIGN_OR_RETURN(std::string text,
                        base::ReadFile(path, base::kMaxConfigBytes, "a units file"));
    DP_ASSIGN_OR_RETURN(std::unique_ptr<analysis::DataUnitTable> units,
                        ParseUnits(text, path, pack));
    return std::unique_ptr<analysis::UnitTable>(std::move(units));
  }
  const BuiltinFile* builtin = FindBuiltin(BuiltinUnitsFiles(), name_or_path);
  if (builtin == nullptr) {
    return base::ConfigError(
        "",
        "unknown units file '" + std::string(name_or_path) +
            "' (built-in units files: " + Names(BuiltinUnitsFiles()) + ")",
        "give a built-in units name or the path of a units file (containing '/' or ending in "
        ".toml)");
  }
  DP_ASSIGN_OR_RETURN(std::unique_ptr<analysis::DataUnitTable> units,
                      ParseUnits(builtin->text, builtin->path, pack));
  return std::unique_ptr<analysis::UnitTable>(std::move(units));
}

std::string DefaultUnitsOf(const analysis::Pack& pack) {
  const auto* rule_pack = dynamic_cast<const analysis::RulePack*>(&pack);
  return rule_pack == nullptr ? std::string() : rule_pack->default_units();
}

std::vector<std::string> BuiltinPackNames() {
  std::vector<std::string> names;
  for (const BuiltinFile& file : BuiltinPackFiles()) names.emplace_back(file.name);
  return names;
}

std::vector<std::string> BuiltinUnitsNames() {
  std::vector<std::string> names;
  for (const BuiltinFile& file : BuiltinUnitsFiles()) names.emplace_back(file.name);
  return names;
}

}  // namespace decodeprof::packs
