#include "src/report/terminal_summary.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "src/base/py_format.h"
#include "src/report/short_name.h"
#include "src/report/speed_of_light_render.h"

namespace decodeprof::report {
namespace {

std::string Fixed(double v, int places) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", places, v);
  return buf;
}

// A list of numbers, "15" or "1, 8, 32"; at most 6, then "…".
std::string List(const std::vector<int64_t>& values) {
  std::string out;
  for (size_t i = 0; i < values.size() && i < 6; ++i) {
    out += (i > 0 ? ", " : "") + std::to_string(values[i]);
  }
  if (values.size() > 6) out += ", …";
  return out.empty() ? "-" : out;
}

// The engine's steps per kind: count, batch sizes, GPU and wall milliseconds per step.
std::string StepTable(const analysis::EngineSteps& e) {
  struct Row {
    std::string kind, steps, window, batch, gpu, wall;
  };
  std::vector<Row> rows = {
      {"kind", "steps", "window", "batch", "GPU ms/step (p50, p99)", "wall ms/step (p50, p99)"}};
  for (const analysis::StepKindStats& k : e.kinds) {
    std::string batch = List(k.batch_sizes);
    if (!k.tokens.empty()) batch += " (" + List(k.tokens) + " tok)";
    rows.push_back({std::string(analysis::StepKindName(k.kind)), std::to_string(k.steps),
                    std::to_string(k.in_window), batch,
                    Fixed(k.gpu_ms_mean, 3) + " (" + Fixed(k.gpu_ms_p50, 3) + ", " +
                        Fixed(k.gpu_ms_p99, 3) + ")",
                    Fixed(k.wall_ms_mean, 3) + " (" + Fixed(k.wall_ms_p50, 3) + ", " +
                        Fixed(k.wall_ms_p99, 3) + ")"});
  }
  size_t batch_width = 0, gpu_width = 0;
  for (const Row& r : rows) {
    batch_width = std::max(batch_width, r.batch.size());
    gpu_width = std::max(gpu_width, r.gpu.size());
  }
  const auto pad = [](std::string text, size_t width, bool right) {
    if (text.size() < width) text.insert(right ? 0 : text.size(), width - text.size(), ' ');
    return text;
  };
  std::string out;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    out += (i == 0 ? "  engine steps: " : "                ") + pad(r.kind, 8, false) + " " +
           pad(r.steps, 5, true) + "  " + pad(r.window, 6, true) + "  " +
           pad(r.batch, batch_width, false) + "  " + pad(r.gpu, gpu_width, false) + "  " + r.wall +
           "\n";
  }
  return out;
}

std::string Window(const analysis::Summary& s) {
  std::string out = "  window:     ";
  const std::string& src = s.window_source;
  const auto& ev = s.window_evidence;
  if (src == "graph-launches" || src == "periodic") {
    out += "found without marks (" + src + "): " + std::to_string(ev ? ev->steps.value_or(0) : 0) +
           " steps of " + std::to_string(ev ? ev->dispatches_per_step.value_or(0) : 0) +
           " dispatches";
    if (ev && ev->runs && *ev->runs > 1 && ev->run) {
      out += ", run " + std::to_string(*ev->run) + " of " + std::to_string(*ev->runs);
    }
    if (ev && !ev->boundary.empty()) out += ", tokens end at a " + ev->boundary;

  } else if (src == "engine-steps" && s.engine_steps) {
    const analysis::EngineSteps& e = *s.engine_steps;
    out += "the engine's step names (" + e.engine + ": " + e.rule + "), " +
           std::to_string(e.window_steps) + " " +
           std::string(analysis::StepKindName(e.window_kind)) +
           (e.window_steps == 1 ? " step" : " steps");
    if (e.decode_runs > 1 && ev && ev->run) {
      out += ", run " + std::to_string(*ev->run) + " of " + std::to_string(e.decode_runs);
    }
  } else if (src == "log") {
    out += "the bench log's [phase] marks";
  } else if (src == "marks" || src == "ranges") {
    out += "the trace's ranges";
    if (ev && !ev->range.empty()) out += " (" + ev->range + ")";
  } else if (src == "all") {
    out += "the whole trace (--window all)";
  } else if (src == "explicit") {
    out += "--window START..END";
  } else {
    out += src.empty() ? "the decode window" : src;
  }
  out += ", " + Fixed(s.decode_wall_ms, 3) + " ms wall, " + std::to_string(s.decode_dispatches) +
         " dispatches";
  if (s.generated_tokens) out += ", " + std::to_string(*s.generated_tokens) + " tokens";
  if (s.window_tokens) {  // a sampled recording: the window holds some of the decode's steps
    out += " (the window's steps stand for " + base::PyRepr(*s.window_tokens) + ")";
  }
  out += "\n";
  if (s.engine_steps) out += StepTable(*s.engine_steps);
  if (ev && ev->confidence == "low") {
    out += "  LOW CONFIDENCE: found without marks, and";
    for (const std::string& r : ev->reasons) out += "\n    - " + r;
    out += "\n    mark the decode (include/decodeprof/marks.h) or check the window\n";
  }
  return out;
}

}  // namespace

