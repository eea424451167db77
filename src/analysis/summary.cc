#include "src/analysis/summary.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <numeric>
#include <string>
#include <utility>

#include "src/analysis/intervals.h"
#include "src/base/large_pages.h"
#include "src/base/parallel.h"
#include "src/base/py_format.h"
#include "src/base/spill.h"
#include "src/base/stage_times.h"
#include "src/base/utf8.h"

namespace decodeprof::analysis {

using base::PyRound;
using trace::DurationNs;

namespace {

constexpr const char* kUnattributed = "unattributed";

// Running totals keyed by a small dense id, kept in first-insertion order (Python dict order).
template <typename Key>
class InsertionTotals {
 public:
  struct Entry {
    Key key;
    int64_t ns = 0;
    int64_t calls = 0;
  };
  Entry& At(Key key, size_t dense) {
    if (dense >= slot_.size()) slot_.resize(dense + 1, -1);
    if (slot_[dense] < 0) {
      slot_[dense] = static_cast<int64_t>(entries_.size());
      entries_.push_back(Entry{key, 0, 0});
    }
    return entries_[static_cast<size_t>(slot_[dense])];
  }
  const Entry* Find(size_t dense) const {
    if (dense >= slot_.size() || slot_[dense] < 0) return nullptr;
    return &entries_[static_cast<size_t>(slot_[dense])];
  }
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<int64_t> slot_;
  std::vector<Entry> entries_;
};

size_t RoleSlot(RoleId r) { return static_cast<size_t>(r + 1); }  // kNoRole → 0

// Indices of `values` ordered by descending `key`, stable over the original order.
template <typename T, typename KeyFn>
std::vector<size_t> DescendingOrder(const std::vector<T>& values, KeyFn key) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return key(values[a]) > key(values[b]); });
  return order;
}

template <typename Set, typename Value>
bool Contains(const Set& set, Value value) {
  return std::find(set.begin(), set.end(), value) != set.end();
}

std::string RoleName(const Pack& pack, RoleId r) {
  return r == kNoRole ? kUnattributed : pack.role_names()[static_cast<size_t>(r)];
}

// Per-token figures and shares of decode GPU time (seed spec 2.5, 2.10).
struct Rates {
  double tokens = 0;  // the tokens the window stands for (WindowTokensOf)
  DurationNs gpu_sum = 0;

  // round(value / tokens, digits); null without tokens.
  std::optional<double> PerToken(double value, int digits) const {
    if (tokens == 0) return std::nullopt;
    return PyRound(value / tokens, digits);
  }
  // 100 · ns / gpu_sum, unrounded; null when the window holds no GPU time.
  std::optional<double> ExactShare(int64_t ns) const {
    if (gpu_sum <= 0) return std::nullopt;
    return static_cast<double>(100 * ns) / static_cast<double>(gpu_sum);
  }
  // ExactShare rounded to 2 decimals.
  std::optional<double> Share(int64_t ns) const {
    if (gpu_sum <= 0) return std::nullopt;
    return PyRound(static_cast<double>(100 * ns) / static_cast<double>(gpu_sum), 2);
  }
};

// The divisor of every per-token figure: the tokens the window stands for. An ordinary
// window holds the whole decode (generated_tokens, as a double: the quotients are the same);
// a sampled one stands for in.window_tokens. 0 without a token count.
double WindowTokensOf(const SummaryInputs& in) {
  if (in.window_tokens) return *in.window_tokens;
  return static_cast<double>(in.profiled.generated_tokens.value_or(0));
}

// The decode window's durations (seed spec 2.5).
struct WindowTimes {
  DurationNs gpu_sum = 0;  // Σ dispatch durations
  DurationNs busy = 0;     // union of the dispatches within [lo, hi]
  DurationNs wall = 0;     // hi − lo
  DurationNs gap() const { return wall - busy; }
};

WindowTimes MeasureWindow(const DecodeWindow& window) {
  WindowTimes t;
  t.gpu_sum = base::SumInParts<DurationNs>(
      window.dispatches.size(), [&](size_t i) { return window.dispatches[i].duration(); },
      window.dispatches.data());
  t.busy = BusyUnion(window.dispatches, window.lo, window.hi);
  t.wall = window.hi - window.lo;
  return t;
}

// What the run is: its name, settings, clock, model type, pack and units file.
void SetRunIdentity(const SummaryInputs& in, Summary& s) {
  s.name = in.name;
  s.temperature = in.temperature;
  s.clock = in.window->clock;
  s.pack = in.pack_name;
  s.units_file = in.units_name;
  if (in.model && in.model_type_present) s.model_type = in.model->model_type;
}

