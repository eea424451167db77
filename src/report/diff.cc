#include "src/report/diff.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "src/base/py_format.h"
#include "src/report/markdown_table.h"
#include "src/report/short_name.h"
#include "src/report/summary_view.h"

namespace decodeprof::report {
namespace {

using Json = nlohmann::ordered_json;

// The members of a JSON object by key (none for a non-object). nlohmann's ordered_json finds
// keys by a linear scan; hostile summaries with many classes, units or kernels must not make
// the comparison quadratic.
using MemberIndex = std::unordered_map<std::string_view, const Json*>;

MemberIndex IndexMembers(const Json& object) {
  MemberIndex index;
  if (!object.is_object()) return index;
  index.reserve(object.size());
  for (const auto& [key, value] : object.items()) index.emplace(key, &value);
  return index;
}

const Json* FindMember(const MemberIndex& index, std::string_view key) {
  const auto it = index.find(key);
  return it == index.end() ? nullptr : it->second;
}

// Appends the keys of `object` that `seen` lacks, in their order.
void AppendNewKeys(const Json& object, std::unordered_set<std::string>& seen,
                   std::vector<std::string>& keys) {
  if (!object.is_object()) return;
  for (const auto& [key, value] : object.items()) {
    if (seen.insert(key).second) keys.push_back(key);
  }
}

// A numeric value as stored; missing when null (or not a number).
DiffFigure FigureOf(const Json& value) {
  if (!value.is_number()) return DiffFigure{};
  DiffFigure figure;
  figure.value = value.get<double>();
  if (value.is_number_unsigned()) {
    const uint64_t u = value.get<uint64_t>();
    if (u <= static_cast<uint64_t>(INT64_MAX)) figure.integer = static_cast<int64_t>(u);
  } else if (value.is_number_integer()) {
    figure.integer = value.get<int64_t>();
  }
  return figure;
}

template <typename T>
DiffFigure Stored(const SummaryValue<T>& field) {
  return FigureOf(field.json());
}

// A derived figure: the value rounded to 4 decimals; missing when there is none or it is not
// finite.
DiffFigure Derived(std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return DiffFigure{};
  return DiffFigure{base::PyRound(*value, 4) + 0.0, std::nullopt};
}

std::optional<double> Quotient(std::optional<double> numerator, std::optional<double> divisor) {
  if (!numerator || !divisor || *divisor == 0.0) return std::nullopt;
  return *numerator / *divisor;
}

// after − before rounded to 4 decimals (+ 0.0 turns -0.0 into 0.0).
std::optional<double> Change(const DiffFigure& before, const DiffFigure& after) {
  if (!before.value || !after.value) return std::nullopt;
  const double change = *after.value - *before.value;
  if (!std::isfinite(change)) return std::nullopt;
  return base::PyRound(change, 4) + 0.0;
}

// numerator / denominator rounded to 2 decimals, only when both are > 0.
std::optional<double> Ratio(const DiffFigure& numerator, const DiffFigure& denominator) {
  if (!numerator.value || !denominator.value || !(*numerator.value > 0.0) ||
      !(*denominator.value > 0.0)) {
    return std::nullopt;
  }
  const double ratio = *numerator.value / *denominator.value;
  if (!std::isfinite(ratio)) return std::nullopt;
  return base::PyRound(ratio, 2);
}

// share / 100 × decode_gpu_sum_ms / generated_tokens (the formula of `report --full`'s unit
// table; window_tokens for a sampled recording, WindowTokens), derived.
struct GpuTimeBasis {
  DiffFigure gpu_sum_ms;
  std::optional<double> tokens;

