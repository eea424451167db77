#include "src/analysis/window.h"

#include <algorithm>
#include <string>
#include <utility>

#include "src/base/large_pages.h"
#include "src/base/parallel.h"
#include "src/base/spill.h"

namespace decodeprof::analysis {

using trace::ClockDomain;

namespace {

std::optional<trace::TimestampNs> MarkOn(const trace::PhaseMarks& marks, const char* label,
                                         ClockDomain clock) {
  const auto it = marks.find(label);
  if (it == marks.end()) return std::nullopt;
  return it->second.On(clock);
}

// The dispatches MergeAll rebases and copies at a time: a large page of them.
constexpr size_t kMergeStretch = base::spill::kLargePageBytes / sizeof(trace::Dispatch);

}  // namespace

WindowCollector::WindowCollector(const trace::PhaseMarks& marks) {
  for (ClockDomain c : trace::kAllClocks) {
    PerClock& pc = clocks_[Index(c)];
    pc.warmup_start = MarkOn(marks, "warmup_start", c);
    pc.measured_start = MarkOn(marks, "measured_start", c);
    pc.decode_start = MarkOn(marks, "decode_start", c);
    pc.measured_end = MarkOn(marks, "measured_end", c);
  }
}

void WindowCollector::Reserve(size_t dispatches) {
  base::ReserveLarge(candidates_, dispatches);
  base::ReserveLarge(membership_, dispatches);
}

bool WindowCollector::StoreInFile() const { return base::spill::InFile(candidates_.data()); }

void WindowCollector::Add(const trace::Dispatch& d, bool keep) {
  const uint8_t member = Count(d);
  if (member != 0 && keep) {
    candidates_.push_back(d);
    membership_.push_back(member);
    if (candidates_.size() % kFilledCheck == 0) ReleaseFilled();
  }
}

void WindowCollector::Done() { ReleaseFilled(/*whole=*/true); }

void WindowCollector::ReleaseFilled(bool whole) {
  if (candidates_.empty()) return;
  if (candidates_.data() != filled_store_) {  // reserved, or grown past its reservation
    filled_store_ = candidates_.data();
    filled_ = 0;
  }
  // Nothing where the store is in memory; else the whole large pages from the last release up
  // to the last kept dispatch, and with `whole` (Finish) the one that holds it too: a store in
  // a file is a block of whole large pages of its own (base/spill.h).
  base::spill::ReleaseBehind<trace::Dispatch> behind(filled_store_, filled_);
  filled_ = candidates_.size() - 1;
  behind.Passed(filled_);
  if (!whole) behind.Forget();  // the page that holds the last one is still being filled
}

void WindowCollector::TakeAll(trace::DispatchVector&& in_order) {
  std::vector<uint8_t> members;
  base::ResizeFaultedIn(members, in_order.size());
  // Counted in parts on several threads, each by a collector of the same marks that has seen
  // nothing yet, merged in order: what one pass counts.
  std::vector<WindowCollector> parts(base::kMaxPassParts, Unseen());
  std::array<bool, base::kMaxPassParts> every_in_part{};
  const size_t n =
      base::ForParts(in_order.size(), base::kMinPassPart, [&](size_t k, size_t b, size_t e) {
        bool every = true;
        base::spill::ReleaseBehind<trace::Dispatch> behind(in_order.data(), b);
        for (size_t i = b; i < e; ++i) {
          behind.Passed(i);
          members[i] = parts[k].Count(in_order[i]);
          every = every && members[i] != 0;
        }
        every_in_part[k] = every;
      });
  bool every = true;
  for (size_t k = 0; k < n; ++k) {
    every = every && every_in_part[k];
    MergeRebased(std::move(parts[k]));
  }
  if (every && candidates_.empty()) {
    candidates_ = std::move(in_order);
    membership_ = std::move(members);
    return;
  }
  for (size_t i = 0; i < in_order.size(); ++i) {
    if (members[i] == 0) continue;
    candidates_.push_back(in_order[i]);
    membership_.push_back(members[i]);
  }
  in_order = {};
}

WindowCollector WindowCollector::Unseen() const {
  WindowCollector out;
  for (size_t i = 0; i < clocks_.size(); ++i) {
    const PerClock& pc = clocks_[i];
    out.clocks_[i] = PerClock{pc.warmup_start, pc.measured_start, pc.decode_start, pc.measured_end};
  }
  return out;
}

uint8_t WindowCollector::Count(const trace::Dispatch& d) {
  uint8_t member = 0;
  for (size_t i = 0; i < clocks_.size(); ++i) {
    PerClock& pc = clocks_[i];
    if (pc.warmup_start && pc.measured_end && *pc.warmup_start <= d.start &&
        d.start <= *pc.measured_end) {
      ++pc.bracketed;
    }
    if (!pc.decode_start) continue;
    const trace::TimestampNs lo = *pc.decode_start;
    if (d.start < lo && lo < d.end) ++pc.straddling;
    // ">=": among equal starts the later row is the last one in stable start order.
    if (d.end <= lo && (!pc.last_before || d.start >= pc.last_before->start)) {
      pc.last_before = d;
    }
    if (pc.measured_end && lo <= d.start && d.start <= *pc.measured_end) {
      member |= static_cast<uint8_t>(1u << i);
    }
  }
  return member;
}

void WindowCollector::MergeClocks(const WindowCollector& later) {
  for (size_t i = 0; i < clocks_.size(); ++i) {
    PerClock& pc = clocks_[i];
    const PerClock& other = later.clocks_[i];
    pc.bracketed += other.bracketed;
    pc.straddling += other.straddling;
    // The same rule as Add(): the later part's pick wins ties.
    if (other.last_before &&
        (!pc.last_before || other.last_before->start >= pc.last_before->start)) {
      pc.last_before = other.last_before;
    }
  }
}

void WindowCollector::MergeAll(std::span<const LaterPart> later) {
  // The clocks in part order; where each part's dispatches go.
  std::vector<size_t> at;
  at.reserve(later.size());
  size_t total = candidates_.size();
  for (const LaterPart& part : later) {
    WindowCollector& c = *part.collector;
    if (part.rebase != nullptr) {
      for (PerClock& pc : c.clocks_) {
        if (pc.last_before) (*part.rebase)(*pc.last_before);
      }
    }
    MergeClocks(c);
    at.push_back(total);
    total += c.candidates_.size();
  }
  // (Only the room the parts take: the store may be reserved far beyond them.) Every added
  // element is written below by the thread copying its part, which faults in its pages as it
  // goes and lets go of them behind it: the window and its parts are not all held at once.
  base::ReserveLarge(candidates_, total);
  base::ResizeForOverwrite(candidates_, total);
  membership_.resize(total);
  // Each part rebased in its own store and copied to its place; a thread for each CPU (the
  // copies are bound by memory, not by a core), each taking a run of whole parts.
  const size_t threads = std::min<size_t>(base::UsableCpus(), later.size());
  base::RunParts(threads, [&](size_t t) {
    const size_t b = later.size() * t / threads;
    const size_t e = later.size() * (t + 1) / threads;
    for (size_t k = b; k < e; ++k) {
      WindowCollector& c = *later[k].collector;
      const size_t n = c.candidates_.size();
      trace::Dispatch* to = candidates_.data() + at[k];
      // A stretch at a time, rebased and copied, and where a store is in a file (base/spill.h)
      // what is done with goes from the process as the copy passes it: a part is the window
      // over at most 4 parts a CPU, so its size follows the window's (a 2.4 GB rocprofv3 CSV on
      // 2 CPUs: parts of 50 MiB, each held whole twice while copied, 62-97 MiB at peak with a
      // 16 MiB budget against 47 MiB at 600 MB).
      base::spill::ReleaseBehind<trace::Dispatch> read(c.candidates_.data(), 0);
      base::spill::ReleaseBehind<trace::Dispatch> written(to, 0);
      base::spill::ReleaseBehind<uint8_t> marked(membership_.data(), at[k]);
      for (size_t i = 0; i < n; i += kMergeStretch) {
        const size_t end = std::min(n, i + kMergeStretch);
        trace::Dispatch* from = c.candidates_.data();
        if (later[k].rebase != nullptr) {
          for (size_t j = i; j < end; ++j) (*later[k].rebase)(from[j]);
        }
        std::copy(from + i, from + end, to + i);
        std::copy(c.membership_.begin() + static_cast<std::ptrdiff_t>(i),
                  c.membership_.begin() + static_cast<std::ptrdiff_t>(end),
                  membership_.data() + at[k] + i);
        read.Passed(end - 1);
        written.Passed(end - 1);
        marked.Passed(at[k] + end - 1);
      }
      read.Forget();  // the part's store goes whole just below
      c.candidates_ = {};
      c.membership_ = {};
    }
  });
}

void WindowCollector::MergeRebased(WindowCollector&& later) {
  MergeClocks(later);
  if (candidates_.empty()) {
    candidates_ = std::move(later.candidates_);
    membership_ = std::move(later.membership_);
  } else {
    candidates_.reserve(candidates_.size() + later.candidates_.size());
    candidates_.insert(candidates_.end(), later.candidates_.begin(), later.candidates_.end());
    membership_.insert(membership_.end(), later.membership_.begin(), later.membership_.end());
  }
  later.candidates_ = {};
  later.membership_ = {};
}

base::StatusOr<DecodeWindow> WindowCollector::Finish(const std::string& log_path) && {
  // Boottime first: it wins ties (seed spec 2.4). Realtime marks come only from a realtime
  // trace's own ranges, never together with a log's.
  std::optional<ClockDomain> best;
  int64_t best_count = 0;
  for (ClockDomain c : trace::kAllClocks) {
    const PerClock& pc = clocks_[Index(c)];
    if (!pc.warmup_start || !pc.measured_end) continue;
    if (!best || pc.bracketed > best_count) {
      best = c;
      best_count = pc.bracketed;
    }
  }
  if (!best || best_count <= 0) {
    return base::DataError(log_path,
                           "no dispatch lies between the warmup_start and measured_end marks on "
                           "either clock; was MLXCEL_BENCH_PHASE_MARKS=1 set?",
                           "the bench log needs [phase] lines whose clock matches the trace's");
  }
  const PerClock& pc = clocks_[Index(*best)];
  if (!pc.decode_start) {
    return base::DataError(log_path, std::string("the bench log has no decode_start mark on the ") +
                                         trace::ClockName(*best) + " clock");
  }

  // The marks in the order a bench prints them; any other order cuts a window that cannot be
  // the decode (one that starts in the prefill, or ends before it starts).
  const std::pair<const char*, std::optional<trace::TimestampNs>> order[] = {
      {"warmup_start", pc.warmup_start},
      {"measured_start", pc.measured_start},
      {"decode_start", pc.decode_start},
      {"measured_end", pc.measured_end}};
  for (size_t i = 0; i < std::size(order); ++i) {
    for (size_t j = i + 1; j < std::size(order); ++j) {
      if (!order[i].second || !order[j].second || *order[i].second <= *order[j].second) continue;
      return base::DataError(
          log_path,
          std::string("the marks are out of order on the ") + trace::ClockName(*best) +
              " clock: " + order[j].first + " (" + std::to_string(*order[j].second) +
              ") comes before " + order[i].first + " (" + std::to_string(*order[i].second) + ")",
          "a bench prints warmup_start, measured_start, decode_start and measured_end in that "
          "order; the window between decode_start and measured_end would not be the decode");
    }
  }

  DecodeWindow window;
  window.clock = *best;
  window.lo = *pc.decode_start;
  window.hi = *pc.measured_end;
  window.straddling = pc.straddling;
  window.last_before = pc.last_before;
  const uint8_t bit = static_cast<uint8_t>(1u << Index(*best));
  const bool all_members =
      base::AllInParts(membership_.size(), [&](size_t i) { return (membership_[i] & bit) != 0; });
  if (all_members) {
    window.dispatches = std::move(candidates_);  // the usual case: both clocks agree
  } else {
    for (size_t i = 0; i < candidates_.size(); ++i) {
      if (membership_[i] & bit) window.dispatches.push_back(candidates_[i]);
    }
  }
  candidates_ = {};
  membership_ = {};
  const auto by_start = [](const trace::Dispatch& a, const trace::Dispatch& b) {
    return a.start < b.start;
  };
  // Tracers mostly write in start order: checking (in parts) costs a fraction of a stable sort.
  const trace::DispatchVector& ds = window.dispatches;
  if (!base::AllInParts(
          ds.empty() ? 0 : ds.size() - 1, [&](size_t i) { return !by_start(ds[i + 1], ds[i]); },
          ds.data())) {
    std::stable_sort(window.dispatches.begin(), window.dispatches.end(), by_start);
  }
  if (window.dispatches.empty()) {
    return base::DataError(log_path, "no dispatch inside the decode window",
                           "decode_start..measured_end holds no kernel of the trace");
  }
  return window;
}

}  // namespace decodeprof::analysis