// The bench logs' token counts and rates, the profiler's slowdown, the forward passes.
void SetTokenFigures(const SummaryInputs& in, Summary& s) {
  s.prompt_tokens = in.profiled.prompt_tokens;
  s.generated_tokens = in.profiled.generated_tokens;
  s.profiled_decode_tok_s = in.profiled.decode_tok_s;
  s.profiled_prefill_tok_s = in.profiled.prefill_tok_s;
  if (in.plain) {
    s.plain_decode_tok_s = in.plain->decode_tok_s;
    s.plain_prefill_tok_s = in.plain->prefill_tok_s;
  }
  const std::optional<double>& plain_tok_s = s.plain_decode_tok_s;
  const std::optional<double>& prof_tok_s = s.profiled_decode_tok_s;
  if (plain_tok_s && prof_tok_s && *plain_tok_s != 0 && *prof_tok_s != 0) {
    s.profiler_decode_slowdown_pct = PyRound(100 * (*plain_tok_s / *prof_tok_s - 1), 2);
  }
  const int64_t tokens = in.profiled.generated_tokens.value_or(0);
  if (tokens != 0) s.decode_forward_passes = tokens - 1;
  s.window_tokens = in.window_tokens;
}

// Dispatches, wall, GPU sum and busy, the host gap, and the plain run's wall and gap per
// token. Reads the plain decode rate that SetTokenFigures stored.
void SetTimeFigures(const DecodeWindow& window, const WindowTimes& t, const Rates& rates,
                    Summary& s) {
  const size_t dispatches = window.dispatches.size();
  s.decode_dispatches = static_cast<int64_t>(dispatches);
  s.dispatches_per_token = rates.PerToken(static_cast<double>(dispatches), 1);
  s.decode_wall_ms = PyRound(static_cast<double>(t.wall) / 1e6, 3);
  s.decode_gpu_sum_ms = PyRound(static_cast<double>(t.gpu_sum) / 1e6, 3);
  s.decode_gpu_busy_ms = PyRound(static_cast<double>(t.busy) / 1e6, 3);
  s.gpu_ms_per_token = rates.PerToken(static_cast<double>(t.busy) / 1e6, 4);
  s.host_gap_ms_per_token = rates.PerToken(static_cast<double>(t.gap()) / 1e6, 4);
  if (t.wall != 0) {
    s.host_gap_pct_of_wall =
        PyRound(static_cast<double>(100 * t.gap()) / static_cast<double>(t.wall), 2);
  }
  const std::optional<double>& plain_tok_s = s.plain_decode_tok_s;
  if (plain_tok_s && *plain_tok_s != 0) {
    s.plain_wall_ms_per_token = PyRound(1000 / *plain_tok_s, 4);
    if (rates.tokens != 0) {
      s.plain_host_gap_ms_per_token_est =
          PyRound(1000 / *plain_tok_s - static_cast<double>(t.busy) / 1e6 / rates.tokens, 4);
    }
  }
}

// The roles a kernel was seen in, by RoleSlot: the first 64 slots in a word of its own (the
// shipped packs have fewer roles), the rest on the heap. Each part of the sums keeps one per
// kernel name it meets; a std::vector<bool> each cost an allocation, and with 200 000 names on
// 15 parts that was most of the summary's memory.
class RoleBits {
 public:
  explicit RoleBits(size_t slots) : more_(slots > kWord ? (slots - 1) / kWord : 0, 0) {}
  void Set(size_t slot) {
    if (slot < kWord) {
      first_ |= uint64_t{1} << slot;
    } else {
      more_[slot / kWord - 1] |= uint64_t{1} << (slot % kWord);
    }
  }
  bool Has(size_t slot) const {
    if (slot < kWord) return ((first_ >> slot) & 1) != 0;
    return ((more_[slot / kWord - 1] >> (slot % kWord)) & 1) != 0;
  }
  void Add(const RoleBits& other) {
    first_ |= other.first_;
    for (size_t w = 0; w < more_.size(); ++w) more_[w] |= other.more_[w];
  }

 private:
  static constexpr size_t kWord = 64;
  uint64_t first_ = 0;
  std::vector<uint64_t> more_;
};

// Totals of the window per kernel name, role and class, each in first-appearance order
// (seed spec 2.10).
struct KernelTotal {
  trace::StringId name;
  ClassId cls;
  int64_t calls = 0;
  int64_t ns = 0;
  RoleBits roles_seen;
};
struct Totals {
  std::vector<KernelTotal> kernels;
  InsertionTotals<RoleId> roles;
  InsertionTotals<ClassId> classes;
};

