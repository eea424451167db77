#include "src/analysis/summary.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

#include "src/analysis/intervals.h"
#include "src/base/py_format.h"
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

}  // namespace

Attribution Attribute(const SummaryInputs& in) {
  const auto& dispatches = in.window->dispatches;
  Attribution out;
  out.classes.reserve(dispatches.size());
  std::vector<int32_t> memo(in.names->size(), -1);  // class per interned name
  for (const trace::Dispatch& d : dispatches) {
    if (d.kind != trace::DispatchKind::kKernel) {
      out.classes.push_back(in.pack->ClassOf(d, in.names->Get(d.name)));
      continue;
    }
    if (memo[d.name] < 0) memo[d.name] = in.pack->Classify(in.names->Get(d.name));
    out.classes.push_back(static_cast<ClassId>(memo[d.name]));
  }
  // Role rules see the kernels only: their sequence rules describe the kernels an op
  // launches, and a memory operation between two of them (a token copied to the host, a
  // memset) would break a run. Memory operations keep no role.
  const bool all_kernels =
      std::all_of(dispatches.begin(), dispatches.end(),
                  [](const trace::Dispatch& d) { return d.kind == trace::DispatchKind::kKernel; });
  if (all_kernels) {
    const SequenceView seq{dispatches,       in.names,       out.classes, in.has_grid,
                           in.launch_thread, in.launch_time, in.ranges};
    out.roles = in.pack->AssignRoles(seq);
    out.warnings = in.pack->RoleWarnings(seq);
    return out;
  }
  std::vector<size_t> at;  // window index of each kernel
  std::vector<trace::Dispatch> kernels;
  std::vector<ClassId> classes;
  std::vector<uint64_t> threads;
  std::vector<trace::TimestampNs> times;
  for (size_t i = 0; i < dispatches.size(); ++i) {
    if (dispatches[i].kind != trace::DispatchKind::kKernel) continue;
    at.push_back(i);
    kernels.push_back(dispatches[i]);
    classes.push_back(out.classes[i]);
    if (!in.launch_time.empty()) {
      threads.push_back(in.launch_thread[i]);
      times.push_back(in.launch_time[i]);
    }
  }
  const SequenceView seq{kernels, in.names, classes, in.has_grid, threads, times, in.ranges};
  const std::vector<RoleId> roles = in.pack->AssignRoles(seq);
  out.roles.assign(dispatches.size(), kNoRole);
  for (size_t k = 0; k < at.size(); ++k) out.roles[at[k]] = roles[k];
  out.warnings = in.pack->RoleWarnings(seq);
  return out;
}

