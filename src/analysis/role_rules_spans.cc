// The span-shaped rule kinds: span_around and clusters.
#include <algorithm>

#include "src/analysis/role_rules.h"

namespace decodeprof::analysis {

void SpanAroundRule::Apply(const SequenceView& seq, RoleLane& lane) const {
  const size_t n = SizeOf(seq);
  auto is_boundary = [&](size_t i) {
    return std::find(p_.boundary_classes.begin(), p_.boundary_classes.end(), seq.classes[i]) !=
           p_.boundary_classes.end();
  };
  std::vector<ConditionEval> when;
  when.reserve(p_.labels.size());
  for (const SpanLabel& label : p_.labels) when.emplace_back(label.when, seq);
  std::vector<std::optional<size_t>> last_of(p_.labels.size());
  RoleWriter writer(lane, p_.overwrite);
  // Spans are disjoint (each ends before a boundary and the next anchor lies past it), so
  // the scan is linear. An anchor inside a labelled span opens no new span: with the seed's
  // labels it has a role by then anyway, and without one this keeps the scan linear.
  std::optional<size_t> covered_until;
  for (size_t i = 0; i < n; ++i) {
    if (seq.classes[i] != p_.anchor_class) continue;
    if (covered_until && i <= *covered_until) continue;
    if (!writer.Unassigned(i)) continue;
    size_t lo = i;
    while (lo > 0 && !is_boundary(lo - 1)) --lo;
    size_t hi = i;
    while (hi + 1 < n && !is_boundary(hi + 1)) ++hi;
    covered_until = hi;
    // A later anchor's span starts after the boundary nearest on its left, which is no
    // further left than this span's: nothing before lo is read again.
    writer.Commit(lo);
    for (size_t l = 0; l < p_.labels.size(); ++l) {
      last_of[l].reset();
      if (!p_.labels[l].from_last_class) continue;
      for (size_t k = lo; k <= hi; ++k) {
        if (seq.classes[k] == *p_.labels[l].from_last_class) last_of[l] = k;
      }
    }
    for (size_t k = lo; k <= hi; ++k) {
      if (!writer.Writable(k)) continue;
      for (size_t l = 0; l < p_.labels.size(); ++l) {
        const SpanLabel& label = p_.labels[l];
        bool applies;
        if (label.from_last_class) {
          applies = last_of[l] && k >= *last_of[l];
        } else if (!label.when.empty()) {
          applies = when[l].Matches(k);
        } else {
          applies = true;
        }
        if (applies) {
          writer.Set(k, label.role);
          break;
        }
      }
    }
  }
}

void ClustersRule::Apply(const SequenceView& seq, RoleLane& lane) const {
  const size_t n = SizeOf(seq);
  std::vector<std::pair<size_t, size_t>> clusters;  // [first member, last member]
  for (size_t i = 0; i < n; ++i) {
    if (seq.classes[i] != p_.member_class) continue;
    if (!clusters.empty() && static_cast<int64_t>(i - clusters.back().second) <= p_.max_gap) {
      clusters.back().second = i;
    } else {
      clusters.emplace_back(i, i);
    }
  }
  if (clusters.empty()) return;
  RoleWriter writer(lane, p_.overwrite);
  ConditionEval between(p_.between, seq);
  ConditionEval after(p_.after, seq);
  ConditionEval after_stop(p_.after_stop, seq);
  // The follow-up reads every index again from 0: nothing is done before it.
  const bool follow_up = p_.follow_up_role != kNoRole;
  for (const auto& [first, last] : clusters) {
    // A cluster and what follows it start at its first member (the run after the cluster
    // before may reach past it, but is written by then).
    if (!follow_up) writer.Commit(first);
    for (size_t i = first; i <= last; ++i) {
      if (seq.classes[i] == p_.member_class && writer.Writable(i)) writer.Set(i, p_.member_role);
    }
    if (p_.between_role != kNoRole) {
      for (size_t k = first + 1; k < last; ++k) {
        if (writer.Unassigned(k) && between.Matches(k)) writer.Set(k, p_.between_role);
      }
    }
    if (p_.after_role != kNoRole) {
      for (size_t k = last + 1;
           k < n && writer.Unassigned(k) && !after_stop.Matches(k) && after.Matches(k); ++k) {
        writer.Set(k, p_.after_role);
      }
    }
  }
  if (follow_up) {
    ConditionEval follow_up_match(p_.follow_up, seq);
    for (size_t i = 0; i < n; ++i) {
      writer.Commit(i);
      if (writer.Unassigned(i) && follow_up_match.Matches(i)) writer.Set(i, p_.follow_up_role);
    }
  }
}

}  // namespace decodeprof::analysis