Totals SumByKernelRoleAndClass(const SummaryInputs& in, const Attribution& attribution) {
  const auto& decode = in.window->dispatches;
  const size_t role_slots = in.pack->role_names().size() + 1;
  // Summed in parts on several threads, then merged in part order: a kernel, role or class
  // first met in an earlier part, or earlier in the same part, comes first, as in one pass.
  // Each part keeps an entry for every kernel name it meets: with many names, fewer parts.
  std::vector<Totals> parts(base::kMaxPassParts);
  const size_t min_part = base::MinPartForNames(attribution.kernel_names);
  const size_t n = base::ForParts(decode.size(), min_part, [&](size_t p, size_t b, size_t e) {
    Totals& totals = parts[p];
    std::vector<int32_t> kernel_slot(in.names->size(), -1);
    base::spill::ReleaseBehind<trace::Dispatch> behind(decode.data(), b);
    for (size_t i = b; i < e; ++i) {
      behind.Passed(i);
      const trace::Dispatch& d = decode[i];
      const RoleId r = attribution.roles[i];
      const ClassId c = attribution.classes[i];
      if (kernel_slot[d.name] < 0) {
        kernel_slot[d.name] = static_cast<int32_t>(totals.kernels.size());
        totals.kernels.push_back(KernelTotal{d.name, c, 0, 0, RoleBits(role_slots)});
      }
      KernelTotal& k = totals.kernels[static_cast<size_t>(kernel_slot[d.name])];
      ++k.calls;
      k.ns += d.duration();
      k.roles_seen.Set(RoleSlot(r));
      auto& role_total = totals.roles.At(r, RoleSlot(r));
      role_total.ns += d.duration();
      ++role_total.calls;
      totals.classes.At(c, c).ns += d.duration();
    }
  });
  if (n == 1) return std::move(parts[0]);
  Totals totals;
  std::vector<int32_t> kernel_slot(in.names->size(), -1);
  for (size_t p = 0; p < n; ++p) {
    for (KernelTotal& part : parts[p].kernels) {
      if (kernel_slot[part.name] < 0) {
        kernel_slot[part.name] = static_cast<int32_t>(totals.kernels.size());
        totals.kernels.push_back(std::move(part));
        continue;
      }
      KernelTotal& k = totals.kernels[static_cast<size_t>(kernel_slot[part.name])];
      k.calls += part.calls;
      k.ns += part.ns;
      k.roles_seen.Add(part.roles_seen);
    }
    for (const auto& part : parts[p].roles.entries()) {
      auto& role_total = totals.roles.At(part.key, RoleSlot(part.key));
      role_total.ns += part.ns;
      role_total.calls += part.calls;
    }
    for (const auto& part : parts[p].classes.entries()) {
      auto& class_total = totals.classes.At(part.key, part.key);
      class_total.ns += part.ns;
      class_total.calls += part.calls;
    }
  }
  return totals;
}

// The window checks (seed spec 2.4): straddling kernels, the gap attribution's residual, and
// the idle time since the last dispatch before the window.
void SetChecks(const SummaryInputs& in, const WindowTimes& t, const GapAttribution& gaps,
               Summary& s) {
  const DecodeWindow& window = *in.window;
  s.kernels_straddling_decode_start = window.straddling;
  s.host_gap_attribution_residual_ns = gaps.total() - t.gap();
  if (window.last_before) {
    s.idle_gap_before_first_decode_dispatch_us = PyRound(
        static_cast<double>(window.dispatches.front().start - window.last_before->end) / 1e3, 1);
    s.last_dispatch_before_decode =
        std::string(base::TruncateCodePoints(in.names->Get(window.last_before->name), 120));
  }
}

// The seed reads role totals through a default-dict in its unit loop (seed spec 2.14): every
// fallback role of every unit, in table order, gets a (zero) entry when it has none, so the
// role tables list it.
void InsertUnitRoles(const UnitTable& units, InsertionTotals<RoleId>& roles) {
  for (const Unit& unit : units.units()) {
    for (RoleId r : unit.fallback_roles) roles.At(r, RoleSlot(r));
  }
}

// The inputs of ComputeWallFields for a set of roles and classes of the window (seed spec
// 2.9), from the window's totals and the summary's rounded plain and gap figures.
class WallInputsOfSets {
 public:
  WallInputsOfSets(const SummaryInputs& in, const Attribution& attribution, const Totals& totals,
                   const GapAttribution& gaps, const WindowTimes& t, const Summary& s)
      : decode_(in.window->dispatches),
        attribution_(attribution),
        roles_(totals.roles),
        classes_(totals.classes),
        gaps_(gaps),
        t_(t),
        tokens_(WindowTokensOf(in)),
        scale_(GapScale(s.plain_host_gap_ms_per_token_est, s.host_gap_ms_per_token)),
        plain_wall_ms_per_token_(s.plain_wall_ms_per_token) {
    // Per-dispatch gaps are needed (once) only when a unit names classes.
    const auto& units = in.units->units();
    if (std::any_of(units.begin(), units.end(), [](const Unit& u) { return !u.classes.empty(); })) {
      SumByRoleAndClass(*in.pack, in.window->lo, in.window->hi);
    }
  }

  // True when the window holds a dispatch of one of `classes` (always for an empty list): the
  // window's class totals hold every class met.
  bool AnyOf(const std::vector<ClassId>& classes) const {
    if (classes.empty()) return true;
    return std::any_of(classes.begin(), classes.end(),
                       [&](ClassId c) { return classes_.Find(c) != nullptr; });
  }

