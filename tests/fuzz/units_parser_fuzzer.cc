// The units-file parser (TOML → analysis::DataUnitTable, docs/packs.md "Writing units"):
// ParseUnits over the input, against each built-in pack (units name the pack's roles and
// classes). A table that parses is then asked for every unit's reach, as `summarize` does;
// the roles it names must be the pack's.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "src/analysis/units.h"
#include "src/packs/pack_loader.h"
#include "src/packs/parsers.h"
#include "tests/fuzz/fuzz_support.h"

namespace decodeprof {
namespace {

void CheckRoles(const std::vector<analysis::RoleId>& roles, const analysis::Pack& pack) {
  for (analysis::RoleId r : roles) {
    FUZZ_CHECK(r >= 0 && static_cast<size_t>(r) < pack.role_names().size());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::unique_ptr<analysis::Pack>>* const kPacks = [] {
    auto* out = new std::vector<std::unique_ptr<analysis::Pack>>;
    for (const std::string& name : packs::BuiltinPackNames()) {
      auto pack = packs::LoadPack(name);
      FUZZ_CHECK(pack.ok());
      out->push_back(std::move(pack).value());
    }
    return out;
  }();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const auto& pack : *kPacks) {
    auto parsed = packs::ParseUnits(text, "fuzz/units.toml", *pack);
    if (!parsed.ok()) continue;
    const analysis::DataUnitTable& table = **parsed;
    const analysis::ModelConfig configs[] = {{"", ""}, {"llama", "llama3"}, {"qwen3_moe", ""}};
    for (size_t i = 0; i < table.units().size(); ++i) {
      const analysis::Unit& unit = table.units()[i];
      CheckRoles(unit.fallback_roles, *pack);
      for (analysis::ClassId c : unit.classes) FUZZ_CHECK(c < pack->class_names().size());
      for (const analysis::ModelConfig& config : configs) {
        for (bool sampled : {false, true}) {
          const analysis::UnitReach reach = table.Reach(i, config, sampled);
          CheckRoles(reach.default_roles, *pack);
          CheckRoles(reach.optin_roles, *pack);
        }
      }
    }
    (void)table.Reach(table.units().size(), configs[0], false);  // out of range: reaches nothing
  }
  return 0;
}

}  // namespace decodeprof