  DiffFigure MsPerToken(const DiffFigure& share_pct) const {
    if (!share_pct.value || !gpu_sum_ms.value) return DiffFigure{};
    return Derived(Quotient(*share_pct.value * *gpu_sum_ms.value / 100.0, tokens));
  }
};

GpuTimeBasis GpuBasis(const SummaryFile& summary) {
  return {Stored(RunView(summary).decode_gpu_sum_ms()), WindowTokens(summary.content)};
}

// ---- per token ---------------------------------------------------------------------------

// The per-token figures of one run, in the order of SummaryDiff::per_token.
std::vector<DiffFigure> PerTokenFigures(const SummaryFile& summary) {
  const RunView s(summary);
  std::vector<DiffFigure> figures;
  // plain ms/token: stored, else 1000 / plain tok/s.
  DiffFigure plain_ms = Stored(s.plain_wall_ms_per_token());
  DiffFigure plain_tok_s = Stored(s.plain_decode_tok_s());
  if (plain_tok_s.value && *plain_tok_s.value == 0.0) plain_tok_s = DiffFigure{};  // no plain run
  if (!plain_ms.value) plain_ms = Derived(Quotient(1000.0, plain_tok_s.value));
  figures.push_back(plain_ms);
  // profiled ms/token: decode wall / the tokens it stands for, else 1000 / profiled tok/s.
  const DiffFigure wall = Stored(s.decode_wall_ms());
  const DiffFigure profiled_tok_s = Stored(s.profiled_decode_tok_s());
  DiffFigure profiled_ms = Derived(Quotient(wall.value, WindowTokens(summary.content)));
  if (!profiled_ms.value) profiled_ms = Derived(Quotient(1000.0, profiled_tok_s.value));
  figures.push_back(profiled_ms);
  figures.push_back(Stored(s.gpu_ms_per_token()));
  figures.push_back(Stored(s.host_gap_ms_per_token()));
  figures.push_back(Stored(s.plain_host_gap_ms_per_token_est()));
  figures.push_back(Stored(s.dispatches_per_token()));
  figures.push_back(plain_tok_s);
  figures.push_back(profiled_tok_s);
  return figures;
}

std::vector<DiffRow> PerTokenRows(const SummaryFile& before, const SummaryFile& after) {
  struct RowSpec {
    const char* key;
    const char* label;
    bool rate;  // higher is better: ratio = after / before
  };
  static constexpr RowSpec kRows[] = {
      {"plain_ms_per_token", "plain ms/token", false},
      {"profiled_ms_per_token", "profiled ms/token", false},
      {"gpu_busy_ms_per_token", "GPU busy ms/token", false},
      {"host_gap_ms_per_token", "host gap ms/token", false},
      {"plain_gap_ms_per_token", "plain gap ms/token", false},
      {"dispatches_per_token", "dispatches/token", false},
      {"plain_tok_s", "plain tok/s", true},
      {"profiled_tok_s", "profiled tok/s", true},
  };
  const std::vector<DiffFigure> b = PerTokenFigures(before);
  const std::vector<DiffFigure> a = PerTokenFigures(after);
  std::vector<DiffRow> rows;
  for (size_t i = 0; i < std::size(kRows); ++i) {
    DiffRow row{kRows[i].key, kRows[i].label, b[i], a[i], Change(b[i], a[i]), std::nullopt};
    row.ratio = kRows[i].rate ? Ratio(a[i], b[i]) : Ratio(b[i], a[i]);
    rows.push_back(std::move(row));
  }
  return rows;
}

// ---- kernel classes ----------------------------------------------------------------------

// class_share_pct: null when absent (or not an object).
const Json& ClassShares(const SummaryFile& summary) {
  static const Json kNull;
  const Json& shares = RunView(summary).class_share_pct().json();
  return shares.is_object() ? shares : kNull;
}

// |a| before |b|, larger first; missing values last. 0 when neither orders first.
int CompareMagnitudeDesc(std::optional<double> a, std::optional<double> b) {
  if (a.has_value() != b.has_value()) return a.has_value() ? -1 : 1;
  if (!a || std::fabs(*a) == std::fabs(*b)) return 0;
  return std::fabs(*a) > std::fabs(*b) ? -1 : 1;
}

std::vector<DiffClass> ClassRows(const SummaryFile& before, const SummaryFile& after) {
  const Json& b = ClassShares(before);
  const Json& a = ClassShares(after);
  const GpuTimeBasis b_basis = GpuBasis(before);
  const GpuTimeBasis a_basis = GpuBasis(after);
  std::vector<std::string> names;
  std::unordered_set<std::string> seen;
  AppendNewKeys(b, seen, names);
  AppendNewKeys(a, seen, names);
  const MemberIndex b_index = IndexMembers(b);
  const MemberIndex a_index = IndexMembers(a);
  // A run with class_share_pct lacks a class only when none of its kernels ran: 0.0.
  const auto share_of = [](const Json& shares, const MemberIndex& index,
                           const std::string& name) -> DiffFigure {
    if (shares.is_null()) return DiffFigure{};
    const Json* value = FindMember(index, name);
    if (value == nullptr) return DiffFigure{0.0, std::nullopt};
    return FigureOf(*value);
  };
  std::vector<DiffClass> rows;
  for (const std::string& name : names) {
    DiffClass row;
    row.name = name;
    row.before_share_pct = share_of(b, b_index, name);
    row.after_share_pct = share_of(a, a_index, name);
    row.before_gpu_ms_per_token = b_basis.MsPerToken(row.before_share_pct);
    row.after_gpu_ms_per_token = a_basis.MsPerToken(row.after_share_pct);
    row.change = Change(row.before_gpu_ms_per_token, row.after_gpu_ms_per_token);
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const DiffClass& x, const DiffClass& y) {
    if (const int c = CompareMagnitudeDesc(x.change, y.change); c != 0) return c < 0;
    return x.name < y.name;
  });
  return rows;
}

// ---- units and the speedup check ---------------------------------------------------------

DiffUnitSide UnitSide(const GpuTimeBasis& basis, const UnitView& unit) {
  DiffUnitSide side;
  if (unit.json().is_null()) return side;
  side.present = true;
  side.share_pct = Stored(unit.fallback_share_pct());
  side.gpu_ms_per_token = basis.MsPerToken(side.share_pct);
  side.host_gap_ms_per_token = Stored(unit.fallback_host_gap_ms_per_token());
  side.plain_ceiling_wall_est = Stored(unit.plain_ceiling_wall_est());
  side.ceiling_wall = Stored(unit.ceiling_wall());
  return side;
}

std::vector<DiffUnit> UnitRows(const SummaryFile& before, const SummaryFile& after) {
  const Json& b_units = PortUnits(before);
  const Json& a_units = PortUnits(after);
  // UnitColumns' order (BEFORE's units, then AFTER-only ones), without its quadratic search.
  std::vector<std::string> ids;
  std::unordered_set<std::string> seen;
  AppendNewKeys(b_units, seen, ids);
  AppendNewKeys(a_units, seen, ids);
  const MemberIndex b_index = IndexMembers(b_units);
  const MemberIndex a_index = IndexMembers(a_units);
  static const Json kAbsent;
  const GpuTimeBasis b_basis = GpuBasis(before);
  const GpuTimeBasis a_basis = GpuBasis(after);
  std::vector<DiffUnit> units;
  for (const std::string& id : ids) {
    DiffUnit unit;
    unit.id = id;
    const Json* b_found = FindMember(b_index, id);
    const Json* a_found = FindMember(a_index, id);
    const Json& b = b_found != nullptr ? *b_found : kAbsent;
    const Json& a = a_found != nullptr ? *a_found : kAbsent;
    const Json& port = UnitView(b.is_null() ? a : b).port().json();
    if (!port.is_null()) unit.port = PyStr(port);
    unit.before = UnitSide(b_basis, UnitView(b));
    unit.after = UnitSide(a_basis, UnitView(a));
    units.push_back(std::move(unit));
  }
  return units;
}

std::string StripHash(const std::string& id) { return id.starts_with('#') ? id.substr(1) : id; }

base::StatusOr<DiffSpeedupCheck> SpeedupCheck(const std::vector<DiffRow>& per_token,
                                              const std::vector<DiffUnit>& units,
                                              const std::vector<analysis::RankedUnit>& ranked,
                                              const DiffOptions& options) {
  const DiffRow& plain = per_token[0];
  const DiffRow& profiled = per_token[1];
  const auto has_plain_ceiling = [](const DiffUnit& u) {
    return u.before.plain_ceiling_wall_est.value.has_value();
  };
  const DiffUnit* chosen = nullptr;
  if (!options.unit.empty()) {
    const std::string id = StripHash(options.unit);
    std::string known;
    for (const DiffUnit& unit : units) {
      if (!unit.before.present) continue;
      if (unit.id == id) chosen = &unit;
      known += (known.empty() ? "#" : ", #") + unit.id;
    }
    if (chosen == nullptr) {
      return base::UsageError(
          "--unit " + options.unit + ": BEFORE has no unit #" + id,
          known.empty() ? "BEFORE has no port_units" : "BEFORE's units: " + known);
    }
  }
  // Plain basis when both runs have plain figures and BEFORE plain ceilings (seed spec 2.9).
  const bool plain_basis =
      plain.ratio.has_value() &&
      (chosen != nullptr ? has_plain_ceiling(*chosen)
                         : std::any_of(units.begin(), units.end(), has_plain_ceiling));
  DiffSpeedupCheck check;
  check.basis = plain_basis ? "plain" : "profiled";
  check.measured_speedup = plain_basis ? plain.ratio : profiled.ratio;
  const auto ceiling = [plain_basis](const DiffUnit& u) -> const DiffFigure& {
    return plain_basis ? u.before.plain_ceiling_wall_est : u.before.ceiling_wall;
  };
  if (chosen == nullptr) {
    // BEFORE's first unit in its rank order that has a ceiling on the basis.
    std::unordered_map<std::string_view, const DiffUnit*> before_units;
    for (const DiffUnit& unit : units) {
      if (unit.before.present) before_units.emplace(unit.id, &unit);
    }
    for (const analysis::RankedUnit& r : ranked) {
      const auto it = before_units.find(r.id);
      if (it != before_units.end() && ceiling(*it->second).value) {
        chosen = it->second;
        break;
      }
    }
  }
  if (chosen != nullptr) {
    check.unit = chosen->id;
    check.predicted_ceiling = ceiling(*chosen);
  }
  return check;
}

// ---- top kernels -------------------------------------------------------------------------

struct TopKernel {
  std::string name;
  DiffFigure share_pct;
  DiffFigure calls_per_token;
};

std::vector<TopKernel> TopKernels(const SummaryFile& summary) {
  const std::vector<TopKernelEntry> entries = TopKernelEntries(summary);
  std::vector<TopKernel> kernels;
  kernels.reserve(entries.size());
  for (const TopKernelEntry& e : entries) {
    kernels.push_back({*e.name, Stored(e.fields.share_pct()), Stored(e.fields.calls_per_token())});
  }
  return kernels;
}

// Full name → the first entry of that name.
std::unordered_map<std::string_view, const TopKernel*> IndexKernels(
    const std::vector<TopKernel>& kernels) {
  std::unordered_map<std::string_view, const TopKernel*> index;
  for (const TopKernel& kernel : kernels) index.emplace(kernel.name, &kernel);
  return index;
}

const TopKernel* FindKernel(const std::unordered_map<std::string_view, const TopKernel*>& index,
                            const std::string& name) {
  const auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

DiffKernel MakeKernel(const std::string& name, const TopKernel* before, const TopKernel* after) {
  DiffKernel kernel;
  kernel.kernel = name;
  kernel.short_name = ShortKernelName(name);
  if (before != nullptr) {
    kernel.before_share_pct = before->share_pct;
    kernel.before_calls_per_token = before->calls_per_token;
  }
  if (after != nullptr) {
    kernel.after_share_pct = after->share_pct;
    kernel.after_calls_per_token = after->calls_per_token;
  }
  kernel.share_change = Change(kernel.before_share_pct, kernel.after_share_pct);
  kernel.calls_change = Change(kernel.before_calls_per_token, kernel.after_calls_per_token);
  return kernel;
}

// Indices into `kernels` of the `limit` largest |change|s (`nonzero`: only changes != 0).
std::vector<size_t> LargestChanges(const std::vector<DiffKernel>& kernels,
                                   std::optional<double> DiffKernel::*change, bool nonzero,
                                   size_t limit) {
  std::vector<size_t> order;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const std::optional<double>& value = kernels[i].*change;
    if (nonzero && (!value || *value == 0.0)) continue;
    order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return CompareMagnitudeDesc(kernels[x].*change, kernels[y].*change) < 0;
  });
  if (order.size() > limit) order.resize(limit);
  return order;
}