  // `roles` alone: the seed's role-set sums. With `classes`: every dispatch holding one of
  // the roles or classes counts once. HostGapOwnership::kAll owns the window's whole gap.
  WallFieldInputs For(const std::vector<RoleId>& roles, const std::vector<ClassId>& classes,
                      HostGapOwnership host_gap) const {
    WallFieldInputs w;
    if (classes.empty()) {
      for (RoleId r : roles) {
        if (const auto* e = roles_.Find(RoleSlot(r))) {
          w.kernel_ns += e->ns;
          w.calls += e->calls;
        }
        w.gap_ns += GapOfRole(r);
      }
    } else {
      for (const PairSums& p : pairs_) {
        if (p.calls == 0 || (!Contains(roles, p.role) && !Contains(classes, p.cls))) continue;
        w.kernel_ns += p.ns;
        w.calls += p.calls;
        w.gap_ns += p.gap_ns;
      }
    }
    if (host_gap == HostGapOwnership::kAll) w.gap_ns = t_.gap();
    w.gpu_sum_ns = t_.gpu_sum;
    w.wall_ns = t_.wall;
    w.tokens = tokens_;
    w.scale = scale_;
    w.plain_wall_ms_per_token = plain_wall_ms_per_token_;
    return w;
  }

 private:
  int64_t GapOfRole(RoleId r) const {
    for (const auto& [role, ns] : gaps_.per_role) {
      if (role == r) return ns;
    }
    return 0;
  }

  // The window's durations, dispatches and gaps per (role, class) pair, summed once: each
  // unit's sets then add up the pairs they hold instead of the dispatches.
  struct PairSums {
    RoleId role = kNoRole;
    ClassId cls = 0;
    int64_t ns = 0;
    int64_t calls = 0;
    int64_t gap_ns = 0;
  };
  // In parts on several threads, each pair's integer sums merged in part order; a pair for
  // each of the pack's roles (and none) and classes. The gap a dispatch ends is
  // GapEndedByEach's (intervals.h), each part starting from the frontier the parts before it
  // leave (ReachOfParts).
  void SumByRoleAndClass(const Pack& pack, trace::TimestampNs lo, trace::TimestampNs hi) {
    const std::vector<RoleId>& roles = attribution_.roles;
    const std::vector<ClassId>& classes = attribution_.classes;
    const FrontierParts parts = ReachOfParts(decode_, lo, hi);
    const size_t role_slots = pack.role_names().size() + 1;  // kNoRole (-1) first
    const size_t class_slots = pack.class_names().size();
    pairs_.assign(role_slots * class_slots, PairSums{});
    for (size_t r = 0; r < role_slots; ++r) {
      for (size_t c = 0; c < class_slots; ++c) {
        PairSums& p = pairs_[r * class_slots + c];
        p.role = static_cast<RoleId>(static_cast<int64_t>(r) - 1);
        p.cls = static_cast<ClassId>(c);
      }
    }
    // The same parts again, each from the latest end of the parts before it.
    std::array<std::vector<PairSums>, base::kMaxPassParts> sums;
    base::RunParts(parts.count, [&](size_t p) {
      std::vector<PairSums>& part = sums[p];
      part.assign(pairs_.size(), PairSums{});
      trace::TimestampNs frontier = parts.FrontierBefore(p, lo);
      base::spill::ReleaseBehind<trace::Dispatch> behind(decode_.data(), parts.part[p].begin);
      for (size_t i = parts.part[p].begin; i < parts.part[p].end; ++i) {
        behind.Passed(i);
        const trace::Dispatch& d = decode_[i];
        PairSums& pair =
            part[static_cast<size_t>(roles[i] + 1) * class_slots + static_cast<size_t>(classes[i])];
        pair.ns += d.duration();
        ++pair.calls;
        pair.gap_ns += std::max<DurationNs>(0, std::min(d.start, hi) - frontier);
        frontier = std::max(frontier, std::min(d.end, hi));
      }
    });
    for (size_t p = 0; p < parts.count; ++p) {
      for (size_t k = 0; k < pairs_.size(); ++k) {
        pairs_[k].ns += sums[p][k].ns;
        pairs_[k].calls += sums[p][k].calls;
        pairs_[k].gap_ns += sums[p][k].gap_ns;
      }
    }
  }

  const trace::DispatchVector& decode_;
  const Attribution& attribution_;
  const InsertionTotals<RoleId>& roles_;
  const InsertionTotals<ClassId>& classes_;
  const GapAttribution& gaps_;
  const WindowTimes& t_;
  double tokens_;
  std::optional<double> scale_;
  std::optional<double> plain_wall_ms_per_token_;
  std::vector<PairSums> pairs_;
};

