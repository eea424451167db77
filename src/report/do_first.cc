#include "src/report/do_first.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/report/do_first_internal.h"
#include "src/report/markdown_table.h"
#include "src/report/run_set.h"
#include "src/report/summary_view.h"

// The "Do first" judgments: the trust flags of a run and the ranking of the work units across
// runs (do_first.h). The section's text, Markdown and HTML, is do_first_render.cc.

namespace decodeprof::report {
namespace {

using Json = nlohmann::ordered_json;
using do_first_internal::Fixed;
using do_first_internal::Joined;
using do_first_internal::OneLine;
using do_first_internal::Positive;
using trace::Message;
using trace::Msg;

// ---------------------------------------------------------------------------------------
// Trust flags.

template <typename T>
std::string Stored(const SummaryValue<T>& value) {
  return value.is_null() ? std::string(kNoValue) : value.Str();
}

// The summary's diagnostics of severity `severities` as "code ×count (meaning)" texts.
std::vector<std::string> DiagnosticTexts(const SummaryFile& summary,
                                         std::initializer_list<std::string_view> severities,
                                         std::initializer_list<std::string_view> skip_codes) {
  std::vector<std::string> texts;
  for (const DiagnosticView& entry : RunView(summary).Diagnostics()) {
    const std::optional<std::string> sev = entry.severity().get();
    const std::optional<std::string> name = entry.code().get();
    if (!sev || !name) continue;
    if (std::find(severities.begin(), severities.end(), *sev) == severities.end()) continue;
    if (std::find(skip_codes.begin(), skip_codes.end(), *name) != skip_codes.end()) continue;
    std::string text = *name + " ×" + Stored(entry.count());
    if (*sev == "error") text += " (error)";
    if (const std::optional<std::string> meaning = entry.meaning().get()) {
      text += " (" + OneLine(*meaning) + ")";
    }
    texts.push_back(text);
  }
  return texts;
}

// The summary's warnings; the two of the recorder's lost records are left out when the
// records-lost flag already names the diagnostics they come from.
std::vector<std::string> WarningTexts(const SummaryFile& summary, bool records_lost_flagged) {
  std::vector<std::string> texts;
  for (const std::string& text : RunView(summary).Warnings()) {
    if (records_lost_flagged && trace::IsRecorderWarning(text)) continue;
    texts.push_back(OneLine(text));
  }
  return texts;
}

// ---------------------------------------------------------------------------------------
// The cross-run ranking.

// The run's shipped defaults reach some of the unit's work (a unit entry without any of the
// reached_default figures counts as reached: nothing says otherwise).
bool Reached(const UnitView& unit) {
  bool any_field = false;
  for (const std::optional<double> value : {unit.reached_default_dispatches_per_token().get(),
                                            unit.reached_default_host_gap_ms_per_token().get(),
                                            unit.reached_default_share_pct().get()}) {
    any_field = any_field || value.has_value();
    if (Positive(value)) return true;
  }
  return !any_field;
}

std::vector<CrossRunUnit> Rank(const std::vector<SummaryFile>& summaries,
                               const std::vector<bool>& left_out) {
  std::vector<analysis::UnitAcrossRuns> units;
  std::vector<CrossRunUnit> details;
  for (const std::string& id : UnitColumns(summaries)) {
    analysis::UnitAcrossRuns unit{.id = id};
    CrossRunUnit detail{.id = id};
    for (size_t r = 0; r < summaries.size(); ++r) {
      const UnitView entry = RunView(summaries[r]).Unit(id);
      if (entry.json().is_null()) continue;
      if (detail.port.empty()) detail.port = entry.port().get().value_or("");
      analysis::RankedUnit figure{.id = id};
      for (const analysis::RankedUnit& ranked : RankedUnits(summaries[r])) {
        if (ranked.id == id) figure = ranked;
      }
      const bool reached = Reached(entry);
      unit.runs.push_back({r, figure, entry.fallback_share_pct().get().value_or(0.0), reached,
                           r >= left_out.size() || !left_out[r]});
      detail.holding.push_back(r);
      if (reached) detail.reached.push_back(r);
    }
    units.push_back(std::move(unit));
    details.push_back(std::move(detail));
  }
  std::vector<CrossRunUnit> out;
  for (const analysis::CrossRunRankedUnit& ranked : analysis::RankUnitsAcrossRuns(units)) {
    auto it = std::find_if(details.begin(), details.end(),
                           [&ranked](const CrossRunUnit& d) { return d.id == ranked.id; });
    CrossRunUnit unit = *it;
    unit.best_run = ranked.best_run;
    unit.ceiling = ranked.value;
    unit.by = ranked.by;
    if (ranked.best_run) {
      for (const analysis::RankedUnit& r : RankedUnits(summaries[*ranked.best_run])) {
        if (r.id == ranked.id && r.by == ranked.by) unit.ceiling_range = r.value_range;
      }
      unit.gpu_share =
          RunView(summaries[*ranked.best_run]).Unit(ranked.id).fallback_share_pct().get();
    }
    unit.flagged_only = ranked.flagged_only;
    out.push_back(std::move(unit));
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------

std::optional<trace::Diag> TrustFlagCode(TrustFlagKind kind) {
  switch (kind) {
    case TrustFlagKind::kPlainSlower:
      return trace::Diag::kPlainSlower;
    case TrustFlagKind::kHighProfilerCost:
      return trace::Diag::kHighProfilerCost;
    case TrustFlagKind::kNoisyPlainRuns:
      return trace::Diag::kNoisyPlainRuns;
    case TrustFlagKind::kFewTokens:
      return trace::Diag::kFewTokens;
    case TrustFlagKind::kNoTokenCount:
      return trace::Diag::kNoTokenCount;
    case TrustFlagKind::kStraddlingKernels:
      return trace::Diag::kStraddlingDecodeStart;
    case TrustFlagKind::kGapResidual:
      return trace::Diag::kHostGapResidual;
    case TrustFlagKind::kWarnings:
    case TrustFlagKind::kRecordsLost:
      break;
  }
  return std::nullopt;
}

TrustFlag MakeTrustFlag(TrustFlagKind kind, std::string detail) {
  const std::string tokens = std::to_string(kMinGeneratedTokens);
  const std::string cost_limit = Fixed(kProfilerCostFlagPct, 0) + " %";
  switch (kind) {
    case TrustFlagKind::kPlainSlower:
      return {kind,
              "plain run slower than profiled",
              std::move(detail),
              "a profiler cannot make a run faster, so the plain and the profiled run differ by "
              "noise of at least that much, and the plain-wall ceilings rest on a disturbed "
              "plain run",
              "rerun the plain and the profiled run back to back behind the GPU guard "
              "(`decodeprof profile` does both); until then read the profiled-wall ceiling "
              "(`ceiling_wall`)",
              true};
    case TrustFlagKind::kHighProfilerCost:
      return {kind,
              "profiler cost above " + cost_limit,
              std::move(detail),
              "the recorder stretched the profiled host gaps, so the profiled host-gap figures "
              "and profiled-wall ceilings overstate the units that own host gap",
              "compare against the plain-wall ceiling (`plain_ceiling_wall_est`), which "
              "re-scales the gaps to the run without the profiler; if a rerun costs as much, "
              "record fewer annotation ranges",
              false};
    case TrustFlagKind::kNoisyPlainRuns:
      return {kind,
              "plain runs disagree",
              std::move(detail),
              "the plain ms/token swings between runs, and every plain-wall ceiling moves with "
              "it (each unit's range over the fastest and slowest plain run is printed next to "
              "its ceiling)",
              "run more plain runs on a quieter machine (`decodeprof profile --plain-runs 5`, "
              "behind the GPU guard) and compare measured speedups against the range, not the "
              "point",
              false};
    case TrustFlagKind::kFewTokens:
      return {kind,
              "few tokens",
              std::move(detail),
              "per-token figures and tok/s of so short a run are noisy",
              "decode at least " + tokens +
                  " tokens; the H200 campaign decodes 128 (`decodeprof profile --tokens 128`)",
              true};
    case TrustFlagKind::kNoTokenCount:
      return {kind,
              "no generated-token count",
              std::move(detail),
              "without it the summary has no per-token figure",
              "summarize with the bench log's results block (`--log`) or `--generated-tokens N`",
              true};
    case TrustFlagKind::kStraddlingKernels:
      return {kind,
              "kernels straddle decode_start",
              std::move(detail),
              "the window cut runs through GPU work of the prefill, which is left out (0 "
              "expected)",
              "synchronize the device before the decode_start mark (e.g. "
              "torch.cuda.synchronize()) and record again",
              true};
    case TrustFlagKind::kGapResidual:
      return {kind,
              "host-gap attribution residual",
              std::move(detail),
              "the host gaps the units own do not add up to the window's (0 expected), so "
              "their wall ceilings are off",
              "summarize the trace again with this version; if the residual stays, report it "
              "with the trace and read the GPU-share ceilings meanwhile",
              true};
    case TrustFlagKind::kWarnings:
      return {kind,
              "summarize warned",
              std::move(detail),
              "the figures stand but may mislead",
              "see what each one names (user guide section 3, Diagnostics) and summarize again "
              "once it is fixed",
              false};
    case TrustFlagKind::kRecordsLost:
      return {kind,
              "records lost",
              std::move(detail),
              "GPU work or ranges are missing from the trace, so the figures undercount",
              "record again until the summary's diagnostics list no data-loss entry (a "
              "shorter run loses fewer records)",
              true};
  }
  return {kind, "", std::move(detail), "", "", false};
}

std::vector<TrustFlag> TrustFlags(const SummaryFile& summary) {
  const RunView s(summary);
  std::vector<TrustFlag> flags;
  const std::optional<double> cost = s.profiler_decode_slowdown_pct().get();
  const std::string cost_text =
      Message<Msg::kProfilerCost>(Stored(s.profiler_decode_slowdown_pct())).text;
  if (cost && *cost < -kPlainSlowerNoisePct) {
    flags.push_back(MakeTrustFlag(TrustFlagKind::kPlainSlower, cost_text));
  }
  if (cost && *cost > kProfilerCostFlagPct) {
    flags.push_back(MakeTrustFlag(TrustFlagKind::kHighProfilerCost, cost_text));
  }
  const PlainRunsView plain_runs = s.PlainRuns();
  if (const std::optional<double> spread = plain_runs.spread_pct().get();
      spread && *spread > kPlainSpreadFlagPct) {
    flags.push_back(MakeTrustFlag(
        TrustFlagKind::kNoisyPlainRuns,
        Message<Msg::kPlainRunsApart>(Stored(plain_runs.count()), Stored(plain_runs.spread_pct()))
            .text));
  }
  const std::optional<int64_t> tokens = s.generated_tokens().get();
  if (!tokens || *tokens <= 0) {
    flags.push_back(MakeTrustFlag(TrustFlagKind::kNoTokenCount,
                                  tokens ? Message<Msg::kGeneratedTokensZero>(*tokens).text
                                         : Message<Msg::kGeneratedTokensNone>().text));
  } else if (*tokens < kMinGeneratedTokens) {
    const std::optional<int64_t> passes = s.decode_forward_passes().get();
    flags.push_back(MakeTrustFlag(TrustFlagKind::kFewTokens,
                                  Message<Msg::kFewGeneratedTokens>(
                                      *tokens, passes.value_or(*tokens - 1), kMinGeneratedTokens)
                                      .text));
  }
  const ChecksView checks = s.Checks();
  if (const std::optional<int64_t> straddling = checks.kernels_straddling_decode_start().get();
      straddling && *straddling > 0) {
    flags.push_back(MakeTrustFlag(TrustFlagKind::kStraddlingKernels,
                                  Message<Msg::kStraddlingKernels>(*straddling).text));
  }
  if (const std::optional<double> residual = checks.host_gap_attribution_residual_ns().get();
      residual && *residual != 0.0) {
    flags.push_back(MakeTrustFlag(
        TrustFlagKind::kGapResidual,
        Message<Msg::kGapUnattributed>(Stored(checks.host_gap_attribution_residual_ns())).text));
  }
  const std::vector<std::string> lost = DiagnosticTexts(summary, {"data-loss", "error"}, {});
  std::vector<std::string> warned = WarningTexts(summary, !lost.empty());
  for (std::string& text :
       DiagnosticTexts(summary, {"warning"},
                       {trace::Describe(*TrustFlagCode(TrustFlagKind::kStraddlingKernels)).name,
                        trace::Describe(*TrustFlagCode(TrustFlagKind::kGapResidual)).name})) {
    warned.push_back("diagnostic " + text);
  }
  if (!warned.empty()) {
    flags.push_back(MakeTrustFlag(TrustFlagKind::kWarnings, Joined(warned, "; ")));
  }
  if (!lost.empty())
    flags.push_back(MakeTrustFlag(TrustFlagKind::kRecordsLost, Joined(lost, "; ")));
  return flags;
}

bool DoubtsCeilings(const std::vector<TrustFlag>& flags) {
  return std::any_of(flags.begin(), flags.end(),
                     [](const TrustFlag& flag) { return flag.doubts_ceilings; });
}

std::vector<CrossRunUnit> RankUnitsAcrossRuns(const std::vector<SummaryFile>& summaries,
                                              const std::vector<std::vector<TrustFlag>>& flags) {
  std::vector<bool> left_out;
  for (size_t r = 0; r < summaries.size(); ++r) {
    left_out.push_back(
        LeftOutOfHeadline(summaries[r], r < flags.size() ? flags[r] : std::vector<TrustFlag>()));
  }
  return Rank(summaries, left_out);
}

bool LeftOutOfHeadline(const SummaryFile& summary, const std::vector<TrustFlag>& flags) {
  return !flags.empty() || SyntheticEvidence(summary).has_value();
}

DoFirstRanking RankForReport(const std::vector<SummaryFile>& summaries, size_t top) {
  DoFirstRanking out;
  for (const SummaryFile& summary : summaries) {
    out.flags.push_back(TrustFlags(summary));
    out.synthetic.push_back(SyntheticEvidence(summary));
    out.left_out.push_back(out.synthetic.back().has_value() || !out.flags.back().empty());
  }
  out.units = Rank(summaries, out.left_out);
  out.provisional = !summaries.empty() &&
                    std::all_of(out.left_out.begin(), out.left_out.end(), [](bool b) { return b; });
  for (size_t i = 0; i < out.units.size() && out.listed.size() < top; ++i) {
    const CrossRunUnit& unit = out.units[i];
    // Outside a provisional list, a ceiling from a left-out run is never listed.
    const bool from_headline_run =
        out.provisional || (unit.best_run && !out.left_out[*unit.best_run]);
    if (WorthListing(unit) && from_headline_run) out.listed.push_back(i);
  }
  return out;
}

bool WorthListing(const CrossRunUnit& unit) {
  if (unit.ceiling) return *unit.ceiling > 1.0;
  return Positive(unit.gpu_share);
}
}  // namespace decodeprof::report
