// Role attribution by sequence rules (seed spec 2.7), as data: a RulePack is a Pack whose
// classes come from a KernelClassifier and whose roles come from an ordered list of
// parameterized RoleRules (role_rules.h). Every kernel name, class name and substring the
// rules test comes from the pack file; nothing engine-specific lives in C++.
//
// Rules run in pack order over one vector of roles (kNoRole = unassigned). Whether a rule
// may overwrite a role an earlier rule gave is a parameter of the rule (`overwrite`).
#pragma once

#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
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
  // have one class): one lookup per dispatch. Only for a condition of several matchers that
  // tests names; with one, its class test and name byte answer as fast.
  struct Answer {
    ClassId class_id = 0;
    uint8_t state = 0;  // 0 unknown, 1 no, 2 yes
  };

  const Condition& condition_;
  const SequenceView& seq_;
  std::vector<std::vector<uint8_t>> name_cache_;  // [matcher][name id]: 0 unknown, 1 no, 2 yes
  std::vector<Answer> answers_;                   // [name id]
};

// The role vector as one rule sees it when the rules run one behind the other, each on a
// thread of its own (RulePack::AssignRoles): the rule reads and writes an index only once the
// rules before it are done with it, and says how far it is done itself (Commit), so that the
// rule after it can follow. A lane without neighbours (a rule run alone, or the rules one
// after another) never waits.
//
// The order of a rule's reads and writes is the one it has when the rules run one after
// another, and so are its labels: a rule only ever sees an index after every earlier rule
// has finished with it, and the rules after it see it only after it has.
class RoleLane {
 public:
  // A rule run alone over `roles`.
  explicit RoleLane(std::vector<RoleId>& roles) : roles_(roles) {}
  // A rule between `upstream` (how far the rules before it are done; null: the first rule)
  // and `own` (how far it and every rule before it are done).
  RoleLane(std::vector<RoleId>& roles, const std::atomic<size_t>* upstream,
           std::atomic<size_t>* own)
      : roles_(roles), upstream_(upstream), own_(own), ready_(upstream != nullptr ? 0 : kAll) {}

  // Blocks until the rules before this one are done with `index`.
  void WaitFor(size_t index) const {
    // A rule never comes back below what it said it was done with (Commit): the rules after it
    // may have read that part already.
    assert(index >= committed_ && "a role rule read or wrote below its own commit");
    if (index >= ready_) [[unlikely]] {
      WaitSlow(index);
    }
  }
  // This rule will neither read nor write an index below `below` again. A rule that never
  // commits is done with every index when it returns (Finish).
  void Commit(size_t below) {
#ifndef NDEBUG
    committed_ = std::max(committed_, below);
#endif
    commit_below_ = below;
    if (own_ != nullptr && below >= next_publish_) [[unlikely]] {
      Publish(below);
    }
  }
  // Done with everything: waits for the rules before, then lets the ones after go to the end.
  void Finish();
  // For the last rule's lane: as it says how far every rule is done, the arrays of `view` and
  // the roles below go from the process where they are in files (base/spill.h; a rule that
  // looks back maps them in again).
  void LetGoBehind(const SequenceView* view) { let_go_ = view; }
  // For the first rule's lane: it runs at most `lead` indices ahead of `last` (how far the
  // last rule is done), so that what the lanes between have mapped in stays within that
  // stretch instead of the window (each lane on a thread of its own; a first rule that raced
  // to the end mapped the window's arrays in for the last one to let go of). Where the last
  // rule stops moving for a while (a rule before it looking far ahead, which waits for this
  // one), this one goes on another `lead` regardless: the throttle never holds a rule up.
  // `stuck`: how long the last rule stands still before this one goes on.
  void LeadAtMost(const std::atomic<size_t>* last, size_t lead,
                  std::chrono::microseconds stuck = std::chrono::milliseconds(1)) {
    last_ = last;
    lead_ = lead;
    stuck_ = stuck;
    if (upstream_ == nullptr) ready_ = lead;
  }

  std::vector<RoleId>& roles() { return roles_; }

  // How often and how long this lane stood still for the rules before it (or, the first lane,
  // for the last one: LeadAtMost), counted on the slow path only; DECODEPROF_STAGE_TIMES prints
  // it for each lane (RulePack::AssignRoles).
  struct Blocked {
    size_t times = 0;
    std::chrono::nanoseconds wall{0};
  };
  const Blocked& blocked() const { return blocked_; }

