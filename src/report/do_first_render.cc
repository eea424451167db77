#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/base/py_format.h"
#include "src/report/do_first.h"
#include "src/report/do_first_internal.h"
#include "src/report/html_report.h"
#include "src/report/markdown_table.h"
#include "src/report/run_set.h"
#include "src/report/summary_view.h"

// The "Do first" section's text (do_first.h): the ranking and the trust flags of do_first.cc
// rendered as Markdown and as HTML.

namespace decodeprof::report {
namespace {

using Json = nlohmann::ordered_json;
using do_first_internal::Fixed;
using do_first_internal::Joined;
using do_first_internal::OneLine;
using do_first_internal::Positive;

// Text with code spans and strong spans, rendered as Markdown or as HTML.
struct Span {
  enum Kind { kText, kCode, kStrong } kind;
  std::string text;
};
using Rich = std::vector<Span>;

Span T(std::string text) { return {Span::kText, std::move(text)}; }
Span C(std::string text) { return {Span::kCode, std::move(text)}; }
Span B(std::string text) { return {Span::kStrong, std::move(text)}; }

std::string ToMarkdown(const Rich& rich) {
  std::string out;
  for (const Span& span : rich) {
    switch (span.kind) {
      case Span::kText:
        out += OneLine(span.text);
        break;
      case Span::kCode:
        out += "`" + OneLine(span.text) + "`";
        break;
      case Span::kStrong:
        out += "**" + OneLine(span.text) + "**";
        break;
    }
  }
  return out;
}

std::string ToHtml(const Rich& rich) {
  std::string out;
  for (const Span& span : rich) {
    switch (span.kind) {
      case Span::kText:
        out += HtmlEscape(span.text);
        break;
      case Span::kCode:
        out += "<code>" + HtmlEscape(span.text) + "</code>";
        break;
      case Span::kStrong:
        out += "<strong>" + HtmlEscape(span.text) + "</strong>";
        break;
    }
  }
  return out;
}

void Append(Rich& to, const Rich& more) { to.insert(to.end(), more.begin(), more.end()); }

// `text` with its backtick-quoted parts as code spans (the flags' reasons and fixes).
Rich Ticked(std::string_view text) {
  Rich rich;
  bool code = false;
  for (size_t start = 0;;) {
    const size_t tick = text.find('`', start);
    const std::string_view part = text.substr(start, tick - start);
    if (!part.empty()) rich.push_back(code ? C(std::string(part)) : T(std::string(part)));
    if (tick == std::string_view::npos) break;
    code = !code;
    start = tick + 1;
  }
  return rich;
}

std::string Pct(double value) { return Fixed(value, 1) + " %"; }
std::string Ms(double value) { return Fixed(value, 2); }
std::string Times(double value) { return Fixed(value, 2) + "×"; }

std::string RunName(const SummaryFile& summary) { return LabelOf(summary); }

// Below this GPU share (%) the evidence explains a wall ceiling of kLargeWallCeiling or more
// made of host gap.
constexpr double kSmallGpuSharePct = 10.0;
constexpr double kLargeWallCeiling = 1.2;

const char* FigureName(analysis::RankFigure by) {
  return by == analysis::RankFigure::kPlainCeilingWallEst ? "plain wall" : "profiled wall";
}

// The unit's decode-wall figures in one run, per generated token (profiled run): the window's
// totals over the tokens the window stands for (WindowTokens).
struct WallFigures {
  std::optional<double> wall;    // decode wall ms/token
  std::optional<double> busy;    // GPU busy ms/token
  std::optional<double> kernel;  // the unit's kernel ms/token
  std::optional<double> gap;     // the host gap it owns, ms/token
  std::optional<double> share;   // its share of decode GPU time, %
  std::optional<double> wall_share;
  std::optional<double> dispatches;
  std::optional<double> us_per_dispatch;
  bool host_only = false;  // it owns host gap and no kernel
};

WallFigures Figures(const SummaryFile& run, const UnitView& unit) {
  const RunView s(run);
  WallFigures f;
  const std::optional<double> tokens = WindowTokens(run.content);
  f.wall = Quotient(s.decode_wall_ms().get(), tokens);
  f.busy = s.gpu_ms_per_token().get();
  if (!f.wall && f.busy && s.host_gap_ms_per_token().get()) {
    f.wall = *f.busy + *s.host_gap_ms_per_token().get();
  }
  f.share = unit.fallback_share_pct().get();
  const std::optional<double> gpu_sum = s.decode_gpu_sum_ms().get();
  if (f.share && gpu_sum) f.kernel = Quotient(*f.share / 100.0 * *gpu_sum, tokens);
  f.gap = unit.fallback_host_gap_ms_per_token().get();
  f.wall_share = unit.fallback_wall_share_pct().get();
  f.dispatches = unit.fallback_dispatches_per_token().get();
  f.us_per_dispatch = unit.fallback_host_gap_us_per_dispatch().get();
  f.host_only = unit.host_gap().get() == "all" || (Positive(f.gap) && f.share.value_or(0.0) <= 0.0);
  return f;
}

// ---------------------------------------------------------------------------------------
// The section's pieces, shared by the Markdown and the HTML form.

struct Section {
  const std::vector<SummaryFile>& summaries;
  std::vector<std::vector<TrustFlag>> flags;
  std::vector<std::optional<std::string>> synthetic;  // SyntheticEvidence of each run
  std::vector<bool> left_out;                         // LeftOutOfHeadline of each run
  std::vector<CrossRunUnit> units;
  std::vector<size_t> listed;  // indices into `units`: the list, at most `top`
  std::vector<size_t> others;  // the rest, in rank order
  bool provisional = false;    // every run is left out: the list comes from left-out runs
};

Section Build(const std::vector<SummaryFile>& summaries, size_t top) {
  DoFirstRanking ranking = RankForReport(summaries, top);
  Section section{summaries,
                  std::move(ranking.flags),
                  std::move(ranking.synthetic),
                  std::move(ranking.left_out),
                  std::move(ranking.units),
                  std::move(ranking.listed),
                  {},
                  ranking.provisional};
  for (size_t i = 0; i < section.units.size(); ++i) {
    if (std::find(section.listed.begin(), section.listed.end(), i) == section.listed.end()) {
      section.others.push_back(i);
    }
  }
  return section;
}

// "`name`" and the trust mark when the run has flags.
Rich RunRef(const Section& section, size_t run) {
  Rich rich = {C(RunName(section.summaries[run]))};
  if (!section.flags[run].empty()) rich.push_back(T(std::string(" ") + kTrustMark));
  return rich;
}

std::string RunCount(size_t n) { return std::to_string(n) + (n == 1 ? " run" : " runs"); }

// At most kNamedRuns runs by name, then "and N more".
Rich RunList(const Section& section, const std::vector<size_t>& runs) {
  Rich rich;
  for (size_t i = 0; i < runs.size() && i < kNamedRuns; ++i) {
    if (i > 0) rich.push_back(T(", "));
    Append(rich, RunRef(section, runs[i]));
  }
  if (runs.size() > kNamedRuns) {
    rich.push_back(T(" and " + std::to_string(runs.size() - kNamedRuns) + " more"));
  }
  return rich;
}

// The runs left out of the headline and why: a heading line, then one line per reason
// (synthetic workloads, then runs with trust flags by their first flag's label), each with
// its count and a few names. Empty when every run sets the headline.
std::vector<Rich> LeftOutLines(const Section& section) {
  std::vector<size_t> synthetic;
  std::vector<std::pair<std::string, std::vector<size_t>>> flagged;  // by first flag's label
  size_t count = 0;
  for (size_t r = 0; r < section.summaries.size(); ++r) {
    if (!section.left_out[r]) continue;
    ++count;
    if (section.synthetic[r]) {
      synthetic.push_back(r);
      continue;
    }
    const std::string& label = section.flags[r].front().label;
    auto it = std::find_if(flagged.begin(), flagged.end(),
                           [&label](const auto& entry) { return entry.first == label; });
    if (it == flagged.end()) it = flagged.insert(flagged.end(), {label, {}});
    it->second.push_back(r);
  }
  if (count == 0) return {};
  std::vector<Rich> lines;
  Rich head = {B("Left out of the headline"),
               T(": " + std::to_string(count) + " of " + RunCount(section.summaries.size()) +
                 ", whose ceilings never head the list. ")};
  head.push_back(T(section.provisional
                       ? "Every run is left out, so the list below is provisional: check the "
                         "flags before acting on it."
                       : "A unit only they reach is named after the list, marked (left-out "
                         "runs)."));
  lines.push_back(std::move(head));
  if (!synthetic.empty()) {
    Rich line = {T("synthetic or unnamed workload (" + std::to_string(synthetic.size()) +
                   "; no model named and no bench results, or `workload` synthetic; "),
                 C("summarize --model-dir"), T(" names an engine's model): ")};
    Append(line, RunList(section, synthetic));
    lines.push_back(std::move(line));
  }
  for (const auto& [label, runs] : flagged) {
    Rich line = {T(label + " (" + std::to_string(runs.size()) + "): ")};
    Append(line, RunList(section, runs));
    lines.push_back(std::move(line));
  }
  return lines;
}

Rich Intro(const Section& section) {
  if (section.units.empty()) {
    return {
        T("These summaries have no work units (summarized without a units file): nothing "
          "to rank.")};
  }
  Rich rich = {T("The work units ranked once over the " + RunCount(section.summaries.size()) +
                 " of this report: by the largest wall ceiling over the runs each reaches "
                 "(ties: the larger GPU share), a synthetic run or one with trust flags (" +
                 kTrustMark +
                 ", below) counting only where no other run reaches the unit and never heading "
                 "the list; units that no run's shipped defaults reach come last. ")};
  if (section.listed.empty()) {
    rich.push_back(T("No unit has anything to gain on these runs."));
  } else {
    rich.push_back(T("Top " + std::to_string(section.listed.size()) + " of " +
                     std::to_string(section.units.size()) + " units:"));
  }
  return rich;
}

Rich UnitHead(const CrossRunUnit& unit) {
  Rich rich = {B("#" + unit.id)};
  rich.push_back(T((unit.port.empty() ? std::string() : ": " + unit.port) + " — "));
  if (unit.ceiling) {
    rich.push_back(B(Times(*unit.ceiling)));
    rich.push_back(T(std::string(" ") + FigureName(unit.by)));
    if (unit.ceiling_range && unit.ceiling_range->first != unit.ceiling_range->second) {
      rich.push_back(T(" (" + Fixed(unit.ceiling_range->first, 2) + "–" +
                       Times(unit.ceiling_range->second) + " over the plain runs)"));
    }
  } else {
    rich.push_back(T("no wall ceiling (the summaries predate the host-gap fields, #2148)"));
  }
  return rich;
}

size_t OptInRuns(const Section& section, const CrossRunUnit& unit) {
  size_t n = 0;
  for (const size_t r : unit.holding) {
    if (Positive(RunView(section.summaries[r]).Unit(unit.id).reached_optin_share_pct().get())) ++n;
  }
  return n;
}

Rich UnitRuns(const Section& section, const CrossRunUnit& unit) {
  const size_t all = section.summaries.size();
  Rich rich = {T("runs: ")};
  if (unit.reached.empty()) {
    rich.push_back(T("no run's shipped defaults reach it (its fallback set is in " +
                     std::to_string(unit.holding.size()) + " of " + RunCount(all)));
    if (const size_t optin = OptInRuns(section, unit); optin > 0) {
      rich.push_back(T("; opt-in switches reach it in " + RunCount(optin)));
    }
    rich.push_back(T(")"));
  } else if (unit.reached.size() == all) {
    rich.push_back(T(all == 1   ? "reaches the run"
                     : all == 2 ? "reaches both runs"
                                : "reaches all " + RunCount(all)));
  } else {
    rich.push_back(
        T("reaches " + std::to_string(unit.reached.size()) + " of " + RunCount(all) + ": "));
    Append(rich, RunList(section, unit.reached));
  }
  if (unit.flagged_only)
    rich.push_back(T(unit.reached.size() == 1 ? ", flagged" : ", all flagged"));
  if (unit.best_run) {
    rich.push_back(T("; ceiling from "));
    Append(rich, RunRef(section, *unit.best_run));
  }
  return rich;
}

Rich Evidence(const Section& section, const CrossRunUnit& unit) {
  Rich rich = {T("evidence: ")};
  if (!unit.best_run) {
    rich.push_back(T(std::string(kNoValue)));
    return rich;
  }
  rich.push_back(T(UnitEvidence(section.summaries[*unit.best_run], unit.id)));
  return rich;
}

Rich Others(const Section& section) {
  Rich rich = {T(section.listed.empty() ? "Ranked: " : "Also ranked: ")};
  for (size_t i = 0; i < section.others.size(); ++i) {
    const CrossRunUnit& unit = section.units[section.others[i]];
    if (i > 0) rich.push_back(T(", "));
    rich.push_back(C("#" + unit.id));
    rich.push_back(T(" " + (unit.ceiling ? Times(*unit.ceiling) : std::string(kNoValue))));
    if (!section.provisional && unit.best_run && section.left_out[*unit.best_run] &&
        WorthListing(unit)) {
      rich.push_back(T(" (left-out runs)"));
    }
    if (!unit.reached.empty() || unit.holding.empty()) continue;
    rich.push_back(T(" (no run reaches it)"));
  }
  rich.push_back(T(". A ceiling of 1.00× means nothing to gain on these runs."));
  return rich;
}

Rich Legend() {
  return {
      T("Ceilings are speedup bounds: how many times faster the decode would run if the unit's "
        "work took no time. "),
      B("plain wall"),
      T(" ("),
      C(Key(summary_schema::unit::plain_ceiling_wall_est)),
      T("): its kernel time plus the host gap it owns, the gap re-scaled to the run without "
        "the profiler; the bound to compare a port's measured speedup against. "),
      B("profiled wall"),
      T(" ("),
      C(Key(summary_schema::unit::ceiling_wall)),
      T("): the same over the profiled decode wall, for a run without a plain run. "),
      B("GPU share"),
      T(" ("),
      C(Key(summary_schema::unit::ceiling_gpu_share)),
      T("): kernel time alone, 1 / (1 − its share of decode GPU time); the seed's ceiling "
        "table prints it in parentheses after the wall ceiling. A unit owns the host gap in "
        "front of its dispatches (a CUDA-graph capture owns all of it), so a small GPU share "
        "can still bound the wall high."),
  };
}

Rich FlagsHeading(const Section& section) {
  size_t flagged = 0;
  for (const std::vector<TrustFlag>& flags : section.flags) flagged += flags.empty() ? 0u : 1u;
  if (flagged == 0) {
    return {T("Trust flags: none. Every run has a profiler cost from -" +
              Fixed(kPlainSlowerNoisePct, 0) + " to " + Fixed(kProfilerCostFlagPct, 0) +
              " % (or no plain run), at least " + std::to_string(kMinGeneratedTokens) +
              " generated tokens, clean window checks, no warnings and no lost records.")};
  }
  return {T("Trust flags (" + std::to_string(flagged) + " of " +
            RunCount(section.summaries.size()) + ", " + kTrustMark +
            " next to their names; check them before acting on their figures):")};
}

std::string Capitalized(std::string text) {
  if (!text.empty() && text[0] >= 'a' && text[0] <= 'z') text[0] = static_cast<char>(text[0] - 32);
  return text;
}

// One line per kind of flag: the runs it flags with their figures, the reason, the fix.
std::vector<Rich> FlagLines(const Section& section) {
  std::vector<Rich> lines;
  for (int k = 0; k <= static_cast<int>(TrustFlagKind::kRecordsLost); ++k) {
    const auto kind = static_cast<TrustFlagKind>(k);
    Rich rich;
    const TrustFlag* first = nullptr;
    size_t shown = 0;
    size_t more = 0;
    for (size_t r = 0; r < section.summaries.size(); ++r) {
      for (const TrustFlag& flag : section.flags[r]) {
        if (flag.kind != kind) continue;
        if (shown == kNamedRuns) {
          ++more;
          continue;
        }
        if (first == nullptr) {
          first = &flag;
          rich = {B(flag.label), T(": ")};
        } else {
          rich.push_back(T("; "));
        }
        Append(rich, RunRef(section, r));
        rich.push_back(T(" " + flag.detail));
        ++shown;
      }
    }
    if (first == nullptr) continue;
    if (more > 0) rich.push_back(T("; and " + RunCount(more) + " more"));
    Append(rich, Ticked(". " + Capitalized(first->reason) + "."));
    if (!section.units.empty()) {
      rich.push_back(
          T(" The ranking above takes a ceiling from such a run only where no other "
            "run reaches the unit."));
    }
    Append(rich, Ticked(" Fix: " + first->fix + "."));
    lines.push_back(std::move(rich));
  }
  return lines;
}

Rich UnitKeyHeading() { return {T("Units (the "), C("#"), T(" names in the tables below):")}; }

Rich UnitKeyLine(const CrossRunUnit& unit) {
  return {C("#" + unit.id), T(": " + (unit.port.empty() ? std::string(kNoValue) : unit.port))};
}

// The units in the units file's order (UnitColumns), for the key.
std::vector<const CrossRunUnit*> InFileOrder(const Section& section) {
  std::vector<const CrossRunUnit*> out;
  for (const std::string& id : UnitColumns(section.summaries)) {
    for (const CrossRunUnit& unit : section.units) {
      if (unit.id == id) out.push_back(&unit);
    }
  }
  return out;
}

// The unit's share of the best run's decode wall: kernel part and host-gap part, in %.
std::optional<std::pair<double, double>> WallParts(const Section& section,
                                                   const CrossRunUnit& unit) {
  if (!unit.best_run) return std::nullopt;
  const WallFigures f = Figures(section.summaries[*unit.best_run],
                                RunView(section.summaries[*unit.best_run]).Unit(unit.id));
  if (!Positive(f.wall) || !f.kernel || !f.gap) return std::nullopt;
  const double kernel = std::clamp(*f.kernel / *f.wall * 100.0, 0.0, 100.0);
  const double gap = std::clamp(*f.gap / *f.wall * 100.0, 0.0, 100.0 - kernel);
  if (!std::isfinite(kernel + gap)) return std::nullopt;
  return std::make_pair(kernel, gap);
}

}  // namespace

std::string UnitEvidence(const SummaryFile& run, const std::string& unit_id) {
  const UnitView unit = RunView(run).Unit(unit_id);
  const WallFigures f = Figures(run, unit);
  const std::string share = f.share ? Pct(*f.share) : std::string(kNoValue);
  if (f.host_only && f.gap) {
    std::string text;
    if (Positive(f.wall)) {
      text = "owns " + Pct(*f.gap / *f.wall * 100.0) + " of the decode wall as host gap";
      if (f.busy) text += ": GPU busy only " + Ms(*f.busy) + " of " + Ms(*f.wall) + " ms/token";
    } else {
      text = "owns " + Ms(*f.gap) + " ms/token of host gap";
    }
    return text + "; it replaces no kernel (" + share +
           " of GPU time), so its whole ceiling is host gap that a captured step removes";
  }
  if (!f.share) return "no GPU share or host gap in the summary";
  std::string text = share + " of decode GPU time";
  if (f.kernel) text += " (" + Ms(*f.kernel) + " ms/token)";
  if (!f.gap) return text + "; the summary has no host-gap figures (it predates #2148)";
  const std::string dispatches =
      f.dispatches ? " in front of its " + Fixed(*f.dispatches, 1) + " dispatches/token" : "";
  const std::string each = f.us_per_dispatch && f.dispatches && *f.dispatches > 0.0
                               ? " (" + Fixed(*f.us_per_dispatch, 1) + " us each)"
                               : "";
  const std::string wall_share =
      f.wall_share ? ": " + Pct(*f.wall_share) + " of the decode wall" : std::string();
  if (!f.kernel || *f.gap <= *f.kernel) {
    return text + " plus " + Ms(*f.gap) + " ms/token of host gap" + dispatches + each + wall_share;
  }
  // A small GPU share with a large wall ceiling: say why.
  const std::optional<double> plain = unit.plain_ceiling_wall_est().get();
  const std::optional<double> wall_ceiling = plain ? plain : unit.ceiling_wall().get();
  const bool explain =
      *f.share < kSmallGpuSharePct && wall_ceiling && *wall_ceiling >= kLargeWallCeiling;
  text += (explain ? ", yet " : " and ") + Ms(*f.gap) + " ms/token of host gap" + dispatches +
          each + wall_share + ", mostly host gap";
  if (explain) {
    text +=
        " — a small GPU share bounds the wall high because the idle time before its "
        "launches counts as its own";
  }
  return text;
}

std::string RenderDoFirstMarkdown(const std::vector<SummaryFile>& summaries, size_t top) {
  const Section section = Build(summaries, top);
  std::vector<std::string> lines = {"## Do first", "", ToMarkdown(Intro(section))};
  const std::vector<Rich> left_out = LeftOutLines(section);
  for (size_t i = 0; i < left_out.size(); ++i) {
    if (i == 0) lines.push_back("");
    lines.push_back((i == 0 ? "" : "- ") + ToMarkdown(left_out[i]));
    if (i == 0 && left_out.size() > 1) lines.push_back("");
  }
  if (!section.listed.empty()) lines.push_back("");
  for (size_t i = 0; i < section.listed.size(); ++i) {
    const CrossRunUnit& unit = section.units[section.listed[i]];
    const std::string mark = section.provisional ? "- " : std::to_string(i + 1) + ". ";
    const std::string indent(mark.size(), ' ');
    lines.push_back(mark + ToMarkdown(UnitHead(unit)));
    lines.push_back(indent + "- " + ToMarkdown(UnitRuns(section, unit)));
    lines.push_back(indent + "- " + ToMarkdown(Evidence(section, unit)));
  }
  if (!section.others.empty()) {
    lines.push_back("");
    lines.push_back(ToMarkdown(Others(section)));
  }
  if (!section.units.empty()) {
    lines.push_back("");
    lines.push_back(ToMarkdown(Legend()));
  }
  lines.push_back("");
  lines.push_back(ToMarkdown(FlagsHeading(section)));
  const std::vector<Rich> flag_lines = FlagLines(section);
  if (!flag_lines.empty()) lines.push_back("");
  for (const Rich& line : flag_lines) lines.push_back("- " + ToMarkdown(line));
  if (!section.units.empty()) {
    lines.push_back("");
    lines.push_back(ToMarkdown(UnitKeyHeading()));
    lines.push_back("");
    for (const CrossRunUnit* unit : InFileOrder(section)) {
      lines.push_back("- " + ToMarkdown(UnitKeyLine(*unit)));
    }
  }
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out + "\n";
}

std::string RenderDoFirstHtml(const std::vector<SummaryFile>& summaries, size_t top) {
  const Section section = Build(summaries, top);
  std::string out =
      "<section id=\"do-first\">\n<h2>Do first</h2>\n<p>" + ToHtml(Intro(section)) + "</p>\n";
  const std::vector<Rich> left_out = LeftOutLines(section);
  for (size_t i = 0; i < left_out.size(); ++i) {
    if (i == 0) {
      out += "<p>" + ToHtml(left_out[i]) + "</p>\n";
      if (left_out.size() > 1) out += "<ul>\n";
    } else {
      out += "<li>" + ToHtml(left_out[i]) + "</li>\n";
    }
  }
  if (left_out.size() > 1) out += "</ul>\n";
  if (!section.listed.empty()) {
    out += section.provisional ? "<ul>\n" : "<ol>\n";
    for (const size_t index : section.listed) {
      const CrossRunUnit* unit = &section.units[index];
      out += "<li>" + ToHtml(UnitHead(*unit));
      if (const auto parts = WallParts(section, *unit)) {
        // The share of the decode wall the unit owns: its kernel time next to its host gap,
        // so that a unit of host gap alone (a CUDA-graph capture) shows what it owns.
        out += "\n<div class=\"wall\" title=\"share of the decode wall: kernel time " +
               Fixed(parts->first, 2) + "%, host gap " + Fixed(parts->second, 2) +
               "%\"><div class=\"gpu\" style=\"width:" + Fixed(parts->first, 2) +
               "%\"></div><div class=\"gap\" style=\"width:" + Fixed(parts->second, 2) +
               "%\"></div></div>";
      }
      out += "\n<div>" + ToHtml(UnitRuns(section, *unit)) + "</div>\n<div>" +
             ToHtml(Evidence(section, *unit)) + "</div></li>\n";
    }
    out += section.provisional ? "</ul>\n" : "</ol>\n";
    out +=
        "<p class=\"note\"><span class=\"key gpu\"></span> kernel time and <span class=\"key "
        "gap\"></span> host gap a unit owns, in % of the decode wall of the run its ceiling "
        "comes from.</p>\n";
  }
  if (!section.others.empty()) out += "<p>" + ToHtml(Others(section)) + "</p>\n";
  if (!section.units.empty()) out += "<p class=\"note\">" + ToHtml(Legend()) + "</p>\n";
  out += "<p>" + ToHtml(FlagsHeading(section)) + "</p>\n";
  std::string items;
  for (const Rich& line : FlagLines(section)) items += "<li>" + ToHtml(line) + "</li>\n";
  if (!items.empty()) out += "<ul class=\"flags\">\n" + items + "</ul>\n";
  if (!section.units.empty()) {
    out += "<p>" + ToHtml(UnitKeyHeading()) + "</p>\n<ul>\n";
    for (const CrossRunUnit* unit : InFileOrder(section)) {
      out += "<li>" + ToHtml(UnitKeyLine(*unit)) + "</li>\n";
    }
    out += "</ul>\n";
  }
  return out + "</section>\n";
}

std::string TrustMarkHtml(const SummaryFile& summary) {
  const std::vector<TrustFlag> flags = TrustFlags(summary);
  if (flags.empty()) return "";
  std::vector<std::string> labels;
  for (const TrustFlag& flag : flags) labels.push_back(flag.label);
  return " <span class=\"flag\" title=\"" + HtmlEscape(Joined(labels, "; ")) + "\">" + kTrustMark +
         "</span>";
}

}  // namespace decodeprof::report
