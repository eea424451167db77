// Pack files → RulePack (docs/packs.md, "Pack files").
#include <algorithm>
#include <filesystem>
#include <utility>

#include "src/analysis/role_rules.h"
#include "src/analysis/speed_of_light.h"
#include "src/packs/parsers.h"
#include "src/packs/toml_fields.h"

namespace decodeprof::packs {
namespace {

using analysis::ClassId;
using analysis::Condition;
using analysis::RoleId;
using base::ConfigError;
using base::StatusOr;

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

StatusOr<StringAt> RequiredStringAt(const TomlFields& fields, std::string_view key) {
  DP_ASSIGN_OR_RETURN(std::string value, fields.RequiredString(key));
  return StringAt{std::move(value), fields.where(key)};
}

class PackParser {
 public:
  explicit PackParser(std::string_view file) : file_(file) {}

  StatusOr<std::unique_ptr<analysis::RulePack>> Parse(std::string_view text,
                                                      std::string_view base_dir);

 private:
  StatusOr<analysis::KernelClassifier> ParseClasses(const TomlFields& top);
  base::Status ParseRoles(const TomlFields& pack);
  StatusOr<std::unique_ptr<analysis::RoleRule>> ParseRule(const toml::table& table, size_t number);
  StatusOr<std::unique_ptr<analysis::RoleRule>> TailAfterWidest(const TomlFields& f);
  StatusOr<std::unique_ptr<analysis::RoleRule>> SpanAround(const TomlFields& f);
  StatusOr<std::unique_ptr<analysis::RoleRule>> Clusters(const TomlFields& f);
  StatusOr<std::unique_ptr<analysis::RoleRule>> FollowRun(const TomlFields& f);
  StatusOr<std::unique_ptr<analysis::RoleRule>> Pair(const TomlFields& f);
  StatusOr<std::unique_ptr<analysis::RoleRule>> NameContains(const TomlFields& f);
  StatusOr<std::unique_ptr<analysis::RoleRule>> Pattern(const TomlFields& f);
  StatusOr<analysis::PatternStep> ParsePatternStep(const TomlFields& f) const;
  StatusOr<std::unique_ptr<analysis::RoleRule>> OpPath(const TomlFields& f);

  StatusOr<ClassId> ResolveClass(const StringAt& name) const;
  StatusOr<ClassId> RequiredClass(const TomlFields& f, std::string_view key) const;
  StatusOr<std::vector<ClassId>> ClassList(const TomlFields& f, std::string_view key,
                                           bool required) const;
  StatusOr<RoleId> ResolveRole(const StringAt& name) const;
  StatusOr<RoleId> RequiredRole(const TomlFields& f, std::string_view key) const;
  // An optional role key that must come together with `partner` (its condition).
  StatusOr<RoleId> RoleWithPartner(const TomlFields& f, std::string_view key,
                                   std::string_view partner) const;
  StatusOr<Condition> ParseCondition(const TomlFields& f, std::string_view key,
                                     bool required) const;

