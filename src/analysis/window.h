// Cutting the decode window out of a kernel trace by the bench log's phase marks
// (seed spec 2.4). Streaming: a WindowCollector sees every dispatch once, in file order, and
// keeps only what the window needs — per-clock counters and the dispatches that fall inside
// either clock's candidate window — so memory is bounded by the decode window, not the file.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "src/base/status.h"
#include "src/trace/dispatch.h"
#include "src/trace/dispatch_sink.h"
#include "src/trace/phase_marks.h"

namespace decodeprof::analysis {

// The decode window on the chosen clock, with its dispatches stably sorted by start.
struct DecodeWindow {
  trace::ClockDomain clock = trace::ClockDomain::kBoottime;
  trace::TimestampNs lo = 0;         // decode_start
  trace::TimestampNs hi = 0;         // measured_end
  trace::DispatchVector dispatches;  // lo <= start <= hi, start order (file order on ties)

  // Window checks.
  int64_t straddling = 0;  // dispatches with start < lo < end (strict)
  // The last dispatch (by start; ties → later row) that ended at or before lo.
  std::optional<trace::Dispatch> last_before;
};

class WindowCollector : public trace::DispatchSink {
 public:
  explicit WindowCollector(const trace::PhaseMarks& marks);

  void Add(const trace::Dispatch& d) override { Add(d, true); }
  // With keep = false, `d` counts in the checks (bracketed, straddling, the last dispatch
  // before the window) but is never in the window: a dispatch that ran in the window's time
  // but was launched outside its ranges (pipeline/window_stage.h, the ranges' projection).
  void Add(const trace::Dispatch& d, bool keep);
  // A part of a window read in parts is read: a store in a file lets go of all its pages
  // (MergeAll maps them in again as it copies them).
  void Done() override;

  // Add() of every dispatch of `in_order` (in file order), taking over its store when every
  // one of them is kept (a window that holds the whole trace: no copy of millions).
  void TakeAll(trace::DispatchVector&& in_order);

  // Makes room for `dispatches` kept dispatches at once: a hint from a caller that can bound
  // them (e.g. by the size of the file), so that the store is not copied as it grows. Only
  // address space is taken; memory is used as dispatches arrive. A failed reservation is
  // ignored (the store then grows as it goes).
  void Reserve(size_t dispatches);
  // Whether the store is a file block (base/spill.h): it passed the memory budget. Such a
  // store lets go of each large page once Add has filled it (its contents stay in the file):
  // a window imported in parts holds them all until MergeAll, and the budget's watcher alone
  // fell behind where the parts outnumber the CPUs.
  bool StoreInFile() const;

  // Chooses the clock and returns the window. Errors (kData, where = `log_path`):
  //  - no clock with both warmup_start and measured_end bracketing a dispatch:
  //    "no dispatch lies between the warmup_start and measured_end marks on either clock;
  //     was MLXCEL_BENCH_PHASE_MARKS=1 set?"
  //  - the chosen clock has no decode_start mark;
  //  - its marks out of order (warmup_start <= measured_start <= decode_start <= measured_end
  //    must hold): "the marks are out of order on the monotonic clock: decode_start (5) comes
  //    before measured_start (9)" — a window cut from them would count the prefill;
  //  - "no dispatch inside the decode window".
  base::StatusOr<DecodeWindow> Finish(const std::string& log_path) &&;

  // Appends `later`: a collector made from the same marks that saw the dispatches following
  // every dispatch this one saw, in file order (e.g. the second part of a file parsed on
  // another thread). Afterwards this collector is what one collector would be had it seen
  // both streams in order: counts add, the kept dispatches follow this one's, and the last
  // dispatch before decode_start is later's when its start is >= this one's (ties → the later
  // row). `rebase(trace::Dispatch&)` is first applied to each dispatch later kept, to put it
  // in this collector's terms (e.g. name ids of another StringPool, lines counted from the
  // start of the part). Both must come from the same marks (else the result is meaningless).
  template <typename Rebase>
  void Merge(WindowCollector&& later, Rebase&& rebase) {
    for (trace::Dispatch& d : later.candidates_) rebase(d);
    for (PerClock& pc : later.clocks_) {
      if (pc.last_before) rebase(*pc.last_before);
    }
    MergeRebased(std::move(later));
  }
  void Merge(WindowCollector&& later) { MergeRebased(std::move(later)); }

  // Appends every part of `later` in order: what Merge(part, part.rebase) of each, one after
  // another, gives. The dispatches are rebased and copied on several threads into room faulted
  // in on threads (a file of millions parsed in parts: the calling thread would otherwise copy
  // them all, stopping at each page to have it cleared).
  struct LaterPart {
    WindowCollector* collector = nullptr;
    const std::function<void(trace::Dispatch&)>* rebase = nullptr;  // null: none
  };
  void MergeAll(std::span<const LaterPart> later);

  // Calls `fn` on each dispatch kept so far (a candidate of either clock's window).
  template <typename Fn>
  void ForEachKept(Fn&& fn) const {
    for (const trace::Dispatch& d : candidates_) fn(d);
  }

  // Dispatches bracketed by warmup_start..measured_end on a clock (the clock-choice count).
  int64_t bracketed(trace::ClockDomain c) const { return clocks_[Index(c)].bracketed; }

 private:
  struct PerClock {
    // Marks on this clock (absent when the log lacks them or printed `na`).
    std::optional<trace::TimestampNs> warmup_start, measured_start, decode_start, measured_end;
    int64_t bracketed = 0;
    int64_t straddling = 0;
    std::optional<trace::Dispatch> last_before;
  };
  static constexpr size_t Index(trace::ClockDomain c) { return static_cast<size_t>(c); }
  WindowCollector() = default;
  // A collector of the same marks that has seen no dispatch.
  WindowCollector Unseen() const;
  // Counts `d` on every clock; the bits of the clocks whose window holds it.
  uint8_t Count(const trace::Dispatch& d);
  void MergeRebased(WindowCollector&& later);
  // The counts and the last dispatch before decode_start of `later` (already rebased).
  void MergeClocks(const WindowCollector& later);
  // Add's write-behind: lets go of the large pages of a store in a file up to the last kept
  // dispatch (checked every kFilledCheck kept dispatches), or with `whole`, up to the end of
  // the large page that holds it.
  void ReleaseFilled(bool whole = false);
  static constexpr size_t kFilledCheck = 4096;

  std::array<PerClock, std::size(trace::kAllClocks)> clocks_;
  // Dispatches inside either clock's [decode_start, measured_end], in file order, with a bit
  // per clock saying which window holds them.
  trace::DispatchVector candidates_;
  std::vector<uint8_t> membership_;
  // ReleaseFilled's place: the store it last saw, and the kept dispatch it let go of up to.
  const trace::Dispatch* filled_store_ = nullptr;
  size_t filled_ = 0;
};

}  // namespace decodeprof::analysis