// Every unit's shares, dispatches and ceilings, for its fallback, reached-default and opt-in
// sets, with the reach note (seed spec 2.8, 2.9).
std::vector<UnitSummary> SummarizeUnits(const SummaryInputs& in, const WallInputsOfSets& sets,
                                        const Rates& rates) {
  const auto& units = in.units->units();
  const auto& class_names = in.pack->class_names();
  const ModelConfig config = in.model.value_or(ModelConfig{});
  const bool sampled = in.temperature > 0;
  const std::vector<ClassId> no_classes;
  std::vector<UnitSummary> out;
  for (size_t u = 0; u < units.size(); ++u) {
    const Unit& unit = units[u];
    const UnitReach reach = in.units->Reach(u, config, sampled);
    // `requires`: without a dispatch of those classes the unit's classes count for nothing.
    const std::vector<ClassId>& unit_classes =
        sets.AnyOf(unit.requires_classes) ? unit.classes : no_classes;
    // A reached set is the whole unit (classes, owned host time) only when the reach case
    // says so; a list of roles reaches those roles and their own gaps.
    const auto reached_set = [&](const std::vector<RoleId>& roles, bool whole) {
      return whole ? sets.For(roles, unit_classes, unit.host_gap)
                   : sets.For(roles, no_classes, HostGapOwnership::kRoles);
    };
    const WallFieldInputs fallback = sets.For(unit.fallback_roles, unit_classes, unit.host_gap);
    const WallFieldInputs reached = reached_set(reach.default_roles, reach.default_whole);
    const WallFieldInputs optin = reached_set(reach.optin_roles, reach.optin_whole);
    UnitSummary summary;
    summary.id = unit.id;
    summary.port = unit.port;
    summary.fallback_share_pct = rates.Share(fallback.kernel_ns);
    summary.fallback_dispatches_per_token = rates.PerToken(static_cast<double>(fallback.calls), 1);
    summary.reached_default_share_pct = rates.Share(reached.kernel_ns);
    summary.reached_default_dispatches_per_token =
        rates.PerToken(static_cast<double>(reached.calls), 1);
    summary.reached_optin_share_pct = rates.Share(optin.kernel_ns);
    summary.fallback = ComputeWallFields(fallback);
    summary.reached_default = ComputeWallFields(reached);
    summary.reached_optin = ComputeWallFields(optin);
    summary.note = reach.note;
    for (ClassId c : unit.classes) summary.classes.push_back(class_names[c]);
    if (unit.host_gap == HostGapOwnership::kAll) summary.host_gap = "all";
    out.push_back(std::move(summary));
  }
  return out;
}

// A unit's `requires` (Unit::requires_classes): some kernel of the window has one of them.
bool RequiresMet(const Unit& unit, const std::vector<KernelTotal>& kernels) {
  if (unit.requires_classes.empty()) return true;
  return std::any_of(kernels.begin(), kernels.end(),
                     [&](const KernelTotal& k) { return Contains(unit.requires_classes, k.cls); });
}

// One row per kernel name by total time, descending, stable: class, roles and units seen,
// calls, time, shares (seed spec 2.10, 2.14).
std::vector<KernelStat> KernelTable(const SummaryInputs& in,
                                    const std::vector<KernelTotal>& kernels, const Rates& rates) {
  const auto& role_names = in.pack->role_names();
  const auto& units = in.units->units();
  std::vector<KernelStat> table;
  for (size_t idx : DescendingOrder(kernels, [](const KernelTotal& k) { return k.ns; })) {
    const KernelTotal& k = kernels[idx];
    KernelStat stat;
    stat.name = std::string(in.names->Get(k.name));
    stat.class_name = in.pack->class_names()[k.cls];
    for (size_t slot = 1; slot <= role_names.size(); ++slot) {
      if (k.roles_seen.Has(slot)) stat.roles.push_back(role_names[slot - 1]);
    }
    std::sort(stat.roles.begin(), stat.roles.end());
    for (const Unit& unit : units) {
      const bool holds = std::any_of(unit.fallback_roles.begin(), unit.fallback_roles.end(),
                                     [&](RoleId r) { return k.roles_seen.Has(RoleSlot(r)); }) ||
                         (Contains(unit.classes, k.cls) && RequiresMet(unit, kernels));
      if (holds) stat.unit_ids.push_back(unit.id);
    }
    std::sort(stat.unit_ids.begin(), stat.unit_ids.end());
    stat.calls = k.calls;
    stat.total_ns = k.ns;
    stat.calls_per_token = rates.PerToken(static_cast<double>(k.calls), 2);
    stat.avg_ns = base::PyRoundToInt(static_cast<double>(k.ns) / static_cast<double>(k.calls));
    stat.share_exact = rates.ExactShare(k.ns);
    stat.share_pct = rates.Share(k.ns);
    table.push_back(std::move(stat));
  }
  return table;
}

// class_share_pct: by raw ns, descending, stable.
NamedValues ClassShares(const Pack& pack, const InsertionTotals<ClassId>& classes,
                        const Rates& rates) {
  NamedValues shares;
  const auto& entries = classes.entries();
  for (size_t idx : DescendingOrder(entries, [](const auto& e) { return e.ns; })) {
    shares.emplace_back(pack.class_names()[entries[idx].key], rates.Share(entries[idx].ns));
  }
  return shares;
}

// role_share_pct: by raw ns, descending, stable.
NamedValues RoleShares(const Pack& pack, const InsertionTotals<RoleId>& roles, const Rates& rates) {
  NamedValues shares;
  const auto& entries = roles.entries();
  for (size_t idx : DescendingOrder(entries, [](const auto& e) { return e.ns; })) {
    shares.emplace_back(RoleName(pack, entries[idx].key), rates.Share(entries[idx].ns));
  }
  return shares;
}

