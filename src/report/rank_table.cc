#include "src/report/rank_table.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>

#include "src/report/html_report.h"
#include "src/report/markdown_table.h"

namespace decodeprof::report {
namespace {

using Json = nlohmann::ordered_json;

std::string Text(const Json& object, std::string_view key) {
  const Json& value = JsonGet(object, key);
  return value.is_null() ? std::string(kNoValue) : PyStr(value);
}

std::string RunOf(const Json& rank) {
  const Json& group = JsonGet(rank, "group");
  if (group.is_string()) return group.get<std::string>();
  const Json& id = JsonGet(rank, "run_id");
  return id.is_string() ? id.get<std::string>() : std::string();
}

std::string NoteOf(const std::vector<const SummaryFile*>& ranks) {
  const Json& c = JsonGet(ranks.front()->content, "collectives");
  if (c.is_null()) {
    return "No cross-rank figures: these summaries were made one trace at a time; "
           "`decodeprof summarize --ranks` computes the wait on the slowest rank.";
  }
  const Json& matched = JsonGet(c, "matched");
  if (matched.is_boolean() && !matched.get<bool>()) {
    return "The ranks' decode windows hold different numbers of collectives "
           "(collective_count_mismatch): no wait figures.";
  }
  const Json& slowest = JsonGet(c, "slowest_rank");
  if (slowest.is_null()) return "No collective kernels in the decode windows.";
  return "Slowest rank: " + PyStr(slowest) +
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

base::StatusOr<std::vector<RankTable>> BuildRankTables(const std::vector<SummaryFile>& summaries) {
  std::vector<std::string> order;  // runs in order of first appearance
  std::map<std::string, std::vector<const SummaryFile*>> runs;
  for (const SummaryFile& summary : summaries) {
    const Json& rank = JsonGet(summary.content, "rank");
    if (!rank.is_object()) continue;
    const std::string run = RunOf(rank);
    auto [it, inserted] = runs.try_emplace(run);
    if (inserted) order.push_back(run);
    const int64_t number = JsonGet(rank, "rank").get<int64_t>();
    for (const SummaryFile* other : it->second) {
      const Json& other_rank = JsonGet(other->content, "rank");
      if (JsonGet(other_rank, "rank").get<int64_t>() == number) {
        return base::DataError(summary.path, "rank " + std::to_string(number) + " of run `" + run +
                                                 "` again (also " + other->path + ")");
      }
      if (JsonGet(other_rank, "world_size") != JsonGet(rank, "world_size")) {
        return base::DataError(summary.path, "world_size " + Text(rank, "world_size") + ", but " +
                                                 other->path + " of run `" + run + "` has " +
                                                 Text(other_rank, "world_size"));
      }
    }
    it->second.push_back(&summary);
  }
  std::vector<RankTable> tables;
  for (const std::string& run : order) {
    std::vector<const SummaryFile*>& ranks = runs[run];
    std::stable_sort(ranks.begin(), ranks.end(), [](const SummaryFile* a, const SummaryFile* b) {
      return JsonGet(JsonGet(a->content, "rank"), "rank").get<int64_t>() <
             JsonGet(JsonGet(b->content, "rank"), "rank").get<int64_t>();
    });
    RankTable table;
    table.run = run;
    for (const SummaryFile* s : ranks) {
      const Json& c = JsonGet(s->content, "collectives");
      table.rows.push_back({Text(JsonGet(s->content, "rank"), "rank"), Text(s->content, "name"),
                            Text(s->content, "device"), Text(s->content, "gpu_ms_per_token"),
                            Text(s->content, "host_gap_ms_per_token"), Text(c, "count"),
                            Text(c, "total_ms_per_token"), Text(c, "pct_of_wall"),
                            Text(c, "wait_ms_per_token"), Text(c, "transfer_ms_per_token")});
    }
    table.note = NoteOf(ranks);
    tables.push_back(std::move(table));
  }
  return tables;
}

std::string RenderRankTablesMarkdown(const std::vector<RankTable>& tables) {
  if (tables.empty()) return "";
  std::string out = "\n## Ranks\n";
  for (const RankTable& t : tables) {
    out += "\nRun `" + EscapeCell(t.run) + "`:\n\n" + MarkdownRow(RankTableHeader()) + "\n";
    out += MarkdownAlignmentRow(RankTableHeader().size() - 1) + "\n";
    for (const std::vector<std::string>& row : t.rows) {
      std::vector<std::string> cells;
      for (const std::string& cell : row) cells.push_back(EscapeCell(cell));
      out += MarkdownRow(cells) + "\n";
    }
    out += "\n" + t.note + "\n";
  }
  return out;
}

std::string RenderRankTablesHtml(const std::vector<RankTable>& tables) {
  if (tables.empty()) return "";
  std::string out = "<section>\n<h2>Ranks</h2>\n";
  for (const RankTable& t : tables) {
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
  out += "</section>\n";
  return out;
}

}  // namespace decodeprof::report
