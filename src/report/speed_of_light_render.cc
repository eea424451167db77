#include "src/report/speed_of_light_render.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/base/py_format.h"
#include "src/report/markdown_table.h"
#include "src/report/run_set.h"
#include "src/report/summary_view.h"

namespace decodeprof::report {
namespace {

using base::JsonValue;

std::string Fixed(const std::optional<double>& value, int decimals) {
  return value ? base::FormatFixed(*value, decimals) : std::string(kNoValue);
}

std::string Times(const std::optional<double>& value) {
  return value ? base::FormatFixed(*value, 2) + "x" : std::string(kNoValue);
}

std::string Gb(const std::optional<double>& bytes) {
  return bytes ? base::FormatFixed(*bytes / 1e9, 2) : std::string(kNoValue);
}

// A byte count as a JSON integer when it is a whole number below 2^53 (as summarize writes
// it), else a float; null when absent.
JsonValue BytesJson(const std::optional<double>& bytes) {
  if (!bytes) return JsonValue::Null();
  if (*bytes == std::floor(*bytes) && std::abs(*bytes) < 9007199254740992.0) {
    return JsonValue::Int(static_cast<int64_t>(*bytes));
  }
  return JsonValue::Float(*bytes);
}

std::string ModelOf(const SummaryFile& summary) {
  if (summary.speed_of_light && !summary.speed_of_light->model.empty()) {
    return summary.speed_of_light->model;
  }
  return RunView(summary).model_type().get().value_or("");
}

// "Llama-3.1-8B-Instruct (llama, bf16), context 575.5 tokens (bench log: ...)".
std::string ModelLine(const SpeedOfLightSection& s) {
  std::string out = s.model;
  std::vector<std::string> what;
  if (!s.architecture.empty()) what.push_back(s.architecture);
  if (!s.weight_format.empty()) what.push_back(s.weight_format);
  if (!what.empty()) {
    out += (out.empty() ? "" : " ") + std::string("(") + what[0];
    for (size_t i = 1; i < what.size(); ++i) out += ", " + what[i];
    out += ")";
  }
  if (s.context_tokens) {
    out += (out.empty() ? "context " : ", context ") + base::PyRepr(*s.context_tokens) + " tokens";
    if (!s.context_source.empty()) out += " (" + s.context_source + ")";
  }
  return out;
}

void AppendRunMarkdown(const SummaryFile& summary, std::string& out) {
  const SpeedOfLightSection& s = *summary.speed_of_light;
  out += "### " + RunLabel(summary) + "\n\n";
  const std::string headline = SpeedOfLightHeadline(s);
  out += (headline.empty() ? std::string("Speed of light: n/a (no floor or wall)")
                           : "Speed of light: " + headline) +
         "\n";
  if (const std::string model = ModelLine(s); !model.empty()) out += "\n" + model + "\n";
  if (const std::string line = SpeedOfLightDecompositionLine(s); !line.empty()) {
    out += "\nTime per decode step: " + line + "\n";
  }
  if (!s.units.empty()) {
    out +=
        "\n| unit | ms/step | floor ms/step | excess ms/step | to the floor |\n"
        "|---|---:|---:|---:|---:|\n";
    for (const SpeedOfLightUnit* u : UnitsByExcess(s)) {
      out += MarkdownRow({EscapeCell("#" + u->id), Fixed(u->ms_per_token, 3),
                          Fixed(u->floor_ms_per_token, 3), Fixed(u->excess_ms_per_token, 3),
                          Times(u->ceiling_to_floor)}) +
             "\n";
    }
  }
  if (!s.classes.empty()) {
    out +=
        "\n| class | moves | GB/step | ms/step | floor ms/step | GB/s | % of peak |\n"
        "|---|---|---:|---:|---:|---:|---:|\n";
    for (const SpeedOfLightClass& c : s.classes) {
      std::string moves;
      for (const std::string& m : c.moves) moves += (moves.empty() ? "" : ", ") + m;
      out += MarkdownRow(
                 {EscapeCell(c.name), moves.empty() ? std::string(kNoValue) : EscapeCell(moves),
                  Gb(c.bytes_per_token), Fixed(c.ms_per_token, 3), Fixed(c.floor_ms_per_token, 3),
                  Fixed(c.achieved_gbps, 1), Fixed(c.pct_of_peak, 1)}) +
             "\n";
    }
  }
  if (!s.notes.empty()) {
    out += "\n";
    for (const std::string& note : s.notes) out += "- " + note + "\n";
  }
  out += "\n";
}

}  // namespace

SpeedOfLightSection SpeedOfLightSectionOf(const analysis::SpeedOfLight& l) {
  const auto ms = [](double v) { return base::PyRound(v, 4); };
  const auto rate = [](double v) { return base::PyRound(v, 1); };
  const auto pct = [](double v) { return base::PyRound(v, 2); };
  const auto times = [](double v) { return base::PyRound(v, 3); };
  const auto bytes = [](double v) { return static_cast<double>(base::PyRoundToInt(v)); };
  SpeedOfLightSection s;
  s.model = l.in.model;
  s.model_source = l.in.model_source;
  s.architecture = l.in.architecture;
  s.weight_format = l.in.weight_format;
  s.context_tokens = base::PyRound(l.in.context_tokens, 1);
  s.context_source = l.in.context_source;
  s.weight_bytes = bytes(l.in.weight_bytes);
  s.kv_bytes_per_token = bytes(l.in.kv_bytes);
  s.state_bytes_per_token = bytes(l.in.state_bytes);
  s.bytes_per_token = bytes(l.bytes_per_token);
  s.peak_bandwidth_gbps = rate(l.in.peak_gbps);
  s.peak_source = l.in.peak_source;
  s.peak_detail = l.in.peak_detail;
  s.decode_steps = base::PyRound(l.in.steps, 3);
  s.floor_ms_per_token = ms(l.floor_ms_per_token);
  s.wall_ms_per_token = ms(l.wall_ms_per_token);
  s.achieved_gbps = rate(l.achieved_gbps);
  s.mbu_pct = pct(l.mbu_pct);
  s.to_the_floor = times(l.to_the_floor);
  SpeedOfLightDecomposition d;
  d.floor = ms(l.floor);
  for (const auto& [id, excess] : l.unit_excess) d.units.emplace_back(id, ms(excess));
  d.other_kernels = ms(l.other_kernels);
  d.overlap = ms(l.overlap);
  d.host_gap = ms(l.host_gap);
  d.wall = ms(l.wall_ms_per_token);
  s.decomposition_ms_per_token = std::move(d);
  for (const analysis::SpeedOfLightClass& c : l.classes) {
    SpeedOfLightClass out;
    out.name = c.name;
    out.moves = c.moves;
    out.bytes_per_token = bytes(c.bytes_per_token);
    out.ms_per_token = ms(c.ms_per_token);
    out.floor_ms_per_token = ms(c.floor_ms_per_token);
    if (c.achieved_gbps) out.achieved_gbps = rate(*c.achieved_gbps);
    if (c.pct_of_peak) out.pct_of_peak = pct(*c.pct_of_peak);
    s.classes.push_back(std::move(out));
  }
  for (const analysis::SpeedOfLightUnit& u : l.units) {
    SpeedOfLightUnit out;
    out.id = u.id;
    out.bytes_per_token = bytes(u.bytes_per_token);
    out.ms_per_token = ms(u.ms_per_token);
    out.floor_ms_per_token = ms(u.floor_ms_per_token);
    out.excess_ms_per_token = ms(u.excess_ms_per_token);
    out.ceiling_to_floor = times(u.ceiling_to_floor);
    s.units.push_back(std::move(out));
  }
  s.notes = l.notes;
  return s;
}

std::string SpeedOfLightTerminalText(const SpeedOfLightSection& s, size_t top) {
  const std::string headline = SpeedOfLightHeadline(s);
  if (headline.empty()) return "";
  std::string out = "  speed of light: " + headline + "\n";
  std::vector<const SpeedOfLightUnit*> above;
  for (const SpeedOfLightUnit* u : UnitsByExcess(s)) {
    if (above.size() < top && u->excess_ms_per_token && *u->excess_ms_per_token > 0) {
      above.push_back(u);
    }
  }
  if (!above.empty()) {
    out +=
        "  above the floor: (excess ms/step over the unit's floor; the decode's speedup if it "
        "ran at its floor)\n";
    size_t width = 0;
    for (const SpeedOfLightUnit* u : above) width = std::max(width, u->id.size());
    for (const SpeedOfLightUnit* u : above) {
      std::string line = "    #" + u->id;
      line.resize(std::max(line.size() + 2, 7 + width), ' ');
      line += Fixed(u->ms_per_token, 3) + " ms/step, floor " + Fixed(u->floor_ms_per_token, 3) +
              ", excess " + Fixed(u->excess_ms_per_token, 3) + "  " + Times(u->ceiling_to_floor);
      out += line + "\n";
    }
  }
  std::string classes;
  for (const SpeedOfLightClass& c : s.classes) {
    if (!c.achieved_gbps) continue;
    classes += (classes.empty() ? "" : ", ") + c.name + " " +
               base::FormatFixed(*c.achieved_gbps, 1) + " GB/s";
    if (c.pct_of_peak) classes += " (" + base::FormatFixed(*c.pct_of_peak, 1) + " % of peak)";
  }
  if (!classes.empty()) out += "  bandwidth by class: " + classes + "\n";
  return out;
}

std::vector<ContextSweep> ContextSweeps(const std::vector<SummaryFile>& summaries) {
  std::vector<ContextSweep> sweeps;
  for (size_t r = 0; r < summaries.size(); ++r) {
    const auto& sol = summaries[r].speed_of_light;
    if (!sol || !sol->context_tokens) continue;
    const std::string model = ModelOf(summaries[r]);
    auto it = std::find_if(sweeps.begin(), sweeps.end(),
                           [&](const ContextSweep& s) { return s.model == model; });
    if (it == sweeps.end()) {
      sweeps.push_back({model, {}});
      it = sweeps.end() - 1;
    }
    it->runs.push_back(r);
  }
  std::vector<ContextSweep> out;
  for (ContextSweep& sweep : sweeps) {
    const auto context = [&](size_t r) { return *summaries[r].speed_of_light->context_tokens; };
    std::stable_sort(sweep.runs.begin(), sweep.runs.end(),
                     [&](size_t a, size_t b) { return context(a) < context(b); });
    if (sweep.runs.size() >= 2 && context(sweep.runs.front()) != context(sweep.runs.back())) {
      out.push_back(std::move(sweep));
    }
  }
  return out;
}

std::string RenderSpeedOfLightMarkdown(const std::vector<SummaryFile>& summaries) {
  std::string runs;
  for (const SummaryFile& summary : summaries) {
    if (summary.speed_of_light) AppendRunMarkdown(summary, runs);
  }
  if (runs.empty()) return "";
  std::string out =
      "## Speed of light\n\n"
      "Figures are per decode step (the window's time / its steps, one token each). Floor = the "
      "bytes a batch-1 step must move (weights, KV cache at the run's context, "
      "recurrent state) / the GPU's peak memory bandwidth; MBU = floor / wall; to the floor = "
      "wall / floor. Per unit: excess = its ms/step above its own floor; to the floor = the "
      "decode's speedup if that unit ran at its floor.\n\n" +
      runs;
  for (const ContextSweep& sweep : ContextSweeps(summaries)) {
    out +=
        "### Floor vs context: " + (sweep.model.empty() ? std::string("no model") : sweep.model) +
        "\n\n| run | context tokens | KV bytes/step | floor ms/step | wall ms/step | MBU % "
        "|\n|---|---:|---:|---:|---:|---:|\n";
    for (const size_t r : sweep.runs) {
      const SpeedOfLightSection& s = *summaries[r].speed_of_light;
      out += MarkdownRow({RunLabel(summaries[r]), base::PyRepr(*s.context_tokens),
                          s.kv_bytes_per_token ? base::FormatFixed(*s.kv_bytes_per_token, 0)
                                               : std::string(kNoValue),
                          Fixed(s.floor_ms_per_token, 3), Fixed(s.wall_ms_per_token, 3),
                          Fixed(s.mbu_pct, 1)}) +
             "\n";
    }
    out += "\n";
  }
  return out;
}

JsonValue SpeedOfLightRunJson(const SpeedOfLightSection& s) {
  JsonValue out = JsonValue::MakeObject();
  out.Add("model", s.model.empty() ? JsonValue::Null() : JsonValue::Str(s.model));
  out.Add("context_tokens", JsonValue::OptFloat(s.context_tokens));
  out.Add("bytes_per_token", BytesJson(s.bytes_per_token));
  out.Add("kv_bytes_per_token", BytesJson(s.kv_bytes_per_token));
  out.Add("peak_bandwidth_gbps", JsonValue::OptFloat(s.peak_bandwidth_gbps));
  out.Add("peak_source", s.peak_source.empty() ? JsonValue::Null() : JsonValue::Str(s.peak_source));
  out.Add("floor_ms_per_token", JsonValue::OptFloat(s.floor_ms_per_token));
  out.Add("wall_ms_per_token", JsonValue::OptFloat(s.wall_ms_per_token));
  out.Add("achieved_gbps", JsonValue::OptFloat(s.achieved_gbps));
  out.Add("mbu_pct", JsonValue::OptFloat(s.mbu_pct));
  out.Add("to_the_floor", JsonValue::OptFloat(s.to_the_floor));
  JsonValue units = JsonValue::MakeArray();
  for (const SpeedOfLightUnit* u : UnitsByExcess(s)) {
    JsonValue& unit = units.Push(JsonValue::MakeObject());
    unit.Add("unit", JsonValue::Str(u->id));
    unit.Add("ms_per_token", JsonValue::OptFloat(u->ms_per_token));
    unit.Add("floor_ms_per_token", JsonValue::OptFloat(u->floor_ms_per_token));
    unit.Add("excess_ms_per_token", JsonValue::OptFloat(u->excess_ms_per_token));
    unit.Add("ceiling_to_floor", JsonValue::OptFloat(u->ceiling_to_floor));
  }
  out.Add("units", std::move(units));
  return out;
}

JsonValue ContextSweepsJson(const std::vector<SummaryFile>& summaries) {
  JsonValue out = JsonValue::MakeArray();
  for (const ContextSweep& sweep : ContextSweeps(summaries)) {
    JsonValue& item = out.Push(JsonValue::MakeObject());
    item.Add("model", sweep.model.empty() ? JsonValue::Null() : JsonValue::Str(sweep.model));
    JsonValue runs = JsonValue::MakeArray();
    for (const size_t r : sweep.runs) {
      const SpeedOfLightSection& s = *summaries[r].speed_of_light;
      JsonValue& run = runs.Push(JsonValue::MakeObject());
      run.Add("run", JsonValue::Str(LabelOf(summaries[r])));
      run.Add("context_tokens", JsonValue::OptFloat(s.context_tokens));
      run.Add("kv_bytes_per_token", BytesJson(s.kv_bytes_per_token));
      run.Add("floor_ms_per_token", JsonValue::OptFloat(s.floor_ms_per_token));
      run.Add("wall_ms_per_token", JsonValue::OptFloat(s.wall_ms_per_token));
      run.Add("mbu_pct", JsonValue::OptFloat(s.mbu_pct));
    }
    item.Add("runs", std::move(runs));
  }
  return out;
}

}  // namespace decodeprof::report
