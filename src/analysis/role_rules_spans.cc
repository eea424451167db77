// The span-shaped rule kinds: span_around and clusters.
#include <algorithm>
#include <optional>
#include <utility>

#include "src/analysis/role_rules.h"

namespace decodeprof::analysis {
namespace {

// How often (in indices) span_around says how far it is done while it meets no anchor.
constexpr size_t kCommitEvery = size_t{1} << 12;

}  // namespace

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
    // Every so often, done below the nearest boundary before i: a span opened from here on
    // starts after it (a window without anchors then flows on to the rules after this one
    // instead of waiting for the end of the scan). Not a boundary at i itself: an anchor that
    // is also a boundary opens a span reaching back past it.
    if (i % kCommitEvery == 0 && i > 0) {
      size_t b = i - 1;
      while (b > 0 && !is_boundary(b) && i - b < kCommitEvery) --b;
      if (is_boundary(b)) writer.Commit(b);
    }
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
  RoleWriter writer(lane, p_.overwrite);
  ConditionEval between(p_.between, seq);
  ConditionEval after(p_.after, seq);
  ConditionEval after_stop(p_.after_stop, seq);
  const bool follow_up = p_.follow_up_role != kNoRole;
  ConditionEval follow_up_match(p_.follow_up, seq);
  // The follow-up labels what is still unassigned once every cluster is labelled. A cluster
  // reads and writes only from its first member on, so below the next cluster's first member
  // the clusters are done: the follow-up runs there as the clusters go (what it would find
  // in a pass of its own afterwards), and the rules after this one follow it.
  size_t followed = 0;  // the follow-up is done below this
  const auto follow_up_to = [&](size_t end) {
    for (; followed < end; ++followed) {
      writer.Commit(followed);
      if (writer.Unassigned(followed) && follow_up_match.Matches(followed)) {
        writer.Set(followed, p_.follow_up_role);
      }
    }
  };
  // Labels the cluster [first, last] (its first and last member).
  const auto label = [&](size_t first, size_t last) {
    // A cluster and what follows it start at its first member (the run after the cluster
    // before may reach past it, but is written by then).
    if (follow_up) {
      follow_up_to(first);
    } else {
      writer.Commit(first);
    }
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
  };
  // The clusters found as the scan goes: one closes where the next member is more than
  // max_gap further on, or at the end.
  std::optional<std::pair<size_t, size_t>> open;  // [first member, last member]
  for (size_t i = 0; i < n; ++i) {
    if (seq.classes[i] != p_.member_class) continue;
    if (open && static_cast<int64_t>(i - open->second) <= p_.max_gap) {
      open->second = i;
      continue;
    }
    if (open) label(open->first, open->second);
    open.emplace(i, i);
  }
  if (!open) return;  // no cluster: no follow-up either
  label(open->first, open->second);
  if (follow_up) follow_up_to(n);
}

}  // namespace decodeprof::analysis