void CompareTopKernels(const SummaryFile& before, const SummaryFile& after, SummaryDiff& diff) {
  const std::vector<TopKernel> b = TopKernels(before);
  const std::vector<TopKernel> a = TopKernels(after);
  const auto b_index = IndexKernels(b);
  const auto a_index = IndexKernels(a);
  std::vector<DiffKernel> common;
  for (const TopKernel& kernel : b) {
    const TopKernel* match = FindKernel(a_index, kernel.name);
    if (match == nullptr) {
      diff.only_before.push_back(MakeKernel(kernel.name, &kernel, nullptr));
    } else {
      common.push_back(MakeKernel(kernel.name, &kernel, match));
    }
  }
  for (const TopKernel& kernel : a) {
    if (FindKernel(b_index, kernel.name) == nullptr) {
      diff.only_after.push_back(MakeKernel(kernel.name, nullptr, &kernel));
    }
  }
  std::vector<size_t> shown =
      LargestChanges(common, &DiffKernel::share_change, false, kDiffCommonKernelsPerRanking);
  for (const size_t i :
       LargestChanges(common, &DiffKernel::calls_change, true, kDiffCommonKernelsPerRanking)) {
    if (std::find(shown.begin(), shown.end(), i) == shown.end()) shown.push_back(i);
  }
  for (const size_t i : shown) diff.common_kernels.push_back(common[i]);
  std::stable_sort(diff.common_kernels.begin(), diff.common_kernels.end(),
                   [](const DiffKernel& x, const DiffKernel& y) {
                     if (const int c = CompareMagnitudeDesc(x.share_change, y.share_change)) {
                       return c < 0;
                     }
                     if (const int c = CompareMagnitudeDesc(x.calls_change, y.calls_change)) {
                       return c < 0;
                     }
                     if (x.short_name != y.short_name) return x.short_name < y.short_name;
                     return x.kernel < y.kernel;
                   });
  diff.common_kernels_left_out = common.size() - diff.common_kernels.size();
}

