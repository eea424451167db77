// Minimal Pack and UnitTable for analysis tests: a class per name prefix, roles from a fixed
// per-name table, units from a fixed list. The real rule kinds are tested with rules the pack
// loader builds (decodeprof_analysis_pack_rule_tests).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "src/analysis/pack.h"
#include "src/analysis/units.h"

namespace decodeprof::analysis::testing {

class FakePack : public Pack {
 public:
  // `classes`: class names in order (without "other"); a kernel belongs to the first class
  // whose name it contains. `role_of_name`: kernel name → role name.
  FakePack(std::vector<std::string> classes, std::vector<std::string> roles,
           std::map<std::string, std::string> role_of_name)
      : classes_(std::move(classes)),
        roles_(std::move(roles)),
        role_of_name_(std::move(role_of_name)) {
    classes_.push_back("other");
  }
  const std::string& name() const override { return name_; }
  const std::vector<std::string>& class_names() const override { return classes_; }
  ClassId Classify(std::string_view kernel) const override {
    for (size_t i = 0; i + 1 < classes_.size(); ++i) {
      if (kernel.find(classes_[i]) != std::string_view::npos) return static_cast<ClassId>(i);
    }
    return other_class();
  }
  const std::vector<std::string>& role_names() const override { return roles_; }
  std::vector<RoleId> AssignRoles(const SequenceView& seq) const override {
    std::vector<RoleId> out;
    for (size_t i = 0; i < SizeOf(seq); ++i) {
      const auto it = role_of_name_.find(std::string(seq.names->Get(NameAt(seq, i))));
      out.push_back(it == role_of_name_.end() ? kNoRole : *FindRole(it->second));
    }
    return out;
  }

 private:
  std::string name_ = "fake";
  std::vector<std::string> classes_;
  std::vector<std::string> roles_;
  std::map<std::string, std::string> role_of_name_;
};

class FakeUnits : public UnitTable {
 public:
  FakeUnits(std::vector<Unit> units, std::vector<UnitReach> reach)
      : units_(std::move(units)), reach_(std::move(reach)) {}
  const std::vector<Unit>& units() const override { return units_; }
  UnitReach Reach(size_t index, const ModelConfig&, bool) const override { return reach_[index]; }

 private:
  std::vector<Unit> units_;
  std::vector<UnitReach> reach_;
};

}  // namespace decodeprof::analysis::testing
