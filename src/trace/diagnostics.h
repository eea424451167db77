// Diagnostics: one table of everything odd that an import, an analysis, a recording or a
// report saw (the pattern of Perfetto's `stats`). Every code is declared once, in
// DECODEPROF_DIAGNOSTICS (diagnostics_list.h), with its severity, source and one-line meaning;
// importers and analysis count into a Diagnostics, and the summary carries its non-zero
// entries.
//
// Severities (SeverityName):
//   info     — worth knowing, changes no figure (events of kinds decodeprof does not use);
//   warning  — unusual but possible input; the figures stand but may mislead (printed);
//   data-loss — records are missing: the figures undercount (printed);
//   error    — the input cannot be right: the job fails with exit 65 and writes nothing.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/trace/diagnostics_list.h"

namespace decodeprof::trace {

const char* SeverityName(Severity s);  // "info", "warning", "data-loss", "error"
// "importer", "window", "analysis", "recorder", "report", "cli"
const char* SourceName(DiagSource s);

struct DiagnosticInfo {
  Diag code;
  std::string_view name;  // snake_case, as the summary JSON writes it
  Severity severity;
  DiagSource source;
  std::string_view meaning;
};

// Every code's entry, in code order.
std::span<const DiagnosticInfo> AllDiagnostics();
const DiagnosticInfo& Describe(Diag code);

// Where a diagnostic was first seen: the file, a position in it ("line 12", "byte 3456",
// "table kernels id 7", or "" for the file as a whole) and what was there.
struct DiagnosticExample {
  std::string file;
  std::string position;
  std::string detail;
};

struct DiagnosticEntry {
  Diag code;
  int64_t count = 0;
  DiagnosticExample first;
};

class Diagnostics {
 public:
  // Counts `count` (> 0) occurrences of `code` (saturating at INT64_MAX); the first call's
  // example is kept.
  void Add(Diag code, int64_t count, DiagnosticExample first = {});
  // Counts `count` occurrences of `detail`'s code, the first example's detail its text, at
  // `file` and `position`.
  void Add(const DiagMessage& detail, int64_t count, std::string file = {},
           std::string position = {});
  // Gives every example without a file this one (an importer's counts name no file).
  void SetFileIfEmpty(const std::string& file);
  // Adds every entry of `other` (counts add; this table's examples win).
  void Merge(const Diagnostics& other);

  // Non-zero entries, in code order.
  std::vector<DiagnosticEntry> entries() const;
  int64_t count(Diag code) const { return counts_[Index(code)]; }
  // True when some counted code has severity kError.
  bool has_error() const;

 private:
  static size_t Index(Diag code) { return static_cast<size_t>(code); }
  int64_t counts_[static_cast<size_t>(Diag::kCount_)] = {};
  DiagnosticExample first_[static_cast<size_t>(Diag::kCount_)];
};

// The native recorder counter named `counter` → its code, the code of source kRecorder of that
// name (kUnknownRecorderCounter for a name this build does not know).
Diag DiagForRecorderCounter(std::string_view counter);

// `code` counts records the recorder lost: a recorder counter of data-loss severity (their sum
// is the trace's "dropped records").
bool CountsLostRecords(Diag code);

// The records the recorder lost, by `diagnostics` (the sum of the CountsLostRecords codes,
// saturating).
int64_t LostRecords(const Diagnostics& diagnostics);

// The summary's `warnings` that the recorder's diagnostics stand for: "the recorder lost N
// records: the figures undercount" (records_lost) and the trace_incomplete sentence.
std::vector<DiagMessage> RecorderWarnings(const Diagnostics& diagnostics);

// `text` is the text of message `id` with some values (report reads a summary's warnings back
// as text: its trust flags leave out RecorderWarnings's when their data-loss codes are flagged).
bool IsMessageText(Msg id, std::string_view text);
// One of RecorderWarnings's texts.
bool IsRecorderWarning(std::string_view text);

// One occurrence of a code as printed: "warning: <text>" (info: "note", error: "error";
// data-loss is printed as a warning).
std::string DiagnosticText(const DiagMessage& message);
// The line a command prints on stderr for it: "decodeprof: <subcommand>: " + DiagnosticText.
std::string DiagnosticLine(std::string_view subcommand, const DiagMessage& message);

// The list as a Markdown table (code, severity, source, meaning), one row per code in the
// list's order: the table of docs/user-guide.md (section 3, Diagnostics).
std::string DiagnosticsMarkdownTable();
// The messages as a Markdown table (code, message with its {names}), one row per message in
// the list's order: the second table of docs/user-guide.md's Diagnostics section.
std::string DiagnosticMessagesMarkdownTable();

}  // namespace decodeprof::trace
