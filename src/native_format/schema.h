// decodeprof::native_format — the native trace file: one SQLite database.
//
// This module owns the schema (this header) and the writer (native_writer.h). It depends on
// src/base and SQLite only, so that the CUPTI injection library can link it without the
// trace model or any importer (style.md 7.1, 7.8). The importer lives in src/io/native/.
//
// docs/trace-format.md is the user-facing description of the same schema; keep them in step.
//
// All timestamps are integer nanoseconds on the host clock named by the meta key
// `clock_domain` ("monotonic" for the CUPTI recorder, "boottime", or "unknown" for traces
// converted from a format whose clock is not known). Names are interned in `strings`.
#pragma once

#include <string_view>

#include "src/trace/diagnostics_list.h"

namespace decodeprof::native_format {

// Version of the schema below. A reader refuses a file whose version is newer than its own.
inline constexpr int kFormatVersion = 1;

// The value of meta key `format`: how a reader recognises a decodeprof native file.
inline constexpr std::string_view kFormatName = "decodeprof-native";

// The tables, created in this order by NativeWriter. Columns marked "0 = none" hold 0 when
// the recorder has no value (e.g. graph_id of a kernel not launched from a CUDA graph).
inline constexpr std::string_view kSchemaSql = R"sql(
CREATE TABLE meta(
  key   TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE counters(
  name  TEXT PRIMARY KEY NOT NULL,
  value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE strings(
  id   INTEGER PRIMARY KEY,
  text TEXT NOT NULL
);
CREATE TABLE devices(
  id                INTEGER PRIMARY KEY,
  name              TEXT NOT NULL,
  compute_major     INTEGER NOT NULL,
  compute_minor     INTEGER NOT NULL,
  multiprocessors   INTEGER NOT NULL,
  global_memory     INTEGER NOT NULL
);
CREATE TABLE kernels(
  id            INTEGER PRIMARY KEY,
  start_ns      INTEGER NOT NULL,
  end_ns        INTEGER NOT NULL,
  name_id       INTEGER NOT NULL,
  mangled_id    INTEGER NOT NULL,
  device        INTEGER NOT NULL,
  context       INTEGER NOT NULL,
  stream        INTEGER NOT NULL,
  correlation   INTEGER NOT NULL,
  grid_x        INTEGER NOT NULL,
  grid_y        INTEGER NOT NULL,
  grid_z        INTEGER NOT NULL,
  block_x       INTEGER NOT NULL,
  block_y       INTEGER NOT NULL,
  block_z       INTEGER NOT NULL,
  registers     INTEGER NOT NULL,
  static_smem   INTEGER NOT NULL,
  dynamic_smem  INTEGER NOT NULL,
  graph_id      INTEGER NOT NULL,
  graph_node_id INTEGER NOT NULL
);
CREATE TABLE memory_ops(
  id            INTEGER PRIMARY KEY,
  kind          INTEGER NOT NULL,
  copy_kind     INTEGER NOT NULL,
  bytes         INTEGER NOT NULL,
  start_ns      INTEGER NOT NULL,
  end_ns        INTEGER NOT NULL,
  device        INTEGER NOT NULL,
  context       INTEGER NOT NULL,
  stream        INTEGER NOT NULL,
  correlation   INTEGER NOT NULL,
  graph_id      INTEGER NOT NULL,
  graph_node_id INTEGER NOT NULL
);
CREATE TABLE api_calls(
  id           INTEGER PRIMARY KEY,
  name_id      INTEGER NOT NULL,
  start_ns     INTEGER NOT NULL,
  end_ns       INTEGER NOT NULL,
  thread       INTEGER NOT NULL,
  correlation  INTEGER NOT NULL,
  return_value INTEGER NOT NULL
);
CREATE TABLE ranges(
  id        INTEGER PRIMARY KEY,
  name_id   INTEGER NOT NULL,
  domain_id INTEGER NOT NULL,
  start_ns  INTEGER NOT NULL,
  end_ns    INTEGER NOT NULL,
  thread    INTEGER NOT NULL,
  depth     INTEGER NOT NULL,
  kind      INTEGER NOT NULL
);
CREATE TABLE marks(
  id        INTEGER PRIMARY KEY,
  name_id   INTEGER NOT NULL,
  domain_id INTEGER NOT NULL,
  time_ns   INTEGER NOT NULL,
  thread    INTEGER NOT NULL
);
)sql";

// Indexes the writer adds when it closes the file: kernels and memory operations in start
// order, for readers that stream them so (an optional part of the schema: a file without them
// is read the same, more slowly).
inline constexpr std::string_view kIndexSql = R"sql(
CREATE INDEX IF NOT EXISTS kernels_by_start ON kernels(start_ns, id);
CREATE INDEX IF NOT EXISTS memory_ops_by_start ON memory_ops(start_ns, id);
)sql";

// memory_ops.kind
enum class MemoryOpKind : int { kMemcpy = 1, kMemset = 2 };

// ranges.kind: how the range was opened. Push/pop ranges nest per thread and domain; their
// depth is 0 for an outermost range. Start/end ranges may end on another thread and do not
// nest: their depth is -1 and their thread is the one that started them.
enum class RangeKind : int { kPushPop = 0, kStartEnd = 1 };

// Meta keys written by every writer. Recorders add their own (recorder, cupti_version, ...;
// docs/trace-format.md lists them).
inline constexpr std::string_view kMetaFormat = "format";
inline constexpr std::string_view kMetaFormatVersion = "format_version";
inline constexpr std::string_view kMetaClockDomain = "clock_domain";
inline constexpr std::string_view kMetaComplete =
    "complete";  // "0" while recording, "1" once closed
inline constexpr std::string_view kMetaRecorder = "recorder";
inline constexpr std::string_view kMetaRecordingStatus = "recording_status";  // "ok" or why not
// What the recorder had to leave off ("MEMCPY: <CUPTI's error>; ..."), when anything.
inline constexpr std::string_view kMetaWarnings = "warnings";

// Counter names. Each is a diagnostic code of source recorder in the one list
// (trace/diagnostics_list.h: its severity and meaning); the data-loss ones count records that
// were lost, and readers add them up as "dropped records".
inline constexpr std::string_view kCounterCuptiDropped = "cupti_dropped_records";
inline constexpr std::string_view kCounterTranslationFailures = "translation_failures";
inline constexpr std::string_view kCounterIncompleteKernels = "incomplete_kernel_records";
inline constexpr std::string_view kCounterNvtxQueueFull = "nvtx_events_dropped";
inline constexpr std::string_view kCounterWriteFailures = "write_failures";
// Informational counters (not data loss). A refused buffer request makes CUPTI drop
// records, which it counts in cupti_dropped_records; this counts the refusals.
inline constexpr std::string_view kCounterBufferPoolExhausted = "buffer_pool_exhausted";
inline constexpr std::string_view kCounterNvtxUnmatchedPops = "nvtx_unmatched_pops";
inline constexpr std::string_view kCounterNvtxUnendedRanges = "nvtx_unended_ranges";
inline constexpr std::string_view kCounterUnknownRecords = "unknown_record_kinds";

// The list's recorder codes: name and severity (header-only: no trace model is linked).
struct RecorderCounterInfo {
  std::string_view name;
  trace::Severity severity;
};
inline constexpr RecorderCounterInfo kRecorderCounters[] = {
#define DECODEPROF_NF_COUNTER(code, name, severity, source, meaning)                  \
  {trace::DiagSource::source == trace::DiagSource::kRecorder ? std::string_view(name) \
                                                             : std::string_view(),    \
   trace::Severity::severity},
    DECODEPROF_DIAGNOSTICS(DECODEPROF_NF_COUNTER)
#undef DECODEPROF_NF_COUNTER
};

// True for a counter the list knows (a code of source recorder).
constexpr bool IsRecorderCounter(std::string_view name) {
  for (const RecorderCounterInfo& c : kRecorderCounters) {
    if (!c.name.empty() && c.name == name) return true;
  }
  return false;
}

// True for the counters that count lost records (data-loss severity in the list).
constexpr bool IsDataLossCounter(std::string_view name) {
  for (const RecorderCounterInfo& c : kRecorderCounters) {
    if (!c.name.empty() && c.name == name) return c.severity == trace::Severity::kDataLoss;
  }
  return false;
}

static_assert(IsDataLossCounter(kCounterCuptiDropped) &&
                  IsDataLossCounter(kCounterTranslationFailures) &&
                  IsDataLossCounter(kCounterIncompleteKernels) &&
                  IsDataLossCounter(kCounterNvtxQueueFull) &&
                  IsDataLossCounter(kCounterWriteFailures),
              "the data-loss counters are data-loss codes of source recorder in the list");
static_assert(IsRecorderCounter(kCounterBufferPoolExhausted) &&
                  IsRecorderCounter(kCounterNvtxUnmatchedPops) &&
                  IsRecorderCounter(kCounterNvtxUnendedRanges) &&
                  IsRecorderCounter(kCounterUnknownRecords) &&
                  !IsDataLossCounter(kCounterBufferPoolExhausted) &&
                  !IsDataLossCounter(kCounterNvtxUnmatchedPops) &&
                  !IsDataLossCounter(kCounterNvtxUnendedRanges) &&
                  !IsDataLossCounter(kCounterUnknownRecords),
              "the informational counters are codes of source recorder in the list");

}  // namespace decodeprof::native_format
