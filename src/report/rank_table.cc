#include "src/report/rank_table.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>

#include "src/report/html_report.h"
#include "src/report/markdown_table.h"
#include "src/report/run_set.h"
#include "src/report/summary_view.h"

namespace decodeprof::report {
namespace {

using Json = nlohmann::ordered_json;

// A field as stored (kNoValue when absent or null).
template <typename T>
std::string Text(const SummaryValue<T>& field) {
  return field.is_null() ? std::string(kNoValue) : field.Str();
}

RankView RankOf(const SummaryFile* summary) { return RunView(*summary).Rank(); }
int64_t NumberOf(const SummaryFile* summary) { return RankOf(summary).rank().get().value_or(0); }

// "`a`, `b`" (labels).
std::string Labels(const std::vector<const SummaryFile*>& runs) {
  std::string out;
  for (const SummaryFile* s : runs) out += (out.empty() ? "`" : ", `") + LabelOf(*s) + "`";
  return out;
}

// A run of ranks: its name and its summaries in order of appearance.
struct RankRun {
  std::string name;
  std::vector<const SummaryFile*> ranks;
};

std::string NoteOf(const std::vector<const SummaryFile*>& ranks) {
  const CollectivesView c = RunView(*ranks.front()).Collectives();
  if (c.json().is_null()) {
    return "No cross-rank figures: these summaries were made one trace at a time; "
           "`decodeprof summarize --ranks` computes the wait on the slowest rank.";
  }
  if (c.matched().get() == false) {
    return "The ranks' decode windows hold different numbers of collectives "
           "(collective_count_mismatch): no wait figures.";
  }
  if (c.slowest_rank().is_null()) return "No collective kernels in the decode windows.";
  return "Slowest rank: " + c.slowest_rank().Str() +
         " (the other ranks' collectives wait for it; wait = the time a rank's collective "
         "runs before the last rank arrives).";
}

}  // namespace

const std::vector<std::string>& RankTableHeader() {
  static const std::vector<std::string> header = {"rank",
                                                  "run",
                                                  "device",
                                                  "GPU busy ms/token",
                                                  "host gap ms/token",
                                                  "collectives",
                                                  "collective ms/token",
                                                  "collective % of wall",
                                                  "wait ms/token",
                                                  "transfer ms/token"};
  return header;
}

base::StatusOr<RankTables> BuildRankTables(const std::vector<SummaryFile>& summaries) {
  // Runs with a run id, keyed by (group, run_id); the others by (group, world_size).
  std::vector<std::pair<std::string, std::string>> keyed_order;
  std::map<std::pair<std::string, std::string>, RankRun> keyed;
  std::vector<std::pair<std::string, std::string>> loose_order;
  std::map<std::pair<std::string, std::string>, RankRun> loose;
  std::vector<const SummaryFile*> single;  // a world of 1
  for (const SummaryFile& summary : summaries) {
    const RankView rank = RunView(summary).Rank();
    if (!rank.is_object()) continue;
    const std::string group = rank.group().get().value_or("");
    const std::string run_id = rank.run_id().get().value_or("");
    if (run_id.empty()) {
      if (const std::optional<int64_t> world = rank.world_size().get(); world && *world <= 1) {
        single.push_back(&summary);
        continue;
      }
      const std::pair<std::string, std::string> key{group, Text(rank.world_size())};
      auto [it, inserted] = loose.try_emplace(key);
      if (inserted) {
        loose_order.push_back(key);
        it->second.name = !group.empty() ? group : "world of " + key.second;
      }
      it->second.ranks.push_back(&summary);
      continue;
    }
    const std::pair<std::string, std::string> key{group, run_id};
    auto [it, inserted] = keyed.try_emplace(key);
    if (inserted) {
      keyed_order.push_back(key);
      it->second.name = !group.empty() ? group : run_id;
    }
    const int64_t number = rank.rank().get().value_or(0);
    for (const SummaryFile* other : it->second.ranks) {
      const RankView other_rank = RankOf(other);
      if (NumberOf(other) == number) {
        return base::DataError(summary.path, "rank " + std::to_string(number) + " of run `" +
                                                 it->second.name + "` again (also " + other->path +
                                                 ")");
      }
      if (other_rank.world_size().json() != rank.world_size().json()) {
        return base::DataError(summary.path, std::string(summary_schema::rank::world_size.key) +
                                                 " " + Text(rank.world_size()) + ", but " +
                                                 other->path + " of run `" + it->second.name +
                                                 "` has " + Text(other_rank.world_size()));
      }
    }
    it->second.ranks.push_back(&summary);
  }

  // The runs that get a table, in order of their first summary.
  std::vector<RankRun> runs;
  for (const auto& key : keyed_order) runs.push_back(keyed[key]);
  std::vector<const SummaryFile*> lone;     // one rank of a larger world
  std::vector<const SummaryFile*> repeats;  // ranks that repeat without a run id
  for (const auto& key : loose_order) {
    RankRun& run = loose[key];
    std::vector<int64_t> numbers;
    for (const SummaryFile* s : run.ranks) numbers.push_back(NumberOf(s));
    std::sort(numbers.begin(), numbers.end());
    const bool distinct = std::adjacent_find(numbers.begin(), numbers.end()) == numbers.end();
    if (run.ranks.size() >= 2 && distinct) {
      runs.push_back(run);
    } else if (run.ranks.size() == 1) {
      lone.push_back(run.ranks.front());
    } else {
      repeats.insert(repeats.end(), run.ranks.begin(), run.ranks.end());
    }
  }
  const auto first_index = [&summaries](const RankRun& run) {
    return static_cast<size_t>(run.ranks.front() - summaries.data());
  };
  std::stable_sort(runs.begin(), runs.end(), [&](const RankRun& a, const RankRun& b) {
    return first_index(a) < first_index(b);
  });

  RankTables out;
  for (RankRun& run : runs) {
    std::vector<const SummaryFile*>& ranks = run.ranks;
    std::stable_sort(ranks.begin(), ranks.end(), [](const SummaryFile* a, const SummaryFile* b) {
      return NumberOf(a) < NumberOf(b);
    });
    RankTable table;
    table.run = run.name;
    for (const SummaryFile* s : ranks) {
      const RunView fields(*s);
      const CollectivesView c = fields.Collectives();
      table.rows.push_back({Text(fields.Rank().rank()), LabelOf(*s), Text(fields.device()),
                            Text(fields.gpu_ms_per_token()), Text(fields.host_gap_ms_per_token()),
                            Text(c.count()), Text(c.total_ms_per_token()), Text(c.pct_of_wall()),
                            Text(c.wait_ms_per_token()), Text(c.transfer_ms_per_token())});
    }
    table.note = NoteOf(ranks);
    out.tables.push_back(std::move(table));
  }
  if (!repeats.empty()) {
    out.notes.push_back(Labels(repeats) +
                        ": the same rank of one world size more than once and no run id, so "
                        "separate runs (each a process of its own job): reported as runs, no "
                        "rank table.");
  }
  if (!lone.empty()) {
    std::string which;
    for (const SummaryFile* s : lone) {
      which += std::string(which.empty() ? "" : ", ") + "`" + LabelOf(*s) + "` (rank " +
               Text(RankOf(s).rank()) + " of " + Text(RankOf(s).world_size()) + ")";
    }
    out.notes.push_back(which +
                        ": one rank of a larger job whose other ranks are not in this report; "
                        "reported as a run, no rank table.");
  }
  if (!single.empty()) {
    out.notes.push_back(Labels(single) +
                        ": rank 0 of a world of 1, a single process; reported as a run, no "
                        "rank table.");
  }
  return out;
}

std::string RenderRankTablesMarkdown(const RankTables& all) {
  if (all.tables.empty() && all.notes.empty()) return "";
  std::string out = "\n## Ranks\n";
  for (const RankTable& t : all.tables) {
    out += "\nRun `" + EscapeCell(t.run) + "`:\n\n" + MarkdownRow(RankTableHeader()) + "\n";
    out += MarkdownAlignmentRow(RankTableHeader().size() - 1) + "\n";
    for (const std::vector<std::string>& row : t.rows) {
      std::vector<std::string> cells;
      for (const std::string& cell : row) cells.push_back(EscapeCell(cell));
      out += MarkdownRow(cells) + "\n";
    }
    out += "\n" + t.note + "\n";
  }
  if (!all.notes.empty()) out += "\n";
  for (const std::string& note : all.notes) out += "- " + note + "\n";
  return out;
}

std::string RenderRankTablesHtml(const RankTables& all) {
  if (all.tables.empty() && all.notes.empty()) return "";
  std::string out = "<section>\n<h2>Ranks</h2>\n";
  for (const RankTable& t : all.tables) {
    out += "<p>Run <code>" + HtmlEscape(t.run) + "</code>:</p>\n<table>\n<tr>";
    for (size_t i = 0; i < RankTableHeader().size(); ++i) {
      out += std::string(i < 2 ? "<th class=\"l\">" : "<th>") + HtmlEscape(RankTableHeader()[i]) +
             "</th>";
    }
    out += "</tr>\n";
    for (const std::vector<std::string>& row : t.rows) {
      out += "<tr>";
      for (size_t i = 0; i < row.size(); ++i) {
        out += std::string(i < 2 ? "<td class=\"l\">" : "<td>") + HtmlEscape(row[i]) + "</td>";
      }
      out += "</tr>\n";
    }
    out += "</table>\n<p class=\"note\">" + HtmlEscape(t.note) + "</p>\n";
  }
  if (!all.notes.empty()) {
    out += "<ul>\n";
    for (const std::string& note : all.notes) out += "<li>" + HtmlEscape(note) + "</li>\n";
    out += "</ul>\n";
  }
  out += "</section>\n";
  return out;
}

}  // namespace decodeprof::report
