#include "src/report/summary_json.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "src/base/py_format.h"
#include "src/report/speed_of_light_render.h"
#include "src/report/speed_of_light_section.h"
#include "src/report/summary_schema.h"

namespace decodeprof::report {

using base::JsonValue;
namespace schema = summary_schema;

namespace {

JsonValue NamedValuesObject(const analysis::NamedValues& rows) {
  JsonValue object = JsonValue::MakeObject();
  for (const auto& [key, value] : rows) object.Add(key, JsonValue::OptFloat(value));
  return object;
}

// The six wall fields of a role set, by their schema entries (the three ceilings carry no
// prefix for the fallback set, seed spec 2.9).
struct WallKeys {
  const SummaryField& host_gap_ms_per_token;
  const SummaryField& host_gap_us_per_dispatch;
  const SummaryField& wall_share_pct;
  const SummaryField& ceiling_gpu_share;
  const SummaryField& ceiling_wall;
  const SummaryField& plain_ceiling_wall_est;
};

void AddWallFields(JsonValue& unit, const WallKeys& keys, const analysis::WallFields& w) {
  unit.Add(Key(keys.host_gap_ms_per_token), JsonValue::OptFloat(w.host_gap_ms_per_token));
  unit.Add(Key(keys.host_gap_us_per_dispatch), JsonValue::Float(w.host_gap_us_per_dispatch));
  unit.Add(Key(keys.wall_share_pct), JsonValue::OptFloat(w.wall_share_pct));
  unit.Add(Key(keys.ceiling_gpu_share), JsonValue::OptFloat(w.ceiling_gpu_share));
  unit.Add(Key(keys.ceiling_wall), JsonValue::OptFloat(w.ceiling_wall));
  unit.Add(Key(keys.plain_ceiling_wall_est), JsonValue::OptFloat(w.plain_ceiling_wall_est));
}

namespace uk = summary_schema::unit;
const WallKeys kFallbackKeys = {uk::fallback_host_gap_ms_per_token,
                                uk::fallback_host_gap_us_per_dispatch,
                                uk::fallback_wall_share_pct,
                                uk::ceiling_gpu_share,
                                uk::ceiling_wall,
                                uk::plain_ceiling_wall_est};
const WallKeys kReachedDefaultKeys = {
    uk::reached_default_host_gap_ms_per_token, uk::reached_default_host_gap_us_per_dispatch,
    uk::reached_default_wall_share_pct,        uk::reached_default_ceiling_gpu_share,
    uk::reached_default_ceiling_wall,          uk::reached_default_plain_ceiling_wall_est};
const WallKeys kReachedOptinKeys = {
    uk::reached_optin_host_gap_ms_per_token, uk::reached_optin_host_gap_us_per_dispatch,
    uk::reached_optin_wall_share_pct,        uk::reached_optin_ceiling_gpu_share,
    uk::reached_optin_ceiling_wall,          uk::reached_optin_plain_ceiling_wall_est};

}  // namespace

std::string_view RankFigureField(analysis::RankFigure figure) {
  switch (figure) {
    case analysis::RankFigure::kPlainCeilingWallEst:
      return summary_schema::unit::plain_ceiling_wall_est.key;
    case analysis::RankFigure::kCeilingWall:
      return summary_schema::unit::ceiling_wall.key;
  }
  return summary_schema::unit::ceiling_wall.key;
}

std::optional<analysis::RankFigure> RankFigureNamed(std::string_view field) {
  for (const auto figure :
       {analysis::RankFigure::kPlainCeilingWallEst, analysis::RankFigure::kCeilingWall}) {
    if (field == RankFigureField(figure)) return figure;
  }
  return std::nullopt;
}

JsonValue SummaryToJson(const analysis::Summary& s) {
  JsonValue doc = JsonValue::MakeObject();
  doc.Add(Key(schema::run::name), JsonValue::Str(s.name));
  doc.Add(Key(schema::run::model_type), JsonValue::OptStr(s.model_type));
  doc.Add(Key(schema::run::temperature), JsonValue::Float(s.temperature));
  doc.Add(Key(schema::run::clock), JsonValue::Str(trace::ClockName(s.clock)));
  doc.Add(Key(schema::run::prompt_tokens), JsonValue::OptInt(s.prompt_tokens));
  doc.Add(Key(schema::run::generated_tokens), JsonValue::OptInt(s.generated_tokens));
  doc.Add(Key(schema::run::profiled_decode_tok_s), JsonValue::OptFloat(s.profiled_decode_tok_s));
  doc.Add(Key(schema::run::profiled_prefill_tok_s), JsonValue::OptFloat(s.profiled_prefill_tok_s));
  doc.Add(Key(schema::run::plain_decode_tok_s), JsonValue::OptFloat(s.plain_decode_tok_s));
  doc.Add(Key(schema::run::plain_prefill_tok_s), JsonValue::OptFloat(s.plain_prefill_tok_s));
  doc.Add(Key(schema::run::profiler_decode_slowdown_pct),
          JsonValue::OptFloat(s.profiler_decode_slowdown_pct));
  doc.Add(Key(schema::run::decode_dispatches), JsonValue::Int(s.decode_dispatches));
  doc.Add(Key(schema::run::dispatches_per_token), JsonValue::OptFloat(s.dispatches_per_token));
  doc.Add(Key(schema::run::decode_wall_ms), JsonValue::Float(s.decode_wall_ms));
  doc.Add(Key(schema::run::decode_gpu_sum_ms), JsonValue::Float(s.decode_gpu_sum_ms));
  doc.Add(Key(schema::run::decode_gpu_busy_ms), JsonValue::Float(s.decode_gpu_busy_ms));
  doc.Add(Key(schema::run::gpu_ms_per_token), JsonValue::OptFloat(s.gpu_ms_per_token));
  doc.Add(Key(schema::run::host_gap_ms_per_token), JsonValue::OptFloat(s.host_gap_ms_per_token));
  doc.Add(Key(schema::run::host_gap_pct_of_wall), JsonValue::OptFloat(s.host_gap_pct_of_wall));
  doc.Add(Key(schema::run::plain_wall_ms_per_token),
          JsonValue::OptFloat(s.plain_wall_ms_per_token));
  doc.Add(Key(schema::run::plain_host_gap_ms_per_token_est),
          JsonValue::OptFloat(s.plain_host_gap_ms_per_token_est));

  JsonValue& checks = doc.Add(Key(schema::run::checks), JsonValue::MakeObject());
  checks.Add(Key(schema::checks::kernels_straddling_decode_start),
             JsonValue::Int(s.kernels_straddling_decode_start));
  checks.Add(Key(schema::checks::host_gap_attribution_residual_ns),
             JsonValue::Int(s.host_gap_attribution_residual_ns));
  checks.Add(Key(schema::checks::idle_gap_before_first_decode_dispatch_us),
             JsonValue::OptFloat(s.idle_gap_before_first_decode_dispatch_us));
  checks.Add(Key(schema::checks::last_dispatch_before_decode),
             JsonValue::OptStr(s.last_dispatch_before_decode));

  JsonValue& top = doc.Add(Key(schema::run::top_kernels), JsonValue::MakeArray());
  for (size_t i = 0; i < s.kernels.size() && i < 10; ++i) {
    const analysis::KernelStat& k = s.kernels[i];
    JsonValue& row = top.Push(JsonValue::MakeObject());
    row.Add(Key(schema::top_kernel::kernel), JsonValue::Str(k.name));
    row.Add(Key(schema::top_kernel::class_name), JsonValue::Str(k.class_name));
    row.Add(Key(schema::top_kernel::calls_per_token), JsonValue::OptFloat(k.calls_per_token));
    row.Add(Key(schema::top_kernel::share_pct), JsonValue::OptFloat(k.share_pct));
  }
  doc.Add(Key(schema::run::class_share_pct), NamedValuesObject(s.class_share_pct));
  doc.Add(Key(schema::run::role_share_pct), NamedValuesObject(s.role_share_pct));
  doc.Add(Key(schema::run::role_dispatches_per_token),
          NamedValuesObject(s.role_dispatches_per_token));
  doc.Add(Key(schema::run::role_host_gap_ms_per_token),
          NamedValuesObject(s.role_host_gap_ms_per_token));

  JsonValue& units = doc.Add(Key(schema::run::port_units), JsonValue::MakeObject());
  for (const analysis::UnitSummary& u : s.units) {
    JsonValue& unit = units.Add(u.id, JsonValue::MakeObject());
    unit.Add(Key(schema::unit::port), JsonValue::Str(u.port));
    unit.Add(Key(schema::unit::fallback_share_pct), JsonValue::OptFloat(u.fallback_share_pct));
    unit.Add(Key(schema::unit::fallback_dispatches_per_token),
             JsonValue::OptFloat(u.fallback_dispatches_per_token));
    unit.Add(Key(schema::unit::reached_default_share_pct),
             JsonValue::OptFloat(u.reached_default_share_pct));
    unit.Add(Key(schema::unit::reached_default_dispatches_per_token),
             JsonValue::OptFloat(u.reached_default_dispatches_per_token));
    unit.Add(Key(schema::unit::reached_optin_share_pct),
             JsonValue::OptFloat(u.reached_optin_share_pct));
    AddWallFields(unit, kFallbackKeys, u.fallback);
    AddWallFields(unit, kReachedDefaultKeys, u.reached_default);
    unit.Add(Key(schema::unit::note), JsonValue::Str(u.note));
    // decodeprof's addition: the opt-in set's ceilings (seed spec 2.8 suggests them).
    AddWallFields(unit, kReachedOptinKeys, u.reached_optin);
    // Only for units that opt in, so the seed's units keep their entries byte for byte.
    if (!u.classes.empty()) {
      JsonValue& classes = unit.Add(Key(schema::unit::classes), JsonValue::MakeArray());
      for (const std::string& c : u.classes) classes.Push(JsonValue::Str(c));
    }
    if (!u.host_gap.empty()) unit.Add(Key(schema::unit::host_gap), JsonValue::Str(u.host_gap));
  }

  // decodeprof's own fields, after the seed's.
  doc.Add(Key(schema::run::decode_forward_passes), JsonValue::OptInt(s.decode_forward_passes));
  // Only in summaries of sampled recordings (analysis::Sampling): the tokens the window stands
  // for, when they are not generated_tokens.
  if (s.window_tokens) doc.Add(Key(schema::run::window_tokens), JsonValue::Float(*s.window_tokens));
  doc.Add(Key(schema::run::pack), JsonValue::Str(s.pack));
  doc.Add(Key(schema::run::units_file), JsonValue::Str(s.units_file));
  JsonValue& warnings = doc.Add(Key(schema::run::warnings), JsonValue::MakeArray());
  for (const trace::DiagMessage& w : s.warnings) warnings.Push(JsonValue::Str(w.text));
  doc.Add(Key(schema::run::trace_format), JsonValue::Str(s.trace_format));
  if (!s.trace_file.empty()) doc.Add(Key(schema::run::trace_file), JsonValue::Str(s.trace_file));
  doc.Add(Key(schema::run::device), s.device ? JsonValue::Int(*s.device) : JsonValue::Null());
  JsonValue& diagnostics = doc.Add(Key(schema::run::diagnostics), JsonValue::MakeArray());
  for (const trace::DiagnosticEntry& e : s.diagnostics) {
    const trace::DiagnosticInfo& info = trace::Describe(e.code);
    JsonValue& entry = diagnostics.Push(JsonValue::MakeObject());
    entry.Add(Key(schema::diagnostic::code), JsonValue::Str(std::string(info.name)));
    entry.Add(Key(schema::diagnostic::severity),
              JsonValue::Str(trace::SeverityName(info.severity)));
    entry.Add(Key(schema::diagnostic::count), JsonValue::Int(e.count));
    entry.Add(Key(schema::diagnostic::meaning), JsonValue::Str(std::string(info.meaning)));
    JsonValue& first = entry.Add(Key(schema::diagnostic::first), JsonValue::MakeObject());
    // The file's name only: the summary must not depend on where its inputs lie.
    first.Add(Key(schema::diagnostic_first::file),
              JsonValue::Str(std::filesystem::path(e.first.file).filename().string()));
    first.Add(Key(schema::diagnostic_first::position), JsonValue::Str(e.first.position));
    first.Add(Key(schema::diagnostic_first::detail), JsonValue::Str(e.first.detail));
  }
  doc.Add(Key(schema::run::window_source), JsonValue::Str(s.window_source));
  // Only when set, so that other summaries keep their bytes.
  if (s.workload) doc.Add(Key(schema::run::workload), JsonValue::Str(*s.workload));
  if (s.window_evidence) {
    const analysis::WindowEvidence& w = *s.window_evidence;
    JsonValue& ev = doc.Add(Key(schema::run::window_evidence), JsonValue::MakeObject());
    ev.Add(Key(schema::window_evidence::start_ns), JsonValue::Int(w.start_ns));
    ev.Add(Key(schema::window_evidence::end_ns), JsonValue::Int(w.end_ns));
    ev.Add(Key(schema::window_evidence::steps), JsonValue::OptInt(w.steps));
    ev.Add(Key(schema::window_evidence::dispatches_per_step),
           JsonValue::OptInt(w.dispatches_per_step));
    ev.Add(Key(schema::window_evidence::kernels_per_step), JsonValue::OptInt(w.kernels_per_step));
    ev.Add(Key(schema::window_evidence::graph_launches_per_step),
           JsonValue::OptInt(w.graph_launches_per_step));
    ev.Add(Key(schema::window_evidence::deviated_steps), JsonValue::OptInt(w.deviated_steps));
    ev.Add(Key(schema::window_evidence::skipped_steps), JsonValue::OptInt(w.skipped_steps));
    ev.Add(Key(schema::window_evidence::runs), JsonValue::OptInt(w.runs));
    ev.Add(Key(schema::window_evidence::dispatches_before), JsonValue::OptInt(w.dispatches_before));
    ev.Add(Key(schema::window_evidence::anchor), JsonValue::Str(w.anchor));
    ev.Add(Key(schema::window_evidence::range), JsonValue::Str(w.range));
    if (!w.confidence.empty()) {
      ev.Add(Key(schema::window_evidence::run), JsonValue::OptInt(w.run));
      ev.Add(Key(schema::window_evidence::boundary), JsonValue::Str(w.boundary));
      ev.Add(Key(schema::window_evidence::confidence), JsonValue::Str(w.confidence));
      JsonValue& reasons = ev.Add(Key(schema::window_evidence::reasons), JsonValue::MakeArray());
      for (const std::string& r : w.reasons) reasons.Push(JsonValue::Str(r));
    }
    if (!w.projection.empty()) {
      ev.Add(Key(schema::window_evidence::projection), JsonValue::Str(w.projection));
      ev.Add(Key(schema::window_evidence::dispatches_launched_inside),
             JsonValue::OptInt(w.dispatches_launched_inside));
      ev.Add(Key(schema::window_evidence::dispatches_launched_outside),
             JsonValue::OptInt(w.dispatches_launched_outside));
      ev.Add(Key(schema::window_evidence::gpu_after_range_ns),
             JsonValue::OptInt(w.gpu_after_range_ns));
    }
  } else {
    doc.Add(Key(schema::run::window_evidence), JsonValue::Null());
  }
  if (s.plain_runs) {
    const analysis::PlainRuns& p = *s.plain_runs;
    JsonValue& runs = doc.Add(Key(schema::run::plain_runs), JsonValue::MakeObject());
    runs.Add(Key(schema::plain_runs::count), JsonValue::Int(p.count));
    JsonValue& rates = runs.Add(Key(schema::plain_runs::decode_tok_s), JsonValue::MakeArray());
    for (const std::optional<double>& r : p.decode_tok_s) rates.Push(JsonValue::OptFloat(r));
    runs.Add(Key(schema::plain_runs::used), JsonValue::Int(p.used));
    runs.Add(Key(schema::plain_runs::spread_pct), JsonValue::OptFloat(p.spread_pct));
  } else {
    doc.Add(Key(schema::run::plain_runs), JsonValue::Null());
  }
  if (s.sampling) {  // only in summaries of sampled recordings
    const analysis::Sampling& m = *s.sampling;
    JsonValue& sampling = doc.Add(Key(schema::run::sampling), JsonValue::MakeObject());
    sampling.Add(Key(schema::sampling::steps_seen), JsonValue::Int(m.steps_seen));
    sampling.Add(Key(schema::sampling::steps_sampled), JsonValue::Int(m.steps_sampled));
    sampling.Add(Key(schema::sampling::sampled_step_ms), JsonValue::OptFloat(m.sampled_step_ms));
    sampling.Add(Key(schema::sampling::unsampled_step_ms),
                 JsonValue::OptFloat(m.unsampled_step_ms));
    sampling.Add(Key(schema::sampling::distortion_pct), JsonValue::OptFloat(m.distortion_pct));
    sampling.Add(Key(schema::sampling::tracing_cost_ms_per_step),
                 JsonValue::OptFloat(m.tracing_cost_ms_per_step));
    sampling.Add(Key(schema::sampling::tracing_cost_us_per_dispatch),
                 JsonValue::OptFloat(m.tracing_cost_us_per_dispatch));
    sampling.Add(Key(schema::sampling::tracing_share_of_host_gap_pct),
                 JsonValue::OptFloat(m.tracing_share_of_host_gap_pct));
    sampling.Add(Key(schema::sampling::run_cost_ms_per_sampled_step),
                 JsonValue::OptFloat(m.run_cost_ms_per_sampled_step));
    sampling.Add(Key(schema::sampling::run_cost_pct), JsonValue::OptFloat(m.run_cost_pct));
  }
  if (s.engine_steps) {  // only when the engine's step names cut the window
    const analysis::EngineSteps& e = *s.engine_steps;
    JsonValue& steps = doc.Add(Key(schema::run::engine_steps), JsonValue::MakeObject());
    steps.Add(Key(schema::engine_steps::rule), JsonValue::Str(e.rule));
    steps.Add(Key(schema::engine_steps::engine), JsonValue::Str(e.engine));
    JsonValue& also = steps.Add(Key(schema::engine_steps::also_found), JsonValue::MakeArray());
    for (const std::string& r : e.also_found) also.Push(JsonValue::Str(r));
    steps.Add(Key(schema::engine_steps::window_kind),
              JsonValue::Str(std::string(analysis::StepKindName(e.window_kind))));
    steps.Add(Key(schema::engine_steps::window_steps), JsonValue::Int(e.window_steps));
    steps.Add(Key(schema::engine_steps::decode_runs), JsonValue::Int(e.decode_runs));
    const auto ints = [](const std::vector<int64_t>& values) {
      JsonValue out = JsonValue::MakeArray();
      for (const int64_t v : values) out.Push(JsonValue::Int(v));
      return out;
    };
    JsonValue& kinds = steps.Add(Key(schema::engine_steps::kinds), JsonValue::MakeArray());
    for (const analysis::StepKindStats& k : e.kinds) {
      JsonValue& row = kinds.Push(JsonValue::MakeObject());
      row.Add(Key(schema::step_kind::kind),
              JsonValue::Str(std::string(analysis::StepKindName(k.kind))));
      row.Add(Key(schema::step_kind::steps), JsonValue::Int(k.steps));
      row.Add(Key(schema::step_kind::in_window), JsonValue::Int(k.in_window));
      row.Add(Key(schema::step_kind::batch_sizes), ints(k.batch_sizes));
      row.Add(Key(schema::step_kind::tokens), ints(k.tokens));
      row.Add(Key(schema::step_kind::dispatches), JsonValue::Int(k.dispatches));
      row.Add(Key(schema::step_kind::gpu_ms_per_step), JsonValue::Float(k.gpu_ms_mean));
      row.Add(Key(schema::step_kind::gpu_ms_p50), JsonValue::Float(k.gpu_ms_p50));
      row.Add(Key(schema::step_kind::gpu_ms_p99), JsonValue::Float(k.gpu_ms_p99));
      row.Add(Key(schema::step_kind::wall_ms_per_step), JsonValue::Float(k.wall_ms_mean));
      row.Add(Key(schema::step_kind::wall_ms_p50), JsonValue::Float(k.wall_ms_p50));
      row.Add(Key(schema::step_kind::wall_ms_p99), JsonValue::Float(k.wall_ms_p99));
    }
    JsonValue& list = steps.Add(Key(schema::engine_steps::steps), JsonValue::MakeArray());
    for (const analysis::StepRecord& r : e.steps) {
      JsonValue& row = list.Push(JsonValue::MakeObject());
      row.Add(Key(schema::engine_step::kind),
              JsonValue::Str(std::string(analysis::StepKindName(r.label.kind))));
      row.Add(Key(schema::engine_step::batch), JsonValue::OptInt(r.label.batch));
      row.Add(Key(schema::engine_step::tokens), JsonValue::OptInt(r.label.tokens));
      row.Add(Key(schema::engine_step::start_ns), JsonValue::Int(r.start_ns));
      row.Add(Key(schema::engine_step::wall_ms),
              JsonValue::Float(base::PyRound(static_cast<double>(r.end_ns - r.start_ns) / 1e6, 3)));
      row.Add(Key(schema::engine_step::gpu_ms),
              JsonValue::Float(base::PyRound(static_cast<double>(r.gpu_busy_ns) / 1e6, 3)));
      row.Add(Key(schema::engine_step::dispatches), JsonValue::Int(r.dispatches));
      row.Add(Key(schema::engine_step::in_window), JsonValue::Bool(r.in_window));
    }
  }
  // The units in rank order (analysis/ranking.h), each with the field it ranks by and that
  // field's value; after every other field.
  JsonValue& ranked = doc.Add(Key(schema::run::ranked_units), JsonValue::MakeArray());
  for (const analysis::RankedUnit& r : s.ranked_units) {
    JsonValue& entry = ranked.Push(JsonValue::MakeObject());
    entry.Add(Key(schema::ranked_unit::id), JsonValue::Str(r.id));
    entry.Add(Key(schema::ranked_unit::by), JsonValue::Str(std::string(RankFigureField(r.by))));
    entry.Add(Key(schema::ranked_unit::value), JsonValue::OptFloat(r.value));
    if (r.value_range) {
      JsonValue& range = entry.Add(Key(schema::ranked_unit::value_range), JsonValue::MakeArray());
      range.Push(JsonValue::Float(r.value_range->first));
      range.Push(JsonValue::Float(r.value_range->second));
    }
  }
  // Multi-rank runs (docs/multi-gpu.md): only when present, so that other summaries keep
  // their bytes.
  if (s.rank) {
    const analysis::RankFields& r = *s.rank;
    JsonValue& rank = doc.Add(Key(schema::run::rank), JsonValue::MakeObject());
    rank.Add(Key(schema::rank::rank), JsonValue::Int(r.rank));
    rank.Add(Key(schema::rank::world_size), JsonValue::OptInt(r.world_size));
    rank.Add(Key(schema::rank::local_rank), JsonValue::OptInt(r.local_rank));
    rank.Add(Key(schema::rank::run_id), JsonValue::Str(r.run_id));
    rank.Add(Key(schema::rank::group), r.group ? JsonValue::Str(*r.group) : JsonValue::Null());
  }
  if (s.collectives) {
    const analysis::CollectiveFields& c = *s.collectives;
    JsonValue& col = doc.Add(Key(schema::run::collectives), JsonValue::MakeObject());
    col.Add(Key(schema::collectives::count), JsonValue::Int(c.count));
    col.Add(Key(schema::collectives::total_ms_per_token),
            JsonValue::OptFloat(c.total_ms_per_token));
    col.Add(Key(schema::collectives::wait_ms_per_token), JsonValue::OptFloat(c.wait_ms_per_token));
    col.Add(Key(schema::collectives::transfer_ms_per_token),
            JsonValue::OptFloat(c.transfer_ms_per_token));
    col.Add(Key(schema::collectives::pct_of_wall), JsonValue::OptFloat(c.pct_of_wall));
    col.Add(Key(schema::collectives::slowest_rank), JsonValue::OptInt(c.slowest_rank));
    col.Add(Key(schema::collectives::matched), JsonValue::Bool(c.matched));
  }
  // The speed-of-light ledger, rounded and written as report reads it back.
  if (s.speed_of_light) {
    doc.Add(Key(schema::run::speed_of_light),
            SpeedOfLightJson(SpeedOfLightSectionOf(*s.speed_of_light), /*summary_form=*/true));
  }
  return doc;
}

std::string SummaryJsonText(const analysis::Summary& summary) {
  return SummaryToJson(summary).Dump() + "\n";
}

}  // namespace decodeprof::report
