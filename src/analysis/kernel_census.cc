#include "src/analysis/kernel_census.h"

#include <re2/re2.h>

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include "src/base/pattern.h"

namespace decodeprof::analysis {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return b < 0 ? std::numeric_limits<int64_t>::min() : kMax;
  return sum;
}

// end − start; a damaged record's difference saturates instead of overflowing (the import
// rejects it afterwards: trace::CountingSink).
int64_t DurationOf(const trace::Dispatch& d) {
  int64_t duration = 0;
  if (__builtin_sub_overflow(d.end, d.start, &duration)) {
    return d.end < d.start ? std::numeric_limits<int64_t>::min() : kMax;
  }
  return duration;
}

// total / calls rounded half to even, in integers (exact at any size; calls > 0 or 0).
int64_t RoundedQuotient(int64_t total, int64_t calls) {
  if (calls <= 0) return 0;
  int64_t q = total / calls;
  const int64_t r = total % calls;  // same sign as total
  const int64_t half_up = r < 0 ? -r : r;
  const int64_t rest = calls - half_up;
  if (half_up > rest || (half_up == rest && q % 2 != 0)) q += total < 0 ? -1 : 1;
  return q;
}

bool RowBefore(const CensusRow& a, const CensusRow& b) {
  if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
  if (a.name != b.name) return a.name < b.name;
  return a.kind < b.kind;
}

// Averages, shares, table totals and the order, once the rows are complete.
void FinishTable(CensusTable& table) {
  table.dispatches = 0;
  table.total_ns = 0;
  for (const CensusRow& row : table.rows) {
    table.dispatches = SaturatingAdd(table.dispatches, row.calls);
    table.total_ns = SaturatingAdd(table.total_ns, row.total_ns);
  }
  for (CensusRow& row : table.rows) {
    row.avg_ns = RoundedQuotient(row.total_ns, row.calls);
    row.share_pct = table.total_ns <= 0 ? 0.0
                                        : 100.0 * static_cast<double>(row.total_ns) /
                                              static_cast<double>(table.total_ns);
  }
  std::sort(table.rows.begin(), table.rows.end(), RowBefore);
}

// Adds `from`'s counts into `into` (a row of the same name or class).
void MergeInto(CensusRow& into, const CensusRow& from) {
  if (into.calls == 0) {
    into.min_ns = from.min_ns;
    into.max_ns = from.max_ns;
  } else if (from.calls > 0) {
    into.min_ns = std::min(into.min_ns, from.min_ns);
    into.max_ns = std::max(into.max_ns, from.max_ns);
  }
  into.calls = SaturatingAdd(into.calls, from.calls);
  into.total_ns = SaturatingAdd(into.total_ns, from.total_ns);
}

}  // namespace

void KernelCensus::Add(const trace::Dispatch& d) {
  if (offered_++ == 0) {
    first_start_ = last_start_ = d.start;
  } else {
    first_start_ = std::min(first_start_, d.start);
    last_start_ = std::max(last_start_, d.start);
  }
  if (window_ && (d.start < window_->lo || d.start > window_->hi)) return;
  ++counted_;
  const size_t kind = std::min<size_t>(static_cast<size_t>(d.kind), 2);
  std::vector<Accumulator>& slots = by_kind_[kind];
  if (d.name >= slots.size()) {
    slots.resize(std::max<size_t>(size_t{d.name} + 1, slots.size() * 2));
  }
  Accumulator& a = slots[d.name];
  const int64_t duration = DurationOf(d);
  if (a.calls == 0) {
    a.min_ns = a.max_ns = duration;
  } else {
    a.min_ns = std::min(a.min_ns, duration);
    a.max_ns = std::max(a.max_ns, duration);
  }
  ++a.calls;
  a.total_ns = SaturatingAdd(a.total_ns, duration);
}

std::vector<trace::StringId> KernelCensus::KernelNameIds() const {
  std::vector<trace::StringId> ids;
  const std::vector<Accumulator>& slots =
      by_kind_[static_cast<size_t>(trace::DispatchKind::kKernel)];
  for (size_t id = 0; id < slots.size(); ++id) {
    if (slots[id].calls > 0) ids.push_back(static_cast<trace::StringId>(id));
  }
  return ids;
}

