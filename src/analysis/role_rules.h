// The role rule kinds a pack file can use (docs/packs.md). Each is one parameterized
// pattern over the decode sequence (index i, class c[i], kernel name, grid); together they
// express the seed's six rules (spec 2.7) exactly, with the classes, roles and name
// substrings supplied by the pack.
//
// Common conventions:
//   * `overwrite` — false: a dispatch that already has a role is left alone, and a run
//     (tail, follow, cluster after-run) ends at it; true: the rule relabels it.
//   * Name tests are Conditions (roles.h): case-sensitive substrings unless `lowercase`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/analysis/roles.h"
#include "src/base/status.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace decodeprof::analysis {

// tail_after_widest — seed rule 1 (sampler tail). Among dispatches of `head_class`, the
// heads are those whose grid equals the largest grid of that class (the lm_head GEMV has
// vocab rows). After each head, the following dispatches get `role` until one matches
// `stop` (or the end); a head gets nothing from its own run. Without grid sizes every grid is
// 0, so every dispatch of `head_class` is a head: Diagnose() warns about it.
struct TailAfterWidestParams {
  RoleId role = kNoRole;
  ClassId head_class = 0;
  Condition stop;
  bool overwrite = false;
  std::string role_name;        // for messages
  std::string head_class_name;  // for messages
};

class TailAfterWidestRule final : public RoleRule {
 public:
  explicit TailAfterWidestRule(TailAfterWidestParams params) : p_(std::move(params)) {}
  std::string_view kind() const override { return "tail_after_widest"; }
  void Apply(const SequenceView& seq, RoleLane& lane) const override;
  void Diagnose(const SequenceView& seq, std::vector<trace::DiagMessage>* warnings) const override;

 private:
  TailAfterWidestParams p_;
};

// span_around — seed rule 2 (Mamba2 mixer). Each dispatch of `anchor_class` that has no
// role yet (tested as the scan reaches it) and lies outside the spans already labelled
// opens a span: from the first index after the
// nearest dispatch of a `boundary_classes` class on its left (0 if none) to the last index
// before the nearest one on its right (the end if none). Each span index gets the role of
// the first label that applies to it; a label applies when
//   * it has `from_last_class`: the index is at or after the span's last dispatch of that
//     class (never, when the span has none);
//   * else it has `when`: the dispatch matches it;
//   * else always (a default label).
struct SpanLabel {
  RoleId role = kNoRole;
  std::optional<ClassId> from_last_class;
  Condition when;
};

struct SpanAroundParams {
  ClassId anchor_class = 0;
  std::vector<ClassId> boundary_classes;
  std::vector<SpanLabel> labels;
  bool overwrite = true;
};

class SpanAroundRule final : public RoleRule {
 public:
  explicit SpanAroundRule(SpanAroundParams params) : p_(std::move(params)) {}
  std::string_view kind() const override { return "span_around"; }
  void Apply(const SequenceView& seq, RoleLane& lane) const override;

 private:
  SpanAroundParams p_;
};

// clusters — seed rule 3 (MoE). Dispatches of `member_class` form clusters: a new cluster
// starts when the index gap to the previous member exceeds `max_gap`. Per cluster, in
// order:
//   1. every member gets `member_role` (subject to `overwrite`);
//   2. (optional) unassigned indices strictly between the first and last member that match
//      `between` get `between_role`;
//   3. (optional) from the index after the last member, while the dispatch is unassigned,
//      does not match `after_stop` and matches `after`: `after_role`.
// Then (optional), when any member exists at all, every unassigned dispatch matching
// `follow_up` gets `follow_up_role`. Steps 2, 3 and the follow-up only fill unassigned
// dispatches, whatever `overwrite` says.
struct ClustersParams {
  ClassId member_class = 0;
  int64_t max_gap = 0;
  RoleId member_role = kNoRole;
  bool overwrite = true;
  RoleId between_role = kNoRole;
  Condition between;
  RoleId after_role = kNoRole;
  Condition after;
  Condition after_stop;
  RoleId follow_up_role = kNoRole;
  Condition follow_up;
};

class ClustersRule final : public RoleRule {
 public:
  explicit ClustersRule(ClustersParams params) : p_(std::move(params)) {}
  std::string_view kind() const override { return "clusters"; }
  void Apply(const SequenceView& seq, RoleLane& lane) const override;

 private:
  ClustersParams p_;
};

// follow_run — seed rule 4 (RoPE + cache append). Each writable dispatch of `anchor_class`
// gets `role`, and so does the contiguous run of writable dispatches right after it that
// match `follow`; the run ends at the first other dispatch.
struct FollowRunParams {
  ClassId anchor_class = 0;
  RoleId role = kNoRole;
  Condition follow;
  bool overwrite = false;
};

class FollowRunRule final : public RoleRule {
 public:
  explicit FollowRunRule(FollowRunParams params) : p_(std::move(params)) {}
  std::string_view kind() const override { return "follow_run"; }
  void Apply(const SequenceView& seq, RoleLane& lane) const override;

