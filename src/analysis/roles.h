// Role attribution by sequence rules (seed spec 2.7), as data: a RulePack is a Pack whose
// classes come from a KernelClassifier and whose roles come from an ordered list of
// parameterized RoleRules (role_rules.h). Every kernel name, class name and substring the
// rules test comes from the pack file; nothing engine-specific lives in C++.
//
// Rules run in pack order over one vector of roles (kNoRole = unassigned). Whether a rule
// may overwrite a role an earlier rule gave is a parameter of the rule (`overwrite`).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/analysis/classify.h"
#include "src/analysis/pack.h"

namespace decodeprof::analysis {

// One alternative of a Condition; it matches a dispatch when every part it has holds:
//   classes   — the dispatch's class is one of them (empty: any class);
//   names     — the kernel name contains one of them (empty: any name);
//   not_names — the kernel name contains none of them.
// Name tests are case-sensitive substring tests on the full name; with `lowercase` the
// name is ASCII-lower-cased first (the needles are used as written).
struct Matcher {
  std::vector<ClassId> classes;
  std::vector<std::string> names;
  std::vector<std::string> not_names;
  bool lowercase = false;
};

// A dispatch predicate: true when any of its matchers matches; an empty Condition matches
// nothing.
struct Condition {
  std::vector<Matcher> any;
  bool empty() const { return any.empty(); }
};

// Evaluates a Condition over one sequence, memoizing the name tests per distinct name
// (a decode window holds ~10^5 dispatches but a few hundred names). A missing name pool
// makes every name "".
class ConditionEval {
 public:
  ConditionEval(const Condition& condition, const SequenceView& seq);
  bool Matches(size_t index);

 private:
  bool NamePartMatches(size_t matcher, trace::StringId name);
  bool Evaluate(trace::StringId name, ClassId class_id);

  // The last answer per name id, with the class it was for (a name's dispatches almost always
  // have one class): one lookup per dispatch.
  struct Answer {
    ClassId class_id = 0;
    uint8_t state = 0;  // 0 unknown, 1 no, 2 yes
  };

  const Condition& condition_;
  const SequenceView& seq_;
  std::vector<std::vector<uint8_t>> name_cache_;  // [matcher][name id]: 0 unknown, 1 no, 2 yes
  std::vector<Answer> answers_;                   // [name id]
};

// Reads and writes the role vector under a rule's overwrite setting.
class RoleWriter {
 public:
  RoleWriter(std::vector<RoleId>& roles, bool overwrite) : roles_(roles), overwrite_(overwrite) {}
  // True when the rule may label dispatch i: it is unassigned, or the rule overwrites.
  bool Writable(size_t index) const { return overwrite_ || roles_[index] == kNoRole; }
  void Set(size_t index, RoleId role) { roles_[index] = role; }
  bool Unassigned(size_t index) const { return roles_[index] == kNoRole; }

 private:
  std::vector<RoleId>& roles_;
  bool overwrite_;
};

class RoleRule {
 public:
  virtual ~RoleRule() = default;
  // The rule kind as written in pack files ("tail_after_widest", ...).
  virtual std::string_view kind() const = 0;
  // Labels dispatches of `seq` in `roles`. Precondition: seq.classes and `roles` have one
  // entry per dispatch (RulePack::AssignRoles guarantees it).
  virtual void Apply(const SequenceView& seq, std::vector<RoleId>& roles) const = 0;
  // Appends one sentence per property of `seq` that makes this rule's labels doubtful
  // (e.g. no grid sizes where the rule needs them). Default: none.
  virtual void Diagnose(const SequenceView& seq, std::vector<trace::DiagMessage>* warnings) const;
  // Whether Apply reads SequenceView::launch_thread / launch_time. Default: no.
  virtual bool ReadsLaunchContext() const { return false; }
};

struct PackInfo {
  std::string name;
  std::string description;
  std::string default_units;  // units file name or path, "" when none
};

// The data-driven Pack that src/packs builds from a pack file.
class RulePack final : public Pack {
 public:
  // Rules reference classes and roles by id; the caller (the loader) guarantees they are in
  // range of `classifier` and `role_names`.
  RulePack(PackInfo info, KernelClassifier classifier, std::vector<std::string> role_names,
           std::vector<std::unique_ptr<RoleRule>> rules);

  const std::string& name() const override { return info_.name; }
  const std::string& description() const { return info_.description; }
  const std::string& default_units() const { return info_.default_units; }
  const std::vector<std::string>& class_names() const override { return classifier_.class_names(); }
  ClassId Classify(std::string_view kernel_name) const override {
    return classifier_.Classify(kernel_name);
  }
  const std::vector<std::vector<std::string>>& class_moves() const override {
    return classifier_.class_moves();
  }
  const std::vector<std::string>& role_names() const override { return role_names_; }
  // Runs the rules in order. A `seq.classes` shorter or longer than the dispatches is
  // padded with other_class() or cut (and RoleWarnings says so).
  std::vector<RoleId> AssignRoles(const SequenceView& seq) const override;
  std::vector<trace::DiagMessage> RoleWarnings(const SequenceView& seq) const override;
  bool ReadsLaunchContext() const override;
  // The role rules in pack order (AssignRoles applies them in this order).
  const std::vector<std::unique_ptr<RoleRule>>& rules() const { return rules_; }

 private:
  // `seq` with exactly one class per dispatch (`storage` holds a padded copy when needed).
  SequenceView Normalized(const SequenceView& seq, std::vector<ClassId>* storage) const;

  PackInfo info_;
  KernelClassifier classifier_;
  std::vector<std::string> role_names_;
  std::vector<std::unique_ptr<RoleRule>> rules_;
};

}  // namespace decodeprof::analysis
