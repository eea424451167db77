// Units files → DataUnitTable (docs/packs.md, "Units files").
#include <algorithm>
#include <utility>

#include "src/packs/parsers.h"
#include "src/packs/toml_fields.h"

namespace decodeprof::packs {
namespace {

using analysis::ClassId;
using analysis::RoleId;
using base::ConfigError;
using base::StatusOr;

class UnitsParser {
 public:
  UnitsParser(std::string_view file, const analysis::Pack& pack) : file_(file), pack_(pack) {}

  StatusOr<std::unique_ptr<analysis::DataUnitTable>> Parse(std::string_view text);

 private:
  StatusOr<analysis::UnitSpec> ParseUnit(const TomlFields& f);
  StatusOr<analysis::ReachCase> ParseCase(const TomlFields& f);
  StatusOr<std::vector<RoleId>> Roles(const TomlFields& f, std::string_view key,
                                      bool required) const;
  StatusOr<std::vector<ClassId>> Classes(const TomlFields& f, std::string_view key) const;
  // `key = "all"` (a bare string, not a list): the reach case reaches the whole unit.
  static bool IsWhole(const TomlFields& f, std::string_view key);
  StatusOr<std::vector<std::string>> Values(const TomlFields& f, std::string_view key) const;

  std::string_view file_;
  const analysis::Pack& pack_;
};

StatusOr<std::unique_ptr<analysis::DataUnitTable>> UnitsParser::Parse(std::string_view text) {
  DP_ASSIGN_OR_RETURN(toml::table document, ParseToml(text, file_));
  const TomlFields top(document, file_, "units file");
  DP_RETURN_IF_ERROR(top.CheckKeys({"units", "unit"}));
  if (const toml::node* header = top.Get("units")) {
    if (!header->is_table()) {
      return ConfigError(top.where("units"), "units file: 'units' must be a table");
    }
    const TomlFields units(*header->as_table(), file_, "[units]");
    DP_RETURN_IF_ERROR(units.CheckKeys({"name", "description"}));
    // Documentation for readers of the file: only their types are checked.
    DP_RETURN_IF_ERROR(units.OptionalString("name").status());
    DP_RETURN_IF_ERROR(units.OptionalString("description").status());
  }
  DP_ASSIGN_OR_RETURN(std::vector<const toml::table*> tables, top.TableList("unit"));
  std::vector<analysis::UnitSpec> specs;
  for (size_t i = 0; i < tables.size(); ++i) {
    const TomlFields f(*tables[i], file_, "[[unit]] #" + std::to_string(i + 1));
    DP_ASSIGN_OR_RETURN(analysis::UnitSpec spec, ParseUnit(f));
    for (const analysis::UnitSpec& seen : specs) {
      if (seen.unit.id == spec.unit.id) {
        return ConfigError(f.where("id"), "duplicate unit \"" + spec.unit.id + "\"");
      }
    }
    specs.push_back(std::move(spec));
  }
  return std::make_unique<analysis::DataUnitTable>(std::move(specs));
}

StatusOr<analysis::UnitSpec> UnitsParser::ParseUnit(const TomlFields& f) {
  DP_RETURN_IF_ERROR(
      f.CheckKeys({"id", "port", "roles", "classes", "requires", "host_gap", "unless", "reach"}));
  analysis::UnitSpec spec;
  const toml::node* id = f.Get("id");
  if (id != nullptr && id->is_integer()) {
    spec.unit.id = std::to_string(id->as_integer()->get());
  } else {
    DP_ASSIGN_OR_RETURN(spec.unit.id, f.RequiredString("id"));
  }
  if (spec.unit.id.empty()) return ConfigError(f.where("id"), f.what() + ": empty id");
  DP_ASSIGN_OR_RETURN(spec.unit.port, f.RequiredString("port"));
  // `roles` may be left out by a unit that names classes or owns host time.
  DP_ASSIGN_OR_RETURN(spec.unit.fallback_roles,
                      Roles(f, "roles", !f.Has("classes") && !f.Has("host_gap")));
  DP_ASSIGN_OR_RETURN(spec.unit.classes, Classes(f, "classes"));
  DP_ASSIGN_OR_RETURN(spec.unit.requires_classes, Classes(f, "requires"));
  if (!spec.unit.requires_classes.empty() && spec.unit.classes.empty()) {
    return ConfigError(f.where("requires"),
                       f.what() + ": 'requires' needs 'classes' (it gates the unit's classes)");
  }
  DP_ASSIGN_OR_RETURN(const std::string host_gap, f.OptionalString("host_gap", "roles"));
  if (host_gap == "all") {
    spec.unit.host_gap = analysis::HostGapOwnership::kAll;
  } else if (host_gap != "roles") {
    return ConfigError(f.where("host_gap"), f.what() + ": host_gap \"" + host_gap +
                                                "\" is neither \"roles\" nor \"all\"");
  }
  DP_ASSIGN_OR_RETURN(const std::string unless, f.OptionalString("unless", ""));
  if (unless == "graph_replay") {
    spec.unit.unless_graph_replay = true;
  } else if (!unless.empty()) {
    return ConfigError(f.where("unless"),
                       f.what() + ": unless \"" + unless + "\" is not \"graph_replay\"");
  }
  DP_ASSIGN_OR_RETURN(std::vector<const toml::table*> cases, f.TableList("reach"));
  for (size_t i = 0; i < cases.size(); ++i) {
    const TomlFields cf(*cases[i], file_,
                        "unit " + spec.unit.id + " [[unit.reach]] #" + std::to_string(i + 1));
    DP_ASSIGN_OR_RETURN(analysis::ReachCase reach_case, ParseCase(cf));
    spec.cases.push_back(std::move(reach_case));
  }
  return spec;
}

StatusOr<analysis::ReachCase> UnitsParser::ParseCase(const TomlFields& f) {
  DP_RETURN_IF_ERROR(
      f.CheckKeys({"model_type", "rope_type", "sampled", "default", "optin", "note"}));
  analysis::ReachCase reach_case;
  DP_ASSIGN_OR_RETURN(reach_case.model_types, Values(f, "model_type"));
  DP_ASSIGN_OR_RETURN(reach_case.rope_types, Values(f, "rope_type"));
  DP_ASSIGN_OR_RETURN(reach_case.sampled, f.OptionalBool("sampled"));
  reach_case.default_whole = IsWhole(f, "default");
  reach_case.optin_whole = IsWhole(f, "optin");
  if (!reach_case.default_whole) {
    DP_ASSIGN_OR_RETURN(reach_case.default_roles, Roles(f, "default", false));
  }
  if (!reach_case.optin_whole) {
    DP_ASSIGN_OR_RETURN(reach_case.optin_roles, Roles(f, "optin", false));
  }
  DP_ASSIGN_OR_RETURN(reach_case.note, f.OptionalString("note"));
  return reach_case;
}

StatusOr<std::vector<RoleId>> UnitsParser::Roles(const TomlFields& f, std::string_view key,
                                                 bool required) const {
  DP_ASSIGN_OR_RETURN(std::vector<StringAt> names, f.StringList(key, required));
  std::vector<RoleId> out;
  for (const StringAt& name : names) {
    const std::optional<RoleId> role = pack_.FindRole(name.value);
    if (!role) {
      std::string known;
      for (const std::string& r : pack_.role_names()) known += (known.empty() ? "" : ", ") + r;
      return ConfigError(name.where, f.what() + ": unknown role \"" + name.value +
                                         "\" (roles of pack " + pack_.name() + ": " + known + ")");
    }
    out.push_back(*role);
  }
  return out;
}

StatusOr<std::vector<ClassId>> UnitsParser::Classes(const TomlFields& f,
                                                    std::string_view key) const {
  DP_ASSIGN_OR_RETURN(std::vector<StringAt> names, f.StringList(key, false));
  const std::vector<std::string>& known = pack_.class_names();
  std::vector<ClassId> out;
  for (const StringAt& name : names) {
    const auto it = std::find(known.begin(), known.end(), name.value);
    if (it == known.end()) {
      std::string list;
      for (const std::string& c : known) list += (list.empty() ? "" : ", ") + c;
      return ConfigError(name.where, f.what() + ": unknown class \"" + name.value +
                                         "\" (classes of pack " + pack_.name() + ": " + list + ")");
    }
    out.push_back(static_cast<ClassId>(it - known.begin()));
  }
  return out;
}

bool UnitsParser::IsWhole(const TomlFields& f, std::string_view key) {
  const toml::node* node = f.Get(key);
  return node != nullptr && node->is_string() && node->as_string()->get() == "all";
}

StatusOr<std::vector<std::string>> UnitsParser::Values(const TomlFields& f,
                                                       std::string_view key) const {
  DP_ASSIGN_OR_RETURN(std::vector<StringAt> values, f.StringList(key, false));
  if (f.Has(key) && values.empty()) {
    return ConfigError(f.where(key), f.what() + ": '" + std::string(key) +
                                         "' is empty, so the case could never match");
  }
  std::vector<std::string> out;
  for (StringAt& value : values) out.push_back(std::move(value.value));
  return out;
}

}  // namespace

StatusOr<std::unique_ptr<analysis::DataUnitTable>> ParseUnits(std::string_view text,
                                                              std::string_view file,
                                                              const analysis::Pack& pack) {
  return UnitsParser(file, pack).Parse(text);
}

}  // namespace decodeprof::packs