std::string TerminalSummaryText(const analysis::Summary& s, size_t top) {
  if (!s.speed_of_light) return TerminalSummaryText(s, top, nullptr);
  const SpeedOfLightSection section = SpeedOfLightSectionOf(*s.speed_of_light);
  return TerminalSummaryText(s, top, &section);
}

std::string TerminalSummaryText(const analysis::Summary& s, size_t top,
                                const SpeedOfLightSection* speed_of_light) {
  std::string out = Window(s);
  if (s.gpu_ms_per_token && s.host_gap_ms_per_token) {
    const double wall = *s.gpu_ms_per_token + *s.host_gap_ms_per_token;
    out += "  per token:  " + Fixed(*s.gpu_ms_per_token, 3) + " ms GPU busy + " +
           Fixed(*s.host_gap_ms_per_token, 3) + " ms host gap = " + Fixed(wall, 3) + " ms";
    if (s.host_gap_pct_of_wall) {
      out += " (the GPU idles " + Fixed(*s.host_gap_pct_of_wall, 1) + " % of the wall)";
    }
    out += "\n";
  } else {
    out += "  per token:  n/a (no generated-token count: pass --generated-tokens or a log)\n";
  }
  if (speed_of_light != nullptr) out += SpeedOfLightTerminalText(*speed_of_light, top);
  // Units in rank order: the wall ceiling is the decode's speedup bound if the unit's work
  // took no time (plain: over the unprofiled run's wall).
  size_t width = 0;
  for (size_t i = 0; i < s.ranked_units.size() && i < top; ++i) {
    width = std::max(width, s.ranked_units[i].id.size());
  }
  size_t shown = 0;
  for (const analysis::RankedUnit& r : s.ranked_units) {
    if (shown == top) break;
    if (!r.value) continue;
    if (shown == 0)
      out += "  do first:   (wall ceiling: the decode's speedup if the unit's work took no time)\n";
    const auto unit = std::find_if(s.units.begin(), s.units.end(),
                                   [&](const analysis::UnitSummary& u) { return u.id == r.id; });
    std::string line = "    " + std::to_string(++shown) + ". #" + r.id;
    line.resize(std::max(line.size() + 1, 10 + width), ' ');
    line += Fixed(*r.value, 2) + "×";
    if (r.value_range && r.value_range->first != r.value_range->second) {
      line += " (" + Fixed(r.value_range->first, 2) + "–" + Fixed(r.value_range->second, 2) +
              "× over the plain runs)";
    }
    line += r.by == analysis::RankFigure::kPlainCeilingWallEst ? "  plain" : "  profiled";
    if (unit != s.units.end()) {
      if (unit->host_gap == "all") line += ", owns the host gap";
      if (unit->fallback_share_pct && *unit->fallback_share_pct > 0) {
        line += ", " + Fixed(*unit->fallback_share_pct, 1) + " % of GPU time";
      }
      if (!unit->port.empty()) line += " — " + unit->port;
    }
    out += line + "\n";
  }
  if (shown == 0) out += "  do first:   n/a (no work unit reaches this run: see --units)\n";
  if (!s.kernels.empty()) {
    out += "  top kernels (share of GPU time):\n";
    for (size_t i = 0; i < s.kernels.size() && i < top; ++i) {
      const analysis::KernelStat& k = s.kernels[i];
      std::string share = k.share_pct ? Fixed(*k.share_pct, 2) + " %" : "n/a";
      share.insert(0, share.size() < 8 ? 8 - share.size() : 0, ' ');
      out += "    " + share + "  " + ShortKernelName(k.name) + "  (" + k.class_name;
      if (k.calls_per_token) out += ", " + Fixed(*k.calls_per_token, 2) + " calls/token";
      out += ")\n";
    }
  }
  return out;
}

}  // namespace decodeprof::report
