// The judgments of ComputeRun (summarize_stages.h): the notes of what was chosen on the user's
// behalf, and the diagnostics of the inputs, the window and the figures.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/base/large_pages.h"
#include "src/base/parallel.h"
#include "src/base/py_format.h"
#include "src/base/spill.h"
#include "src/base/utf8.h"
#include "src/pipeline/sampled_window.h"
#include "src/pipeline/summarize_stages.h"
#include "src/trace/trace.h"

namespace decodeprof::pipeline {
namespace {

// Fewer sampled steps than this in a sampled window: a warning (sampled_steps_few).
constexpr int64_t kFewSampledSteps = 3;
// Fewer decode steps named by the engine than this in the window is a warning (engine_steps_few).
constexpr int64_t kFewEngineSteps = 3;

// Kernels of one CUDA stream run in order: one that ends after the next kernel of its stream
// ended has a late end timestamp (seen on the H200 when a CUDA graph was replayed before CUPTI
// read the recorded replay's timestamps: ~2 ms graph kernels of ~20 us), or overlaps it by
// programmatic dependent launch. Only where the source's streams run in order
// (ImportedTrace::in_order_streams: CUDA streams, not ROCm queues).
void AddStreamOrderDiagnostics(const SummarizeRequest& req, const trace::ImportedTrace& info,
                               const analysis::DecodeWindow& w, const trace::StringPool& names,
                               trace::Diagnostics& diag) {
  if (!info.in_order_streams) return;
  std::unordered_map<uint64_t, size_t> last;  // (device, stream) -> its latest kernel so far
  int64_t count = 0;
  int64_t late_ns = 0;
  const trace::Dispatch* first = nullptr;
  // The entry of the stream met last (kernels mostly follow others of their stream): the map
  // is asked only where the stream changes. Its entries stay where they are as it grows.
  uint64_t cached_key = 0;
  size_t* cached = nullptr;
  for (size_t i = 0; i < w.dispatches.size(); ++i) {
    const trace::Dispatch& d = w.dispatches[i];
    if (d.kind != trace::DispatchKind::kKernel || d.stream == 0) continue;
    const uint64_t key = (static_cast<uint64_t>(static_cast<uint16_t>(d.device)) << 32) | d.stream;
    if (cached == nullptr || key != cached_key) {
      const auto [it, fresh] = last.try_emplace(key, i);
      cached_key = key;
      cached = &it->second;
      if (fresh) continue;
    }
    const trace::Dispatch& prev = w.dispatches[*cached];
    if (prev.end > d.end) {
      ++count;
      late_ns += prev.end - d.end;
      if (first == nullptr) first = &prev;
      continue;  // keep the late one: the kernels it outlasts count once each
    }
    *cached = i;
  }
  if (count == 0) return;
  diag.Add(trace::Message<trace::Msg::kLateEnds>(
               names.Get(first->name), first->stream,
               base::FormatFixed(static_cast<double>(first->duration()) / 1e3, 1),
               base::FormatFixed(static_cast<double>(late_ns) / 1e6, 3)),
           count, req.trace, first->line == 0 ? "" : std::to_string(first->line));
}

// A kernel of more than this share of the window's GPU time in class `other`: a warning.
constexpr double kLargeOtherSharePct = 5.0;

void AddAnalysisDiagnostics(const SummarizeRequest& req, const analysis::Summary& summary,
                            const analysis::Attribution& attribution, trace::Diagnostics& diag) {
  // The kernel table is in descending time order: the largest such kernels first; the
  // detail names up to three.
  trace::DiagMessage named{trace::Diag::kLargeKernelUnclassified, ""};
  int64_t large_other = 0;
  for (const analysis::KernelStat& k : summary.kernels) {
    if (k.class_name != "other" || !k.share_exact || *k.share_exact <= kLargeOtherSharePct) {
      continue;
    }
    if (large_other++ < 3) {
      trace::AppendText(named.text, trace::Message<trace::Msg::kLargeKernelShare>(
                                        base::TruncateCodePoints(k.name, 120),
                                        base::FormatFixed(*k.share_exact, 1)));
    }
  }
  if (large_other > 0) {
    if (large_other > 3)
      trace::AppendText(named.text, trace::Message<trace::Msg::kLargeKernelsMore>(large_other - 3));
    diag.Add(named, large_other, req.trace);
  }
  diag.Add(trace::Message<trace::Msg::kDecodeStartCuts>(), summary.kernels_straddling_decode_start,
           req.trace);
  if (summary.host_gap_attribution_residual_ns != 0) {
    diag.Add(trace::Message<trace::Msg::kGapUnattributed>(summary.host_gap_attribution_residual_ns),
             1, req.trace);
  }
  if (!attribution.warnings.empty()) {
    diag.Add(trace::Diag::kRoleRuleWarning, static_cast<int64_t>(attribution.warnings.size()),
             {req.trace, "", attribution.warnings.front().text});
  }
}

// The sampled recording's diagnostics: its steps, few of them, its distortion, its run cost.
void AddSamplingDiagnostics(const SummarizeRequest& req, const analysis::Sampling& m,
                            trace::Diagnostics& diag) {
  diag.Add(trace::Message<trace::Msg::kSampledStepsOf>(m.steps_sampled, m.steps_seen),
           m.steps_sampled, req.trace);
  if (m.steps_sampled < kFewSampledSteps) {
    diag.Add(trace::Message<trace::Msg::kSampledStepsFewOf>(
                 m.steps_sampled, m.steps_sampled == 1 ? "" : "s", m.steps_seen),
             1, req.trace);
  }
  if (m.distortion_pct && *m.distortion_pct > 5.0) {
    diag.Add(trace::Message<trace::Msg::kSamplingSlower>(base::FormatFixed(*m.distortion_pct, 2)),
             1, req.trace);
  }
  if (m.run_cost_pct && *m.run_cost_pct > 5.0 && m.run_cost_ms_per_sampled_step) {
    diag.Add(trace::Message<trace::Msg::kSamplingCost>(
                 base::FormatFixed(*m.run_cost_pct, 2),
                 base::FormatFixed(*m.run_cost_ms_per_sampled_step, 3), SamplingForRunCost(m, 2.0)),
             1, req.trace);
  }
}

// The window's steps against the engine's and the tokens; the log's marks left unused.
void AddStepDiagnostics(const SummarizeRequest& req, const RunInputs& inputs,
                        const TokenCount& tokens, const LoadedTrace& loaded,
                        trace::Diagnostics& diag) {
  if (const auto& e = loaded.trace.engine_steps;
      e && e->window_kind == analysis::StepKind::kDecode && e->window_steps < kFewEngineSteps) {
    diag.Add(trace::Message<trace::Msg::kEngineStepsIn>(e->window_steps,
                                                        e->window_steps == 1 ? "" : "s", e->rule),
             1, req.trace);
  }
  // Tokens given (log or flag) against the decode steps the window holds (step ranges,
  // graph launches or the loop found): the first token comes from the prefill.
  const trace::BenchLog& log = inputs.log;
  const trace::BenchResults& profiled = tokens.profiled;
  if (!loaded.sampling && loaded.trace.steps && *loaded.trace.steps > 0 &&
      (req.generated_tokens || log.results.generated_tokens) && profiled.generated_tokens) {
    const int64_t steps = *loaded.trace.steps;
    const int64_t passes = std::max<int64_t>(*profiled.generated_tokens - 1, 1);
    if (passes > 2 * steps || steps > 2 * passes) {
      diag.Add(trace::Message<trace::Msg::kTokensAgainstSteps>(*profiled.generated_tokens, steps),
               1, req.generated_tokens ? std::string("--generated-tokens") : req.log);
    }
  }
  if (!log.marks.empty() && loaded.trace.marks_source != req.log) {
    diag.Add(trace::Message<trace::Msg::kWindowFrom>(loaded.trace.marks_source), 1, req.log);
  }
}

// The note of a loop found without marks: its steps, their dispatches and graph launches.
std::string FoundLoopNote(const WindowedTrace& t) {
  const analysis::WindowEvidence& ev = t.evidence;
  std::string note = "no phase marks: the decode loop found by " + t.window_source + ": " +
                     std::to_string(ev.steps.value_or(0)) + " steps of " +
                     std::to_string(ev.dispatches_per_step.value_or(0)) + " dispatches";
  if (ev.graph_launches_per_step.value_or(0) > 0) {
    note += " (" + std::to_string(*ev.graph_launches_per_step) + " graph launch" +
            (*ev.graph_launches_per_step == 1 ? "" : "es") + " each)";
  }
  if (ev.deviated_steps.value_or(0) > 0) {
    note += ", " + std::to_string(*ev.deviated_steps) + " deviating";
  }
  if (ev.runs.value_or(0) > 1) {
    note += "; the longest of " + std::to_string(*ev.runs) +
            " runs (the others: warm-up or earlier decodes)";
  }
  return note;
}

// The note of a window cut by the engine's own step names.
std::string EngineStepsNote(const analysis::EngineSteps& e) {
  std::string note = "no phase marks: the window is the engine's own steps (" + e.engine +
                     " step names, rule " + e.rule + "): " + std::to_string(e.window_steps) + " " +
                     std::string(analysis::StepKindName(e.window_kind)) +
                     (e.window_steps == 1 ? " step" : " steps") +
                     " (the trace's steps: " + analysis::KindCounts(e.kinds) + ")";
  if (e.decode_runs > 1) {
    note += ", the longest of " + std::to_string(e.decode_runs) + " runs of decode steps";
  }
  for (size_t i = 0; i < e.also_found.size(); ++i) {
    note += (i == 0 ? "; also named by " : ", ") + e.also_found[i];
  }
  return note;
}

}  // namespace

void AddWindowNotes(const LoadedTrace& loaded, std::vector<std::string>& notes) {
  if (loaded.timed_periods > 0) {
    notes.push_back("sampled by time: kernels recorded in " + std::to_string(loaded.timed_periods) +
                    (loaded.timed_periods == 1 ? " period" : " periods") +
                    (loaded.sampling
                         ? "; the step ranges whole inside them are the sampled steps"
                         : "; the decode loop is the one of the most steps found in one of them, "
                           "a piece of the decode: one token a step (no prefill token)"));
  }
  if (loaded.trace.window_source == "graph-launches" || loaded.trace.window_source == "periodic") {
    notes.push_back(FoundLoopNote(loaded.trace));
  }
  if (const auto& e = loaded.trace.engine_steps) notes.push_back(EngineStepsNote(*e));
}

std::optional<size_t> AddSampledNote(const LoadedTrace& loaded, const TokenCount& tokens,
                                     std::vector<std::string>& notes) {
  const auto& m = loaded.sampling;
  if (!m) return std::nullopt;
  const int64_t generated = *tokens.profiled.generated_tokens;
  std::string note = "sampled recording: " + std::to_string(m->steps_sampled) + " of " +
                     std::to_string(m->steps_seen) + " steps recorded kernel by kernel";
  if (m->distortion_pct) {
    note += " (sampled steps " + base::FormatFixed(*m->sampled_step_ms, 3) + " ms, the others " +
            base::FormatFixed(*m->unsampled_step_ms, 3) +
            " ms: " + (*m->distortion_pct >= 0 ? "+" : "") +
            base::FormatFixed(*m->distortion_pct, 2) + " %)";
  }
  note += "; per-token figures: the sampled steps' mean scaled to the " +
          std::to_string(DecodeSteps(*m)) + " steps of the decode (" + std::to_string(generated) +
          " tokens)";
  notes.push_back(note);
  return notes.size() - 1;
}

void CompleteSampledNote(const analysis::Sampling& m, std::string& note) {
  if (!m.sampled_step_ms || !m.unsampled_step_ms) return;
  if (m.tracing_cost_us_per_dispatch) {
    note += "; tracing added " + base::FormatFixed(*m.tracing_cost_ms_per_step, 3) +
            " ms a sampled step, " + base::FormatFixed(*m.tracing_cost_us_per_dispatch, 3) +
            " us a dispatch";
    if (m.tracing_share_of_host_gap_pct) {
      note += ", " + base::FormatFixed(*m.tracing_share_of_host_gap_pct, 2) + " % of its host gap";
    }
  }
  if (m.run_cost_ms_per_sampled_step && m.run_cost_pct) {
    note += "; sampling cost the run " + base::FormatFixed(*m.run_cost_ms_per_sampled_step, 3) +
            " ms a sampled step (it and the next, start to start), " +
            base::FormatFixed(*m.run_cost_pct, 2) + " % of the decode";
  }
}

namespace {

// The correlation ids two or more of `ds`'s kernels share, sorted, found in a pass in parts
// (KernelIds::Add each dispatch of a part in order; Repeated with the parts). In start order
// the ids mostly rise: each part of the window then finds its own repeats, and the parts meet
// where one part's last id is the next one's first; an id out of order anywhere: all of them
// sorted once.
struct KernelIds {
  bool sorted = true;
  bool any = false;
  uint64_t first = 0;
  uint64_t last = 0;
  std::vector<uint64_t> repeats;

