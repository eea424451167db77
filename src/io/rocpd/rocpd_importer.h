// Importer of rocpd, rocprofv3's SQLite output ("rocpd schema 3": `rocprofv3 ...
// --output-format rocpd`, the default since ROCm 7.0; one `<name>_results.db` per process), as
// described in shared/reference/trace-formats-nsys-rocpd.md Part B (with its corrections in
// Part F). Part of decodeprof_io (folder io/rocpd); depends on io/common (SQLite reading),
// trace and base.
//
// Recognition (B3): an SQLite file with a table or view whose name starts with
// rocpd_kernel_dispatch or rocpd_event (the plain views, or the uuid-suffixed tables behind
// them); also an old rocmProfileData (RPD) database (tables rocpd_api and rocpd_op, Part C),
// so that its import can say what it is. Nsight Systems exports and native traces have none.
//
// Tables are read through the plain views (`rocpd_kernel_dispatch`, ...), which hide the
// per-run uuid suffix (B2). A file without a view is read from the one table named
// `<view>_<uuid>` (a schema variant); several such tables (several runs) without the view are
// an error. Rows are joined on (id, guid), as the shipped views do, so a file holding several
// runs joins each row with its own run's rows. Every table and column is probed; each
// optional one found missing is an adapted schema variant (diagnostic schema_variant, info,
// one entry listing them all). What is read:
//   rocpd_kernel_dispatch → kernel dispatches: start, end; device = the agent's number (below);
//       stream = queue_id (as the CSV importer reads Queue_Id); correlation = the stack_id of
//       its rocpd_event (the internal correlation id, which its launch call's event shares:
//       B6; 0 without an event); grid = product of max(grid_size_x|y|z, 1) (work-items, as
//       the CSV's Grid_Size); name = the --kernel-rename text (region_name_id) when not
//       empty, else rocpd_info_kernel_symbol.display_name (the SDK's formatted name, which
//       the CSV's Kernel_Name holds), else kernel_name without ".kd"; a "_Z..." symbol name
//       is demangled (base/demangle.h).
//   rocpd_memory_copy → memcpy dispatches named trace::MemcpyName(kind, Runtime::kHip) of the
//       copy's operation
//       (MEMORY_COPY_HOST_TO_DEVICE → Host-to-Device, ..._DEVICE_TO_HOST, ..._DEVICE_TO_DEVICE,
//       ..._HOST_TO_HOST; any other → "[HIP memcpy]"); device = the GPU among dst_agent_id
//       and src_agent_id (dst first), else dst, else src; stream = queue_id where present,
//       else stream_id (the HIP stream) where present, else 0. Schema 3 has no memset
//       table: hipMemset runs as a kernel, which rocpd_kernel_dispatch holds.
//   Dispatches are streamed in start order (ties: kernels, then copies, then id), `line` =
//   1-based position in that order.
//   Device numbering: rocpd_info_agent.logical_index, else absolute_index, else the agent's
//   id. rocprofv3's CSV writes Agent_Id "Agent N" with N the logical index by default (Part
//   F), so a run recorded as CSV and as rocpd numbers its devices alike (the GPU of a one-GPU
//   machine is device 1: the CPU is agent 0). rocpd_info_agent rows of type GPU → devices
//   (number, product_name, else name).
//   rocpd_region, by the category of its rocpd_event (B6, B8):
//     MARKER_* with name roctxThreadRangeA (roctxRangePush/Pop) → a range (trace::Range),
//       depth = nesting on its thread (rebuilt from time containment, as for NVTX: rocpd
//       stores none); roctxProcessRangeA (roctxRangeStart/Stop) → a range of depth -1;
//       roctxMarkA → a mark (below); any other marker operation (profiler control, naming,
//       roctxGetThreadId) is counted as events_skipped. Name = extdata's "message" ("" when
//       it has none), thread = the OS tid of its rocpd_info_thread row.
//     any other category (HIP_*, HSA_*, RCCL_*, ...) → a launch call (trace::ApiCall): name
//       (name_id's string, e.g. hipLaunchKernel), start, end, thread, correlation = its
//       event's stack_id. A region without an event has no category: a name starting with
//       "roctx" is taken as a marker, any other as a call without correlation (dropped).
//   rocpd_sample of a MARKER_* category (the event's, else its track's name: roctxMarkA, B8)
//       → a mark: a range from its timestamp to itself, named by its message, on its track's
//       thread, nesting like a push/pop range. Other samples (API calls that took no time,
//       whose function the schema does not name) are counted as events_skipped.
//   Ranges are returned by start, then depth, then id; rocpd writes a range once it ended,
//   so none is unended.
//   When the calls and dispatches come from more than one process (several (guid, pid)),
//   the internal correlation ids, unique only per process, become (k << 32) | stack_id with
//   k = 1, 2, ... the process in (guid, pid) order (then a stack_id must fit in 32 bits).
//   rocpd_metadata → meta rocpd_schema_version, rocpd_guid. Meta clock_mapping says the clock.
// Clock (B7): every time is CLOCK_BOOTTIME nanoseconds (rocprofiler-sdk's timestamps): the
// clock is boottime, so a bench log's boottime_ns marks cut the same window.
//
// Errors (kData unless said):
//   kIo,   where = path: missing or unreadable file.
//   where = path: not an SQLite database (a truncated or corrupt one: "the database is
//     corrupt"); an old rocmProfileData database (hint: re-record with rocprofv3 of ROCm 7 or
//     later); schema version 4 (experimental; B3); not a rocpd database (no
//     rocpd_kernel_dispatch); a table or view every schema-3 file has is missing, or lacks a
//     column ("table T has no column C"); several runs' tables without the plain views.
//   where = "<path>: <table> id <N>": end before start; a value of the wrong type ("start is
//     not an integer (text 'abc')"); NULL where the schema says NOT NULL; a string id not in
//     rocpd_string (also counted as dangling_string_id); a reference to an agent, kernel
//     symbol, event, thread or track row that does not exist (rocprofv3 writes with foreign
//     keys on, so none can be missing); a kernel without any name; an agent number, queue or
//     stream id out of range; a grid size beyond int64; an event's extdata that is not JSON
//     text or whose message is not a string; a stack_id that is negative (or beyond 32 bits
//     where correlations are made per process).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/base/status.h"
#include "src/io/importer.h"
#include "src/io/rocpd/rocpd_import.h"
#include "src/trace/trace.h"

namespace decodeprof::io {

// The plug-in (registered in src/io/builtin_importers.inc).
const Importer& RocpdImporter();

// Reads the database at `path` into `builder` (clock, meta, devices, diagnostics included).
// `options`: tests force the threaded read a large trace gets (RocpdReadOptions).
base::StatusOr<RocpdImport> ImportRocpd(const std::string& path, trace::TraceBuilder& builder,
                                        const RocpdReadOptions& options = {});

}  // namespace decodeprof::io