 private:
  static constexpr size_t kAll = SIZE_MAX;
  // Indices between two publications: a rule's progress is told every so many. Each wakes the
  // rule after it, a system call that costs tens of microseconds on some hosts: every 16 384
  // indices, the 600 MB rocprofv3 CSV's first lane took 0.022 s instead of 0.009 and its
  // rules 0.039 s instead of 0.020 (an H100 machine's 16-CPU host, docs/performance.md).
  static constexpr size_t kPublishEvery = size_t{1} << 16;
  void WaitSlow(size_t index) const;
  void Throttle(size_t index) const;
  void Publish(size_t below);

  std::vector<RoleId>& roles_;
  const std::atomic<size_t>* upstream_ = nullptr;
  std::atomic<size_t>* own_ = nullptr;
  mutable size_t ready_ = kAll;  // the upstream's progress as last read
  size_t next_publish_ = 0;
  const SequenceView* let_go_ = nullptr;  // LetGoBehind
  size_t let_go_below_ = 0;
  const std::atomic<size_t>* last_ = nullptr;  // LeadAtMost
  size_t lead_ = 0;
  std::chrono::microseconds stuck_{0};
  size_t commit_below_ = 0;  // the last Commit
  mutable Blocked blocked_;
#ifndef NDEBUG
  size_t committed_ = 0;  // the highest Commit so far (checked in debug builds)
#endif
};

// Reads and writes the role vector under a rule's overwrite setting, through its lane (every
// access waits for the rules before; see RoleLane).
class RoleWriter {
 public:
  RoleWriter(RoleLane& lane, bool overwrite)
      : lane_(lane), roles_(lane.roles()), overwrite_(overwrite) {}
  // True when the rule may label dispatch i: it is unassigned, or the rule overwrites.
  bool Writable(size_t index) const {
    lane_.WaitFor(index);
    return overwrite_ || roles_[index] == kNoRole;
  }
  void Set(size_t index, RoleId role) {
    lane_.WaitFor(index);
    roles_[index] = role;
  }
  bool Unassigned(size_t index) const {
    lane_.WaitFor(index);
    return roles_[index] == kNoRole;
  }
  // As RoleLane::Commit.
  void Commit(size_t below) { lane_.Commit(below); }

 private:
  RoleLane& lane_;
  std::vector<RoleId>& roles_;
  bool overwrite_;
};

class RoleRule {
 public:
  virtual ~RoleRule() = default;
  // The rule kind as written in pack files ("tail_after_widest", ...).
  virtual std::string_view kind() const = 0;
  // Labels dispatches of `seq` in `lane`'s roles, through RoleWriters of the lane, committing
  // its progress as it goes where it can (RoleLane::Commit). Precondition: seq.classes and
  // the roles have one entry per dispatch (RulePack::AssignRoles guarantees it).
  virtual void Apply(const SequenceView& seq, RoleLane& lane) const = 0;
  // The rule alone over `roles`.
  void ApplyAlone(const SequenceView& seq, std::vector<RoleId>& roles) const {
    RoleLane lane(roles);
    Apply(seq, lane);
  }
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
  std::vector<RoleId> AssignRoles(const SequenceView& seq) const override {
    return AssignRoles(seq, RuleSchedule::kAuto);
  }
  // How the rules are run: one after another on the calling thread, or each on a thread of
  // its own one behind the other (RoleLane); the labels are the same. kAuto: the latter for
  // two rules or more over a long sequence (base::kMinPassPart) with two CPUs or more.
  enum class RuleSchedule : uint8_t { kAuto, kOneAfterAnother, kOneBehindAnother };
  // How far the first rule's lane may run ahead of the last one's (RoleLane::LeadAtMost): about
  // 18 MiB of the arrays the rules read (a dispatch, its name, class, role and launch context:
  // 72 bytes an index), where a window is millions.
  static constexpr size_t kMaxLead = size_t{1} << 18;
  // `max_lead`: none given, kMaxLead where the dispatches or the roles are in files (base/
  // spill.h; there the lead bounds what the lanes map in) and no lead where they are in memory
  // (a lead would only hold the first rule up: on 16 CPUs the rocprofv3 CSV's 2 M kernels took
  // 0.024 s without and 0.028-0.035 s with one).
  std::vector<RoleId> AssignRoles(const SequenceView& seq, RuleSchedule schedule,
                                  std::optional<size_t> max_lead = std::nullopt) const;
  // The first lane's lead in AssignRoles: `asked` where given, else kMaxLead where `dispatches`
  // or `roles` (the arrays' first elements) lie in file blocks, else none.
  static std::optional<size_t> FirstLaneLead(const void* dispatches, const void* roles,
                                             std::optional<size_t> asked);
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
