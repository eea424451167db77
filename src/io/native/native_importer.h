// Importer of decodeprof's native trace file (src/native_format/schema.h,
// docs/trace-format.md): the SQLite file `decodeprof record` writes and every importer can
// convert to.
//
// Dispatches (kernels, and memcpy/memset) are streamed into a trace::DispatchSink in
// start order (ties: kernels before memory operations, then row id), with `line` = the
// 1-based position in that order and `grid` = product of max(grid_x|y|z, 1) (0 for memory
// operations, and when all three are 0: a converted trace that had no grid). Kernel names are the
// demangled names (a name the recorder had to leave mangled, "_Z...", is demangled here);
// memory operations are named
// "[CUDA memcpy Host-to-Device]", "[CUDA memcpy Device-to-Host]",
// "[CUDA memcpy Device-to-Device]", "[CUDA memcpy Host-to-Host]", "[CUDA memcpy Peer-to-Peer]",
// "[CUDA memcpy]" (other kinds) and "[CUDA memset]" ("[HIP memcpy ...]" and "[HIP memset]" in
// a file converted from rocpd, whose meta has rocpd_schema_version or a recorder "rocprofv3 ...").
// NVTX ranges, marks, counters and metadata are small and are returned whole.
//
// Launch API calls (correlation != 0) go to the model's launch table; the kernel → launch
// join is the model's (trace::LaunchIndex). Every counter, an incomplete file and a recording
// status other than "ok..." become diagnostics of the model.
//
// A file whose recorder was killed is readable up to its last commit: a leftover rollback
// journal is applied (which needs write access to the file's directory) and `complete` is
// false.
//
// Errors:
//   kIo, where = path: missing or unreadable file; a hot journal that cannot be rolled back.
//   kData, where = path: meta rank, world_size or local_rank that is not a decimal integer
//     from 0 (world_size: 1) to 2^31 - 1, a rank not below world_size, a devices_used that is
//     not a comma-separated list of such integers;
//   kData, where = path: not an SQLite database; no `meta` table or meta `format` is not
//     "decodeprof-native" ("not a decodeprof native trace ..."); `format_version` newer than
//     this reader's (hint: update decodeprof); an unknown `clock_domain`; a missing table.
//   kData, where = "<path>: <table> id <N>": end before start; a name/domain id that is not
//     in `strings`; a grid size (grid_x * grid_y * grid_z) beyond int64.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/base/status.h"
#include "src/io/importer.h"
#include "src/trace/dispatch.h"
#include "src/trace/dispatch_sink.h"
#include "src/trace/string_pool.h"
#include "src/trace/trace.h"

namespace decodeprof::io {

// One NVTX range. `depth` is the nesting depth of a push/pop range on its thread and domain
// (0 = outermost), -1 for a start/end range (which does not nest).
struct NativeRange {
  trace::StringId name = 0;
  trace::StringId domain = 0;  // "" = NVTX's default domain
  trace::TimestampNs start = 0;
  trace::TimestampNs end = 0;
  uint64_t thread = 0;  // OS thread id of the thread that opened it
  int32_t depth = 0;
};

// One NVTX mark (an instant).
struct NativeMark {
  trace::StringId name = 0;
  trace::StringId domain = 0;
  trace::TimestampNs time = 0;
  uint64_t thread = 0;
};

struct NativeImport {
  // The host clock of every timestamp; nullopt when the file says "unknown" (a trace
  // converted from a format whose clock is not known, e.g. rocprofv3 CSV).
  std::optional<trace::ClockDomain> clock;
  std::vector<NativeRange> ranges;  // by start, then depth, then row id
  std::vector<NativeMark> marks;    // by time, then row id
  int64_t kernels = 0;              // rows of table kernels (all of them went to the sink)
  int64_t memory_ops = 0;           // rows of table memory_ops (sent only if asked for)
  int64_t api_calls = 0;            // rows of table api_calls
  // Every counter of the file, and the sum of those that count lost records
  // (native_format::IsDataLossCounter: CUPTI's dropped records, translation failures, ...).
  std::map<std::string, int64_t> counters;
  int64_t dropped_records = 0;
  std::map<std::string, std::string> meta;  // every meta key (recorder, versions, ...)
  // meta complete == "1": the recorder closed the file (false after a kill or crash).
  bool complete = false;
  // meta recording_status: "ok", or why recording was off (e.g. CUPTI could not be loaded).
  std::string recording_status;
  // meta rank, world_size, local_rank, run_id and devices_used (trace::RankInfo), when the
  // file has a rank.
  std::optional<trace::RankInfo> rank;
};

struct NativeImportOptions {
  // Also stream memcpy and memset operations as dispatches (named as above).
  bool memory_ops_as_dispatches = false;
  // Also keep the ranges and marks in NativeImport (the builder gets the ranges either way).
  // The importer behind io::Importer does not: a trace with a range per dispatch would hold
  // them twice.
  bool keep_annotations = true;
  // Read the dispatches in start-time parts on several threads (one per available CPU, at
  // most 8, each of at least `rows_per_part` kernels) and hand them on in order: what a
  // caller that keeps every dispatch gets (TraceBuilder::keeps_everything). Tests set it to
  // exercise the parts on small files.
  bool read_in_parts = false;
  int64_t rows_per_part = int64_t{1} << 19;
  // A caller that keeps a window, not every dispatch, still gets the dispatches read in
  // start-time parts on threads (as many, of as many rows), each into a spool of its own
  // (64 Ki dispatches in memory, the rest in a temporary file) replayed in order: memory stays
  // bounded. false: one pass on the calling thread (the tests' reference).
  bool spool_parts = true;
  // Cut kForcedReadParts parts whatever the CPUs (as read_in_parts does): for tests.
  bool force_part_count = false;
};

// The plug-in (registered in src/io/builtin_importers.inc): streams kernels and memory
// operations into the model.
const Importer& NativeImporter();

// Reads `path`, streams its dispatches into `sink` (names interned into `names`) and returns
// everything else (for the recorder's own read-back, which wants the file's details).
base::StatusOr<NativeImport> ImportNative(const std::string& path, trace::StringPool& names,
                                          trace::DispatchSink& sink,
                                          const NativeImportOptions& options = {});
// The same into a builder of the caller's (its launch sink gets the launch calls).
base::StatusOr<NativeImport> ImportNative(const std::string& path, trace::TraceBuilder& builder,
                                          const NativeImportOptions& options = {});

}  // namespace decodeprof::io
