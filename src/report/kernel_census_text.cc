#include "src/report/kernel_census_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "src/base/json_writer.h"
#include "src/base/py_format.h"
#include "src/report/markdown_table.h"

namespace decodeprof::report {
namespace {

using analysis::CensusCut;
using analysis::CensusRow;
using analysis::CensusTable;

// Code points of UTF-8 text (the width of a cell; "µs" is two bytes but two columns).
size_t Width(std::string_view text) {
  size_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string PadLeft(std::string_view text, size_t width) {
  const size_t w = Width(text);
  return std::string(w < width ? width - w : 0, ' ') + std::string(text);
}

std::string PadRight(std::string_view text, size_t width) {
  const size_t w = Width(text);
  return std::string(text) + std::string(w < width ? width - w : 0, ' ');
}

// A name on one line of the text table (names may hold tabs and newlines).
std::string FlatCell(std::string_view text) {
  std::string out(text);
  std::replace_if(
      out.begin(), out.end(), [](char c) { return c == '\n' || c == '\t'; }, ' ');
  return out;
}

std::string Plural(int64_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

// "trace.sqlite (native, device 0 NVIDIA H200, clock monotonic), window all: 1200 dispatches
//  of 31 names, 5512.345 µs GPU time (sum of durations), classes of pack pytorch-cuda"; a
// range reads "window 100..200 ns (40 of the device's 1200 dispatches start in it): 40
// dispatches of ...".
std::string HeadingLine(const CensusHeading& h, const CensusTable& table) {
  std::string device = "device " + std::to_string(h.device);
  if (!h.device_name.empty()) device += " " + h.device_name;
  std::string window = "all";
  if (h.range) {
    window = fmt::format("{}..{} ns ({} of the device's {} start in it)", h.range->lo, h.range->hi,
                         table.dispatches, Plural(h.device_dispatches, "dispatch", "dispatches"));
  }
  std::string names = Plural(table.names, "name", "names");
  if (h.by_class) {
    names += " in " + Plural(static_cast<int64_t>(table.rows.size()), "class", "classes");
  }
  return fmt::format(
      "{} ({}, {}, clock {}), window {}: {} of {}, {} µs GPU time (sum of "
      "durations), classes of pack {}",
      FlatCell(h.trace), h.format, device, h.clock, window,
      Plural(table.dispatches, "dispatch", "dispatches"), names, MicrosecondsText(table.total_ns),
      h.pack);
}

std::string MoreLine(const CensusCut& cut) {
  return fmt::format("... {} more {} ({} % of the GPU time, {} µs); --top 0 shows all",
                     cut.omitted_rows, cut.omitted_rows == 1 ? "row" : "rows",
                     base::FormatFixed(cut.omitted_share_pct, 2),
                     MicrosecondsText(cut.omitted_total_ns));
}

constexpr size_t kColumns = 8;
using Cells = std::array<std::string, kColumns>;

Cells Header(bool by_class) {
  if (by_class) {
    return {"Time %", "Total µs", "Calls", "Avg µs", "Min µs", "Max µs", "Names", "Class"};
  }
  return {"Time %", "Total µs", "Calls", "Avg µs", "Min µs", "Max µs", "Class", "Name"};
}

Cells RowCells(const CensusRow& row, bool by_class) {
  return {base::FormatFixed(row.share_pct, 2),
          MicrosecondsText(row.total_ns),
          std::to_string(row.calls),
          MicrosecondsText(row.avg_ns),
          MicrosecondsText(row.min_ns),
          MicrosecondsText(row.max_ns),
          by_class ? std::to_string(row.names) : row.class_name,
          row.name};
}

std::string TableText(const CensusHeading& h, const CensusTable& table, const CensusCut& cut) {
  std::vector<Cells> lines;
  lines.push_back(Header(h.by_class));
  for (const CensusRow& row : cut.shown) {
    Cells cells = RowCells(row, h.by_class);
    cells[7] = FlatCell(cells[7]);
    if (!h.by_class) cells[6] = FlatCell(cells[6]);
    lines.push_back(std::move(cells));
  }
  std::array<size_t, kColumns> width{};
  for (const Cells& cells : lines) {
    for (size_t i = 0; i < kColumns; ++i) width[i] = std::max(width[i], Width(cells[i]));
  }
  // Numbers right-aligned; the 7th column too when it is a count (by class); the last as is.
  const bool count_column = h.by_class;
  std::string out = HeadingLine(h, table) + "\n\n";
  for (const Cells& cells : lines) {
    std::string line;
    for (size_t i = 0; i < 6; ++i) line += PadLeft(cells[i], width[i]) + "  ";
    line += count_column ? PadLeft(cells[6], width[6]) : PadRight(cells[6], width[6]);
    line += "  " + cells[7];
    out += line + "\n";
  }
  if (cut.omitted_rows > 0) out += MoreLine(cut) + "\n";
  return out;
}

std::string MarkdownText(const CensusHeading& h, const CensusTable& table, const CensusCut& cut) {
  std::string out = EscapeCell(HeadingLine(h, table)) + "\n\n";
  const Cells header = Header(h.by_class);
  out += "|";
  for (const std::string& cell : header) out += " " + cell + " |";
  out += "\n|---:|---:|---:|---:|---:|---:|" + std::string(h.by_class ? "---:|---|" : "---|---|") +
         "\n";
  for (const CensusRow& row : cut.shown) {
    Cells cells = RowCells(row, h.by_class);
    out += "|";
    for (size_t i = 0; i < kColumns; ++i) {
      std::string cell = EscapeCell(cells[i]);
      // Names and classes as code, so that Markdown leaves their * and _ alone.
      const bool text_column = i == 7 || (i == 6 && !h.by_class);
      if (text_column && cell.find('`') == std::string::npos) cell = "`" + cell + "`";
      out += " " + cell + " |";
    }
    out += "\n";
  }
  if (cut.omitted_rows > 0) out += "\n" + MoreLine(cut) + "\n";
  return out;
}

std::string CsvText(const CensusHeading& h, const CensusCut& cut) {
  std::string out = h.by_class ? "class,names,calls,total_ns,avg_ns,min_ns,max_ns,share_pct\r\n"
                               : "kernel,class,calls,total_ns,avg_ns,min_ns,max_ns,share_pct\r\n";
  for (const CensusRow& row : cut.shown) {
    out += base::CsvField(row.name) + ",";
    out += h.by_class ? std::to_string(row.names) : base::CsvField(row.class_name);
    out += fmt::format(",{},{},{},{},{},{}\r\n", row.calls, row.total_ns, row.avg_ns, row.min_ns,
                       row.max_ns, base::FormatFixed(row.share_pct, 3));
  }
  return out;
}

std::string JsonText(const CensusHeading& h, const CensusTable& table, const CensusCut& cut) {
  using base::JsonValue;
  JsonValue doc = JsonValue::MakeObject();
  doc.Add("trace", JsonValue::Str(h.trace));
  doc.Add("format", JsonValue::Str(h.format));
  doc.Add("device", JsonValue::Int(h.device));
  doc.Add("device_name", h.device_name.empty() ? JsonValue::Null() : JsonValue::Str(h.device_name));
  doc.Add("clock", JsonValue::Str(h.clock));
  doc.Add("pack", JsonValue::Str(h.pack));
  doc.Add("by", JsonValue::Str(h.by_class ? "class" : "name"));
  JsonValue& window = doc.Add("window", JsonValue::MakeObject());
  window.Add("kind", JsonValue::Str(h.range ? "range" : "all"));
  if (h.range) {
    window.Add("start_ns", JsonValue::Int(h.range->lo));
    window.Add("end_ns", JsonValue::Int(h.range->hi));
  }
  doc.Add("device_dispatches", JsonValue::Int(h.device_dispatches));
  doc.Add("dispatches", JsonValue::Int(table.dispatches));
  doc.Add("names", JsonValue::Int(table.names));
  doc.Add("total_ns", JsonValue::Int(table.total_ns));
  JsonValue& rows = doc.Add("rows", JsonValue::MakeArray());
  for (const CensusRow& row : cut.shown) {
    JsonValue r = JsonValue::MakeObject();
    if (h.by_class) {
      r.Add("class", JsonValue::Str(row.name));
      r.Add("names", JsonValue::Int(row.names));
    } else {
      r.Add("kernel", JsonValue::Str(row.name));
      r.Add("kind", JsonValue::Str(trace::DispatchKindName(row.kind)));
      r.Add("class", JsonValue::Str(row.class_name));
    }
    r.Add("calls", JsonValue::Int(row.calls));
    r.Add("total_ns", JsonValue::Int(row.total_ns));
    r.Add("avg_ns", JsonValue::Int(row.avg_ns));
    r.Add("min_ns", JsonValue::Int(row.min_ns));
    r.Add("max_ns", JsonValue::Int(row.max_ns));
    r.Add("share_pct", JsonValue::Float(base::PyRound(row.share_pct, 3)));
    rows.Push(std::move(r));
  }
  doc.Add("rows_omitted", JsonValue::Int(cut.omitted_rows));
  doc.Add("omitted_total_ns", JsonValue::Int(cut.omitted_total_ns));
  return doc.Dump() + "\n";
}

}  // namespace

std::string MicrosecondsText(int64_t ns) {
  const bool negative = ns < 0;
  // Magnitude without overflow at INT64_MIN.
  const uint64_t magnitude =
      negative ? static_cast<uint64_t>(-(ns + 1)) + 1 : static_cast<uint64_t>(ns);
  return fmt::format("{}{}.{:03}", negative ? "-" : "", magnitude / 1000, magnitude % 1000);
}

std::string CensusText(const CensusHeading& heading, const CensusTable& table, CensusFormat format,
                       size_t top) {
  const CensusCut cut = analysis::CutCensus(table, top);
  switch (format) {
    case CensusFormat::kTable:
      return TableText(heading, table, cut);
    case CensusFormat::kCsv:
      return CsvText(heading, cut);
    case CensusFormat::kJson:
      return JsonText(heading, table, cut);
    case CensusFormat::kMarkdown:
      break;
  }
  return MarkdownText(heading, table, cut);
}

}  // namespace decodeprof::report