  static bool Counted(const trace::Dispatch& d) {
    return d.correlation != 0 && d.kind == trace::DispatchKind::kKernel;
  }
  static void AddOnce(std::vector<uint64_t>& out, uint64_t id) {
    if (out.empty() || out.back() != id) out.push_back(id);
  }
  void Add(const trace::Dispatch& d) {
    if (!sorted || !Counted(d)) return;
    const uint64_t id = d.correlation;
    if (!any) {
      any = true;
      first = id;
    } else if (id < last) {
      sorted = false;
      return;
    } else if (id == last) {
      AddOnce(repeats, id);
    }
    last = id;
  }
  static std::vector<uint64_t> Repeated(std::span<const KernelIds> parts,
                                        std::span<const trace::Dispatch> ds) {
    std::vector<uint64_t> out;
    bool in_order = true;
    std::optional<uint64_t> prev;
    for (size_t k = 0; k < parts.size() && in_order; ++k) {
      const KernelIds& p = parts[k];
      in_order = p.sorted;
      if (!in_order || !p.any) continue;
      if (prev && p.first < *prev) {
        in_order = false;
        continue;
      }
      if (prev && p.first == *prev) AddOnce(out, p.first);
      for (const uint64_t id : p.repeats) AddOnce(out, id);
      prev = p.last;
    }
    if (in_order) return out;
    std::vector<uint64_t> ids;
    base::ReserveFaultedIn(ids, ds.size());
    for (const trace::Dispatch& d : ds) {
      if (Counted(d)) ids.push_back(d.correlation);
    }
    std::sort(ids.begin(), ids.end());
    out.clear();
    for (size_t i = 1; i < ids.size(); ++i) {
      if (ids[i] == ids[i - 1]) AddOnce(out, ids[i]);
    }
    return out;
  }
};

// KernelIds of `ds` in a pass of its own.
std::vector<uint64_t> RepeatedKernelIds(std::span<const trace::Dispatch> ds) {
  std::array<KernelIds, base::kMaxPassParts> in{};
  const size_t parts =
      base::ForParts(ds.size(), base::kMinPassPart, [&](size_t k, size_t b, size_t e) {
        base::spill::ReleaseBehind<trace::Dispatch> behind(ds.data(), b);
        KernelIds ids;  // on this thread's stack: the parts' entries share cache lines
        for (size_t i = b; i < e && ids.sorted; ++i) {
          behind.Passed(i);
          ids.Add(ds[i]);
        }
        in[k] = std::move(ids);
      });
  return KernelIds::Repeated(std::span<const KernelIds>(in.data(), parts), ds);
}

}  // namespace

// Whether the decode's steps replay graphs: most of the window's dispatches were launched by a
// graph launch call (cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch), or the trace shows graphs
// whole (nsys's "[CUDA graph N]" rows).
bool ReplaysGraphs(const analysis::DecodeWindow& w, const trace::ImportedTrace& info,
                   const trace::StringPool& names) {
  const trace::DispatchVector& ds = w.dispatches;
  if (ds.empty()) return false;
  const trace::LaunchIndex index(info.launches);
  // Each distinct name's answers once: a graph launch call, a "[CUDA graph" dispatch.
  std::vector<uint8_t> graph_call(names.size());
  std::vector<uint8_t> graph_name(names.size());
  for (size_t id = 0; id < names.size(); ++id) {
    const std::string_view name = names.Get(static_cast<trace::StringId>(id));
    graph_call[id] = trace::IsGraphLaunch(name) ? 1 : 0;
    graph_name[id] = name.starts_with("[CUDA graph") ? 1 : 0;
  }
  const auto is = [](const std::vector<uint8_t>& answers, trace::StringId id) {
    return id < answers.size() && answers[id] != 0;
  };
  // In parts on several threads, summed: the dispatches a graph launched, and those with a
  // correlation id but no launch call (`open`: decided below). Without launch calls every such
  // dispatch is open: the same pass finds the kernel ids shared, which they will need (with
  // calls, open ones are rare, and a pass of their own finds them when there are some).
  const bool ids_needed = info.launches.empty();
  std::array<size_t, base::kMaxPassParts> graphed_in{};
  std::array<size_t, base::kMaxPassParts> open_in{};
  std::array<KernelIds, base::kMaxPassParts> ids_in{};
  const size_t parts =
      base::ForParts(ds.size(), base::kMinPassPart, [&](size_t k, size_t b, size_t e) {
        // Counted on this thread's stack, stored once: the parts' entries share cache lines.
        size_t hint = 0;
        size_t graphed_here = 0;
        size_t open_here = 0;
        KernelIds ids;
        base::spill::ReleaseBehind<trace::Dispatch> behind(ds.data(), b);
        base::spill::ReleaseBehind<trace::ApiCall> calls(index.data());
        for (size_t i = b; i < e; ++i) {
          behind.Passed(i);
          calls.Passed(hint);
          const trace::Dispatch& d = ds[i];
          if (ids_needed) ids.Add(d);
          const trace::ApiCall* call = index.Find(d.correlation, hint);
          if ((call != nullptr && is(graph_call, call->name)) || is(graph_name, d.name)) {
            ++graphed_here;
          } else if (call == nullptr && d.correlation != 0) {
            ++open_here;
          }
        }
        graphed_in[k] = graphed_here;
        open_in[k] = open_here;
        ids_in[k] = std::move(ids);
      });
  size_t graphed = 0;
  size_t open = 0;
  for (size_t k = 0; k < parts; ++k) {
    graphed += graphed_in[k];
    open += open_in[k];
  }
  // Without the launch calls (a recording with the API records off, a trace that lost them),
  // a graph replay still shows: CUPTI and roctracer give every kernel of a graph launch that
  // launch's correlation id, so two or more kernels share it; a plain launch runs one.
  // Counted only when some dispatch has a correlation id without a launch call, and only the
  // ids met twice or more kept (KernelIds), few where no graph runs.
  if (open > 0 && graphed * 2 < ds.size()) {
    const std::vector<uint64_t> shared_ids =
        ids_needed ? KernelIds::Repeated(std::span<const KernelIds>(ids_in.data(), parts), ds)
                   : RepeatedKernelIds(ds);
    if (!shared_ids.empty()) {
      std::array<size_t, base::kMaxPassParts> shared_in{};
      base::ForParts(ds.size(), base::kMinPassPart, [&](size_t k, size_t b, size_t e) {
        size_t hint = 0;
        size_t shared_here = 0;
        base::spill::ReleaseBehind<trace::Dispatch> behind(ds.data(), b);
        base::spill::ReleaseBehind<trace::ApiCall> calls(index.data());
        for (size_t i = b; i < e; ++i) {
          behind.Passed(i);
          calls.Passed(hint);
          const trace::Dispatch& d = ds[i];
          if (d.correlation == 0 || is(graph_name, d.name)) continue;
          if (index.Find(d.correlation, hint) != nullptr) continue;
          if (std::binary_search(shared_ids.begin(), shared_ids.end(), d.correlation)) {
            ++shared_here;
          }
        }
        shared_in[k] = shared_here;
      });
      for (const size_t n : shared_in) graphed += n;
    }
  }
  return graphed * 2 >= ds.size();
}

// The summary's warnings of recorder trouble, in the words decodeprof always used.
void AddRecorderWarnings(const trace::Diagnostics& diag,
                         std::vector<trace::DiagMessage>& warnings) {
  for (trace::DiagMessage& warning : trace::RecorderWarnings(diag)) {
    warnings.push_back(std::move(warning));
  }
}

void AddRunDiagnostics(const SummarizeRequest& req, const RunInputs& inputs,
                       const TokenCount& tokens, const LoadedTrace& loaded,
                       const trace::StringPool& names, const analysis::Summary& summary,
                       const analysis::Attribution& attribution, trace::Diagnostics& diag) {
  diag.Merge(inputs.diagnostics);
  if (loaded.sampling) AddSamplingDiagnostics(req, *loaded.sampling, diag);
  AddStepDiagnostics(req, inputs, tokens, loaded, diag);
  AddAnalysisDiagnostics(req, summary, attribution, diag);
  const analysis::DecodeWindow& window = loaded.trace.window;
  AddOverlapDiagnostics(req.trace, window.dispatches, window.lo, window.hi, diag);
  AddStreamOrderDiagnostics(req, loaded.trace.info, window, names, diag);
}

base::Status FirstError(const SummarizeRequest& req, const trace::Diagnostics& diag) {
  if (!diag.has_error()) return base::OkStatus();
  for (const trace::DiagnosticEntry& e : diag.entries()) {
    const trace::DiagnosticInfo& d = trace::Describe(e.code);
    if (d.severity == trace::Severity::kError) {
      return base::DataError(e.first.file.empty() ? req.trace : e.first.file,
                             std::string(d.meaning) + " (" + std::string(d.name) + ", " +
                                 std::to_string(e.count) + ")");
    }
  }
  return base::OkStatus();
}

}  // namespace decodeprof::pipeline
