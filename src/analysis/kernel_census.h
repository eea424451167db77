// The kernel census of `decodeprof kernels`: what a trace dispatched, per kernel name or per
// class — calls, total, average, min and max duration (end − start) and the share of the
// summed GPU time — like `nsys stats --report cuda_gpu_kern_sum`. Memory operations are rows
// too (class memcpy / memset).
//
// Streaming: a KernelCensus is the DispatchSink of an import and keeps one accumulator per
// distinct (name id, kind), never the dispatches; the tables are built from it afterwards.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/analysis/pack.h"
#include "src/base/status.h"
#include "src/trace/dispatch.h"
#include "src/trace/dispatch_sink.h"
#include "src/trace/string_pool.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace decodeprof::analysis {

// The dispatches a census counts: those with lo <= start <= hi (both inclusive).
struct StartRange {
  trace::TimestampNs lo = 0;
  trace::TimestampNs hi = 0;
};

// One row of a census table.
struct CensusRow {
  // By name: the kernel's name (memory operations: "[CUDA memcpy ...]"); by class: the class.
  std::string name;
  // By name: the kernel's class in the pack; by class: the class again.
  std::string class_name;
  trace::DispatchKind kind = trace::DispatchKind::kKernel;  // by name only
  int64_t names = 1;                                        // distinct names in the row (1 by name)
  int64_t calls = 0;
  int64_t total_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  int64_t avg_ns = 0;      // total_ns / calls, rounded half to even (exact, in integers)
  double share_pct = 0.0;  // 100 × total_ns / the table's total_ns (0 when that is 0)
};

// Rows sorted by total_ns descending, ties by name ascending (bytewise; then kind).
struct CensusTable {
  std::vector<CensusRow> rows;
  int64_t dispatches = 0;  // calls of every row
  int64_t total_ns = 0;    // total of every row (saturating at INT64_MAX)
  int64_t names = 0;       // distinct names of every row
  // Names that held invalid UTF-8 or control characters and were repaired for printing.
  int64_t names_repaired = 0;
  std::string first_repaired;  // the first of them, repaired
};

class KernelCensus final : public trace::DispatchSink {
 public:
  // Counts every dispatch it is given, or only those starting inside `window`.
  explicit KernelCensus(std::optional<StartRange> window = std::nullopt) : window_(window) {}

  void Add(const trace::Dispatch& d) override;

  int64_t offered() const { return offered_; }  // dispatches given to Add
  int64_t counted() const { return counted_; }  // of those, inside the window
  // The earliest and latest start of the dispatches given to Add (0 when none was).
  trace::TimestampNs first_start() const { return offered_ == 0 ? 0 : first_start_; }
  trace::TimestampNs last_start() const { return offered_ == 0 ? 0 : last_start_; }
  // The name ids of the kernel dispatches counted (memory operations left out), ascending.
  std::vector<trace::StringId> KernelNameIds() const;

  // Repairs a name for printing: the repaired text, or nullopt when it needs none
  // (pipeline::RepairedName). Rows whose names repair to the same text are merged.
  using RepairFn = std::function<std::optional<std::string>(std::string_view)>;

  // One row per distinct name (and kind) counted, classed by `pack` (each name classified
  // once). `repair` may be empty (names as they are).
  CensusTable ByName(const trace::StringPool& names, const Pack& pack,
                     const RepairFn& repair = {}) const;

 private:
  struct Accumulator {
    int64_t calls = 0;
    int64_t total_ns = 0;
    int64_t min_ns = 0;
    int64_t max_ns = 0;
  };
  std::optional<StartRange> window_;
  // Per kind, indexed by name id; grown (doubling) when a new id shows up.
  std::vector<Accumulator> by_kind_[3];
  int64_t offered_ = 0;
  int64_t counted_ = 0;
  trace::TimestampNs first_start_ = 0;
  trace::TimestampNs last_start_ = 0;
};

// The by-name table grouped by class: calls and totals summed, min of the mins, max of the
// maxes, `names` the distinct names of the class; sorted as every table.
CensusTable ByClass(const CensusTable& by_name);

// The first `top` rows of `table` (all when top is 0 or at least the row count), and the
// calls, time and rows of the others.
struct CensusCut {
  std::span<const CensusRow> shown;
  int64_t omitted_rows = 0;
  int64_t omitted_total_ns = 0;
  double omitted_share_pct = 0.0;
};
CensusCut CutCensus(const CensusTable& table, size_t top);

// --expect: an RE2 regular expression (base/pattern.h: a memory budget, time linear in the
// name) searched in each name.
class NamePattern {
 public:
  // Error (kUsage, where = the pattern in quotes, cut to 200 bytes): not a pattern RE2 takes
  // (a backreference, a lookaround, too long, over the memory budget), saying which.
  static base::StatusOr<NamePattern> Compile(std::string text);
  const std::string& text() const { return text_; }
  // Never an error (RE2 matches any name in linear time); StatusOr for the callers.
  base::StatusOr<bool> Matches(std::string_view name) const;

 private:
  NamePattern(std::string text, std::shared_ptr<const re2::RE2> regex)
      : text_(std::move(text)), regex_(std::move(regex)) {}
  std::string text_;
  std::shared_ptr<const re2::RE2> regex_;
};

// What a pattern matched among the rows of a by-name table.
struct ExpectMatch {
  std::string pattern;
  int64_t names = 0;  // rows whose name matched
  int64_t calls = 0;  // their calls
};
base::StatusOr<std::vector<ExpectMatch>> MatchExpectations(std::span<const NamePattern> patterns,
                                                           const CensusTable& by_name);

}  // namespace decodeprof::analysis