// role_dispatches_per_token: insertion order.
NamedValues RoleDispatchesPerToken(const Pack& pack, const InsertionTotals<RoleId>& roles,
                                   const Rates& rates) {
  NamedValues rows;
  for (const auto& e : roles.entries()) {
    rows.emplace_back(RoleName(pack, e.key), rates.PerToken(static_cast<double>(e.calls), 1));
  }
  return rows;
}

// role_host_gap_ms_per_token: the gaps per role and the tail, by raw ns, descending, stable.
NamedValues RoleHostGaps(const Pack& pack, const GapAttribution& gaps, const Rates& rates) {
  std::vector<std::pair<std::string, int64_t>> gap_rows;
  for (const auto& [role, ns] : gaps.per_role) gap_rows.emplace_back(RoleName(pack, role), ns);
  gap_rows.emplace_back("tail", gaps.tail);
  NamedValues rows;
  for (size_t idx : DescendingOrder(gap_rows, [](const auto& e) { return e.second; })) {
    rows.emplace_back(gap_rows[idx].first,
                      rates.PerToken(static_cast<double>(gap_rows[idx].second) / 1e6, 4));
  }
  return rows;
}

// The units' fallback ceilings in rank order (ranking.h). A unit whose work a graph replay
// already does (Unit::unless_graph_replay) has no figure in a run whose steps replay graphs:
// it is never the advice there.
std::vector<RankedUnit> RankedUnitsOf(const std::vector<UnitSummary>& units,
                                      const std::vector<Unit>& table, bool graph_replay) {
  std::vector<UnitCeilings> ceilings;
  ceilings.reserve(units.size());
  for (const UnitSummary& u : units) {
    const auto def =
        std::find_if(table.begin(), table.end(), [&](const Unit& t) { return t.id == u.id; });
    if (graph_replay && def != table.end() && def->unless_graph_replay) {
      ceilings.push_back({u.id, std::nullopt, std::nullopt});
      continue;
    }
    ceilings.push_back({u.id, u.fallback.plain_ceiling_wall_est, u.fallback.ceiling_wall});
  }
  return RankUnits(ceilings);
}

// Widens each plain ceiling's value_range in `ranked` to take in the same unit's value in
// `other` (a summary over another plain run).
void WidenPlainCeilingRanges(const std::vector<RankedUnit>& other,
                             std::vector<RankedUnit>& ranked) {
  for (RankedUnit& r : ranked) {
    if (r.by != RankFigure::kPlainCeilingWallEst || !r.value) continue;
    for (const RankedUnit& o : other) {
      if (o.id != r.id || o.by != r.by || !o.value) continue;
      if (!r.value_range) r.value_range = std::make_pair(*r.value, *r.value);
      r.value_range->first = std::min(r.value_range->first, *o.value);
      r.value_range->second = std::max(r.value_range->second, *o.value);
    }
  }
}

// The run's facts as given (RunFacts), and the sampled steps' tracing cost measured against
// the window's figures: sampled − unsampled step time, per dispatch and per host gap of a step.
void SetRunFacts(const SummaryInputs& in, Summary& s) {
  const RunFacts& f = in.facts;
  s.warnings.insert(s.warnings.end(), f.warnings.begin(), f.warnings.end());
  s.trace_format = f.trace_format;
  s.trace_file = f.trace_file;
  s.device = f.device;
  s.window_source = f.window_source;
  s.window_evidence = f.window_evidence;
  s.engine_steps = f.engine_steps;
  s.workload = f.workload;
  s.plain_runs = f.plain_runs;
  s.rank = f.rank;
  s.speed_of_light = f.speed_of_light;
  s.sampling = in.sampling;
  auto& m = s.sampling;
  if (!m || !m->sampled_step_ms || !m->unsampled_step_ms) return;
  const double cost = *m->sampled_step_ms - *m->unsampled_step_ms;
  const auto k = static_cast<double>(m->steps_sampled);
  m->tracing_cost_ms_per_step = base::PyRound(cost, 3);
  if (s.decode_dispatches > 0) {
    m->tracing_cost_us_per_dispatch =
        base::PyRound(cost * 1000.0 / (static_cast<double>(s.decode_dispatches) / k), 3);
  }
  const double gap_per_step = (s.decode_wall_ms - s.decode_gpu_busy_ms) / k;
  if (gap_per_step > 0) {
    m->tracing_share_of_host_gap_pct = base::PyRound(100.0 * cost / gap_per_step, 2);
  }
}

}  // namespace

std::optional<double> WindowTokens(const Summary& s) {
  if (s.window_tokens) return s.window_tokens;
  if (s.generated_tokens) return static_cast<double>(*s.generated_tokens);
  return std::nullopt;
}

