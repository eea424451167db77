// The pattern rule kind: a regular expression of conditions over the dispatch sequence.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "src/analysis/role_rules.h"

namespace decodeprof::analysis {
namespace {

// Matches the steps of one pattern at successive anchors of one sequence. A (step, index)
// pair that failed stays failed for the rest of the scan: whether the steps from k on match
// at index p depends only on the dispatches from p on, and labels are written only before
// the next anchor (see PatternRule::Apply), so nothing the failure depended on changes.
// A match anchored at a takes at most the sum of the steps' max, so the failures are kept
// for the indices from the current anchor to that reach only: a ring of steps x (reach + 1)
// bits, whatever the length of the sequence.
std::vector<bool>& FailedBuffer() {
  thread_local std::vector<bool> buffer;
  return buffer;
}

class PatternScan {
 public:
  PatternScan(const PatternParams& p, const SequenceView& seq, const RoleWriter& writer)
      : p_(p), seq_(seq), n_(SizeOf(seq)), writer_(writer), taken_(p.steps.size(), 0) {
    evals_.reserve(p.steps.size());
    for (const PatternStep& step : p.steps) evals_.emplace_back(step.match, seq);
    size_t reach = 0;
    for (const PatternStep& step : p.steps) reach += static_cast<size_t>(step.max);
    width_ = std::min(reach, n_) + 1;
    failed_.assign(p.steps.size() * width_, false);  // (its room kept from the last rule)
    first_required_ = p.steps.size();
    for (size_t k = 0; k < p.steps.size(); ++k) {
      if (p.steps[k].min >= 1) {
        first_required_ = k;
        break;
      }
    }
    starts_.assign(seq.names == nullptr ? 0 : seq.names->size(), Start{});
  }

  // True when the steps match anchored at `start`; taken() then holds each step's count.
  // The anchors of one scan never go back.
  bool MatchAt(size_t start) {
    Forget(start);
    return Match(0, start);
  }

  // False when no match can be anchored at `index`: a match takes at least one dispatch when
  // some step is required (min >= 1), and the first it takes matches one of the steps up to
  // the first required one; the answer is kept per (name, class), so that most positions of
  // a long window cost one lookup per rule. Always true when every step is optional.
  bool MayStartAt(size_t index) {
    if (first_required_ == p_.steps.size()) return true;
    const trace::StringId name = NameAt(seq_, index);
    const ClassId class_id = seq_.classes[index];
    const auto evaluate = [&] {
      for (size_t k = 0; k <= first_required_; ++k) {
        if (evals_[k].Matches(index)) return true;
      }
      return false;
    };
    if (name >= starts_.size()) return evaluate();
    Start& known = starts_[name];
    if (known.state == 0 || known.class_id != class_id) {
      known = Start{class_id, static_cast<uint8_t>(evaluate() ? 2 : 1)};
    }
    return known.state == 2;
  }
  // The first position from `index` on where a match may be anchored (MayStartAt), or n: a
  // tight loop over the packed names when the view has them.
  size_t NextStart(size_t index) {
    if (first_required_ == p_.steps.size()) return index;
    if (seq_.name_ids.size() != n_) {
      while (index < n_ && !MayStartAt(index)) ++index;
      return index;
    }
    const trace::StringId* names = seq_.name_ids.data();
    const ClassId* classes = seq_.classes.data();
    const Start* known = starts_.data();
    const size_t known_names = starts_.size();
    for (; index < n_; ++index) {
      const trace::StringId name = names[index];
      if (name < known_names && known[name].state != 0 && known[name].class_id == classes[index]) {
        if (known[name].state == 2) return index;
        continue;
      }
      if (MayStartAt(index)) return index;  // evaluated and kept
    }
    return n_;
  }
  const std::vector<size_t>& taken() const { return taken_; }

 private:
  bool Takes(size_t k, size_t index) {
    if (p_.steps[k].role != kNoRole && !writer_.Writable(index)) return false;
    return evals_[k].Matches(index);
  }

  // Drops the failures of the indices before `anchor`, whose slots the indices up to
  // anchor + reach take over.
  void Forget(size_t anchor) {
    if (anchor <= base_) return;
    const size_t steps = p_.steps.size();
    const auto slots = [&](size_t from, size_t to) {  // ring slots [from, to), to <= width_
      std::fill(failed_.begin() + static_cast<std::ptrdiff_t>(from * steps),
                failed_.begin() + static_cast<std::ptrdiff_t>(to * steps), false);
    };
    if (anchor - base_ >= width_) {
      slots(0, width_);
    } else if (const size_t from = base_ % width_, to = anchor % width_; from <= to) {
      slots(from, to);
    } else {
      slots(from, width_);
      slots(0, to);
    }
    base_ = anchor;
  }

  bool Match(size_t k, size_t pos) {
    if (k == p_.steps.size()) return true;
    const size_t memo = pos % width_ * p_.steps.size() + k;
    if (failed_[memo]) return false;
    const PatternStep& step = p_.steps[k];
    const auto lo = static_cast<size_t>(step.min);
    const auto hi = static_cast<size_t>(step.max);
    size_t run = 0;
    while (run < hi && pos + run < n_ && Takes(k, pos + run)) ++run;
    for (size_t count = run + 1; count-- > lo;) {
      taken_[k] = count;
      if (Match(k + 1, pos + count)) return true;
    }
    failed_[memo] = true;
    return false;
  }

  struct Start {
    ClassId class_id = 0;
    uint8_t state = 0;  // 0 unknown, 1 no, 2 yes
  };

  const PatternParams& p_;
  const SequenceView& seq_;
  size_t n_;
  size_t first_required_ = 0;
  std::vector<Start> starts_;  // [name id]: MayStartAt's last answer, with its class
  const RoleWriter& writer_;
  std::vector<ConditionEval> evals_;
  // [index % width_ * steps + step], for the indices from base_ (the current anchor) to
  // base_ + width_ - 1: one per thread, reused by every pattern rule.
  std::vector<bool>& failed_ = FailedBuffer();
  size_t width_ = 1;
  size_t base_ = 0;
  std::vector<size_t> taken_;
};

}  // namespace

void PatternRule::Apply(const SequenceView& seq, RoleLane& lane) const {
  const size_t n = SizeOf(seq);
  if (p_.steps.empty() || n == 0) return;
  RoleWriter writer(lane, p_.overwrite);
  PatternScan matcher(p_, seq, writer);
  size_t i = 0;
  while (i < n) {
    writer.Commit(i);  // a match anchored at i or later reads and labels from there on
    i = matcher.NextStart(i);
    if (i == n) break;
    if (!matcher.MatchAt(i)) {
      ++i;
      continue;
    }
    size_t next = i + 1;
    size_t pos = i;
    for (size_t k = 0; k < p_.steps.size(); ++k) {
      const size_t count = matcher.taken()[k];
      if (p_.steps[k].role != kNoRole && count > 0) {
        for (size_t j = pos; j < pos + count; ++j) writer.Set(j, p_.steps[k].role);
        next = std::max(next, pos + count);
      }
      pos += count;
    }
    i = next;
  }
}

}  // namespace decodeprof::analysis