// `after` is worse than `before` by more than `pct` % (a cost that rose, a rate that fell);
// the change in % of `before` when it is.
std::optional<double> Worse(const DiffFigure& before, const DiffFigure& after, bool rate,
                            double pct) {
  if (!before.value || !after.value || *before.value <= 0.0) return std::nullopt;
  const double change = (*after.value - *before.value) / *before.value * 100.0;
  if (!std::isfinite(change)) return std::nullopt;
  if (rate ? -change > pct : change > pct) return base::PyRound(change, 2);
  return std::nullopt;
}

}  // namespace

std::vector<DiffRegression> FindRegressions(const SummaryFile& before, const SummaryFile& after,
                                            const SummaryDiff& diff, double pct) {
  std::vector<DiffRegression> out;
  const auto add = [&](std::string what, const DiffFigure& b, const DiffFigure& a, bool rate) {
    if (const std::optional<double> change = Worse(b, a, rate, pct)) {
      out.push_back({std::move(what), *b.value, *a.value, *change});
    }
  };
  for (const DiffRow& row : diff.per_token) {
    add(row.label, row.before, row.after, row.key.ends_with("_tok_s"));
  }
  for (const DiffUnit& unit : diff.units) {
    if (!unit.before.present || !unit.after.present) continue;
    add("#" + unit.id + " GPU ms/token", unit.before.gpu_ms_per_token, unit.after.gpu_ms_per_token,
        false);
    add("#" + unit.id + " host gap ms/token", unit.before.host_gap_ms_per_token,
        unit.after.host_gap_ms_per_token, false);
  }
  const GpuTimeBasis b_basis = GpuBasis(before);
  const GpuTimeBasis a_basis = GpuBasis(after);
  const std::vector<TopKernel> b = TopKernels(before);
  const std::vector<TopKernel> a = TopKernels(after);
  const auto a_index = IndexKernels(a);
  for (const TopKernel& kernel : b) {
    const TopKernel* match = FindKernel(a_index, kernel.name);
    if (match == nullptr) continue;
    const std::string name = "kernel `" + ShortKernelName(kernel.name) + "`";
    add(name + " GPU ms/token", b_basis.MsPerToken(kernel.share_pct),
        a_basis.MsPerToken(match->share_pct), false);
    add(name + " calls/token", kernel.calls_per_token, match->calls_per_token, false);
  }
  return out;
}