base::StatusOr<Summary> BuildSummary(const SummaryInputs& in, const Attribution& attribution) {
  const DecodeWindow& window = *in.window;
  const auto& decode = window.dispatches;
  const Pack& pack = *in.pack;
  const auto& role_names = pack.role_names();
  const auto& class_names = pack.class_names();
  const auto role_name = [&](RoleId r) -> std::string {
    return r == kNoRole ? kUnattributed : role_names[static_cast<size_t>(r)];
  };

  Summary s;
  s.name = in.name;
  s.temperature = in.temperature;
  s.clock = window.clock;
  s.pack = in.pack_name;
  s.units_file = in.units_name;
  if (in.model && in.model_type_present) s.model_type = in.model->model_type;

  const int64_t tokens = in.profiled.generated_tokens.value_or(0);
  const auto tok = static_cast<double>(tokens);
  const auto per_token = [&](double value, int digits) -> std::optional<double> {
    if (tokens == 0) return std::nullopt;
    return PyRound(value / tok, digits);
  };

  // ---- time metrics (seed spec 2.5) -------------------------------------------------------
  DurationNs gpu_sum = 0;
  for (const auto& d : decode) gpu_sum += d.duration();
  const DurationNs busy = BusyUnion(decode, window.lo, window.hi);
  const DurationNs wall = window.hi - window.lo;
  const auto share = [&](int64_t ns) -> std::optional<double> {
    if (gpu_sum <= 0) return std::nullopt;
    return PyRound(static_cast<double>(100 * ns) / static_cast<double>(gpu_sum), 2);
  };

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
  s.decode_dispatches = static_cast<int64_t>(decode.size());
  if (tokens != 0) s.decode_forward_passes = tokens - 1;
  s.dispatches_per_token = per_token(static_cast<double>(decode.size()), 1);
  s.decode_wall_ms = PyRound(static_cast<double>(wall) / 1e6, 3);
  s.decode_gpu_sum_ms = PyRound(static_cast<double>(gpu_sum) / 1e6, 3);
  s.decode_gpu_busy_ms = PyRound(static_cast<double>(busy) / 1e6, 3);
  s.gpu_ms_per_token = per_token(static_cast<double>(busy) / 1e6, 4);
  s.host_gap_ms_per_token = per_token(static_cast<double>(wall - busy) / 1e6, 4);
  if (wall != 0) {
    s.host_gap_pct_of_wall =
        PyRound(static_cast<double>(100 * (wall - busy)) / static_cast<double>(wall), 2);
  }
  if (plain_tok_s && *plain_tok_s != 0) {
    s.plain_wall_ms_per_token = PyRound(1000 / *plain_tok_s, 4);
    if (tokens != 0) {
      s.plain_host_gap_ms_per_token_est =
          PyRound(1000 / *plain_tok_s - static_cast<double>(busy) / 1e6 / tok, 4);
    }
  }

  // ---- aggregation by kernel, role and class (seed spec 2.10) ------------------------------
  struct KernelAcc {
    trace::StringId name;
    ClassId cls;
    int64_t calls = 0;
    int64_t ns = 0;
    std::vector<bool> roles_seen;  // by RoleSlot
  };
  std::vector<KernelAcc> kernels;
  std::vector<int32_t> kernel_slot(in.names->size(), -1);
  InsertionTotals<RoleId> roles;
  InsertionTotals<ClassId> classes;
  for (size_t i = 0; i < decode.size(); ++i) {
    const trace::Dispatch& d = decode[i];
    const RoleId r = attribution.roles[i];
    const ClassId c = attribution.classes[i];
    if (kernel_slot[d.name] < 0) {
      kernel_slot[d.name] = static_cast<int32_t>(kernels.size());
      kernels.push_back(KernelAcc{d.name, c, 0, 0, std::vector<bool>(role_names.size() + 1)});
    }
    KernelAcc& k = kernels[static_cast<size_t>(kernel_slot[d.name])];
    ++k.calls;
    k.ns += d.duration();
    k.roles_seen[RoleSlot(r)] = true;
    auto& role_total = roles.At(r, RoleSlot(r));
    role_total.ns += d.duration();
    ++role_total.calls;
    classes.At(c, c).ns += d.duration();
  }

  DP_ASSIGN_OR_RETURN(const GapAttribution gaps,
                      AttributeGaps(decode, attribution.roles, window.lo, window.hi));

  // ---- checks (seed spec 2.4) ---------------------------------------------------------------
  s.kernels_straddling_decode_start = window.straddling;
  s.host_gap_attribution_residual_ns = gaps.total() - (wall - busy);
  if (window.last_before) {
    s.idle_gap_before_first_decode_dispatch_us =
        PyRound(static_cast<double>(decode.front().start - window.last_before->end) / 1e3, 1);
    s.last_dispatch_before_decode =
        std::string(base::TruncateCodePoints(in.names->Get(window.last_before->name), 120));
  }

  // ---- units (seed spec 2.8, 2.9); reading role totals inserts zero entries --------------
  const auto& units = in.units->units();
  for (const Unit& unit : units) {
    for (RoleId r : unit.fallback_roles) roles.At(r, RoleSlot(r));
  }
  const auto gap_of = [&](RoleId r) -> int64_t {
    for (const auto& [role, ns] : gaps.per_role) {
      if (role == r) return ns;
    }
    return 0;
  };
  const std::optional<double> scale =
      GapScale(s.plain_host_gap_ms_per_token_est, s.host_gap_ms_per_token);
  // Per-dispatch gaps, only needed (and computed once) when a unit names classes.
  std::vector<DurationNs> gap_by_dispatch;
  const auto contains = [](const auto& set, auto value) {
    return std::find(set.begin(), set.end(), value) != set.end();
  };
  const auto wall_fields = [&](const std::vector<RoleId>& set, const std::vector<ClassId>& cls,
                               HostGapOwnership host_gap) {
    WallFieldInputs w;
    if (cls.empty()) {
      // The seed's role-set sums (spec 2.9).
      for (RoleId r : set) {
        if (const auto* e = roles.Find(RoleSlot(r))) {
          w.kernel_ns += e->ns;
          w.calls += e->calls;
        }
        w.gap_ns += gap_of(r);
      }
    } else {
      // Roles and classes: every dispatch holding either counts once.
      if (gap_by_dispatch.size() != decode.size()) {
        gap_by_dispatch = GapEndedByEach(decode, window.lo, window.hi);
      }
      for (size_t i = 0; i < decode.size(); ++i) {
        if (!contains(set, attribution.roles[i]) && !contains(cls, attribution.classes[i])) {
          continue;
        }
        w.kernel_ns += decode[i].duration();
        ++w.calls;
        w.gap_ns += gap_by_dispatch[i];
      }
    }
    if (host_gap == HostGapOwnership::kAll) w.gap_ns = wall - busy;
    w.gpu_sum_ns = gpu_sum;
    w.wall_ns = wall;
    w.tokens = tokens;
    w.scale = scale;
    w.plain_wall_ms_per_token = s.plain_wall_ms_per_token;
    return w;
  };
  const ModelConfig config = in.model.value_or(ModelConfig{});
  const bool sampled = in.temperature > 0;
  const std::vector<ClassId> no_classes;
  for (size_t u = 0; u < units.size(); ++u) {
    const Unit& unit = units[u];
    const UnitReach reach = in.units->Reach(u, config, sampled);
    // A reached set is the whole unit (classes, owned host time) only when the reach case
    // says so; a list of roles reaches those roles and their own gaps.
    const auto reached_set = [&](const std::vector<RoleId>& set, bool whole) {
      return whole ? wall_fields(set, unit.classes, unit.host_gap)
                   : wall_fields(set, no_classes, HostGapOwnership::kRoles);
    };
    UnitSummary out;
    out.id = unit.id;
    out.port = unit.port;
    const WallFieldInputs fallback = wall_fields(unit.fallback_roles, unit.classes, unit.host_gap);
    const WallFieldInputs reached = reached_set(reach.default_roles, reach.default_whole);
    const WallFieldInputs optin = reached_set(reach.optin_roles, reach.optin_whole);
    out.fallback_share_pct = share(fallback.kernel_ns);
    out.fallback_dispatches_per_token = per_token(static_cast<double>(fallback.calls), 1);
    out.reached_default_share_pct = share(reached.kernel_ns);
    out.reached_default_dispatches_per_token = per_token(static_cast<double>(reached.calls), 1);
    out.reached_optin_share_pct = share(optin.kernel_ns);
    out.fallback = ComputeWallFields(fallback);
    out.reached_default = ComputeWallFields(reached);
    out.reached_optin = ComputeWallFields(optin);
    out.note = reach.note;
    for (ClassId c : unit.classes) out.classes.push_back(class_names[c]);
    if (unit.host_gap == HostGapOwnership::kAll) out.host_gap = "all";
    s.units.push_back(std::move(out));
  }

  // ---- kernel table ---------------------------------------------------------------------------
  for (size_t idx : DescendingOrder(kernels, [](const KernelAcc& k) { return k.ns; })) {
    const KernelAcc& k = kernels[idx];
    KernelStat stat;
    stat.name = std::string(in.names->Get(k.name));
    stat.class_name = class_names[k.cls];
    for (size_t slot = 1; slot < k.roles_seen.size(); ++slot) {
      if (k.roles_seen[slot]) stat.roles.push_back(role_names[slot - 1]);
    }
    std::sort(stat.roles.begin(), stat.roles.end());
    for (const Unit& unit : units) {
      const bool holds = std::any_of(unit.fallback_roles.begin(), unit.fallback_roles.end(),
                                     [&](RoleId r) { return k.roles_seen[RoleSlot(r)]; }) ||
                         contains(unit.classes, k.cls);
      if (holds) stat.unit_ids.push_back(unit.id);
    }
    std::sort(stat.unit_ids.begin(), stat.unit_ids.end());
    stat.calls = k.calls;
    stat.total_ns = k.ns;
    stat.calls_per_token = per_token(static_cast<double>(k.calls), 2);
    stat.avg_ns = base::PyRoundToInt(static_cast<double>(k.ns) / static_cast<double>(k.calls));
    if (gpu_sum > 0) {
      stat.share_exact = static_cast<double>(100 * k.ns) / static_cast<double>(gpu_sum);
    }
    stat.share_pct = share(k.ns);
    s.kernels.push_back(std::move(stat));
  }

  // ---- share tables ---------------------------------------------------------------------------
  const auto& class_entries = classes.entries();
  for (size_t idx : DescendingOrder(class_entries, [](const auto& e) { return e.ns; })) {
    s.class_share_pct.emplace_back(class_names[class_entries[idx].key],
                                   share(class_entries[idx].ns));
  }
  const auto& role_entries = roles.entries();
  for (size_t idx : DescendingOrder(role_entries, [](const auto& e) { return e.ns; })) {
    s.role_share_pct.emplace_back(role_name(role_entries[idx].key), share(role_entries[idx].ns));
  }
  for (const auto& e : role_entries) {
    s.role_dispatches_per_token.emplace_back(role_name(e.key),
                                             per_token(static_cast<double>(e.calls), 1));
  }
  std::vector<std::pair<std::string, int64_t>> gap_rows;
  for (const auto& [role, ns] : gaps.per_role) gap_rows.emplace_back(role_name(role), ns);
  gap_rows.emplace_back("tail", gaps.tail);
  for (size_t idx : DescendingOrder(gap_rows, [](const auto& e) { return e.second; })) {
    s.role_host_gap_ms_per_token.emplace_back(
        gap_rows[idx].first, per_token(static_cast<double>(gap_rows[idx].second) / 1e6, 4));
  }

  s.warnings = attribution.warnings;
  return s;
}

}  // namespace decodeprof::analysis