  std::string_view file_;
  const analysis::KernelClassifier* classifier_ = nullptr;
  std::vector<std::string> roles_;
};

StatusOr<std::unique_ptr<analysis::RulePack>> PackParser::Parse(std::string_view text,
                                                                std::string_view base_dir) {
  DP_ASSIGN_OR_RETURN(toml::table document, ParseToml(text, file_));
  const TomlFields top(document, file_, "pack file");
  DP_RETURN_IF_ERROR(top.CheckKeys({"pack", "class", "role_rule"}));
  const toml::node* pack_node = top.Get("pack");
  if (pack_node == nullptr || !pack_node->is_table()) {
    return ConfigError(top.where("pack"), "pack file: needs a [pack] table with the pack's name");
  }
  const TomlFields pack(*pack_node->as_table(), file_, "[pack]");
  DP_RETURN_IF_ERROR(pack.CheckKeys({"name", "description", "default_units", "roles"}));
  analysis::PackInfo info;
  DP_ASSIGN_OR_RETURN(info.name, pack.RequiredString("name"));
  if (info.name.empty()) return ConfigError(pack.where("name"), "[pack]: empty name");
  DP_ASSIGN_OR_RETURN(info.description, pack.OptionalString("description"));
  DP_ASSIGN_OR_RETURN(info.default_units, pack.OptionalString("default_units"));
  const bool units_is_path =
      info.default_units.find('/') != std::string::npos || info.default_units.ends_with(".toml");
  if (units_is_path && !base_dir.empty() && !info.default_units.starts_with('/')) {
    info.default_units = (std::filesystem::path(base_dir) / info.default_units).string();
  }
  DP_RETURN_IF_ERROR(ParseRoles(pack));

  DP_ASSIGN_OR_RETURN(analysis::KernelClassifier classifier, ParseClasses(top));
  classifier_ = &classifier;

  std::vector<std::unique_ptr<analysis::RoleRule>> rules;
  DP_ASSIGN_OR_RETURN(std::vector<const toml::table*> rule_tables, top.TableList("role_rule"));
  for (size_t i = 0; i < rule_tables.size(); ++i) {
    DP_ASSIGN_OR_RETURN(std::unique_ptr<analysis::RoleRule> rule,
                        ParseRule(*rule_tables[i], i + 1));
    rules.push_back(std::move(rule));
  }
  classifier_ = nullptr;
  return std::make_unique<analysis::RulePack>(std::move(info), std::move(classifier),
                                              std::move(roles_), std::move(rules));
}

base::Status PackParser::ParseRoles(const TomlFields& pack) {
  DP_ASSIGN_OR_RETURN(std::vector<StringAt> roles, pack.StringList("roles", false));
  if (roles.size() >= static_cast<size_t>(INT16_MAX)) {
    return ConfigError(pack.where("roles"), "[pack]: too many roles");
  }
  for (const StringAt& role : roles) {
    if (role.value.empty()) return ConfigError(role.where, "[pack]: empty role name");
    for (const std::string& seen : roles_) {
      if (seen == role.value) {
        return ConfigError(role.where, "[pack]: duplicate role \"" + role.value + "\"");
      }
    }
    roles_.push_back(role.value);
  }
  return base::OkStatus();
}

StatusOr<analysis::KernelClassifier> PackParser::ParseClasses(const TomlFields& top) {
  DP_ASSIGN_OR_RETURN(std::vector<const toml::table*> tables, top.TableList("class"));
  std::vector<analysis::ClassSpec> specs;
  for (size_t i = 0; i < tables.size(); ++i) {
    TomlFields f(*tables[i], file_, "[[class]] #" + std::to_string(i + 1));
    DP_RETURN_IF_ERROR(f.CheckKeys({"name", "patterns", "case_sensitive", "moves"}));
    analysis::ClassSpec spec;
    DP_ASSIGN_OR_RETURN(spec.name, f.RequiredString("name"));
    spec.where = f.where();
    DP_ASSIGN_OR_RETURN(std::vector<StringAt> patterns, f.StringList("patterns", true));
    for (StringAt& pattern : patterns) {
      if (pattern.value.empty()) {
        return ConfigError(pattern.where, "class \"" + spec.name + "\": empty pattern");
      }
      spec.patterns.push_back({std::move(pattern.value), std::move(pattern.where)});
    }
    DP_ASSIGN_OR_RETURN(std::optional<bool> case_sensitive, f.OptionalBool("case_sensitive"));
    spec.case_sensitive = case_sensitive.value_or(false);
    DP_ASSIGN_OR_RETURN(std::vector<StringAt> moves, f.StringList("moves", false));
    for (StringAt& kind : moves) {
      if (!analysis::IsMovableBytes(kind.value)) {
        return ConfigError(kind.where,
                           "class \"" + spec.name + "\": unknown byte kind '" + kind.value +
                               "' in 'moves' (known: " + analysis::MovableBytesList() + ")");
      }
      spec.moves.push_back(std::move(kind.value));
    }
    specs.push_back(std::move(spec));
  }
  return analysis::KernelClassifier::Build(std::move(specs));
}

StatusOr<std::unique_ptr<analysis::RoleRule>> PackParser::ParseRule(const toml::table& table,
                                                                    size_t number) {
  const TomlFields probe(table, file_, "[[role_rule]] #" + std::to_string(number));
  DP_ASSIGN_OR_RETURN(std::string kind, probe.RequiredString("kind"));
  const TomlFields f(table, file_, "[[role_rule]] #" + std::to_string(number) + " (" + kind + ")");
  if (kind == "tail_after_widest") return TailAfterWidest(f);
  if (kind == "span_around") return SpanAround(f);
  if (kind == "clusters") return Clusters(f);
  if (kind == "follow_run") return FollowRun(f);
  if (kind == "pair") return Pair(f);
  if (kind == "name_contains") return NameContains(f);
  if (kind == "pattern") return Pattern(f);
  if (kind == "op_path") return OpPath(f);
  std::string kinds;
  for (std::string_view k : kRuleKinds) {
    if (!kinds.empty()) kinds += ", ";
    kinds += k;
  }
  return ConfigError(f.where("kind"), probe.what() + ": unknown rule kind '" + kind +
                                          "' (known kinds: " + kinds + ")");
}

StatusOr<std::unique_ptr<analysis::RoleRule>> PackParser::TailAfterWidest(const TomlFields& f) {
  DP_RETURN_IF_ERROR(f.CheckKeys({"kind", "role", "head_class", "stop", "overwrite"}));
  analysis::TailAfterWidestParams p;
  DP_ASSIGN_OR_RETURN(p.role, RequiredRole(f, "role"));
  DP_ASSIGN_OR_RETURN(p.head_class, RequiredClass(f, "head_class"));
  DP_ASSIGN_OR_RETURN(p.stop, ParseCondition(f, "stop", true));
  DP_ASSIGN_OR_RETURN(p.overwrite, f.RequiredBool("overwrite"));
  p.role_name = roles_[static_cast<size_t>(p.role)];
  p.head_class_name = classifier_->class_names()[p.head_class];
  return std::unique_ptr<analysis::RoleRule>(new analysis::TailAfterWidestRule(std::move(p)));
}

StatusOr<std::unique_ptr<analysis::RoleRule>> PackParser::SpanAround(const TomlFields& f) {
  DP_RETURN_IF_ERROR(
      f.CheckKeys({"kind", "anchor_class", "boundary_classes", "label", "overwrite"}));
  analysis::SpanAroundParams p;
  DP_ASSIGN_OR_RETURN(p.anchor_class, RequiredClass(f, "anchor_class"));
  DP_ASSIGN_OR_RETURN(p.boundary_classes, ClassList(f, "boundary_classes", true));
  DP_ASSIGN_OR_RETURN(p.overwrite, f.RequiredBool("overwrite"));
  DP_ASSIGN_OR_RETURN(std::vector<const toml::table*> labels, f.TableList("label"));
  if (labels.empty()) {
    return ConfigError(f.where(), f.what() + ": needs at least one [[role_rule.label]]");
  }
  for (size_t i = 0; i < labels.size(); ++i) {
    const TomlFields lf(*labels[i], file_, f.what() + " label #" + std::to_string(i + 1));
    DP_RETURN_IF_ERROR(lf.CheckKeys({"role", "from_last_class", "when"}));
    analysis::SpanLabel label;
    DP_ASSIGN_OR_RETURN(label.role, RequiredRole(lf, "role"));
    if (lf.Has("from_last_class") && lf.Has("when")) {
      return ConfigError(lf.where("when"),
                         lf.what() + ": give either 'from_last_class' or 'when', not both");
    }
    if (lf.Has("from_last_class")) {
      DP_ASSIGN_OR_RETURN(label.from_last_class, RequiredClass(lf, "from_last_class"));
    }
    DP_ASSIGN_OR_RETURN(label.when, ParseCondition(lf, "when", false));
    p.labels.push_back(std::move(label));
  }
  return std::unique_ptr<analysis::RoleRule>(new analysis::SpanAroundRule(std::move(p)));
}

StatusOr<std::unique_ptr<analysis::RoleRule>> PackParser::Clusters(const TomlFields& f) {
  DP_RETURN_IF_ERROR(
      f.CheckKeys({"kind", "member_class", "max_gap", "member_role", "overwrite", "between_role",
                   "between", "after_role", "after", "after_stop", "follow_up_role", "follow_up"}));
  analysis::ClustersParams p;
  DP_ASSIGN_OR_RETURN(p.member_class, RequiredClass(f, "member_class"));
  DP_ASSIGN_OR_RETURN(p.max_gap, f.RequiredInt("max_gap"));
  if (p.max_gap < 0) {
    return ConfigError(f.where("max_gap"), f.what() + ": 'max_gap' must not be negative");
  }
  DP_ASSIGN_OR_RETURN(p.member_role, RequiredRole(f, "member_role"));
  DP_ASSIGN_OR_RETURN(p.overwrite, f.RequiredBool("overwrite"));
  DP_ASSIGN_OR_RETURN(p.between_role, RoleWithPartner(f, "between_role", "between"));
  DP_ASSIGN_OR_RETURN(p.between, ParseCondition(f, "between", false));
  DP_ASSIGN_OR_RETURN(p.after_role, RoleWithPartner(f, "after_role", "after"));
  DP_ASSIGN_OR_RETURN(p.after, ParseCondition(f, "after", false));
  DP_ASSIGN_OR_RETURN(p.after_stop, ParseCondition(f, "after_stop", false));
  if (f.Has("after_stop") && !f.Has("after")) {
    return ConfigError(f.where("after_stop"), f.what() + ": 'after_stop' needs 'after'");
  }
  DP_ASSIGN_OR_RETURN(p.follow_up_role, RoleWithPartner(f, "follow_up_role", "follow_up"));
  DP_ASSIGN_OR_RETURN(p.follow_up, ParseCondition(f, "follow_up", false));
  return std::unique_ptr<analysis::RoleRule>(new analysis::ClustersRule(std::move(p)));
}

StatusOr<std::unique_ptr<analysis::RoleRule>> PackParser::FollowRun(const TomlFields& f) {
  DP_RETURN_IF_ERROR(f.CheckKeys({"kind", "anchor_class", "role", "follow", "overwrite"}));
  analysis::FollowRunParams p;
  DP_ASSIGN_OR_RETURN(p.anchor_class, RequiredClass(f, "anchor_class"));
  DP_ASSIGN_OR_RETURN(p.role, RequiredRole(f, "role"));
  DP_ASSIGN_OR_RETURN(p.follow, ParseCondition(f, "follow", true));
  DP_ASSIGN_OR_RETURN(p.overwrite, f.RequiredBool("overwrite"));
  return std::unique_ptr<analysis::RoleRule>(new analysis::FollowRunRule(std::move(p)));
}

StatusOr<std::unique_ptr<analysis::RoleRule>> PackParser::Pair(const TomlFields& f) {
  DP_RETURN_IF_ERROR(f.CheckKeys(
      {"kind", "first", "second", "role", "context_classes", "context_role", "overwrite"}));
  analysis::PairParams p;
  DP_ASSIGN_OR_RETURN(p.first, ParseCondition(f, "first", true));
  DP_ASSIGN_OR_RETURN(p.second, ParseCondition(f, "second", true));
  DP_ASSIGN_OR_RETURN(p.role, RequiredRole(f, "role"));
  DP_ASSIGN_OR_RETURN(p.context_role, RoleWithPartner(f, "context_role", "context_classes"));
  DP_ASSIGN_OR_RETURN(p.context_classes, ClassList(f, "context_classes", false));
  if (f.Has("context_classes") && p.context_classes.empty()) {
    return ConfigError(f.where("context_classes"),
                       f.what() + ": 'context_classes' must name at least one class");
  }
  DP_ASSIGN_OR_RETURN(p.overwrite, f.RequiredBool("overwrite"));
  return std::unique_ptr<analysis::RoleRule>(new analysis::PairRule(std::move(p)));
}

StatusOr<std::unique_ptr<analysis::RoleRule>> PackParser::NameContains(const TomlFields& f) {
  DP_RETURN_IF_ERROR(f.CheckKeys({"kind", "role", "names", "lowercase", "overwrite"}));
  analysis::NameContainsParams p;
  DP_ASSIGN_OR_RETURN(p.role, RequiredRole(f, "role"));
  DP_ASSIGN_OR_RETURN(std::vector<StringAt> names, f.StringList("names", true));
  for (StringAt& name : names) {
    if (name.value.empty()) return ConfigError(name.where, f.what() + ": empty name substring");
    p.names.push_back(std::move(name.value));
  }
  if (p.names.empty()) {
    return ConfigError(f.where("names"), f.what() + ": 'names' must not be empty");
  }
  DP_ASSIGN_OR_RETURN(std::optional<bool> lowercase, f.OptionalBool("lowercase"));
  p.lowercase = lowercase.value_or(false);
  DP_ASSIGN_OR_RETURN(p.overwrite, f.RequiredBool("overwrite"));
  return std::unique_ptr<analysis::RoleRule>(new analysis::NameContainsRule(std::move(p)));
}

StatusOr<std::unique_ptr<analysis::RoleRule>> PackParser::Pattern(const TomlFields& f) {
  DP_RETURN_IF_ERROR(f.CheckKeys({"kind", "step", "overwrite"}));
  analysis::PatternParams p;
  DP_ASSIGN_OR_RETURN(p.overwrite, f.RequiredBool("overwrite"));
  DP_ASSIGN_OR_RETURN(std::vector<const toml::table*> steps, f.TableList("step"));
  if (steps.empty()) return ConfigError(f.where(), f.what() + ": needs at least one 'step'");
  if (steps.size() > analysis::kMaxPatternSteps) {
    return ConfigError(f.where("step"), f.what() + ": more than " +
                                            std::to_string(analysis::kMaxPatternSteps) + " steps");
  }
  bool labels = false;
  bool takes = false;
  for (size_t i = 0; i < steps.size(); ++i) {
    const TomlFields sf(*steps[i], file_, f.what() + " step #" + std::to_string(i + 1));
    DP_ASSIGN_OR_RETURN(analysis::PatternStep step, ParsePatternStep(sf));
    labels = labels || step.role != analysis::kNoRole;
    takes = takes || step.min >= 1;
    p.steps.push_back(std::move(step));
  }
  if (!labels) return ConfigError(f.where(), f.what() + ": no step has a 'role'");
  if (!takes) {
    return ConfigError(f.where(), f.what() + ": every step has min = 0, so it could match nothing");
  }
  return std::unique_ptr<analysis::RoleRule>(new analysis::PatternRule(std::move(p)));
}

StatusOr<analysis::PatternStep> PackParser::ParsePatternStep(const TomlFields& f) const {
  DP_RETURN_IF_ERROR(f.CheckKeys({"match", "role", "min", "max"}));
  analysis::PatternStep step;
  DP_ASSIGN_OR_RETURN(step.match, ParseCondition(f, "match", true));
  if (f.Has("role")) {
    DP_ASSIGN_OR_RETURN(step.role, RequiredRole(f, "role"));
  }
  if (f.Has("min")) {
    DP_ASSIGN_OR_RETURN(step.min, f.RequiredInt("min"));
  }
  step.max = std::max<int64_t>(step.min, 1);
  if (f.Has("max")) {
    DP_ASSIGN_OR_RETURN(step.max, f.RequiredInt("max"));
  }
  if (step.min < 0) return ConfigError(f.where("min"), f.what() + ": 'min' must not be negative");
  if (step.max < 1 || step.max > analysis::kMaxPatternRun) {
    return ConfigError(f.where("max"), f.what() + ": 'max' must be 1 to " +
                                           std::to_string(analysis::kMaxPatternRun));
  }
  if (step.max < step.min) {
    return ConfigError(f.where("max"), f.what() + ": 'max' (" + std::to_string(step.max) +
                                           ") is less than 'min' (" + std::to_string(step.min) +
                                           ")");
  }
  return step;
}

StatusOr<std::unique_ptr<analysis::RoleRule>> PackParser::OpPath(const TomlFields& f) {
  DP_RETURN_IF_ERROR(f.CheckKeys({"kind", "role", "patterns", "overwrite"}));
  analysis::OpPathParams p;
  DP_ASSIGN_OR_RETURN(p.role, RequiredRole(f, "role"));
  p.role_name = roles_[static_cast<size_t>(p.role)];
  DP_ASSIGN_OR_RETURN(std::vector<StringAt> patterns, f.StringList("patterns", true));
  for (StringAt& pattern : patterns) {
    if (pattern.value.empty()) return ConfigError(pattern.where, f.what() + ": empty pattern");
    p.patterns.push_back({std::move(pattern.value), std::move(pattern.where)});
  }
  if (p.patterns.empty()) {
    return ConfigError(f.where("patterns"), f.what() + ": 'patterns' must not be empty");
  }
  DP_ASSIGN_OR_RETURN(p.overwrite, f.RequiredBool("overwrite"));
  DP_ASSIGN_OR_RETURN(std::unique_ptr<analysis::OpPathRule> rule,
                      analysis::OpPathRule::Build(std::move(p)));
  return std::unique_ptr<analysis::RoleRule>(std::move(rule));
}

StatusOr<ClassId> PackParser::ResolveClass(const StringAt& name) const {
  if (std::optional<ClassId> id = classifier_->Find(name.value)) return *id;
  return ConfigError(name.where, "unknown class \"" + name.value +
                                     "\" (classes: " + JoinNames(classifier_->class_names()) + ")");
}

StatusOr<ClassId> PackParser::RequiredClass(const TomlFields& f, std::string_view key) const {
  DP_ASSIGN_OR_RETURN(StringAt name, RequiredStringAt(f, key));
  return ResolveClass(name);
}

StatusOr<std::vector<ClassId>> PackParser::ClassList(const TomlFields& f, std::string_view key,
                                                     bool required) const {
  DP_ASSIGN_OR_RETURN(std::vector<StringAt> names, f.StringList(key, required));
  if (required && names.empty()) {
    return ConfigError(f.where(key), f.what() + ": '" + std::string(key) + "' is empty");
  }
  std::vector<ClassId> out;
  for (const StringAt& name : names) {
    DP_ASSIGN_OR_RETURN(ClassId id, ResolveClass(name));
    out.push_back(id);
  }
  return out;
}

StatusOr<RoleId> PackParser::ResolveRole(const StringAt& name) const {
  for (size_t i = 0; i < roles_.size(); ++i) {
    if (roles_[i] == name.value) return static_cast<RoleId>(i);
  }
  return ConfigError(name.where, "unknown role \"" + name.value + "\" (roles declared in " +
                                     "[pack] roles: " + JoinNames(roles_) + ")");
}

StatusOr<RoleId> PackParser::RequiredRole(const TomlFields& f, std::string_view key) const {
  DP_ASSIGN_OR_RETURN(StringAt name, RequiredStringAt(f, key));
  return ResolveRole(name);
}

StatusOr<RoleId> PackParser::RoleWithPartner(const TomlFields& f, std::string_view key,
                                             std::string_view partner) const {
  if (f.Has(key) != f.Has(partner)) {
    const std::string_view present = f.Has(key) ? key : partner;
    const std::string_view missing = f.Has(key) ? partner : key;
    return ConfigError(f.where(present), f.what() + ": '" + std::string(present) + "' needs '" +
                                             std::string(missing) + "'");
  }
  if (!f.Has(key)) return analysis::kNoRole;
  return RequiredRole(f, key);
}

StatusOr<Condition> PackParser::ParseCondition(const TomlFields& f, std::string_view key,
                                               bool required) const {
  Condition condition;
  if (!f.Has(key)) {
    if (!required) return condition;
    return ConfigError(f.where(), f.what() + ": missing key '" + std::string(key) + "'");
  }
  DP_ASSIGN_OR_RETURN(std::vector<const toml::table*> tables, f.TableList(key));
  if (tables.empty()) {
    return ConfigError(f.where(key), f.what() + ": '" + std::string(key) + "' is empty");
  }
  for (const toml::table* table : tables) {
    const TomlFields m(*table, file_, f.what() + " '" + std::string(key) + "'");
    DP_RETURN_IF_ERROR(m.CheckKeys({"classes", "names", "not_names", "lowercase"}));
    analysis::Matcher matcher;
    DP_ASSIGN_OR_RETURN(matcher.classes, ClassList(m, "classes", false));
    for (const auto& [list_key, list] :
         {std::pair{"names", &matcher.names}, std::pair{"not_names", &matcher.not_names}}) {
      DP_ASSIGN_OR_RETURN(std::vector<StringAt> names, m.StringList(list_key, false));
      for (StringAt& name : names) {
        if (name.value.empty()) return ConfigError(name.where, m.what() + ": empty substring");
        list->push_back(std::move(name.value));
      }
    }
    DP_ASSIGN_OR_RETURN(std::optional<bool> lowercase, m.OptionalBool("lowercase"));
    matcher.lowercase = lowercase.value_or(false);
    if (matcher.classes.empty() && matcher.names.empty() && matcher.not_names.empty()) {
      return ConfigError(WhereOf(file_, *table, f.Get(key)->source().begin.line),
                         m.what() + ": a condition needs 'classes', 'names' or 'not_names'");
    }
    condition.any.push_back(std::move(matcher));
  }
  return condition;
}

}  // namespace

StatusOr<std::unique_ptr<analysis::RulePack>> ParsePack(std::string_view text,
                                                        std::string_view file,
                                                        std::string_view base_dir) {
  return PackParser(file).Parse(text, base_dir);
}

}  // namespace decodeprof::packs
