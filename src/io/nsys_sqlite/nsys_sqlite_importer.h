// Importer of Nsight Systems' SQLite export (`nsys export --type sqlite -o FILE.sqlite
// FILE.nsys-rep`, or `nsys profile --export sqlite`), as described in
// shared/reference/trace-formats-nsys-rocpd.md Part A. Part of decodeprof_io (folder
// io/nsys_sqlite); depends on io/common (SQLite reading), trace and base.
//
// Recognition (A1): an SQLite file with table StringIds and at least one of
// TARGET_INFO_SESSION_START_TIME, META_DATA_EXPORT (EXPORT_META_DATA in 2022 exports),
// NVTX_EVENTS, ThreadNames or a CUPTI_ACTIVITY_KIND_* table; never the legacy nvprof export
// (table StringTable). A report (`.nsys-rep`, `.qdrep`: leading bytes "NVIDIA Tegra Profiler
// Report") is recognized too, so that its import can say how to export it.
//
// Tables are created lazily by nsys and their columns differ between versions (A9), so every
// table and column is probed before it is read; each optional column found missing is an
// adapted schema variant (diagnostic schema_variant, info, one entry listing them all).
// What is read:
//   CUPTI_ACTIVITY_KIND_KERNEL  → kernel dispatches: start, end, deviceId, streamId,
//       correlationId, grid = product of max(gridX|Y|Z, 1); name = demangledName, else
//       mangledName, else shortName (StringIds ids), a "_Z..." name demangled.
//   CUPTI_ACTIVITY_KIND_MEMCPY / _MEMSET → memory dispatches (kinds memcpy / memset) named
//       trace::MemcpyName(copyKind) / trace::kMemsetName (copyKind is CUPTI's
//       CUpti_ActivityMemcpyKind, which ENUM_CUDA_MEMCPY_OPER only labels: the ENUM_* tables
//       are never needed, A8).
//   CUPTI_ACTIVITY_KIND_GRAPH_TRACE → one kernel-kind dispatch per graph-level CUDA-graph
//       launch, named "[CUDA graph <graphId>]" (grid 0); its rows are counted as
//       graph_level_trace (warning: the kernels inside are not in the file).
//   Dispatches are streamed in start order (ties: kernels, graph launches, memcpy, memset,
//   then rowid), `line` = 1-based position in that order.
//   CUPTI_ACTIVITY_KIND_RUNTIME (runtime and, with eventClass 1, driver calls; and a
//       CUPTI_ACTIVITY_KIND_DRIVER table should one exist) → launch calls (trace::ApiCall):
//       nameId's text without nsys's "_vNNNN" API-version suffix, start, end, thread = the tid
//       part of globalTid (A5), correlationId. correlationId is unique only within a process
//       (A10): in a trace whose calls come from several processes, every correlation (of
//       dispatches and calls alike) becomes (pid << 32) | correlationId.
//   NVTX_EVENTS → ranges (trace::Range) of eventType 59/70 (push/pop; depth = nesting on the
//       thread (globalTid), rebuilt as A7 says) and 60/71 (start/end; depth -1); name =
//       StringIds text of textId, else text (the NVTX domain is not part of it, as in the
//       native format's ranges); thread = tid part of globalTid. A range whose end
//       is NULL is left out and counted as unended_ranges (a push/pop one still encloses the
//       ranges opened inside it). Other event types (marks, domain and category names) are
//       counted as events_skipped. Ranges are returned by start, then depth, then rowid.
//   TARGET_INFO_GPU → devices (id, name).
//   META_DATA_EXPORT / EXPORT_META_DATA → meta nsys_product_version, nsys_schema_version;
//       META_DATA_CAPTURE's CUDA_GRAPH_TRACE_OPTIONS:MODE → meta nsys_cuda_graph_trace.
// Clock (A6): event times are nanoseconds since the session start. When
// TARGET_INFO_SESSION_START_TIME.systemClockNs is there (nsys 2025.6 and later), it is added to
// every time and the clock is monotonic: that the "target system clock" is CLOCK_MONOTONIC is
// inferred from its magnitude (A6, Part E 2), not documented. Otherwise the times stay
// session-relative and the clock is session (diagnostic session_clock). meta clock_mapping
// says which.
//
// Errors:
//   kIo,   where = path: missing or unreadable file.
//   kData, where = path: an Nsight Systems report (hint: the exact `nsys export` command, see
//     NsysExportCommand); not an SQLite database; not an nsys export (no StringIds; an nvprof
//     export); a table that lacks a column every nsys version has ("table T has no column C").
//   kData, where = "<path>: <table> rowid <N>": end before start; a string id that is not in
//     StringIds (also counted as dangling_string_id); a deviceId or streamId out of range; a
//     time beyond int64 once mapped; a kernel's grid size (gridX * gridY * gridZ) beyond int64.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/status.h"
#include "src/io/importer.h"
#include "src/io/nsys_sqlite/nsys_import.h"
#include "src/trace/trace.h"

namespace decodeprof::io {

// The plug-in (registered in src/io/builtin_importers.inc).
const Importer& NsysSqliteImporter();

// Reads the export at `path` into `builder` (clock, meta, devices, diagnostics included).
// `options`: tests force the threaded read a large trace gets (NsysReadOptions).
base::StatusOr<NsysImport> ImportNsysSqlite(const std::string& path, trace::TraceBuilder& builder,
                                            const NsysReadOptions& options = {});

// True if `head` (a file's first bytes) starts like an Nsight Systems report (.nsys-rep,
// .qdrep): "NVIDIA Tegra Profiler Report".
bool LooksLikeNsysReport(std::string_view head);

// The command that exports the report at `report_path` next to it:
// "nsys export --type sqlite -o <report_path without its extension>.sqlite <report_path>".
std::string NsysExportCommand(const std::string& report_path);

}  // namespace decodeprof::io