namespace {

// The speed-of-light figures, read as stored (speed_of_light_section.h).
std::optional<DiffSpeedOfLight> SpeedOfLightRows(const SummaryFile& before,
                                                 const SummaryFile& after) {
  if (!before.speed_of_light && !after.speed_of_light) return std::nullopt;
  const SpeedOfLightView b = RunView(before).SpeedOfLight();
  const SpeedOfLightView a = RunView(after).SpeedOfLight();
  enum class Better { kLower, kHigher, kNone };
  struct Figure {
    const SummaryField& field;
    const char* label;
    Better better;
  };
  namespace sol = summary_schema::sol;
  static const Figure kFigures[] = {
      {sol::mbu_pct, "MBU %", Better::kHigher},
      {sol::floor_ms_per_token, "floor ms/token", Better::kLower},
      {sol::wall_ms_per_token, "wall ms/token", Better::kLower},
      {sol::to_the_floor, "to the floor (x)", Better::kLower},
      {sol::achieved_gbps, "achieved GB/s", Better::kHigher},
      {sol::context_tokens, "context tokens", Better::kNone},
      {sol::bytes_per_token, "bytes/token", Better::kNone},
      {sol::peak_bandwidth_gbps, "peak GB/s", Better::kNone},
  };
  DiffSpeedOfLight out;
  for (const Figure& f : kFigures) {
    DiffRow row{std::string(f.field.key), f.label,      FigureOf(b.Get(f.field)),
                FigureOf(a.Get(f.field)), std::nullopt, std::nullopt};
    row.change = Change(row.before, row.after);
    if (f.better == Better::kHigher) row.ratio = Ratio(row.after, row.before);
    if (f.better == Better::kLower) row.ratio = Ratio(row.before, row.after);
    out.figures.push_back(std::move(row));
  }
  const ObjectMapView<SolUnitView> before_units = b.Units();
  const ObjectMapView<SolUnitView> after_units = a.Units();
  if (before_units.is_object() && after_units.is_object()) {
    for (const auto& [id, unit] : before_units.Entries()) {
      const SolUnitView other = after_units.At(id);
      if (!other.is_object()) continue;
      DiffSolUnit row{
          id,           Stored(unit.excess_ms_per_token()), Stored(other.excess_ms_per_token()),
          std::nullopt, Stored(unit.ceiling_to_floor()),    Stored(other.ceiling_to_floor())};
      row.change = Change(row.before_excess_ms_per_token, row.after_excess_ms_per_token);
      out.units.push_back(std::move(row));
    }
  }
  return out;
}

}  // namespace

base::StatusOr<SummaryDiff> DiffSummaries(const SummaryFile& before, const SummaryFile& after,
                                          const DiffOptions& options) {
  SummaryDiff diff;
  diff.before_path = before.path;
  diff.after_path = after.path;
  diff.before_name = RunView(before).name().Str();
  diff.after_name = RunView(after).name().Str();
  diff.per_token = PerTokenRows(before, after);
  diff.speed_of_light = SpeedOfLightRows(before, after);
  diff.classes = ClassRows(before, after);
  diff.units = UnitRows(before, after);
  DP_ASSIGN_OR_RETURN(diff.speedup_check,
                      SpeedupCheck(diff.per_token, diff.units, RankedUnits(before), options));
  CompareTopKernels(before, after, diff);
  return diff;
}

}  // namespace decodeprof::report