CensusTable KernelCensus::ByName(const trace::StringPool& names, const Pack& pack,
                                 const RepairFn& repair) const {
  CensusTable table;
  std::map<std::pair<std::string, trace::DispatchKind>, size_t> row_of;
  for (size_t kind = 0; kind < 3; ++kind) {
    const std::vector<Accumulator>& slots = by_kind_[kind];
    for (size_t id = 0; id < slots.size(); ++id) {
      const Accumulator& a = slots[id];
      if (a.calls == 0) continue;
      std::string text(names.Get(static_cast<trace::StringId>(id)));
      if (repair) {
        if (std::optional<std::string> repaired = repair(text)) {
          if (table.names_repaired++ == 0) table.first_repaired = *repaired;
          text = std::move(*repaired);
        }
      }
      CensusRow row;
      row.kind = static_cast<trace::DispatchKind>(kind);
      row.calls = a.calls;
      row.total_ns = a.total_ns;
      row.min_ns = a.min_ns;
      row.max_ns = a.max_ns;
      auto [it, inserted] = row_of.try_emplace({text, row.kind}, table.rows.size());
      if (!inserted) {
        MergeInto(table.rows[it->second], row);
        continue;
      }
      trace::Dispatch probe;
      probe.kind = row.kind;
      row.class_name = pack.class_names()[pack.ClassOf(probe, text)];
      row.name = std::move(text);
      table.rows.push_back(std::move(row));
    }
  }
  table.names = static_cast<int64_t>(table.rows.size());
  FinishTable(table);
  return table;
}

CensusTable ByClass(const CensusTable& by_name) {
  CensusTable table;
  table.names = by_name.names;
  table.names_repaired = by_name.names_repaired;
  table.first_repaired = by_name.first_repaired;
  std::map<std::string, size_t> row_of;
  for (const CensusRow& kernel : by_name.rows) {
    auto [it, inserted] = row_of.try_emplace(kernel.class_name, table.rows.size());
    if (inserted) {
      CensusRow row;
      row.name = kernel.class_name;
      row.class_name = kernel.class_name;
      row.names = 0;
      table.rows.push_back(std::move(row));
    }
    CensusRow& row = table.rows[it->second];
    MergeInto(row, kernel);
    row.names += kernel.names;
  }
  FinishTable(table);
  return table;
}

CensusCut CutCensus(const CensusTable& table, size_t top) {
  CensusCut cut;
  const size_t shown = top == 0 ? table.rows.size() : std::min(top, table.rows.size());
  cut.shown = std::span<const CensusRow>(table.rows).first(shown);
  for (size_t i = shown; i < table.rows.size(); ++i) {
    ++cut.omitted_rows;
    cut.omitted_total_ns = SaturatingAdd(cut.omitted_total_ns, table.rows[i].total_ns);
    cut.omitted_share_pct += table.rows[i].share_pct;
  }
  return cut;
}

base::StatusOr<NamePattern> NamePattern::Compile(std::string text) {
  auto compiled = base::CompilePattern(text);
  if (!compiled.ok()) {
    return base::Status(base::ErrorKind::kUsage, "'" + base::Excerpt(text) + "'",
                        compiled.status().message(), compiled.status().hint());
  }
  std::shared_ptr<const re2::RE2> regex = std::move(*compiled);
  return NamePattern(std::move(text), std::move(regex));
}

base::StatusOr<bool> NamePattern::Matches(std::string_view name) const {
  return base::PatternFound(*regex_, name);
}

base::StatusOr<std::vector<ExpectMatch>> MatchExpectations(std::span<const NamePattern> patterns,
                                                           const CensusTable& by_name) {
  std::vector<ExpectMatch> out;
  out.reserve(patterns.size());
  for (const NamePattern& pattern : patterns) {
    ExpectMatch match;
    match.pattern = pattern.text();
    for (const CensusRow& row : by_name.rows) {
      DP_ASSIGN_OR_RETURN(const bool hit, pattern.Matches(row.name));
      if (!hit) continue;
      ++match.names;
      match.calls = SaturatingAdd(match.calls, row.calls);
    }
    out.push_back(std::move(match));
  }
  return out;
}

}  // namespace decodeprof::analysis