Attribution Attribute(const SummaryInputs& in) {
  const auto& dispatches = in.window->dispatches;
  const size_t n = dispatches.size();
  Attribution out;
  out.classes.resize(n);
  // In parts on several threads, counting their kernels and classifying each name once for
  // all of them: a memo shared by the parts, the class plus one where known (a pack is
  // immutable: its answers do not depend on the thread or the order; two parts that meet a
  // name at once both classify it, alike). A memo a part classified each name once a part: a
  // trace of 200 000 kernel names that recur every step took 12.6 s of CPU on 15 threads.
  std::vector<std::atomic<int32_t>> memo(in.names->size());  // zero: not classified yet
  std::atomic<size_t> kernel_names{0};
  struct Part {
    size_t begin = 0;
    size_t end = 0;
    size_t kernels = 0;
  };
  std::array<Part, base::kMaxPassParts> parts;
  // Each class's kernels and widest grid, counted here for the role rules that need them
  // before they scan (SequenceView::class_grids).
  const size_t class_count = in.pack->class_names().size();
  std::array<std::vector<ClassGrids>, base::kMaxPassParts> part_grids;
  const size_t part_count =
      base::ForParts(n, base::kMinPassPart, [&](size_t p, size_t b, size_t e) {
        size_t kernels = 0;
        std::vector<ClassGrids> grids(class_count);
        base::spill::ReleaseBehind<trace::Dispatch> behind(dispatches.data(), b);
        base::spill::ReleaseBehind<ClassId> written(out.classes.data(), b);
        for (size_t i = b; i < e; ++i) {
          behind.Passed(i);
          written.Passed(i);
          const trace::Dispatch& d = dispatches[i];
          if (d.kind != trace::DispatchKind::kKernel) {
            out.classes[i] = in.pack->ClassOf(d, in.names->Get(d.name));
            continue;
          }
          ++kernels;
          std::atomic<int32_t>& known = memo[d.name];
          int32_t cls_plus_one = known.load(std::memory_order_relaxed);
          if (cls_plus_one == 0) {
            cls_plus_one = static_cast<int32_t>(in.pack->Classify(in.names->Get(d.name))) + 1;
            int32_t unknown = 0;
            if (known.compare_exchange_strong(unknown, cls_plus_one, std::memory_order_relaxed)) {
              kernel_names.fetch_add(1, std::memory_order_relaxed);
            }
          }
          const auto cls = static_cast<ClassId>(cls_plus_one - 1);
          out.classes[i] = cls;
          if (cls < grids.size()) {
            ++grids[cls].kernels;
            grids[cls].widest = std::max(grids[cls].widest, d.grid);
          }
        }
        parts[p] = Part{b, e, kernels};
        part_grids[p] = std::move(grids);
      });
  size_t kernels = 0;
  for (size_t p = 0; p < part_count; ++p) kernels += parts[p].kernels;
  std::vector<ClassGrids> class_grids(class_count);
  for (size_t p = 0; p < part_count; ++p) {
    for (size_t c = 0; c < part_grids[p].size(); ++c) {
      class_grids[c].kernels += part_grids[p][c].kernels;
      class_grids[c].widest = std::max(class_grids[c].widest, part_grids[p][c].widest);
    }
  }
  out.kernel_names = kernel_names.load(std::memory_order_relaxed);
  // Role rules see the kernels only: their sequence rules describe the kernels an op
  // launches, and a memory operation between two of them (a token copied to the host, a
  // memset) would break a run. Memory operations keep no role.
  base::MarkStage("classes");
  if (kernels == n) {
    const SequenceView seq{dispatches,     in.names,  out.classes, in.has_grid, in.launch_thread,
                           in.launch_time, in.ranges, {},          {},          class_grids};
    out.roles = in.pack->AssignRoles(seq);
    base::MarkStage("roles");
    out.warnings = in.pack->RoleWarnings(seq);
    return out;
  }
  // The kernels as a compact view (SequenceView::grids): their names, grids, classes and
  // launch context, filled and read back in the same parts, each from its first kernel's
  // position among all of them. No copy of their dispatches.
  const bool context = !in.launch_time.empty();
  std::vector<trace::StringId> names;
  std::vector<int64_t> grids;
  std::vector<ClassId> classes;
  std::vector<uint64_t> threads;
  std::vector<trace::TimestampNs> times;
  base::ResizeFaultedIn(names, kernels);
  base::ResizeFaultedIn(grids, kernels);
  base::ResizeFaultedIn(classes, kernels);
  if (context) {
    base::ResizeFaultedIn(threads, kernels);
    base::ResizeFaultedIn(times, kernels);
  }
  std::array<size_t, base::kMaxPassParts> first_kernel{};
  for (size_t p = 1; p < part_count; ++p) {
    first_kernel[p] = first_kernel[p - 1] + parts[p - 1].kernels;
  }
  // Each part lets go of what it has read and written as it goes (where the arrays are in
  // files, base/spill.h): with 15 threads the watcher alone let the view's 30 bytes a kernel
  // pile up (16.8 M kernels, a 32 MiB budget: the role stage peaked at 409-445 MiB, now 307).
  base::RunParts(part_count, [&](size_t p) {
    const size_t b = parts[p].begin;
    size_t k = first_kernel[p];
    base::spill::ReleaseBehind<trace::Dispatch> behind(dispatches.data(), b);
    base::spill::ReleaseBehind<ClassId> class_read(out.classes.data(), b);
    base::spill::ReleaseBehind<uint64_t> thread_read(in.launch_thread.data(), b);
    base::spill::ReleaseBehind<trace::TimestampNs> time_read(in.launch_time.data(), b);
    base::spill::ReleaseBehind<trace::StringId> names_written(names.data(), k);
    base::spill::ReleaseBehind<int64_t> grids_written(grids.data(), k);
    base::spill::ReleaseBehind<ClassId> classes_written(classes.data(), k);
    base::spill::ReleaseBehind<uint64_t> threads_written(threads.data(), k);
    base::spill::ReleaseBehind<trace::TimestampNs> times_written(times.data(), k);
    for (size_t i = b; i < parts[p].end; ++i) {
      behind.Passed(i);
      const trace::Dispatch& d = dispatches[i];
      if (d.kind != trace::DispatchKind::kKernel) continue;
      class_read.Passed(i);
      names_written.Passed(k);
      grids_written.Passed(k);
      classes_written.Passed(k);
      names[k] = d.name;
      grids[k] = d.grid;
      classes[k] = out.classes[i];
      if (context) {
        thread_read.Passed(i);
        time_read.Passed(i);
        threads_written.Passed(k);
        times_written.Passed(k);
        threads[k] = in.launch_thread[i];
        times[k] = in.launch_time[i];
      }
      ++k;
    }
  });
  base::MarkStage("role view");
  const SequenceView seq{{},    in.names,  classes, in.has_grid, threads,
                         times, in.ranges, names,   grids,       class_grids};
  const std::vector<RoleId> roles = in.pack->AssignRoles(seq);
  base::MarkStage("roles");
  base::ResizeFaultedIn(out.roles, n, kNoRole);
  base::RunParts(part_count, [&](size_t p) {
    size_t k = first_kernel[p];
    base::spill::ReleaseBehind<trace::Dispatch> behind(dispatches.data(), parts[p].begin);
    base::spill::ReleaseBehind<RoleId> written(out.roles.data(), parts[p].begin);
    base::spill::ReleaseBehind<RoleId> read(roles.data(), k);
    for (size_t i = parts[p].begin; i < parts[p].end; ++i) {
      behind.Passed(i);
      written.Passed(i);
      if (dispatches[i].kind != trace::DispatchKind::kKernel) continue;
      read.Passed(k);
      out.roles[i] = roles[k++];
    }
  });
  out.warnings = in.pack->RoleWarnings(seq);
  return out;
}