 private:
  FollowRunParams p_;
};

// pair — seed rule 5 (residual add + RMSNorm). For i from 0: when i and i+1 are both
// writable, i matches `first` and i+1 matches `second`, both get `context_role` if the
// classes before i are `context_classes` (c[i-1] = context_classes[0], c[i-2] = [1], ...;
// all must exist), else `role`.
struct PairParams {
  Condition first;
  Condition second;
  RoleId role = kNoRole;
  std::vector<ClassId> context_classes;
  RoleId context_role = kNoRole;  // used only with context_classes
  bool overwrite = false;
};

class PairRule final : public RoleRule {
 public:
  explicit PairRule(PairParams params) : p_(std::move(params)) {}
  std::string_view kind() const override { return "pair"; }
  void Apply(const SequenceView& seq, RoleLane& lane) const override;

 private:
  PairParams p_;
};

// name_contains — seed rule 6 (paged attention). Every writable dispatch whose name
// contains one of `names` (ASCII-lower-cased first with `lowercase`) gets `role`.
struct NameContainsParams {
  RoleId role = kNoRole;
  std::vector<std::string> names;
  bool lowercase = false;
  bool overwrite = false;
};

class NameContainsRule final : public RoleRule {
 public:
  explicit NameContainsRule(NameContainsParams params) : p_(std::move(params)) {}
  std::string_view kind() const override { return "name_contains"; }
  void Apply(const SequenceView& seq, RoleLane& lane) const override;

 private:
  NameContainsParams p_;
};

// pattern — a regular expression over the dispatch sequence whose letters are Conditions: an
// ordered list of steps, each taking between `min` and `max` consecutive dispatches that
// match its condition. For each start index i (from 0) the steps are matched anchored at i,
// greedily with backtracking (each step takes as many dispatches as it can and gives them
// back one at a time when a later step fails); the first match in that order wins. A step
// with a role labels the dispatches it takes and may take only writable ones (so, without
// `overwrite`, it matches only dispatches no earlier rule labelled); a step without a role
// is context: it takes any dispatch its condition matches and labels nothing. After a match
// the scan resumes right after the last labelled dispatch (at i + 1 when none was labelled),
// so a trailing context step may start the next match. Each (step, index) pair fails at most
// once per Apply, so a scan costs O(steps x dispatches x max) condition tests at worst.
// The loader guarantees: 1..kMaxPatternSteps steps, at least one with a role and one with
// min >= 1 (a match is never empty), 0 <= min <= max, 1 <= max <= kMaxPatternRun.
inline constexpr size_t kMaxPatternSteps = 64;
inline constexpr int64_t kMaxPatternRun = 1000;

struct PatternStep {
  Condition match;
  RoleId role = kNoRole;  // kNoRole: a context step
  int64_t min = 1;
  int64_t max = 1;
};

struct PatternParams {
  std::vector<PatternStep> steps;
  bool overwrite = false;
};

class PatternRule final : public RoleRule {
 public:
  explicit PatternRule(PatternParams params) : p_(std::move(params)) {}
  std::string_view kind() const override { return "pattern"; }
  void Apply(const SequenceView& seq, RoleLane& lane) const override;

 private:
  PatternParams p_;
};

// op_path — roles from the annotation ranges that enclose a dispatch's launch (the op path,
// e.g. NVTX module ranges "LlamaMLP:model.layers.3.mlp"). For each writable dispatch with a
// known launch (SequenceView::launch_thread / launch_time), the ranges open on the launching
// thread at the launch time are looked up (RangeIndex::Enclosing); when the name of any of
// them contains a match of one of `patterns` (RE2, searched, case-sensitive; each range name
// is tested on its own, not a joined path), the dispatch gets `role`. Without launch info or
// ranges (e.g. a rocprofv3 CSV trace) the rule does nothing; a dispatch whose launch is
// unknown, or launched outside every range, is left alone. Diagnose() says when the rule was
// skipped.
struct OpPathParams {
  RoleId role = kNoRole;
  std::vector<ClassPattern> patterns;  // at least one
  bool overwrite = false;
  std::string role_name;  // for messages
};

class OpPathRule final : public RoleRule {
 public:
  // Compiles the patterns. Errors (kConfig, at the pattern's `where`): no pattern, a bad
  // pattern (with RE2's error text).
  static base::StatusOr<std::unique_ptr<OpPathRule>> Build(OpPathParams params);
  ~OpPathRule() override;

  std::string_view kind() const override { return "op_path"; }
  void Apply(const SequenceView& seq, RoleLane& lane) const override;
  void Diagnose(const SequenceView& seq, std::vector<trace::DiagMessage>* warnings) const override;
  bool ReadsLaunchContext() const override { return true; }

  // True when `seq` carries what the rule needs: launch info for every dispatch and ranges.
  static bool Usable(const SequenceView& seq);

 private:
  explicit OpPathRule(OpPathParams params);

  OpPathParams p_;
  std::unique_ptr<re2::RE2> regex_;  // the patterns as one alternation
};

}  // namespace decodeprof::analysis
