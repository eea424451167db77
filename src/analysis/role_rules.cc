// The run- and pair-shaped rule kinds: tail_after_widest, follow_run, pair, name_contains.
// The span-shaped ones (span_around, clusters) are in role_rules_spans.cc.
#include <algorithm>
#include <array>
#include <cstdint>

#include "src/analysis/role_rules.h"
#include "src/base/parallel.h"

namespace decodeprof::analysis {
namespace {

// The largest grid among dispatches of `cls`, or nullopt when there is none: from the counts
// the caller made (SequenceView::class_grids), else in parts on several threads (the head of
// the rules' cascade waits for it).
std::optional<int64_t> WidestGrid(const SequenceView& seq, ClassId cls, size_t* count) {
  if (!seq.class_grids.empty()) {
    const ClassGrids known = cls < seq.class_grids.size() ? seq.class_grids[cls] : ClassGrids{};
    if (count != nullptr) *count = known.kernels;
    return known.kernels == 0 ? std::nullopt : std::optional<int64_t>(known.widest);
  }
  struct PartWidest {
    int64_t widest = INT64_MIN;
    size_t n = 0;
  };
  std::array<PartWidest, base::kMaxPassParts> parts{};
  const size_t part_count =
      base::ForParts(SizeOf(seq), base::kMinPassPart, [&](size_t k, size_t b, size_t e) {
        PartWidest w;
        for (size_t i = b; i < e; ++i) {
          if (seq.classes[i] != cls) continue;
          ++w.n;
          w.widest = std::max(w.widest, GridAt(seq, i));
        }
        parts[k] = w;
      });
  std::optional<int64_t> widest;
  size_t n = 0;
  for (size_t k = 0; k < part_count; ++k) {
    if (parts[k].n == 0) continue;
    n += parts[k].n;
    widest = widest ? std::max(*widest, parts[k].widest) : parts[k].widest;
  }
  if (count != nullptr) *count = n;
  return widest;
}

}  // namespace

void TailAfterWidestRule::Apply(const SequenceView& seq, RoleLane& lane) const {
  const std::optional<int64_t> head_grid = WidestGrid(seq, p_.head_class, nullptr);
  if (!head_grid) return;
  const size_t n = SizeOf(seq);
  ConditionEval stop(p_.stop, seq);
  RoleWriter writer(lane, p_.overwrite);
  // A head inside the previous head's run would relabel a suffix of that run with the same
  // role (or, without overwrite, stop at once): skipping it keeps the scan linear.
  size_t run_end = 0;
  for (size_t i = 0; i < n; ++i) {
    writer.Commit(i);  // a head at i or later labels only what follows it
    if (seq.classes[i] != p_.head_class || GridAt(seq, i) != *head_grid) continue;
    if (i < run_end) continue;
    size_t j = i + 1;
    for (; j < n && !stop.Matches(j); ++j) {
      if (!writer.Writable(j)) break;
      writer.Set(j, p_.role);
    }
    run_end = j;
  }
}

void TailAfterWidestRule::Diagnose(const SequenceView& seq,
                                   std::vector<trace::DiagMessage>* warnings) const {
  size_t heads = 0;
  const std::optional<int64_t> head_grid = WidestGrid(seq, p_.head_class, &heads);
  if (!head_grid || (seq.has_grid && *head_grid > 0)) return;
  warnings->push_back(
      trace::Message<trace::Msg::kRoleRulesNoGrid>(heads, p_.head_class_name, p_.role_name));
}

void FollowRunRule::Apply(const SequenceView& seq, RoleLane& lane) const {
  const size_t n = SizeOf(seq);
  ConditionEval follow(p_.follow, seq);
  RoleWriter writer(lane, p_.overwrite);
  // An anchor inside the previous anchor's run already has the role, and its own run is a
  // suffix of that run: skipping it keeps the scan linear.
  size_t run_end = 0;
  for (size_t i = 0; i < n; ++i) {
    writer.Commit(i);  // the runs still to come start at i or later
    if (seq.classes[i] != p_.anchor_class || !writer.Writable(i) || i < run_end) continue;
    writer.Set(i, p_.role);
    size_t k = i + 1;
    for (; k < n && writer.Writable(k) && follow.Matches(k); ++k) writer.Set(k, p_.role);
    run_end = k;
  }
}

void PairRule::Apply(const SequenceView& seq, RoleLane& lane) const {
  const size_t n = SizeOf(seq);
  ConditionEval first(p_.first, seq);
  ConditionEval second(p_.second, seq);
  RoleWriter writer(lane, p_.overwrite);
  const size_t context = p_.context_classes.size();
  for (size_t i = 0; i + 1 < n; ++i) {
    writer.Commit(i);  // the context looks back at classes, never at roles
    if (!writer.Writable(i) || !writer.Writable(i + 1)) continue;
    if (!first.Matches(i) || !second.Matches(i + 1)) continue;
    bool in_context = context > 0 && i >= context;
    for (size_t k = 0; in_context && k < context; ++k) {
      in_context = seq.classes[i - 1 - k] == p_.context_classes[k];
    }
    const RoleId role = in_context ? p_.context_role : p_.role;
    writer.Set(i, role);
    writer.Set(i + 1, role);
  }
}

void NameContainsRule::Apply(const SequenceView& seq, RoleLane& lane) const {
  Condition condition;
  condition.any.push_back(Matcher{{}, p_.names, {}, p_.lowercase});
  ConditionEval match(condition, seq);
  RoleWriter writer(lane, p_.overwrite);
  for (size_t i = 0; i < SizeOf(seq); ++i) {
    writer.Commit(i);
    if (writer.Writable(i) && match.Matches(i)) writer.Set(i, p_.role);
  }
}

}  // namespace decodeprof::analysis