namespace {

// What the summary sums over the window's dispatches, once: the same for the summary of each
// plain run (BuildSummary's extremes).
struct WindowSums {
  WindowTimes times;
  Totals totals;
  GapAttribution gaps;
};

base::StatusOr<WindowSums> SumWindow(const SummaryInputs& in, const Attribution& attribution) {
  const DecodeWindow& window = *in.window;
  WindowSums w;
  w.times = MeasureWindow(window);
  w.totals = SumByKernelRoleAndClass(in, attribution);
  DP_ASSIGN_OR_RETURN(w.gaps,
                      AttributeGaps(window.dispatches, attribution.roles, window.lo, window.hi));
  InsertUnitRoles(*in.units, w.totals.roles);
  return w;
}

Summary SummaryOf(const SummaryInputs& in, const Attribution& attribution, const WindowSums& w) {
  const DecodeWindow& window = *in.window;
  const WindowTimes& times = w.times;
  const Totals& totals = w.totals;
  const GapAttribution& gaps = w.gaps;
  const Rates rates{WindowTokensOf(in), times.gpu_sum};
  Summary s;
  SetRunIdentity(in, s);
  SetTokenFigures(in, s);
  SetTimeFigures(window, times, rates, s);
  SetChecks(in, times, gaps, s);
  s.units = SummarizeUnits(in, WallInputsOfSets(in, attribution, totals, gaps, times, s), rates);
  s.kernels = KernelTable(in, totals.kernels, rates);
  s.class_share_pct = ClassShares(*in.pack, totals.classes, rates);
  s.role_share_pct = RoleShares(*in.pack, totals.roles, rates);
  s.role_dispatches_per_token = RoleDispatchesPerToken(*in.pack, totals.roles, rates);
  s.role_host_gap_ms_per_token = RoleHostGaps(*in.pack, gaps, rates);
  s.warnings = attribution.warnings;
  s.ranked_units = RankedUnitsOf(s.units, in.units->units(), in.graph_replay);
  SetRunFacts(in, s);
  return s;
}

}  // namespace

base::StatusOr<Summary> BuildSummary(const SummaryInputs& in, const Attribution& attribution) {
  DP_ASSIGN_OR_RETURN(const WindowSums w, SumWindow(in, attribution));
  Summary s = SummaryOf(in, attribution, w);
  // How much the plain runs' spread could move each plain ceiling: the same summary over the
  // slowest and the fastest plain run.
  for (const trace::BenchResults& extreme : in.plain_extremes) {
    SummaryInputs other = in;
    other.plain = extreme;
    other.plain_extremes.clear();
    const Summary o = SummaryOf(other, attribution, w);
    WidenPlainCeilingRanges(o.ranked_units, s.ranked_units);
  }
  return s;
}

}  // namespace decodeprof::analysis
