// Diagnostics: one table of everything odd that an import or an analysis saw (the pattern
// of Perfetto's `stats`). Every code is declared once, in kDiagnosticInfo (diagnostics.cc),
// with its severity and a one-line meaning; importers and analysis count into a
// Diagnostics, and the summary carries its non-zero entries.
//
// Severities:
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

namespace decodeprof::trace {

enum class Severity : uint8_t { kInfo, kWarning, kDataLoss, kError };
const char* SeverityName(Severity s);  // "info", "warning", "data-loss", "error"

// The codes. Keep in step with kDiagnosticInfo (a test checks every code has an entry).
enum class Diag : uint16_t {
  // The native recorder's counters (src/native_format/schema.h), one code each.
  kCuptiDroppedRecords,
  kTranslationFailures,
  kIncompleteKernelRecords,
  kNvtxEventsDropped,
  kWriteFailures,
  kBufferPoolExhausted,
  kNvtxUnmatchedPops,
  kNvtxUnendedRanges,
  kUnknownRecordKinds,
  kOnlyRangePeriods,
  kOnlyRangeSwitchFailures,
  kOnlyRangeApiCallsOutside,
  kSampleStepsSeen,
  kSamplePeriods,
  kSampleDroppedAfterPeriod,
  kUnknownRecorderCounter,
  // The recording itself.
  kTraceIncomplete,
  kRecordingNotOk,
  // Any importer.
  kEventsSkipped,
  kUnendedRanges,
  kBaseTimeAfterEvents,
  kLaunchNotFound,
  kDevicesInTrace,
  kGraphLevelTrace,
  kSessionClock,
  kDanglingStringId,
  kSchemaVariant,
  kZeroDurationDispatches,
  kDuplicateColumn,
  kNamesRepaired,
  kSampledSteps,
  kSamplingDistortion,
  kSamplingRunCost,
  kSampledStepsFew,
  kDispatchesOverlap,
  kDispatchesOverlapImpossible,
  kDispatchesOutOfStreamOrder,
  // The bench logs and the other inputs.
  kLogLineUnread,
  kDuplicateMarks,
  kLogMarksUnused,
  kLogWithoutResults,
  kModelDirWithoutConfig,
  // The window and the attribution.
  kStraddlingDecodeStart,
  kDecodeLoopUncertain,
  kDispatchLongerThanWindow,
  kHostGapResidual,
  kRoleRuleWarning,
  // Across the traces of `summarize --ranks`.
  kCollectiveCountMismatch,
  // The engine's own step names (analysis/engine_steps.h).
  kEngineStepsFew,
  // The pack and its classes.
  kPackChoiceWeak,
  kLargeKernelUnclassified,
  // The token count against the window.
  kTokensDisagreeWithSteps,
  // The speed-of-light ledger (analysis/speed_of_light.h).
  kSpeedOfLightContextUnknown,
  kSpeedOfLightLeftOut,
  kCount_,
};

struct DiagnosticInfo {
  Diag code;
  std::string_view name;  // snake_case, as the summary JSON writes it
  Severity severity;
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

// The native recorder counter named `counter` → its code (kUnknownRecorderCounter for a name
// this build does not know).
Diag DiagForRecorderCounter(std::string_view counter);

}  // namespace decodeprof::trace
