#include "src/trace/diagnostics.h"

#include <cstdint>
#include <utility>

namespace decodeprof::trace {
namespace {

constexpr DiagnosticInfo kDiagnosticInfo[] = {
#define DECODEPROF_DIAG_INFO(code, name, severity, source, meaning) \
  {Diag::code, name, Severity::severity, DiagSource::source, meaning},
    DECODEPROF_DIAGNOSTICS(DECODEPROF_DIAG_INFO)
#undef DECODEPROF_DIAG_INFO
};

// `text` matches the message text `pattern` from its byte `p` on, each {name} standing for one
// or more characters.
bool MatchesFrom(std::string_view pattern, size_t p, std::string_view text, size_t t) {
  while (p < pattern.size() && pattern[p] != '{') {
    if (t >= text.size() || text[t] != pattern[p]) return false;
    ++p;
    ++t;
  }
  if (p == pattern.size()) return t == text.size();
  const size_t close = pattern.find('}', p);
  if (close == std::string_view::npos) return false;
  for (size_t end = t + 1; end <= text.size(); ++end) {
    if (MatchesFrom(pattern, close + 1, text, end)) return true;
  }
  return false;
}

}  // namespace

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kDataLoss:
      return "data-loss";
    case Severity::kError:
      break;
  }
  return "error";
}

const char* SourceName(DiagSource s) {
  switch (s) {
    case DiagSource::kImporter:
      return "importer";
    case DiagSource::kWindow:
      return "window";
    case DiagSource::kAnalysis:
      return "analysis";
    case DiagSource::kRecorder:
      return "recorder";
    case DiagSource::kReport:
      return "report";
    case DiagSource::kCli:
      break;
  }
  return "cli";
}

std::span<const DiagnosticInfo> AllDiagnostics() { return kDiagnosticInfo; }

const DiagnosticInfo& Describe(Diag code) { return kDiagnosticInfo[static_cast<size_t>(code)]; }

void Diagnostics::Add(Diag code, int64_t count, DiagnosticExample first) {
  if (count <= 0) return;
  const size_t i = Index(code);
  if (counts_[i] == 0) first_[i] = std::move(first);
  // Counts come from files too (a recorder's counters): they saturate, never overflow.
  if (__builtin_add_overflow(counts_[i], count, &counts_[i])) counts_[i] = INT64_MAX;
}

void Diagnostics::Add(const DiagMessage& detail, int64_t count, std::string file,
                      std::string position) {
  Add(detail.code, count, {std::move(file), std::move(position), detail.text});
}

void Diagnostics::SetFileIfEmpty(const std::string& file) {
  for (size_t i = 0; i < std::size(counts_); ++i) {
    if (counts_[i] > 0 && first_[i].file.empty()) first_[i].file = file;
  }
}

void Diagnostics::Merge(const Diagnostics& other) {
  for (size_t i = 0; i < std::size(counts_); ++i) {
    if (other.counts_[i] > 0) Add(static_cast<Diag>(i), other.counts_[i], other.first_[i]);
  }
}

std::vector<DiagnosticEntry> Diagnostics::entries() const {
  std::vector<DiagnosticEntry> out;
  for (size_t i = 0; i < std::size(counts_); ++i) {
    if (counts_[i] > 0) out.push_back({static_cast<Diag>(i), counts_[i], first_[i]});
  }
  return out;
}

bool Diagnostics::has_error() const {
  for (size_t i = 0; i < std::size(counts_); ++i) {
    if (counts_[i] > 0 && kDiagnosticInfo[i].severity == Severity::kError) return true;
  }
  return false;
}

Diag DiagForRecorderCounter(std::string_view counter) {
  for (const DiagnosticInfo& info : kDiagnosticInfo) {
    if (info.source == DiagSource::kRecorder && info.name == counter) return info.code;
  }
  return Diag::kUnknownRecorderCounter;
}

bool CountsLostRecords(Diag code) {
  const DiagnosticInfo& info = Describe(code);
  return info.source == DiagSource::kRecorder && info.severity == Severity::kDataLoss;
}

int64_t LostRecords(const Diagnostics& diagnostics) {
  int64_t lost = 0;
  for (const DiagnosticEntry& e : diagnostics.entries()) {
    if (CountsLostRecords(e.code) && __builtin_add_overflow(lost, e.count, &lost)) {
      lost = INT64_MAX;  // counters of a damaged file: saturate
    }
  }
  return lost;
}

std::vector<DiagMessage> RecorderWarnings(const Diagnostics& diagnostics) {
  std::vector<DiagMessage> warnings;
  if (const int64_t lost = LostRecords(diagnostics); lost > 0) {
    warnings.push_back(Message<Msg::kSummaryRecordsLost>(lost));
  }
  if (diagnostics.count(Diag::kTraceIncomplete) > 0) {
    warnings.push_back(Message<Msg::kSummaryTraceIncomplete>());
  }
  return warnings;
}

bool IsMessageText(Msg id, std::string_view text) {
  return MatchesFrom(kMessages[static_cast<size_t>(id)].text, 0, text, 0);
}

bool IsRecorderWarning(std::string_view text) {
  return IsMessageText(Msg::kSummaryRecordsLost, text) ||
         IsMessageText(Msg::kSummaryTraceIncomplete, text);
}

std::string DiagnosticText(const DiagMessage& message) {
  const Severity severity = Describe(message.code).severity;
  const char* label = severity == Severity::kInfo    ? "note"
                      : severity == Severity::kError ? "error"
                                                     : "warning";
  return std::string(label) + ": " + message.text;
}

std::string DiagnosticLine(std::string_view subcommand, const DiagMessage& message) {
  return "decodeprof: " + std::string(subcommand) + ": " + DiagnosticText(message);
}

std::string DiagnosticMessagesMarkdownTable() {
  std::string out = "| code | message |\n|---|---|\n";
  for (const MessageInfo& m : kMessages) {
    std::string text;
    for (const char c : m.text) {
      if (c == '|') text += '\\';
      text += c;
    }
    out += "| `" + std::string(Describe(m.code).name) + "` | " + text + " |\n";
  }
  return out;
}

std::string DiagnosticsMarkdownTable() {
  std::string out = "| code | severity | source | meaning |\n|---|---|---|---|\n";
  for (const DiagnosticInfo& info : kDiagnosticInfo) {
    std::string meaning;
    for (const char c : info.meaning) {
      if (c == '|') meaning += '\\';  // a pipe would end the cell
      meaning += c;
    }
    out += "| `" + std::string(info.name) + "` | " + SeverityName(info.severity) + " | " +
           SourceName(info.source) + " | " + meaning + " |\n";
  }
  return out;
}

}  // namespace decodeprof::trace
